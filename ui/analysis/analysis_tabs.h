// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTabWidget>

namespace shardscope::ui {

class ChartBase;
class RankMapPane;
class ScenarioDocument;
class SearchPane;
class SizingPane;
class SweepPane;
class TimelinePane;

/// The chart area as tabs: Explorer (the window's charts, passed in) | Search | Sweep | Sizing | Timeline |
/// Rank map. Each analysis pane recomputes only while it is shown (and once when it is next shown), so edits in
/// the explorer stay as fast as before.
class AnalysisTabs : public QTabWidget
{
    Q_OBJECT
public:
    AnalysisTabs(ScenarioDocument* doc, QWidget* explorer, QWidget* parent = nullptr);

    [[nodiscard]] SearchPane* search() const { return m_search; }
    [[nodiscard]] SweepPane* sweep() const { return m_sweep; }
    [[nodiscard]] SizingPane* sizing() const { return m_sizing; }
    [[nodiscard]] TimelinePane* timeline() const { return m_timeline; }
    [[nodiscard]] RankMapPane* rankMap() const { return m_rankMap; }

    /// Shows the tab named id ("explorer", "search", "sweep", "sizing", "timeline", "rankmap"); false if unknown.
    bool showTab(const QString& id);
    /// The QCustomPlot charts of the tab shown (for export: each is a ChartBase with title and legend).
    [[nodiscard]] QList<ChartBase*> visibleCharts() const;
    /// Draws the buffers of the analysis tab shown that changed (ChartBase::drawBuffersNow); nothing on the explorer
    /// tab, whose charts MainWindow draws.
    void drawBuffersNow();

private:
    SearchPane* m_search;
    SweepPane* m_sweep;
    SizingPane* m_sizing;
    TimelinePane* m_timeline;
    RankMapPane* m_rankMap;
};

} // namespace shardscope::ui
