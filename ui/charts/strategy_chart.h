// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/what_if.h>

#include <memory>

class QCPItemRect;
class QCPItemText;

namespace shardscope::ui {

class CapacityMarks;
class FitTextTicker;
class MemoryStack;

/// The same scenario under DDP, ZeRO-1/2/3 and ZeRO-3 with CPU offload: memory per GPU stacked as in the
/// memory chart, the GPU's memory line, and each variant's step time under its name. The open scenario's
/// strategy is highlighted.
class StrategyChart : public ChartBase
{
    Q_OBJECT
public:
    explicit StrategyChart(QWidget* parent = nullptr);
    ~StrategyChart() override;
    void setComparison(const core::StrategyComparison& comparison);
    [[nodiscard]] int barCount() const;
    [[nodiscard]] const CapacityMarks& capacityMarks() const { return *m_marks; }

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    QString itemToolTip(QCPAbstractItem* item) const override;
    void themeChanged() override;

private:
    std::unique_ptr<MemoryStack> m_stack;
    std::unique_ptr<CapacityMarks> m_marks;
    QSharedPointer<FitTextTicker> m_ticker;
    QCPItemRect* m_band;
    QVector<QCPItemText*> m_invalid;
    core::StrategyComparison m_comparison;
};

} // namespace shardscope::ui
