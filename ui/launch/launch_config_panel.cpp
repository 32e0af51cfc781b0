// SPDX-License-Identifier: GPL-3.0-or-later
#include "launch/launch_config_panel.h"

#include "document/scenario_document.h"
#include "export/numbers_export.h"
#include "util/message.h"

#include <shardscope/core/scenario_name.h>

#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTextDocument>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

namespace shardscope::ui {

LaunchConfigPanel::LaunchConfigPanel(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_target(new QComboBox(this))
    , m_note(plainLabel(this))
    , m_text(new QPlainTextEdit(this))
    , m_copy(new QPushButton(tr("&Copy"), this))
    , m_save(new QPushButton(tr("&Save…"), this))
{
    m_target->addItem(tr("DeepSpeed config (JSON)"), int(core::LaunchTarget::DeepSpeed));
    m_target->addItem(tr("PyTorch FSDP2 + torchrun"), int(core::LaunchTarget::Fsdp));
    m_target->addItem(tr("Megatron-LM arguments"), int(core::LaunchTarget::Megatron));
    m_target->addItem(tr("NCCL environment"), int(core::LaunchTarget::NcclEnv));
    m_target->setToolTip(
        tr("The framework to generate a configuration for; every option name is one the framework has."));
    m_text->setReadOnly(true);
    // Lines longer than the panel wrap (at a space, or anywhere in a long token) rather than run off its right edge;
    // the wrap is only on screen: Copy and Save give the lines as generated.
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setObjectName(QStringLiteral("launchConfigText"));
    m_note->setWordWrap(true);
    m_copy->setToolTip(tr("Copy the whole text to the clipboard"));

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("&Target:"), this);
    label->setBuddy(m_target);
    top->addWidget(label);
    top->addWidget(m_target, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_note, 1);
    buttons->addWidget(m_copy);
    buttons->addWidget(m_save);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_text, 1);
    layout->addLayout(buttons);

    connect(m_target, &QComboBox::activated, this, [this] { m_chosen = true; });
    connect(m_target, &QComboBox::currentIndexChanged, this, &LaunchConfigPanel::refresh);
    connect(m_doc, &ScenarioDocument::resultReady, this, [this] {
        chooseTarget();
        refresh();
    });
    connect(m_copy, &QPushButton::clicked, this, &LaunchConfigPanel::copy);
    connect(m_save, &QPushButton::clicked, this, &LaunchConfigPanel::saveDialog);
    chooseTarget();
    refresh();
}

core::LaunchTarget LaunchConfigPanel::target() const { return core::LaunchTarget(m_target->currentData().toInt()); }

void LaunchConfigPanel::setTarget(core::LaunchTarget target)
{
    m_chosen = true;
    m_target->setCurrentIndex(std::max(0, m_target->findData(int(target))));
}

QString LaunchConfigPanel::text() const { return m_config; }

void LaunchConfigPanel::chooseTarget()
{
    if (m_chosen || !m_doc->result().valid)
        return;
    const core::Scenario& s = m_doc->scenario();
    const core::LaunchTarget own = s.training.framework == core::Framework::Megatron ? core::LaunchTarget::Megatron
        : s.training.framework == core::Framework::DeepSpeed                         ? core::LaunchTarget::DeepSpeed
                                                                                     : core::LaunchTarget::Fsdp;
    for (core::LaunchTarget t :
        { own, core::LaunchTarget::Megatron, core::LaunchTarget::DeepSpeed, core::LaunchTarget::Fsdp })
        if (core::launchConfigIssues(s, t).empty()) {
            const QSignalBlocker block(m_target);
            m_target->setCurrentIndex(m_target->findData(int(t)));
            return;
        }
}

void LaunchConfigPanel::showText(const QString& text)
{
    // An edit that leaves the text as it was (a slider dragged through invalid values) lays out no document.
    if (text == m_shown)
        return;
    m_shown = text;
    // Hidden (the dock closed), an edit would lay out a document nobody sees: that waits for the panel to show.
    m_pending = !isVisible();
    if (!m_pending)
        putText();
}

void LaunchConfigPanel::putText()
{
    // Keep the scroll position while the user edits: only the text changes.
    const int scroll = m_text->verticalScrollBar() ? m_text->verticalScrollBar()->value() : 0;
    m_text->setPlainText(m_shown);
    if (m_text->verticalScrollBar())
        m_text->verticalScrollBar()->setValue(scroll);
}

void LaunchConfigPanel::showEvent(QShowEvent* event)
{
    if (m_pending) {
        m_pending = false;
        putText();
    }
    QWidget::showEvent(event);
}

