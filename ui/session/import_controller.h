// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "shardscope/core/import.h"
#include "util/message.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

class QMenu;
class QWidget;

namespace shardscope::ui {

class FileController;
class ScenarioDocument;

/// File → Import… and dropped configuration files (issue 14): a Hugging Face config.json, a DeepSpeed config,
/// Megatron-LM arguments or a torchtitan TOML file becomes a new untitled scenario (FileController::openUntitled, so
/// unsaved changes are asked about first). The open scenario is the base: what the file does not give keeps its value.
/// Errors are shown naming the key and the supported values; warnings (unused keys, approximations) are listed.
class ImportController : public QObject
{
    Q_OBJECT
public:
    ImportController(ScenarioDocument* doc, FileController* files, QWidget* window);

    /// Adds "Import…" to the File menu.
    void populateMenu(QMenu* menu);
    /// Imports path as `source`, or as the format detected from its name and content. True when it opened.
    bool importFile(const QString& path, std::optional<core::ImportSource> source = std::nullopt);
    /// The format a dropped file is imported as: a regular file whose name or first bytes name an import format
    /// other than a scenario (scenario files are opened, not imported).
    static std::optional<core::ImportSource> importableDrop(const QString& path);

    /// Tests: replaces the file dialog (returns the path, sets the format or leaves it empty for detection) and the
    /// message boxes.
    void setDialogHandler(std::function<QString(std::optional<core::ImportSource>& source)> handler) { m_dialog = std::move(handler); }
    void setMessageHandler(MessageHandler handler) { m_message = std::move(handler); }

public slots:
    void importDialog();

signals:
    void statusMessage(const QString& text);

protected:
    /// Drops on the window of files importableDrop() accepts; everything else goes on to the window.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    ScenarioDocument* m_doc;
    FileController* m_files;
    QWidget* m_window;
    std::function<QString(std::optional<core::ImportSource>&)> m_dialog;
    MessageHandler m_message;
};

} // namespace shardscope::ui
