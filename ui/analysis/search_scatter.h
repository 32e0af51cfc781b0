// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/search.h>

#include <array>
#include <memory>
#include <vector>

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace shardscope::ui {

/// Every feasible layout of a search as a point (step time against memory per GPU), coloured by sharding
/// strategy; the Pareto front as a line; the open scenario and the selected layout marked. Click a point to
/// select its table row; wheel zooms, drag pans, double-click resets.
class SearchScatterChart : public ChartBase
{
    Q_OBJECT
public:
    explicit SearchScatterChart(QWidget* parent = nullptr);

    /// limitBytes: memory a layout may use (capacity less headroom).
    /// options: the search's, which say which figures the points are (the axis titles name the end of the range).
    void setPoints(const std::vector<core::SearchPoint>& points, const std::vector<size_t>& pareto, double limitBytes,
        const core::SearchOptions& options = {});
    /// The open scenario (not drawn when !valid).
    void setCurrent(bool valid, double stepTime, double memoryBytes, bool fits);
    /// Rings point index (into the points given to setPoints); -1 clears.
    void setSelectedPoint(int index);
    [[nodiscard]] int selectedPoint() const { return m_selected; }
    /// Points drawn in the strategy series, for tests.
    [[nodiscard]] int pointCount() const;
    [[nodiscard]] int paretoCount() const;
    void resetView();
    /// A new chart (not shown) drawing the same data, for exports: what right-click → Copy Image or Export draws.
    [[nodiscard]] std::unique_ptr<ChartBase> copy() const;

    /// Draws the same points again (the byte unit changed), keeping the selected point.
    void redraw();

signals:
    void pointClicked(int index);

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    void themeChanged() override;

private:
    [[nodiscard]] int pointIndexOf(QCPAbstractPlottable* plottable, int dataIndex) const;
    [[nodiscard]] QString pointToolTip(int index) const;
    void updateMarkers();
    /// Top of the memory axis: the usable memory with room above, or the open scenario when it is not far above.
    [[nodiscard]] double yTop() const;

    static constexpr int kStrategies = 7;
    std::array<QCPGraph*, kStrategies> m_series {};
    std::array<std::vector<int>, kStrategies> m_seriesIndex; ///< graph data index -> point index
    QCPGraph* m_front = nullptr;
    QCPGraph* m_current = nullptr;
    QCPGraph* m_ring = nullptr;
    QCPItemStraightLine* m_limit = nullptr;
    QCPItemText* m_limitLabel = nullptr;
    QCPItemText* m_currentLabel = nullptr; ///< "this scenario ↑" when it is above the axis
    std::vector<core::SearchPoint> m_points;
    std::vector<size_t> m_pareto;
    double m_scale = 1;
    double m_limitBytes = 0;
    core::SearchOptions m_options;
    int m_selected = -1;
    bool m_currentValid = false;
    double m_currentStep = 0, m_currentMemory = 0;
    bool m_currentFits = false;
};

} // namespace shardscope::ui
