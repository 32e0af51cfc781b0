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

class AppSettings;
class FileController;
class ScenarioDocument;

/// File → Import… and dropped configuration files (issue 14): a Hugging Face config.json, a DeepSpeed config,
/// Megatron-LM arguments or a torchtitan TOML file becomes a new untitled scenario (FileController::openUntitled, so
/// unsaved changes are asked about first). The open scenario is the base: what the file does not give keeps its value.
/// Errors are shown naming the key and the supported values; warnings (unused keys, approximations) are listed.
/// The file is read and imported on a worker thread, as Open reads (FileController::runInBackground), after the
/// unsaved edits are autosaved; a failure is a non-blocking message and leaves the document as it was.
class ImportController : public QObject
{
    Q_OBJECT
public:
    ImportController(ScenarioDocument* doc, FileController* files, AppSettings* settings, QWidget* window);

    /// Adds "Import…" to the File menu.
    void populateMenu(QMenu* menu);
    /// Imports path as `source`, or as the format detected from its name and content. True when it opened.
    bool importFile(const QString& path, std::optional<core::ImportSource> source = std::nullopt);
    /// The format a dropped file is imported as: a regular file whose name or first bytes name an import format
    /// other than a scenario (scenario files are opened, not imported).
    static std::optional<core::ImportSource> importableDrop(const QString& path);

    /// The folder the file dialog starts in: the last one imported from, else Documents.
    [[nodiscard]] QString dialogFolder() const;
    /// Tests: replaces the file dialog (returns the path, sets the format or leaves it empty for detection) and the
    /// message boxes.
    void setDialogHandler(std::function<QString(std::optional<core::ImportSource>& source)> handler)
    {
        m_dialog = std::move(handler);
    }
    void setMessageHandler(MessageHandler handler) { m_message = std::move(handler); }
    /// What the worker calls instead of core::importConfig (tests): source, file text, base scenario.
    using Importer = std::function<core::ImportResult(core::ImportSource, const std::string&, const core::Scenario&)>;
    /// Replaces the importer (tests); it runs on a worker thread.
    void setImporter(Importer importer) { m_importer = std::move(importer); }

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
    AppSettings* m_settings;
    QWidget* m_window;
    std::function<QString(std::optional<core::ImportSource>&)> m_dialog;
    MessageHandler m_message;
    Importer m_importer;
};

} // namespace shardscope::ui
