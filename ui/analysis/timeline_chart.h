// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/timeline.h>

#include <QStringList>

#include <vector>

class QCPAxisRect;
class QCPAxisTickerText;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace shardscope::ui {

class TimelineLanes;

/// One optimizer step as a Gantt chart of core::buildTimeline(), with memory in use over the step below it:
/// a lane per pipeline stage (forward, backward and weight-gradient blocks labelled by micro-batch where the
/// label fits; the bubble is the empty space), a communication row per group under each stage (the hidden part
/// pale, the exposed part saturated), the step's tail (pipeline p2p, data-parallel, optimizer, offload); below,
/// one memory line per stage with the capacity and the peak marked. Wheel zooms time, drag pans, double-click
/// resets. Only visible blocks are drawn and blocks under a pixel merge, so thousands of blocks stay fast.
class TimelineChart : public ChartBase
{
    Q_OBJECT
public:
    explicit TimelineChart(QWidget* parent = nullptr);
    ~TimelineChart() override;

    void setResult(const core::Scenario& scenario, const core::Result& result);
    [[nodiscard]] const core::Timeline& timeline() const { return m_timeline; }
    /// End of the step as drawn (seconds): the last block's end.
    [[nodiscard]] double total() const;
    /// Blocks held for drawing (comm blocks count twice when split into hidden and exposed parts).
    [[nodiscard]] int blockCount() const;
    /// Blocks actually painted by the last replot (after culling and merging); for tests and benchmarks.
    [[nodiscard]] int paintedCount() const;
    /// Shows the whole step again.
    void resetZoom();
    /// Visible time range in seconds.
    [[nodiscard]] std::pair<double, double> visibleRange() const;
    void setVisibleRange(double from, double to);

    static QColor styleColor(int style);
    static QString styleName(int style);

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    void themeChanged() override;
    void plotResized() override;

private:
    void clampRange(const class QCPRange& range);
    void updateLaneTicks();

    TimelineLanes* m_lanes;
    QCPAxisRect* m_memRect;
    QSharedPointer<QCPAxisTickerText> m_laneTicker;
    std::vector<QCPGraph*> m_memGraphs;
    std::vector<int> m_memStages; ///< the stage of each memory line (at most kMaxMemoryLines of them)
    QCPGraph* m_peak = nullptr;
    QCPItemText* m_peakLabel = nullptr;
    QCPItemStraightLine* m_capacity = nullptr;
    core::Timeline m_timeline;
    core::Result m_result;
    double m_scale = 1;
    double m_stageStride = 1; ///< lane-axis units from one stage to the next
    QStringList m_groupNames; ///< communication rows under each stage
    bool m_clamping = false;
};

} // namespace shardscope::ui
