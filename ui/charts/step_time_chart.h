// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"
#include "explain/formulas.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/what_if.h>

#include <memory>
#include <vector>

class QCPAxisTickerText;
class QCPBars;

namespace shardscope::ui {

class RangeWhiskers;

/// Step time as stacked horizontal bars, one part per step-time term of the core, in its order: the open
/// scenario on top, then the same scenario under each sharding strategy; each row's 80% range (core/uncertainty.h)
/// as a whisker on its total.
class StepTimeChart : public ChartBase
{
    Q_OBJECT
public:
    explicit StepTimeChart(QWidget* parent = nullptr);
    ~StepTimeChart() override;
    void setResult(const core::Result& result, const core::StrategyComparison& comparison);
    /// Stacked value of part for row (0 = this scenario), in the axis unit; for tests.
    [[nodiscard]] double value(int row, int part) const;
    [[nodiscard]] double timeScale() const { return m_scale; }
    /// Rows drawn: this scenario, then each compared strategy that is not the scenario itself.
    [[nodiscard]] int rowCount() const { return int(m_rows.size()); }
    /// The parts (series), one per step-time term: their number, term keys and names, for tests and callouts.
    [[nodiscard]] int partCount() const { return int(m_bars.size()); }
    [[nodiscard]] QString partKey(int part) const;
    [[nodiscard]] QString partName(int part) const;
    /// The rows' 80% ranges, for tests.
    [[nodiscard]] const RangeWhiskers& whiskers() const { return *m_whiskers; }

    /// Lays out horizontal stacked step-time rows on `plot`: rows on the reversed y axis (`rows` ticker), each row's
    /// total on the right axis (`totals` ticker), one bar set per step-time term (the core's label and order,
    /// termColor). Shared with the compare view.
    static std::vector<QCPBars*> setupStackedRows(QCustomPlot* plot, const QSharedPointer<QCPAxisTickerText>& rows,
        const QSharedPointer<QCPAxisTickerText>& totals, double barWidth);
    /// The legend of the bar sets setupStackedRows made (their names and colours; tooltips from the caller).
    static QList<LegendStrip::Entry> legendEntries(const std::vector<QCPBars*>& bars);

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    QString axisToolTip(QCPAxis* axis, const QPoint& pos) const override;

private:
    struct Row {
        QString label;
        const core::Result* result;
        const core::StrategyVariant* variant = nullptr; ///< a compared strategy (terms when a tooltip asks); else null
    };
    [[nodiscard]] int rowAt(double key) const;
    [[nodiscard]] QString rowToolTip(int row) const;
    [[nodiscard]] QString legendToolTip(int part) const;
    /// The step-time figures of a row: the result's terms, or its breakdown for a strategy variant.
    [[nodiscard]] std::vector<TermFigure> figures(int row) const;
    void themeChanged() override;
    std::vector<QCPBars*> m_bars;
    std::unique_ptr<RangeWhiskers> m_whiskers;
    std::vector<QString> m_keys; ///< term key of each bar set
    QSharedPointer<QCPAxisTickerText> m_ticker;
    QSharedPointer<QCPAxisTickerText> m_totals; ///< step time of each row, on the right axis
    double m_scale = 1;
    core::Result m_result;
    core::StrategyComparison m_comparison;
    QVector<Row> m_rows;
};

} // namespace shardscope::ui
