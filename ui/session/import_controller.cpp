// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/import_controller.h"

#include "document/scenario_document.h"
#include "session/autosave.h"
#include "session/file_controller.h"
#include "settings/app_settings.h"
#include "util/message.h"

#include "shardscope/core/file_io.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QStandardPaths>
#include <QTimer>

#include <exception>
#include <memory>

namespace shardscope::ui {

namespace {

/// The file dialog's filters, each with the format it picks (none: detect from the file).
struct Filter {
    const char* label;
    std::optional<core::ImportSource> source;
};
const Filter kFilters[] = {
    { QT_TRANSLATE_NOOP("ImportController", "Detect the format from the file (*)"), std::nullopt },
    { QT_TRANSLATE_NOOP("ImportController", "Hugging Face config.json (*.json)"), core::ImportSource::HfConfig },
    { QT_TRANSLATE_NOOP("ImportController", "DeepSpeed config (*.json)"), core::ImportSource::DeepSpeed },
    { QT_TRANSLATE_NOOP("ImportController", "Megatron-LM arguments or launch script (*.sh *.txt *)"),
        core::ImportSource::MegatronArgs },
    { QT_TRANSLATE_NOOP("ImportController", "torchtitan job (*.toml)"), core::ImportSource::TorchTitan },
    { QT_TRANSLATE_NOOP("ImportController", "ShardScope scenario (*.json)"), core::ImportSource::Scenario },
};

/// The one local file a drag carries, or "".
QString draggedFile(const QMimeData* mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().front().isLocalFile())
        return {};
    return mime->urls().front().toLocalFile();
}

QString describe(const std::vector<core::Issue>& issues)
{
    QStringList lines;
    for (const auto& i : issues)
        lines << (i.field.empty() ? QString()
                                  : QString::fromStdString(core::escapeForTerminal(i.field)) + QStringLiteral(": "))
                + QString::fromStdString(core::escapeForTerminal(i.message));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

ImportController::ImportController(ScenarioDocument* doc, FileController* files, AppSettings* settings, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_files(files)
    , m_settings(settings)
    , m_window(window)
{
    window->installEventFilter(this);
}

void ImportController::populateMenu(QMenu* menu)
{
    QAction* a = menu->addAction(tr("&Import…"), this, &ImportController::importDialog);
    a->setObjectName(QStringLiteral("importAction"));
    a->setToolTip(
        tr("Open a Hugging Face config.json, DeepSpeed config, Megatron-LM arguments or torchtitan TOML file as "
           "a new scenario"));
}

void ImportController::importDialog()
{
    std::optional<core::ImportSource> source;
    QString path;
    if (m_dialog) {
        path = m_dialog(source);
    } else {
        QStringList filters;
        for (const Filter& f : kFilters)
            filters << tr(f.label);
        QString selected = filters.front();
        path = QFileDialog::getOpenFileName(
            m_window, tr("Import configuration"), dialogFolder(), filters.join(QStringLiteral(";;")), &selected);
        for (const Filter& f : kFilters)
            if (tr(f.label) == selected)
                source = f.source;
    }
    if (path.isEmpty())
        return;
    m_settings->setLastImportFolder(QFileInfo(path).absolutePath()); // chosen: the next import starts there
    importFile(path, source);
}

QString ImportController::dialogFolder() const
{
    const QString last = m_settings->lastImportFolder();
    return !last.isEmpty() && QFileInfo(last).isDir()
        ? last
        : QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
}

namespace {
/// What the import worker hands back: the file's format and the importer's result, or why neither.
struct ImportJob {
    QString failure; ///< the file could not be read, or its format not told
    core::ImportSource source {};
    core::ImportResult result;
};
} // namespace

bool ImportController::importFile(const QString& path, std::optional<core::ImportSource> source)
{
    const QString name = QFileInfo(path).fileName();
    // Unsaved edits are safe in the autosave before any importer runs on the file.
    m_files->autosave()->autosaveNow();
    // Read, detect and import on a worker thread (as Open reads): the window keeps painting, and a slow or hostile
    // file can be cancelled. The worker owns copies of what it reads: a cancelled one may finish later.
    auto job = std::make_shared<ImportJob>();
    Importer importer = m_importer;
    if (!importer)
        importer = [catalog = std::make_shared<const core::Catalog>(m_doc->catalog())](core::ImportSource src,
                       const std::string& text,
                       const core::Scenario& base) { return core::importConfig(src, text, base, false, {}, *catalog); };
    const bool finished = m_files->runInBackground(
        tr("Importing"), tr("Importing %1…").arg(name), [job, path, source, importer, base = m_doc->scenario()] {
            std::string text, error;
            if (!core::readRegularFile(path.toStdString(), core::kMaxImportBytes, text, error)) {
                job->failure = QString::fromStdString(error);
                return;
            }
            if (source) {
                job->source = *source;
            } else if (!core::detectImportSource(path.toStdString(), text, job->source)) {
                job->failure = ImportController::tr("The format could not be told from the file. Choose it in the file "
                                                    "dialog's type list: %1.")
                                   .arg(QString::fromLatin1(core::importSourceNames()));
                return;
            }
            // The open scenario is the base: a DeepSpeed config or a torchtitan job keeps the model you are looking at.
            try {
                job->result = importer(job->source, text, base);
            } catch (const std::exception& e) { // out of memory on a hostile file: a message, not a dead window
                job->failure
                    = ImportController::tr("The file could not be read: %1").arg(QString::fromLocal8Bit(e.what()));
            }
        });
    if (!finished) {
        emit statusMessage(tr("Importing %1 was cancelled").arg(name));
        return false;
    }
    if (!job->failure.isEmpty()) {
        showMessage(m_window, tr("Cannot import %1").arg(name), job->failure, m_message);
        return false;
    }
    const core::ImportSource src = job->source;
    core::ImportResult& r = job->result;
    if (!r.ok()) {
        showMessage(m_window, tr("Cannot import %1").arg(name),
            tr("%1 (read as %2):\n%3").arg(name, QString::fromLatin1(core::toString(src)), describe(r.errors)),
            m_message);
        return false;
    }
    if (src != core::ImportSource::Scenario)
        r.scenario.name.clear(); // named from its content
    int fromFile = 0;
    for (const auto& f : r.fromWhere)
        fromFile += f.origin == core::toString(src);
    if (!m_files->openUntitled(r.scenario, tr("%1 (%2)").arg(name, QString::fromLatin1(core::toString(src)))))
        return false;
    emit statusMessage(
        tr("Imported %1 as %2: %n field(s) from the file, the rest from the scenario that was open", "", fromFile)
            .arg(name, QString::fromLatin1(core::toString(src))));
    if (!r.warnings.empty())
        showMessage(m_window, tr("Imported %1 with notes").arg(name), describe(r.warnings), m_message);
    return true;
}

std::optional<core::ImportSource> ImportController::importableDrop(const QString& path)
{
    const QFileInfo info(path);
    if (!info.isFile())
        return std::nullopt;
    // Regular files only, bounded like every reader (a FIFO or a device is refused at once, core/file_io.h).
    std::string head, error;
    if (!core::readRegularFile(path.toStdString(), core::kMaxImportBytes, head, error))
        return std::nullopt;
    core::ImportSource src {};
    if (!core::detectImportSource(path.toStdString(), head, src) || src == core::ImportSource::Scenario)
        return std::nullopt;
    return src;
}

bool ImportController::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_window)
        return false;
    if (event->type() == QEvent::DragEnter) {
        auto* e = static_cast<QDragEnterEvent*>(event);
        if (importableDrop(draggedFile(e->mimeData()))) {
            e->acceptProposedAction();
            return true;
        }
    } else if (event->type() == QEvent::Drop) {
        auto* e = static_cast<QDropEvent*>(event);
        const QString path = draggedFile(e->mimeData());
        if (const auto src = importableDrop(path)) {
            e->acceptProposedAction();
            // After the drop has finished: the unsaved-changes question must not run inside the drag.
            QTimer::singleShot(0, this, [this, path, s = *src] { importFile(path, s); });
            return true;
        }
    }
    return false;
}

} // namespace shardscope::ui
