// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/result.h>

#include <QStringList>

#include <memory>
#include <vector>

class QCPAxisTickerText;
class QCPBars;

namespace shardscope::ui {

/// Step time of the pinned scenarios, one stacked row each (the step-time chart's parts and colours) on one time
/// axis, with each row's total on the right.
class CompareTimeChart : public ChartBase
{
    Q_OBJECT
public:
    explicit CompareTimeChart(QWidget* parent = nullptr);
    void setResults(const QStringList& labels, const std::vector<core::Result>& results);
    /// Total of row i in seconds (0 when invalid), for tests.
    [[nodiscard]] double total(int row) const;
    /// A new chart (not shown) drawing the same data, for exports: what right-click → Copy Image or Export draws.
    [[nodiscard]] std::unique_ptr<ChartBase> copy() const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;

private:
    std::vector<QCPBars*> m_bars; ///< one per step-time term (StepTimeChart::setupStackedRows)
    QSharedPointer<QCPAxisTickerText> m_ticker;
    QSharedPointer<QCPAxisTickerText> m_totals;
    QStringList m_labels;
    std::vector<core::Result> m_results;
};

} // namespace shardscope::ui
