// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/autosave.h"

#include <QMessageBox>
#include <QObject>

#include <functional>

class QAction;
class QMenu;
class QWidget;

namespace shardscope::ui {

class AppSettings;
class PinBoard;
class ScenarioDocument;

/// What to do with an autosave left by a crash (offerRecovery()).
enum class RecoveryChoice { Restore, Discard, Later };

/// New, Open, Save, Save As, Open Recent and Examples for the document, with the prompt before unsaved
/// changes are lost. Files are written atomically (QSaveFile). Dialogs are parented to the window.
/// Unsaved changes are autosaved (autosave()) and offered back after a crash (offerRecovery()).
class FileController : public QObject
{
    Q_OBJECT
public:
    FileController(ScenarioDocument* doc, AppSettings* settings, QWidget* window);

    /// Fills the File menu (actions with standard shortcuts, recent files, examples).
    void populateMenu(QMenu* menu);

    /// Asks to save unsaved changes. True: go ahead (saved, discarded or nothing to save); false: cancelled.
    bool maybeSave();
    /// Opens path without dialogs; false and *error on failure (the document is unchanged).
    bool openFile(const QString& path, QString* error = nullptr);
    /// Writes the document to path without dialogs; marks it saved on success.
    bool saveTo(const QString& path, QString* error = nullptr);
    /// Opens path, reporting problems in a message box (command line, recent files).
    bool open(const QString& path);

    /// Replaces the unsaved-changes prompt (tests): returns Save, Discard or Cancel.
    void setPromptHandler(std::function<QMessageBox::StandardButton()> handler) { m_prompt = std::move(handler); }
    /// Replaces the file dialogs (tests): returns the chosen path or "".
    void setFileDialogHandler(std::function<QString(bool save)> handler) { m_fileDialog = std::move(handler); }
    /// Replaces the crash-recovery question (tests): Restore, Discard or Later for one autosave.
    void setRecoveryPromptHandler(std::function<RecoveryChoice(const AutosaveEntry&)> handler) { m_recoveryPrompt = std::move(handler); }
    /// Replaces the error message boxes (tests): receives their title and text.
    void setMessageHandler(std::function<void(const QString& title, const QString& text)> handler) { m_message = std::move(handler); }

    /// The pinned scenarios saved with the file ("pins") and replaced on New/Open (issue 5, compare view).
    void setPinBoard(PinBoard* pins);

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
    /// At start-up: offers back each autosave of a ShardScope that did not exit normally (Restore, Discard,
    /// Later), newest first, until one is restored. Returns whether one was restored.
    bool offerRecovery();

signals:
    void statusMessage(const QString& text);

private:
    void rebuildRecentMenu();
    void openExample(const QString& resourcePath);
    QString askPath(bool save);
    RecoveryChoice askRecovery(const AutosaveEntry& entry);
    void warn(const QString& title, const QString& text);

    ScenarioDocument* m_doc;
    AppSettings* m_settings;
    QWidget* m_window;
    QMenu* m_recentMenu = nullptr;
    std::function<QMessageBox::StandardButton()> m_prompt;
    std::function<QString(bool)> m_fileDialog;
    std::function<RecoveryChoice(const AutosaveEntry&)> m_recoveryPrompt;
    std::function<void(const QString&, const QString&)> m_message;
    Autosaver* m_autosave;
    PinBoard* m_pins = nullptr;
};

} // namespace shardscope::ui
