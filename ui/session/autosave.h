// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>

class QTimer;

namespace shardscope::ui {

class ScenarioDocument;

/// An autosave left behind by a ShardScope process that is no longer running (it crashed or was killed).
struct AutosaveEntry {
    QString contentPath; ///< the autosaved scenario, <key>.shardscope.json
    QString metaPath; ///< its sidecar, <key>.meta.json (written first: missing only for autosaves of older versions)
    QString originalPath; ///< the file the document belonged to; empty: it was untitled
    QString name; ///< the scenario's name (shortened)
    QDateTime savedAt; ///< when it was autosaved
    qint64 pid = 0; ///< the process that wrote it
};

/// Autosave of the open document (issue 6, "no lost work"). While the document has unsaved changes it (scenario and
/// pins) is written every interval() (30 s) to directory()/<key>.shardscope.json, with a sidecar <key>.meta.json
/// ({"schema": "shardscope.autosave/1", "original_path", "saved_at", "pid", "process_start", "name"}), which exists
/// before the scenario does (a kill between the writes never leaves a scenario without its file); both
/// are written atomically (core::writeFileAtomically: a failed write keeps the previous autosave and is reported
/// once, statusMessage() and failed()). key is the first 16 hex digits of the SHA-1 of the document's absolute
/// path, or "untitled", then "-<pid>", so two running instances never share a file.
/// The autosave is removed only once the document is clean again (saved successfully, New/Open, undo to the saved
/// state) and by discard() (the user chose Discard). It survives a crash, SIGTERM and SIGHUP (TerminationSignals
/// writes it first); orphans() finds those of dead processes.
class Autosaver : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultIntervalMs = 30'000;

    explicit Autosaver(ScenarioDocument* doc, QObject* parent = nullptr);

    /// QStandardPaths::AppDataLocation/autosave.
    [[nodiscard]] static QString defaultDirectory();
    [[nodiscard]] QString directory() const { return m_dir; }
    void setDirectory(const QString& dir);
    [[nodiscard]] int interval() const;
    /// The autosave period in milliseconds (tests use a short one).
    void setInterval(int ms);

    /// Writes the document now if it has unsaved changes. True when written or nothing needed writing.
    bool autosaveNow(QString* error = nullptr);
    /// Removes this process's autosave: the user saved, or decided to drop the changes.
    void discard();
    /// What the interval timer does each period: writes the autosave if the document changed since the last one
    /// (tests call it to step the timer without waiting for it).
    void tick();
    /// This process's autosave file, or "" when there is none.
    [[nodiscard]] QString currentFile() const { return m_current; }

    /// Autosaves written by processes that are no longer running, newest first.
    [[nodiscard]] QList<AutosaveEntry> orphans() const;
    /// Deletes an entry's files.
    static void removeEntry(const AutosaveEntry& entry);
    /// Whether pid is a running process; with startTime (from /proc, 0: unknown), also that it is the same one.
    [[nodiscard]] static bool processRunning(qint64 pid, qint64 startTime = 0);
    /// This process's start time as /proc/self/stat gives it (clock ticks since boot), 0 when unknown.
    [[nodiscard]] static qint64 processStartTime(qint64 pid);

signals:
    /// Written (path of the scenario file).
    void autosaved(const QString& path);
    /// A failed autosave, for the status bar.
    void statusMessage(const QString& text);
    /// The same, once per streak of failures, for a warning the user sees (the previous autosave is kept).
    void failed(const QString& text);

private:
    void onModifiedChanged(bool modified);
    [[nodiscard]] QString keyFor(const QString& documentPath) const;

    ScenarioDocument* m_doc;
    QTimer* m_timer;
    QString m_dir;
    QString m_current; ///< content file this process wrote last
    bool m_pending = false; ///< changes since the last autosave
    bool m_failed = false; ///< the last autosave failed (reported once)
};

} // namespace shardscope::ui
