// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "session/autosave.h"
#include "session/recovery_dialog.h"
#include "session/document_lock.h"
#include "document/scenario_file.h"
#include "util/message.h"

#include <QMessageBox>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

class QAction;
class QMenu;
class QWidget;

namespace shardscope::ui {

class AppSettings;
class OpenFileWatch;
class ScenarioDocument;

/// What to do when Save finds the file changed on disk since it was opened or saved.
enum class ExternalChangeChoice { Reload, Overwrite, SaveAs, Cancel };

/// New, Open, Save, Save As, Open Recent and Examples for the document, with the prompt before unsaved
/// changes are lost. Dialogs are parented to the window.
/// - Files are written atomically (core::writeFileAtomically); a failed save keeps the old file, says why, and
///   leaves the document modified and its autosave in place.
/// - Files are read and parsed on a worker thread (regular files of at most kMaxScenarioFileBytes); a progress
///   dialog with Cancel appears after kProgressDelayMs. The file being opened is marked in the settings, so a
///   start-up after a crash or hang while opening it does not reopen it.
/// - The open file is watched: a change by another program is reported (non-modal, with Reload), and Save asks
///   Reload / Overwrite / Save As before replacing a file that changed.
/// - A file another running ShardScope has open (DocumentLock) is opened only after a warning.
/// Unsaved changes are autosaved (autosave()) and offered back after a crash (offerRecovery()).
class FileController : public QObject
{
    Q_OBJECT
public:
    /// Opening a file shows a progress dialog only if it takes longer than this.
    static constexpr int kProgressDelayMs = 300;

    FileController(ScenarioDocument* doc, AppSettings* settings, QWidget* window);

    /// Fills the File menu (actions with standard shortcuts, recent files, examples).
    void populateMenu(QMenu* menu);

    /// Asks to save unsaved changes. True: go ahead (saved, discarded or nothing to save); false: cancelled.
    bool maybeSave();
    /// Opens path (no message boxes; the progress dialog and the second-instance question may show); false and
    /// *error on failure, cancel or decline (the document is unchanged).
    bool openFile(const QString& path, QString* error = nullptr);
    /// Writes the document to path without dialogs; marks it saved on success.
    bool saveTo(const QString& path, QString* error = nullptr);
    /// Opens path, reporting problems in a message box (command line, recent files).
    bool open(const QString& path);
    /// Replaces the document with scenario as a new untitled one (a lesson step opened in the explorer), after
    /// asking to save unsaved changes: the user's file is never overwritten by it, and Save asks for a new file.
    /// False when the user cancelled (the document is unchanged).
    bool openUntitled(const core::Scenario& scenario, const QString& description);
    /// At start-up: reopens the last file opened or saved, unless the previous run stopped (crashed, hung, was
    /// killed) while opening it; that file is forgotten instead. Whether a file was opened.
    bool reopenLastScenario();

    /// Replaces the unsaved-changes prompt (tests): returns Save, Discard or Cancel.
    void setPromptHandler(std::function<QMessageBox::StandardButton()> handler) { m_prompt = std::move(handler); }
    /// Replaces the file dialogs (tests): returns the chosen path or "".
    void setFileDialogHandler(std::function<QString(bool save)> handler) { m_fileDialog = std::move(handler); }
    /// Replaces the crash-recovery list (tests): receives every autosave offered, returns which to restore and discard.
    void setRecoveryPromptHandler(std::function<RecoveryDecision(const QList<AutosaveEntry>&)> handler)
    {
        m_recoveryPrompt = std::move(handler);
    }
    /// Replaces the error message boxes (tests): receives their title and text.
    void setMessageHandler(MessageHandler handler) { m_message = std::move(handler); }
    /// Replaces the question Save asks when the file changed on disk (tests).
    void setExternalChangeHandler(std::function<ExternalChangeChoice(const QString& path)> handler)
    {
        m_externalChange = std::move(handler);
    }
    /// Replaces the warning before opening (or saving as) a file another ShardScope process has open (tests):
    /// receives the path and that process's id, returns whether to go ahead.
    void setSecondInstanceHandler(std::function<bool(const QString& path, qint64 pid)> handler)
    {
        m_secondInstance = std::move(handler);
    }
    /// Replaces readScenarioFile for Open (tests); it runs on a worker thread.
    void setScenarioReader(std::function<ScenarioLoad(const QString& path)> reader) { m_reader = std::move(reader); }

    /// Runs work on a worker thread while the event loop goes on without user input; after kProgressDelayMs a
    /// window-modal progress dialog (title, label) with Cancel appears. False when cancelled: the worker then finishes
    /// on its own, so work must own (capture by value) everything it touches. Open and Import both read this way.
    bool runInBackground(const QString& title, const QString& label, std::function<void()> work);

    /// The autosave of this document (interval, folder, orphans of crashed processes).
    [[nodiscard]] Autosaver* autosave() const { return m_autosave; }
    /// Opens an autosave as a modified document bound to its original file (or untitled); deletes the
    /// autosave once its content lives in this process. Asks first if the document has unsaved changes.
    bool restoreAutosave(const AutosaveEntry& entry, QString* error = nullptr);

public slots:
    void newScenario();
    void openDialog();
    bool save();
    bool saveAs();
    /// Reads the document's file again, dropping unsaved changes (no question: callers ask).
    bool reload();
    /// At start-up: offers back the autosaves of ShardScopes that did not exit normally, in one list (RecoveryDialog),
    /// newest first: one is restored, the discarded ones deleted, the rest kept. Returns whether one was restored.
    bool offerRecovery();

signals:
    void statusMessage(const QString& text);
    /// Another program changed the open file on disk (the document keeps its content and unsaved changes).
    void fileChangedOnDisk(const QString& path);

private:
    enum class OpenOutcome { Opened, Failed, Cancelled, Declined };
    OpenOutcome openPath(const QString& path, QString* error);
    /// readScenarioFile on a worker thread with a delayed progress dialog; nullopt when cancelled.
    std::optional<ScenarioLoad> readInBackground(const QString& path);
    /// Watches and locks the document's file (after an open or save).
    void bindTo(const QString& absolutePath);
    bool confirmDespiteOtherInstance(const QString& absolutePath, qint64 pid, const QString& action);
    ExternalChangeChoice askExternalChange(const QString& path);
    void showChangedOnDisk(const QString& path);
    void rebuildRecentMenu();
    void openExample(const QString& resourcePath);
    QString askPath(bool save);
    RecoveryDecision askRecovery(const QList<AutosaveEntry>& entries);
    void warn(const QString& title, const QString& text);

    ScenarioDocument* m_doc;
    AppSettings* m_settings;
    QWidget* m_window;
    QMenu* m_recentMenu = nullptr;
    std::function<QMessageBox::StandardButton()> m_prompt;
    std::function<QString(bool)> m_fileDialog;
    std::function<RecoveryDecision(const QList<AutosaveEntry>&)> m_recoveryPrompt;
    MessageHandler m_message; ///< tests: instead of message boxes (util/message.h)
    std::function<ExternalChangeChoice(const QString&)> m_externalChange;
    std::function<bool(const QString&, qint64)> m_secondInstance;
    std::function<ScenarioLoad(const QString&)> m_reader;
    Autosaver* m_autosave;
    OpenFileWatch* m_watch;
    DocumentLock m_lock;
    QPointer<QMessageBox> m_changedNotice;
};

} // namespace shardscope::ui
