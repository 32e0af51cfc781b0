// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/editor_panel.h"

#include "document/scenario_document.h"
#include "editors/value_slider.h"
#include "explain/field_names.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>

namespace shardscope::ui {

EditorPanel::EditorPanel(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_form(new QFormLayout(this))
{
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_form->setContentsMargins(4, 4, 4, 4);
    m_form->setVerticalSpacing(4);
}

void EditorPanel::refresh()
{
    const core::Scenario& s = m_doc->scenario();
    for (const auto& r : m_refreshers)
        r(s);
    refreshExtras(s);
    ++m_refreshCount;
}

void EditorPanel::showResult(const core::Result& result) { resultExtras(m_doc->scenario(), result); }

QLabel* EditorPanel::addRow(const QString& field, QWidget* widget, const QString& toolTip)
{
    auto* label = new QLabel(fieldLabel(field) + QLatin1Char(':'), this);
    label->setBuddy(widget);
    if (!toolTip.isEmpty()) {
        widget->setToolTip(toolTip);
        label->setToolTip(toolTip);
    }
    widget->setProperty("scenarioField", field);
    widget->setAccessibleName(fieldLabel(field));
    m_form->addRow(label, widget);
    m_widgets.insert(field, widget);
    m_fieldOrder << field;
    m_labels.insert(field, label);
    return label;
}

void EditorPanel::setRowVisible(QWidget* widget, bool visible)
{
    if (widget->isHidden() == visible) // only on change: showing/hiding relayouts the form
        m_form->setRowVisible(widget, visible);
}

void EditorPanel::selectCatalogEntry(
    QComboBox* combo, int entries, const QString& id, bool custom, const QString& customLabel)
{
    const QSignalBlocker block(combo);
    int index = custom ? -1 : combo->findData(id);
    if (index >= entries)
        index = -1;
    if (index < 0) {
        if (combo->count() == entries)
            combo->addItem(customLabel, QString());
        else
            combo->setItemText(entries, customLabel);
        index = entries;
    } else if (combo->count() > entries) {
        combo->removeItem(entries);
    }
    combo->setCurrentIndex(index);
}

void EditorPanel::commit(
    const QString& field, const QString& valueText, const std::function<void(core::Scenario&)>& change)
{
    m_doc->edit(tr("Set %1 to %2").arg(fieldLabel(field), valueText), field, change);
}

QSpinBox* EditorPanel::addSpin(
    const QString& field, int min, int max, Get<int64_t> get, Set<int64_t> set, const QString& toolTip)
{
    auto* spin = new QSpinBox(this);
    spin->setRange(min, max);
    spin->setKeyboardTracking(false); // one edit per Enter / focus change, not per keystroke
    spin->setAccelerated(true);
    spin->setGroupSeparatorShown(true);
    addRow(field, spin, toolTip);
    connect(spin, &QSpinBox::valueChanged, this, [this, field, set](int v) {
        commit(field, QLocale().toString(v), [&set, v](core::Scenario& s) { set(s, v); });
    });
    addRefresher([spin, get, min, max](const core::Scenario& s) { showInSpinBox(spin, min, max, int(get(s))); });
    return spin;
}

QDoubleSpinBox* EditorPanel::addWideSpin(
    const QString& field, int64_t min, int64_t max, Get<int64_t> get, Set<int64_t> set, const QString& toolTip)
{
    auto* spin = new QDoubleSpinBox(this);
    spin->setDecimals(0);
    spin->setRange(double(min), double(max));
    spin->setKeyboardTracking(false);
    spin->setAccelerated(true);
    spin->setGroupSeparatorShown(true);
    addRow(field, spin, toolTip);
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, field, set](double d) {
        const auto v = int64_t(d);
        commit(field, QLocale().toString(qint64(v)), [&set, v](core::Scenario& s) { set(s, v); });
    });
    addRefresher([spin, get, min, max](
                     const core::Scenario& s) { showInSpinBox(spin, double(min), double(max), double(get(s))); });
    return spin;
}

