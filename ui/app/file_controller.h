// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMessageBox>
#include <QObject>

#include <functional>

class QAction;
class QMenu;
class QWidget;

namespace shardscope::ui {

class AppSettings;
class ScenarioDocument;

/// New, Open, Save, Save As, Open Recent and Examples for the document, with the prompt before unsaved
/// changes are lost. Files are written atomically (QSaveFile). Dialogs are parented to the window.
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

public slots:
    void newScenario();
    void openDialog();
    bool save();
    bool saveAs();

signals:
    void statusMessage(const QString& text);

private:
    void rebuildRecentMenu();
    void openExample(const QString& resourcePath);
    QString askPath(bool save);

    ScenarioDocument* m_doc;
    AppSettings* m_settings;
    QWidget* m_window;
    QMenu* m_recentMenu = nullptr;
    std::function<QMessageBox::StandardButton()> m_prompt;
    std::function<QString(bool)> m_fileDialog;
};

} // namespace shardscope::ui
