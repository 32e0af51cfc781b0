// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QFileSystemWatcher;

namespace shardscope::ui {

/// What identifies one version of a file on disk: device, inode, size and modification time (ns).
struct FileIdentity {
    bool exists = false;
    quint64 device = 0;
    quint64 inode = 0;
    qint64 size = 0;
    qint64 mtimeNs = 0;
    /// The identity of path now (exists false when it cannot be stat'ed).
    [[nodiscard]] static FileIdentity of(const QString& path);
    friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

/// The open document's file as this process last read or wrote it, and a watch on it: another program (or
/// another ShardScope) changing, replacing or recreating it is reported once per new version by changed().
class OpenFileWatch : public QObject
{
    Q_OBJECT
public:
    explicit OpenFileWatch(QObject* parent = nullptr);

    /// Remembers path's identity now (after an open or a save) and watches it; "" stops watching.
    void remember(const QString& path);
    [[nodiscard]] QString path() const { return m_path; }
    /// Whether the file exists and is not the version remembered.
    [[nodiscard]] bool changedOnDisk() const;

signals:
    void changed(const QString& path);

private:
    void check();

    QFileSystemWatcher* m_watcher;
    QString m_path;
    FileIdentity m_known;
    FileIdentity m_reported; ///< the last version changed() was emitted for
};

} // namespace shardscope::ui