QComboBox* EditorPanel::addEnum(
    const QString& field, std::span<const Choice> choices, Get<int> get, Set<int> set, const QString& toolTip)
{
    auto* combo = new QComboBox(this);
    for (const Choice& c : choices) {
        combo->addItem(QCoreApplication::translate("Choices", c.label), c.value);
        if (*c.hint)
            combo->setItemData(combo->count() - 1, QCoreApplication::translate("Choices", c.hint), Qt::ToolTipRole);
    }
    addRow(field, combo, toolTip);
    connect(combo, &QComboBox::activated, this, [this, field, set, combo](int index) {
        const int v = combo->itemData(index).toInt();
        commit(field, combo->itemText(index), [&set, v](core::Scenario& s) { set(s, v); });
    });
    addRefresher([combo, get](const core::Scenario& s) {
        const QSignalBlocker block(combo);
        combo->setCurrentIndex(combo->findData(get(s)));
    });
    return combo;
}

QCheckBox* EditorPanel::addCheck(const QString& field, Get<bool> get, Set<bool> set, const QString& toolTip)
{
    auto* check = new QCheckBox(this);
    addRow(field, check, toolTip);
    connect(check, &QCheckBox::toggled, this, [this, field, set](bool on) {
        commit(field, on ? tr("on") : tr("off"), [&set, on](core::Scenario& s) { set(s, on); });
    });
    addRefresher([check, get](const core::Scenario& s) {
        const QSignalBlocker block(check);
        check->setChecked(get(s));
    });
    return check;
}

ValueSlider* EditorPanel::addSlider(const QString& field, Get<int64_t> get, Set<int64_t> set, const QString& toolTip)
{
    auto* slider = new ValueSlider(this);
    addRow(field, slider, toolTip);
    if (!toolTip.isEmpty())
        slider->slider()->setToolTip(toolTip);
    connect(slider, &ValueSlider::valueEdited, this, [this, field, set](qint64 v) {
        commit(field, QLocale().toString(v), [&set, v](core::Scenario& s) { set(s, v); });
    });
    connect(slider, &ValueSlider::interactionStarted, m_doc, &ScenarioDocument::beginInteraction);
    connect(slider, &ValueSlider::interactionFinished, m_doc, &ScenarioDocument::endInteraction);
    addRefresher([slider, get](const core::Scenario& s) { slider->setValue(get(s)); });
    return slider;
}

void EditorPanel::markProblems(const QHash<QString, QString>& errors, const QHash<QString, QString>& warnings)
{
    for (auto it = m_labels.cbegin(); it != m_labels.cend(); ++it) {
        QString mark;
        if (errors.contains(it.key()))
            mark = QStringLiteral("e:") + errors.value(it.key());
        else if (warnings.contains(it.key()))
            mark = QStringLiteral("w:") + warnings.value(it.key());
        const QString before = m_marked.value(it.key());
        if (before == mark)
            continue;
        m_marked.insert(it.key(), mark);
        QLabel* label = it.value();
        QWidget* widget = m_widgets.value(it.key());
        // A style sheet re-polishes and repaints the label: set only when the kind of mark changes, not its message
        // (an issue's message quotes the values, which change with every edit of a dragged slider).
        const bool sameKind = before.left(2) == mark.left(2);
        if (mark.isEmpty()) {
            label->setStyleSheet(QString());
            label->setToolTip(widget->toolTip());
            continue;
        }
        // Okabe-Ito vermillion for errors, orange for warnings (colour only: bold would widen the form).
        if (!sameKind)
            label->setStyleSheet(
                mark.startsWith(QLatin1Char('e')) ? QStringLiteral("color:#D55E00") : QStringLiteral("color:#E69F00"));
        label->setToolTip(mark.mid(2));
    }
}

} // namespace shardscope::ui
