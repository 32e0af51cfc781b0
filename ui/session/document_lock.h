// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <memory>

class QLockFile;

namespace shardscope::ui {

/// Marks a file as open in this ShardScope so that another instance opening it can warn first: a QLockFile
/// (flock'ed while held) in the runtime folder, named by a hash of the file's absolute path. Locks left by
/// processes that died are stale and ignored.
class DocumentLock
{
public:
    DocumentLock();
    ~DocumentLock();
    DocumentLock(const DocumentLock&) = delete;
    DocumentLock& operator=(const DocumentLock&) = delete;

    /// The process that holds path's lock (another ShardScope, or another document of this one), or 0.
    [[nodiscard]] static qint64 holder(const QString& absolutePath);
    /// The lock file of path: $XDG_RUNTIME_DIR/shardscope/<16 hex digits of SHA-1(path)>.lock (the app data
    /// folder when there is no runtime folder).
    [[nodiscard]] static QString lockFileFor(const QString& absolutePath);

    /// Holds path's lock instead of the previous one ("" releases it). False when another process holds it (the
    /// user chose to open it anyway): then nothing is held.
    bool lock(const QString& absolutePath);
    /// The path whose lock is held, or "".
    [[nodiscard]] QString path() const { return m_path; }

private:
    std::unique_ptr<QLockFile> m_file;
    QString m_path;
};

} // namespace shardscope::ui
