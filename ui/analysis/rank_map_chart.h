// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/rank_map.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <memory>
#include <vector>

class QCPAxisTickerText;

namespace shardscope::ui {

class RankCells;

/// The GPUs of the cluster as a grid (a row per node, a column per GPU in the node), each cell coloured by the
/// group of the chosen kind it belongs to: cells of one colour form one TP (CP, DP, PP, EP) group. Hovering a
/// GPU outlines the other members of its group and the tooltip gives its coordinates and all its groups.
/// Large clusters show their first nodes only, and at most kMaxCells GPUs: each cell costs constant time (groups are
/// arithmetic, core/rank_map.h), so the map is bounded whatever the cluster's size.
class RankMapChart : public ChartBase
{
    Q_OBJECT
public:
    /// GPUs drawn at most: 512 nodes of 8, 56 of 72, 4 of 1024. More cells would be too small to read.
    static constexpr int kMaxCells = 4096;

    explicit RankMapChart(QWidget* parent = nullptr);
    ~RankMapChart() override;

    /// kind: the group colouring the cells; maxNodes: nodes shown (the first ones), fewer if they would hold more
    /// than kMaxCells GPUs.
    void setScenario(const core::Scenario& scenario, const core::Result& result, core::Group kind, int maxNodes);
    [[nodiscard]] int nodesShown() const { return m_nodes; }
    /// The tooltip of rank: coordinates and every group, computed when asked (at most 16 members listed).
    [[nodiscard]] QString rankToolTip(int rank) const;
    [[nodiscard]] int cellCount() const;
    /// Fill colour of rank's cell (invalid when not shown); for tests.
    [[nodiscard]] QColor cellColor(int rank) const;
    /// The colour of the rank number drawn on that cell: dark or light text, whichever reads better on it.
    [[nodiscard]] QColor cellTextColor(int rank) const;
    /// Group index (of the chosen kind) of rank's cell, -1 when not shown.
    [[nodiscard]] int cellGroup(int rank) const;
    /// Outlines the members of rank's group (-1: none).
    void setHoveredRank(int rank);
    /// A new chart (not shown) drawing the same data, for exports: what right-click → Copy Image or Export draws.
    [[nodiscard]] std::unique_ptr<ChartBase> copy() const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    void themeChanged() override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    RankCells* m_cells;
    QSharedPointer<QCPAxisTickerText> m_xTicker;
    QSharedPointer<QCPAxisTickerText> m_yTicker;
    core::Scenario m_scenario;
    core::Group m_kind = core::Group::Tp;
    int m_nodes = 0;
    bool m_valid = false;
};

} // namespace shardscope::ui
