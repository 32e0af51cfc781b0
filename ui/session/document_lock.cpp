// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/document_lock.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>

namespace shardscope::ui {

namespace {
std::unique_ptr<QLockFile> lockFile(const QString& absolutePath)
{
    const QString file = DocumentLock::lockFileFor(absolutePath);
    QDir().mkpath(QFileInfo(file).absolutePath());
    auto lock = std::make_unique<QLockFile>(file);
    lock->setStaleLockTime(0); // stale only when its process is gone, however old it is
    return lock;
}
} // namespace

DocumentLock::DocumentLock() = default;
DocumentLock::~DocumentLock() = default;

QString DocumentLock::lockFileFor(const QString& absolutePath)
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation);
    if (dir.isEmpty())
        dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    const QByteArray hash = QCryptographicHash::hash(absolutePath.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return QDir(dir).filePath(QStringLiteral("shardscope/%1.lock").arg(QString::fromLatin1(hash)));
}

qint64 DocumentLock::holder(const QString& absolutePath)
{
    const std::unique_ptr<QLockFile> probe = lockFile(absolutePath);
    if (probe->tryLock(0)) { // free, or stale and now removed
        probe->unlock();
        return 0;
    }
    qint64 pid = 0;
    QString host;
    QString app;
    if (probe->error() != QLockFile::LockFailedError || !probe->getLockInfo(&pid, &host, &app))
        return 0; // no folder to lock in, or unreadable: nothing known about other instances
    return pid;
}

bool DocumentLock::lock(const QString& absolutePath)
{
    if (absolutePath == m_path && m_file)
        return true;
    m_file.reset();
    m_path.clear();
    if (absolutePath.isEmpty())
        return true;
    std::unique_ptr<QLockFile> file = lockFile(absolutePath);
    if (!file->tryLock(0))
        return false;
    m_file = std::move(file);
    m_path = absolutePath;
    return true;
}

} // namespace shardscope::ui
