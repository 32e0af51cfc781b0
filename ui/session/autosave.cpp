// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/autosave.h"

#include "document/scenario_document.h"
#include "document/scenario_file.h"
#include "util/atomic_file.h"

#include <shardscope/core/scenario_name.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <csignal>
#include <sys/types.h>
#endif

namespace shardscope::ui {

namespace {
const QString kContentSuffix = QStringLiteral(".shardscope.json");
const QString kMetaSuffix = QStringLiteral(".meta.json");
constexpr int kMaxNameChars = 200;

QString metaPathFor(const QString& contentPath)
{
    return contentPath.left(contentPath.size() - kContentSuffix.size()) + kMetaSuffix;
}

/// The pid in "<key>-<pid>", or 0.
qint64 pidFromKey(const QString& key)
{
    const qsizetype dash = key.lastIndexOf(QLatin1Char('-'));
    bool ok = false;
    const qint64 pid = dash < 0 ? 0 : key.mid(dash + 1).toLongLong(&ok);
    return ok ? pid : 0;
}
} // namespace

Autosaver::Autosaver(ScenarioDocument* doc, QObject* parent)
    : QObject(parent)
    , m_doc(doc)
    , m_timer(new QTimer(this))
    , m_dir(defaultDirectory())
{
    m_timer->setInterval(kDefaultIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &Autosaver::tick);
    connect(m_doc, &ScenarioDocument::scenarioChanged, this, [this] { m_pending = true; });
    connect(m_doc, &ScenarioDocument::pinsEdited, this, [this] { m_pending = true; });
    connect(m_doc, &ScenarioDocument::modifiedChanged, this, &Autosaver::onModifiedChanged);
    connect(m_doc, &ScenarioDocument::filePathChanged, this, [this] {
        if (!m_doc->isModified())
            discard();
    });
}

QString Autosaver::defaultDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("autosave"));
}

void Autosaver::setDirectory(const QString& dir)
{
    if (dir == m_dir)
        return;
    discard();
    m_dir = dir;
    m_pending = m_doc->isModified();
}

int Autosaver::interval() const { return m_timer->interval(); }
void Autosaver::setInterval(int ms) { m_timer->setInterval(ms); }

void Autosaver::onModifiedChanged(bool modified)
{
    if (modified) {
        m_pending = true;
        if (!m_timer->isActive())
            m_timer->start();
        return;
    }
    m_timer->stop();
    discard();
}

QString Autosaver::keyFor(const QString& documentPath) const
{
    const QString base = documentPath.isEmpty()
        ? QStringLiteral("untitled")
        : QString::fromLatin1(
            QCryptographicHash::hash(QFileInfo(documentPath).absoluteFilePath().toUtf8(), QCryptographicHash::Sha1)
                .toHex()
                .left(16));
    return QStringLiteral("%1-%2").arg(base).arg(QCoreApplication::applicationPid());
}

void Autosaver::tick()
{
    if (m_pending)
        autosaveNow();
}

bool Autosaver::autosaveNow(QString* error)
{
    if (!m_doc->isModified()) {
        m_pending = false;
        return true;
    }
    const QString key = keyFor(m_doc->filePath());
    const QDir dir(m_dir);
    const QString content = dir.filePath(key + kContentSuffix);
    QString reason;
    if (!QDir().mkpath(m_dir))
        reason = tr("cannot create the folder %1").arg(QDir::toNativeSeparators(m_dir));
    // The sidecar exists before the scenario it describes: a first autosave writes it first, so a kill between the
    // two writes leaves a sidecar alone (orphans() removes it), never a scenario without the file it belongs to
    // (recovery said "never saved to a file"). Later ones write the scenario, then refresh the sidecar (the same
    // document and original file; a failed scenario write keeps the previous pair as it was). Each write is atomic.
    QByteArray metaBytes;
    if (reason.isEmpty()) {
        const qint64 pid = QCoreApplication::applicationPid();
        QJsonObject meta;
        meta[QStringLiteral("schema")] = QStringLiteral("shardscope.autosave/1");
        meta[QStringLiteral("original_path")] = m_doc->filePath();
        meta[QStringLiteral("saved_at")] = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
        meta[QStringLiteral("pid")] = pid;
        meta[QStringLiteral("process_start")] = processStartTime(pid);
        meta[QStringLiteral("name")]
            = QString::fromStdString(core::scenarioTitle(m_doc->scenario())).left(kMaxNameChars);
        metaBytes = QJsonDocument(meta).toJson(QJsonDocument::Indented);
    }
    const QString metaPath = metaPathFor(content);
    if (reason.isEmpty() && !QFileInfo::exists(metaPath))
        reason = writeBytes(metaPath, metaBytes);
    if (reason.isEmpty())
        reason = writeScenarioFile(content, m_doc->scenario(), m_doc->catalog(), m_doc->pins()); // pins too
    if (reason.isEmpty())
        reason = writeBytes(metaPath, metaBytes); // this autosave's time and name
    if (!reason.isEmpty()) {
        if (error)
            *error = reason;
        if (!m_failed) { // once per failure streak, not every 30 seconds
            const QString text = tr("Autosave failed: %1: %2").arg(QDir::toNativeSeparators(content), reason);
            emit statusMessage(text);
            emit failed(text);
        }
        m_failed = true;
        return false;
    }
    m_failed = false;
    if (!m_current.isEmpty() && m_current != content) {
        QFile::remove(m_current);
        QFile::remove(metaPathFor(m_current));
    }
    m_current = content;
    m_pending = false;
    emit autosaved(content);
    return true;
}

