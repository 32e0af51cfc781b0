// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/import_controller.h"

#include "document/scenario_document.h"
#include "session/file_controller.h"
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
    { QT_TRANSLATE_NOOP("ImportController", "Megatron-LM arguments or launch script (*.sh *.txt *)"), core::ImportSource::MegatronArgs },
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
        lines << (i.field.empty() ? QString() : QString::fromStdString(core::escapeForTerminal(i.field)) + QStringLiteral(": "))
                + QString::fromStdString(core::escapeForTerminal(i.message));
    return lines.join(QLatin1Char('\n'));
}

} // namespace

ImportController::ImportController(ScenarioDocument* doc, FileController* files, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_files(files)
    , m_window(window)
{
    window->installEventFilter(this);
}

void ImportController::populateMenu(QMenu* menu)
{
    QAction* a = menu->addAction(tr("&Import…"), this, &ImportController::importDialog);
    a->setObjectName(QStringLiteral("importAction"));
    a->setToolTip(tr("Open a Hugging Face config.json, DeepSpeed config, Megatron-LM arguments or torchtitan TOML file as "
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
        path = QFileDialog::getOpenFileName(m_window, tr("Import configuration"),
            QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation), filters.join(QStringLiteral(";;")), &selected);
        for (const Filter& f : kFilters)
            if (tr(f.label) == selected)
                source = f.source;
    }
    if (!path.isEmpty())
        importFile(path, source);
}

bool ImportController::importFile(const QString& path, std::optional<core::ImportSource> source)
{
    const QString name = QFileInfo(path).fileName();
    std::string text, error;
    if (!core::readRegularFile(path.toStdString(), core::kMaxImportBytes, text, error)) {
        showMessage(m_window, tr("Cannot import %1").arg(name), QString::fromStdString(error), m_message);
        return false;
    }
    core::ImportSource src{};
    if (source) {
        src = *source;
    } else if (!core::detectImportSource(path.toStdString(), text, src)) {
        showMessage(m_window, tr("Cannot import %1").arg(name),
                    tr("The format could not be told from the file. Choose it in the file dialog's type list: %1.")
                        .arg(QString::fromLatin1(core::importSourceNames())),
                    m_message);
        return false;
    }
    // The open scenario is the base: a DeepSpeed config or a torchtitan job keeps the model you are looking at.
    core::ImportResult r = core::importConfig(src, text, m_doc->scenario(), false, {}, m_doc->catalog());
    if (!r.ok()) {
        showMessage(m_window, tr("Cannot import %1").arg(name),
                    tr("%1 (read as %2):\n%3").arg(name, QString::fromLatin1(core::toString(src)), describe(r.errors)), m_message);
        return false;
    }
    if (src != core::ImportSource::Scenario)
        r.scenario.name.clear(); // named from its content
    int fromFile = 0;
    for (const auto& f : r.fromWhere)
        fromFile += f.origin == core::toString(src);
    if (!m_files->openUntitled(r.scenario, tr("%1 (%2)").arg(name, QString::fromLatin1(core::toString(src)))))
        return false;
    emit statusMessage(tr("Imported %1 as %2: %n field(s) from the file, the rest from the scenario that was open", "",
                          fromFile).arg(name, QString::fromLatin1(core::toString(src))));
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
    core::ImportSource src{};
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
