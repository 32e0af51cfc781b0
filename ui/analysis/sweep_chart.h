// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/sweep.h>

#include <QHash>

#include <memory>
#include <vector>

class QCPAxisTickerText;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace shardscope::ui {

/// One figure of a sweep (memory per GPU, step time, MFU or communication) against the swept axis, one curve
/// per strategy: solid with filled markers while the layout fits, dashed with hollow markers where it does not,
/// gaps where the layout is impossible. Memory shows the usable memory (capacity − CUDA context − headroom); a dotted line marks the open scenario.
class SweepChart : public ChartBase
{
    Q_OBJECT
public:
    /// Titles the x axis ("GPU count"): in the window the pane's axis selector says it, an exported chart stands
    /// alone (copy() and the CLI's figure call it).
    void nameAxis();
    enum class Metric { Memory, StepTime, Mfu, Communication };
    SweepChart(Metric metric, QWidget* parent = nullptr);

    /// currentX: the open scenario's value on the axis (0: not marked); capacity: the usable memory in bytes (Memory only).
    void setCurves(const std::vector<core::SweepCurve>& curves, core::SweepAxis axis, double currentX, double capacity);
    /// The value plotted for curve c, point i, in the axis unit (NaN when not drawn); for tests.
    [[nodiscard]] double plotted(int curve, int point) const;
    /// Axis unit divisor (seconds per unit, bytes per unit, or 0.01 for MFU in %).
    [[nodiscard]] double unitDivisor() const { return m_divisor; }
    [[nodiscard]] Metric metric() const { return m_metric; }

    static QColor curveColor(int curve);
    /// One entry per default sweep strategy (core::sweepStrategies()), in curveColor()s: the sweep pane's
    /// legend, and the legend exports draw under a sweep chart.
    static QList<LegendStrip::Entry> legendEntries();
    /// A new chart (not shown) drawing the same data, for exports: what right-click → Copy Image or Export draws.
    [[nodiscard]] std::unique_ptr<ChartBase> copy() const;
    static QString axisValueLabel(core::SweepAxis axis, double x);
    /// The capacity label's rectangle in plot pixels (empty when hidden), and whether a curve's line or marker
    /// passes through rect; for tests.
    [[nodiscard]] QRectF capacityLabelRect() const;
    [[nodiscard]] bool curvesCross(const QRectF& rect) const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    void themeChanged() override;
    void plotResized() override;
    /// Places the capacity label where no curve passes (a corner above or below the line, then mid-width).
    void laidOut() override;

private:
    void updateTicks();
    enum class Part { Solid, Dashed, Hollow };
    struct Series {
        int curve = 0;
        Part part = Part::Solid;
        std::vector<int> points; ///< data index -> point index (-1 for the NaN breaks)
    };
    [[nodiscard]] double metricValue(const core::SweepPoint& p) const;
    void clearGraphs();

    Metric m_metric;
    std::vector<core::SweepCurve> m_curves;
    core::SweepAxis m_axis = core::SweepAxis::Gpus;
    std::vector<std::vector<double>> m_plotted;
    QHash<QCPAbstractPlottable*, Series> m_series;
    QSharedPointer<QCPAxisTickerText> m_xTicker;
    std::vector<double> m_xs;
    QCPItemStraightLine* m_capacity = nullptr;
    QCPItemText* m_capacityLabel = nullptr;
    QCPItemStraightLine* m_current = nullptr;
    double m_divisor = 1;
    double m_currentX = 0;
    double m_capacityBytes = 0; ///< as given to setCurves (copy())
};

/// "GPU count", "Sequence length": what a sweep varies along its x axis (the pane's selector, exported charts).
[[nodiscard]] QString sweepAxisName(core::SweepAxis axis);

} // namespace shardscope::ui
