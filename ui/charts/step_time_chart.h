// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"
#include "document/strategy_comparison.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <array>

class QCPAxisTickerText;
class QCPBars;

namespace shardscope::ui {

/// Step time as stacked horizontal bars (compute, recompute, exposed communication, pipeline bubble, offload,
/// optimizer): the open scenario on top, then the same scenario under each sharding strategy.
class StepTimeChart : public ChartBase
{
    Q_OBJECT
public:
    static constexpr int kParts = 6;
    explicit StepTimeChart(QWidget* parent = nullptr);
    void setResult(const core::Scenario& scenario, const core::Result& result, const StrategyComparison& comparison);
    /// Stacked value of part for row (0 = this scenario), in the axis unit; for tests.
    [[nodiscard]] double value(int row, int part) const;
    [[nodiscard]] double timeScale() const { return m_scale; }

    static QString partKey(int part);
    static QString partName(int part);
    static double partSeconds(const core::StepTime& t, int part);

    /// Lays out horizontal stacked step-time rows on `plot`: rows on the reversed y axis (`rows` ticker), each row's
    /// total on the right axis (`totals` ticker), one bar set per part stacked in order. Shared with the compare view.
    static std::array<QCPBars*, kParts> setupStackedRows(QCustomPlot* plot, const QSharedPointer<QCPAxisTickerText>& rows,
                                                         const QSharedPointer<QCPAxisTickerText>& totals, double barWidth);
    /// The legend of the parts, with their explanations.
    static QList<LegendStrip::Entry> legendEntries();

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    QString axisToolTip(QCPAxis* axis, const QPoint& pos) const override;

private:
    struct Row {
        QString label;
        const core::Scenario* scenario;
        const core::Result* result;
    };
    [[nodiscard]] int rowAt(double key) const;
    [[nodiscard]] QString rowToolTip(int row) const;
    std::array<QCPBars*, kParts> m_bars{};
    QSharedPointer<QCPAxisTickerText> m_ticker;
    QSharedPointer<QCPAxisTickerText> m_totals; ///< step time of each row, on the right axis
    double m_scale = 1;
    core::Scenario m_scenario;
    core::Result m_result;
    StrategyComparison m_comparison;
    QVector<Row> m_rows;
};

} // namespace shardscope::ui
