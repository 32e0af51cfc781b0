// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/scenario_editor.h"

#include "document/scenario_document.h"
#include "editors/cluster_panel.h"
#include "editors/model_panel.h"
#include "editors/nccl_panel.h"
#include "editors/offload_panel.h"
#include "editors/parallelism_panel.h"
#include "editors/training_panel.h"
#include "explain/field_names.h"
#include "util/wheel_guard.h"

#include <shardscope/core/scenario_name.h>

#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStyle>
#include <QVBoxLayout>

#include <limits>

namespace shardscope::ui {

ScenarioEditor::ScenarioEditor(ScenarioDocument* doc, QWidget* parent)
    : QScrollArea(parent)
    , m_doc(doc)
    , m_content(new QWidget(this))
    , m_name(new QLineEdit(m_content))
{
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(6);

    auto* nameForm = new QFormLayout;
    nameForm->addRow(tr("Scenario:"), m_name);
    m_name->setToolTip(tr("Name of the scenario (saved in the file). Left empty, the name is made from the model, "
                          "GPUs, strategy and layout, and follows every change; pins, exports and the report use it."));
    m_name->setClearButtonEnabled(true);
    m_name->setProperty("scenarioField", QStringLiteral("name"));
    // QLineEdit's default maxLength (32767) would cut a longer name from a file; names have no limit but the file's.
    m_name->setMaxLength(std::numeric_limits<int>::max());
    layout->addLayout(nameForm);
    connect(m_name, &QLineEdit::editingFinished, this, [this] {
        const std::string name = m_name->text().trimmed().toStdString();
        m_name->setModified(false); // typed text is committed: refresh() shows the document's name again
        // Empty, or the generated name itself: the name keeps following the content (as when a file is read).
        m_doc->edit(tr("Rename scenario"), QStringLiteral("name"),
            [name](core::Scenario& s) { s.name = name == core::generatedName(s) ? std::string() : name; });
    });

    addGroup(tr("Model"), new ModelPanel(doc, m_content));
    addGroup(tr("Cluster"), new ClusterPanel(doc, m_content));
    addGroup(tr("Training"), new TrainingPanel(doc, m_content));
    addGroup(tr("Parallelism"), new ParallelismPanel(doc, m_content));
    addGroup(tr("Offload"), new OffloadPanel(doc, m_content));
    addGroup(tr("NCCL"), new NcclPanel(doc, m_content));
    layout->addStretch(1);
    setWidget(m_content);
    WheelGuard::install(this); // scrolling the form never edits the scenario
    // Never narrower than the form: a clipped spin box is worse than a narrower chart area.
    setMinimumWidth(
        m_content->minimumSizeHint().width() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2 * frameWidth());

    // The controls follow an edit, undo or redo at once; the issue marks and the parameter count follow its result.
    // Each once: the controls on the scenario change, the marks and the figures on its result.
    connect(doc, &ScenarioDocument::scenarioChanged, this, &ScenarioEditor::refresh);
    connect(doc, &ScenarioDocument::resultReady, this, &ScenarioEditor::showResult);
    refresh();
    showResult();
}

ScenarioEditor::~ScenarioEditor()
{
    // ~QWidget takes the focus from the name field, which emits editingFinished: no edit from a half-destroyed editor.
    disconnect(m_name, nullptr, this, nullptr);
}

void ScenarioEditor::addGroup(const QString& title, EditorPanel* panel)
{
    auto* box = new QGroupBox(title, m_content);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(panel);
    m_content->layout()->addWidget(box);
    m_panels << panel;
}

void ScenarioEditor::refresh()
{
    const core::Scenario& s = m_doc->scenario();
    if (!m_name->hasFocus() || !m_name->isModified()) { // keep what the user is typing, show everything else
        const QSignalBlocker block(m_name);
        m_name->setText(QString::fromStdString(s.name));
        m_name->setCursorPosition(0); // show the start of a long name
    }
    m_name->setPlaceholderText(QString::fromStdString(core::generatedName(s))); // the name while none is typed
    for (EditorPanel* p : std::as_const(m_panels))
        p->refresh();
}

void ScenarioEditor::showResult()
{
    // Mark the controls that the core's issues and warnings name.
    QHash<QString, QString> errors;
    QHash<QString, QString> warnings;
    const core::Result& r = m_doc->result();
    for (const core::Issue& i : r.issues)
        errors.insert(knownField(QString::fromStdString(i.field)), QString::fromStdString(i.message));
    for (const core::Issue& w : r.warnings)
        warnings.insert(knownField(QString::fromStdString(w.field)), QString::fromStdString(w.message));
    for (EditorPanel* p : std::as_const(m_panels)) {
        p->markProblems(errors, warnings);
        p->showResult(r);
    }
}

QSize ScenarioEditor::sizeHint() const
{
    const int scrollBar = style()->pixelMetric(QStyle::PM_ScrollBarExtent);
    return { m_content->sizeHint().width() + scrollBar + 2 * frameWidth() + 4, 640 };
}

QWidget* ScenarioEditor::widgetForField(const QString& field) const
{
    if (field == QLatin1String("name"))
        return m_name;
    QString f = knownField(field);
    while (!f.isEmpty()) {
        for (EditorPanel* p : m_panels)
            if (QWidget* w = p->widgetForField(f))
                return w;
        const int dot = f.lastIndexOf(QLatin1Char('.'));
        if (dot < 0)
            break;
        f.truncate(dot);
    }
    // A group-level field ("model"): the group's first control.
    const QString group = field.section(QLatin1Char('.'), 0, 0);
    for (EditorPanel* p : m_panels)
        for (const QString& known : p->fields())
            if (known.startsWith(group + QLatin1Char('.')))
                return p->widgetForField(known);
    return nullptr;
}

void ScenarioEditor::focusField(const QString& field)
{
    QWidget* w = widgetForField(field);
    if (!w)
        return;
    ensureWidgetVisible(w, 20, 40);
    w->setFocus(Qt::OtherFocusReason);
}

} // namespace shardscope::ui
