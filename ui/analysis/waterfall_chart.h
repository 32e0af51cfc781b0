// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/waterfall.h>

#include <memory>

class QCPAxisRect;
class QCPAxisTickerText;
class QCPBars;

namespace shardscope::ui {

/// The A→B walk of core::buildWaterfall() as two horizontal waterfalls side by side, memory per GPU and step
/// time: A's total, one floating bar per step (red: the setting adds, green: it saves) with its change on the
/// right, and B's total.
class WaterfallChart : public ChartBase
{
    Q_OBJECT
public:
    explicit WaterfallChart(QWidget* parent = nullptr);
    /// memoryBasis / timeBasis name which figures the waterfall holds when they are not evaluate's point values
    /// (a search's "top of range", "slow end"): the axis titles say so.
    void setWaterfall(const core::Waterfall& waterfall, const QString& labelA, const QString& labelB,
        const QString& memoryBasis = {}, const QString& timeBasis = {});
    /// Rows (A, steps, B); 0 when there is nothing to show.
    [[nodiscard]] int rowCount() const { return m_rows; }
    /// The label of a step row: its settings' names joined with " + ".
    static QString stepLabel(const core::WaterfallStep& step);
    /// A new chart (not shown) drawing the same data, for exports: what right-click → Copy Image or Export draws.
    [[nodiscard]] std::unique_ptr<ChartBase> copy() const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;

private:
    struct Panel {
        QCPAxisRect* rect = nullptr;
        QCPBars* base = nullptr;
        QCPBars* up = nullptr;
        QCPBars* down = nullptr;
        QCPBars* total = nullptr;
        QSharedPointer<QCPAxisTickerText> deltas;
    };
    void setupPanel(Panel& p, QCPAxisRect* rect);
    Panel m_memory;
    Panel m_time;
    QSharedPointer<QCPAxisTickerText> m_rowTicker;
    core::Waterfall m_waterfall;
    QStringList m_rowLabels;
    QString m_labelA, m_labelB, m_memoryBasis, m_timeBasis;
    double m_timeScale = 1;
    int m_rows = 0;
};

} // namespace shardscope::ui
