// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace shardscope::ui {

class RankMapChart;
class ScenarioDocument;

/// Where the ranks of each group sit: the rank map (coloured by the chosen group kind), the placement warnings
/// of core::placementWarnings shown prominently, and a table of the group kinds with the nodes they span and
/// the collectives that run on them (those that cross nodes use the inter-node network).
class RankMapPane : public QWidget
{
    Q_OBJECT
public:
    explicit RankMapPane(ScenarioDocument* doc, QWidget* parent = nullptr);
    [[nodiscard]] RankMapChart* chart() const { return m_chart; }
    [[nodiscard]] QTableWidget* groupsTable() const { return m_groups; }
    [[nodiscard]] QString warningsText() const;
    /// The line above the map: nodes shown of how many, rank order.
    [[nodiscard]] QString noteText() const;
    void setGroupKind(int group);

public slots:
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void documentChanged();
    void fillGroupsTable();

    ScenarioDocument* m_doc;
    QComboBox* m_kind;
    QSpinBox* m_maxNodes;
    QLabel* m_note;
    QLabel* m_warnings;
    RankMapChart* m_chart;
    QTableWidget* m_groups;
    QTimer* m_debounce;
    bool m_dirty = true;
};

} // namespace shardscope::ui