void Autosaver::discard()
{
    m_pending = false;
    if (m_current.isEmpty())
        return;
    QFile::remove(m_current);
    QFile::remove(metaPathFor(m_current));
    m_current.clear();
}

QList<AutosaveEntry> Autosaver::orphans() const
{
    QList<AutosaveEntry> entries;
    const QDir dir(m_dir);
    if (!dir.exists())
        return entries;
    const QStringList contents = dir.entryList({ QLatin1Char('*') + kContentSuffix }, QDir::Files);
    for (const QString& fileName : contents) {
        AutosaveEntry e;
        e.contentPath = dir.filePath(fileName);
        e.metaPath = metaPathFor(e.contentPath);
        const QString key = fileName.left(fileName.size() - kContentSuffix.size());
        e.pid = pidFromKey(key);
        qint64 startTime = 0;
        QFile metaFile(e.metaPath);
        if (metaFile.open(QIODevice::ReadOnly)) {
            const QJsonObject meta = QJsonDocument::fromJson(metaFile.read(64 * 1024)).object();
            e.originalPath = meta.value(QStringLiteral("original_path")).toString();
            e.name = meta.value(QStringLiteral("name")).toString();
            e.savedAt = QDateTime::fromString(meta.value(QStringLiteral("saved_at")).toString(), Qt::ISODateWithMs);
            if (const qint64 pid = meta.value(QStringLiteral("pid")).toInteger(); pid > 0)
                e.pid = pid;
            startTime = meta.value(QStringLiteral("process_start")).toInteger();
        }
        if (!e.savedAt.isValid())
            e.savedAt = QFileInfo(e.contentPath).lastModified();
        if (processRunning(e.pid, startTime))
            continue; // a running instance's (or our own) autosave
        entries << e;
    }
    // Sidecars whose scenario file is gone (a crash between the two writes of a first autosave).
    for (const QString& fileName : dir.entryList({ QLatin1Char('*') + kMetaSuffix }, QDir::Files)) {
        const QString key = fileName.left(fileName.size() - kMetaSuffix.size());
        if (!dir.exists(key + kContentSuffix) && !processRunning(pidFromKey(key)))
            QFile::remove(dir.filePath(fileName));
    }
    std::sort(entries.begin(), entries.end(),
        [](const AutosaveEntry& a, const AutosaveEntry& b) { return a.savedAt > b.savedAt; });
    return entries;
}

void Autosaver::removeEntry(const AutosaveEntry& entry)
{
    QFile::remove(entry.contentPath);
    if (!entry.metaPath.isEmpty())
        QFile::remove(entry.metaPath);
}

namespace {
/// State letter and start time (clock ticks after boot) of a process, from /proc/<pid>/stat; false if unreadable.
bool readProcStat(qint64 pid, char* state, qint64* startTime)
{
#ifdef Q_OS_LINUX
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so count fields after the last ')'.
    const qsizetype close = line.lastIndexOf(')');
    if (close < 0)
        return false;
    const QList<QByteArray> fields = line.mid(close + 2).split(' ');
    constexpr int kStartTime = 22 - 3; // field 22 of proc(5); the list starts at field 3 (state)
    if (fields.size() <= kStartTime || fields[0].isEmpty())
        return false;
    *state = fields[0].at(0);
    *startTime = fields[kStartTime].toLongLong();
    return true;
#else
    Q_UNUSED(pid);
    Q_UNUSED(state);
    Q_UNUSED(startTime);
    return false;
#endif
}
} // namespace

qint64 Autosaver::processStartTime(qint64 pid)
{
    char state = 0;
    qint64 start = 0;
    return readProcStat(pid, &state, &start) ? start : 0;
}

bool Autosaver::processRunning(qint64 pid, qint64 startTime)
{
    if (pid <= 0)
        return false;
    if (pid == QCoreApplication::applicationPid())
        return true;
#ifdef Q_OS_UNIX
    if (::kill(pid_t(pid), 0) != 0 && errno != EPERM)
        return false; // no such process
    char state = 0;
    qint64 start = 0;
    if (readProcStat(pid, &state, &start)) {
        if (state == 'Z' || state == 'X')
            return false; // killed, not yet reaped by its parent
        if (startTime > 0 && start != startTime)
            return false; // the pid was reused by another process after the crash
    }
    return true;
#else
    Q_UNUSED(startTime);
    return false;
#endif
}

} // namespace shardscope::ui
