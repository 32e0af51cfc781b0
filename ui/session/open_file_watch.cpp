// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/open_file_watch.h"

#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>

#include <sys/stat.h>

namespace shardscope::ui {

FileIdentity FileIdentity::of(const QString& path)
{
    struct stat st { };
    if (path.isEmpty() || ::stat(QFile::encodeName(path).constData(), &st) != 0)
        return {};
    return { true, quint64(st.st_dev), quint64(st.st_ino), qint64(st.st_size),
        qint64(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec };
}

OpenFileWatch::OpenFileWatch(QObject* parent)
    : QObject(parent)
    , m_watcher(new QFileSystemWatcher(this))
{
    // The folder too: a file replaced by a rename or deleted and written again loses its own watch.
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &OpenFileWatch::check);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &OpenFileWatch::check);
}

void OpenFileWatch::remember(const QString& path)
{
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
    m_path = path;
    m_known = FileIdentity::of(path);
    m_reported = m_known;
    if (path.isEmpty())
        return;
    m_watcher->addPath(QFileInfo(path).absolutePath());
    if (m_known.exists)
        m_watcher->addPath(path);
}

bool OpenFileWatch::changedOnDisk() const
{
    const FileIdentity now = FileIdentity::of(m_path);
    return now.exists && now != m_known;
}

void OpenFileWatch::check()
{
    if (m_path.isEmpty())
        return;
    const FileIdentity now = FileIdentity::of(m_path);
    if (now.exists && !m_watcher->files().contains(m_path))
        m_watcher->addPath(m_path); // a new inode at the same path
    if (!now.exists || now == m_known || now == m_reported)
        return;
    m_reported = now;
    emit changed(m_path);
}

} // namespace shardscope::ui