void LaunchConfigPanel::refresh()
{
    const core::Result& r = m_doc->result();
    if (!r.valid) {
        m_config.clear();
        showText(tr("# No configuration: the scenario is invalid (see Issues)."));
        m_note->setText(QString());
    } else if (const auto refused = core::launchConfigIssues(m_doc->scenario(), target()); !refused.empty()) {
        // A layout the target cannot express is refused, never written wrongly (e.g. TP x CP for DeepSpeed).
        m_config.clear();
        QStringList lines;
        for (const core::Issue& i : refused)
            lines << QStringLiteral("# %1: %2").arg(QString::fromStdString(i.field), QString::fromStdString(i.message));
        showText(tr("# No %1 for this layout:\n%2").arg(m_target->currentText(), lines.join(QLatin1Char('\n'))));
        m_note->setText(tr("This layout cannot be expressed for the chosen target; another target may express it."));
    } else {
        m_config = QString::fromStdString(core::launchConfig(m_doc->scenario(), target()));
        showText(m_config);
        m_note->setText(r.fits ? QString()
                               : tr("Note: this layout needs more than the usable GPU memory (memory: %1).")
                                     .arg(QString::fromLatin1(core::toString(r.verdict))));
    }
    m_copy->setEnabled(!m_config.isEmpty());
    m_save->setEnabled(!m_config.isEmpty());
}

void LaunchConfigPanel::copy()
{
    if (m_config.isEmpty())
        return;
    QGuiApplication::clipboard()->setText(m_config);
    emit statusMessage(tr("Copied the %1").arg(m_target->currentText()));
}

QString LaunchConfigPanel::saveTo(const QString& path) const { return writeBytes(path, m_config.toUtf8()); }

QString LaunchConfigPanel::suggestedName() const
{
    QString stem = QString::fromStdString(core::scenarioTitle(m_doc->scenario())).simplified();
    stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    if (stem.isEmpty())
        stem = QStringLiteral("scenario");
    switch (target()) {
    case core::LaunchTarget::DeepSpeed: return stem + QStringLiteral("-ds_config.json");
    case core::LaunchTarget::Fsdp: return stem + QStringLiteral("-fsdp2.py");
    case core::LaunchTarget::Megatron: return stem + QStringLiteral("-megatron.sh");
    case core::LaunchTarget::NcclEnv: return stem + QStringLiteral("-nccl-env.sh");
    }
    return stem;
}

void LaunchConfigPanel::saveDialog()
{
    if (m_config.isEmpty())
        return;
    const QString dir = m_doc->filePath().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
        : QFileInfo(m_doc->filePath()).absolutePath();
    const QString suggested = QDir(dir).filePath(suggestedName());
    const QString path = m_fileDialog ? m_fileDialog(suggested)
                                      : QFileDialog::getSaveFileName(this, tr("Save launch configuration"), suggested);
    if (path.isEmpty())
        return;
    const QString error = saveTo(path);
    if (!error.isEmpty()) {
        if (!m_fileDialog)
            showMessage(this, tr("Cannot save"), tr("Cannot save %1:\n%2").arg(path, error));
        emit statusMessage(tr("Cannot save %1: %2").arg(path, error));
        return;
    }
    emit statusMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
}

QSize LaunchConfigPanel::sizeHint() const
{
    const int columns = QFontMetrics(m_text->font()).horizontalAdvance(QString(88, QLatin1Char('x')));
    const int chrome = m_text->frameWidth() * 2 + int(m_text->document()->documentMargin() * 2)
        + m_text->verticalScrollBar()->sizeHint().width() + 8;
    int width = columns + chrome;
    // Docked, the panel shares the window with the charts: at most kDockShare of its width (at 1280 pixels about 45
    // columns; longer lines wrap), so the charts keep the main area. Floating, it is a window of its own.
    const auto* dock = qobject_cast<const QDockWidget*>(parentWidget());
    if (dock && !dock->isFloating() && dock->parentWidget())
        width = std::min(width, dock->parentWidget()->width() * kDockSharePercent / 100);
    return { width, QWidget::sizeHint().height() };
}

LaunchConfigDock::LaunchConfigDock(ScenarioDocument* doc, QWidget* parent)
    : QDockWidget(tr("Launch Configuration"), parent)
    , m_panel(new LaunchConfigPanel(doc, this))
{
    setObjectName(QStringLiteral("launchConfigDock"));
    setWidget(m_panel);
    toggleViewAction()->setText(tr("&Launch Configuration"));
    toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
}

} // namespace shardscope::ui
