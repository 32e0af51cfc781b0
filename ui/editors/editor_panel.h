// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/enum_choices.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QHash>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace shardscope::ui {

class ScenarioDocument;
class ValueSlider;

/// Base of the editor groups: a form whose controls show the document's scenario (refresh(), under signal
/// blockers) and write back only through ScenarioDocument::edit(). Each control is registered under its
/// scenario field ("parallelism.tp") so issues can name and focus it.
class EditorPanel : public QWidget
{
    Q_OBJECT
public:
    EditorPanel(ScenarioDocument* doc, QWidget* parent);

    /// Shows the document's current scenario in every control (once per scenario change).
    void refresh();
    /// Shows what the document's newest result says about this panel's fields (once per result): derived figures
    /// (resultExtras); ScenarioEditor marks the fields its issues name with markProblems.
    void showResult(const core::Result& result);
    /// How often refresh() ran: the controls are redrawn once per scenario change, never again for its result.
    [[nodiscard]] int refreshCount() const { return m_refreshCount; }
    [[nodiscard]] QWidget* widgetForField(const QString& field) const { return m_widgets.value(field); }
    /// Registered fields in form order.
    [[nodiscard]] const QStringList& fields() const { return m_fieldOrder; }
    /// Marks the labels of fields with problems (field -> message; error or warning colour).
    void markProblems(const QHash<QString, QString>& errors, const QHash<QString, QString>& warnings);

protected:
    template <class T> using Get = std::function<T(const core::Scenario&)>;
    template <class T> using Set = std::function<void(core::Scenario&, T)>;

    /// Panel-specific refresh (value lists, enabled states, derived labels).
    virtual void refreshExtras(const core::Scenario&) { }
    /// Panel-specific figures that come from the result (the parameter count), for the document's scenario.
    virtual void resultExtras(const core::Scenario&, const core::Result&) { }

    QLabel* addRow(const QString& field, QWidget* widget, const QString& toolTip = {});
    /// A spin box over [min, max] (core validation's range) for an int field; a document value outside the range
    /// is shown as it is (showInSpinBox).
    QSpinBox* addSpin(
        const QString& field, int min, int max, Get<int64_t> get, Set<int64_t> set, const QString& toolTip = {});
    /// The same for a 64-bit field (sizes, batches): whole numbers in a QDoubleSpinBox, exact up to 2^53, which
    /// holds every value a scenario file can give (json_fields.cpp: 9e15).
    QDoubleSpinBox* addWideSpin(const QString& field, int64_t min, int64_t max, Get<int64_t> get, Set<int64_t> set,
        const QString& toolTip = {});
    QComboBox* addEnum(
        const QString& field, std::span<const Choice> choices, Get<int> get, Set<int> set, const QString& toolTip = {});
    QCheckBox* addCheck(const QString& field, Get<bool> get, Set<bool> set, const QString& toolTip = {});
    ValueSlider* addSlider(const QString& field, Get<int64_t> get, Set<int64_t> set, const QString& toolTip = {});
    /// Pushes change as one undo step "Set <field label> to <valueText>".
    void commit(const QString& field, const QString& valueText, const std::function<void(core::Scenario&)>& change);
    void addRefresher(std::function<void(const core::Scenario&)> refresher)
    {
        m_refreshers.push_back(std::move(refresher));
    }
    void setRowVisible(QWidget* widget, bool visible);
    /// Selects id in a combo whose first `entries` items are catalog entries (item data = id). A custom or
    /// modified entry gets one trailing item with customLabel; it is removed when no longer needed.
    static void selectCatalogEntry(
        QComboBox* combo, int entries, const QString& id, bool custom, const QString& customLabel);

    ScenarioDocument* m_doc;
    QFormLayout* m_form;

private:
    std::vector<std::function<void(const core::Scenario&)>> m_refreshers;
    QHash<QString, QWidget*> m_widgets;
    QStringList m_fieldOrder;
    QHash<QString, QLabel*> m_labels;
    QHash<QString, QString> m_marked; // field -> "e:msg" / "w:msg" currently shown
    int m_refreshCount = 0;
};

} // namespace shardscope::ui
