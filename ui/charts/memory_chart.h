// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <memory>

class QCPAxisTickerText;

namespace shardscope::ui {

class CapacityMarks;
class MemoryStack;
class RangeWhiskers;

/// Memory per GPU: the core's memory terms stacked, one bar per pipeline stage when PP > 1, against a line at
/// the GPU's memory, with the excess hatched and labelled, and each bar's 80% range as a whisker (core/uncertainty.h). Each segment's tooltip is its term (the peak stage's:
/// the core derives the terms of the most loaded GPU).
class MemoryChart : public ChartBase
{
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);
    ~MemoryChart() override;
    void setResult(const core::Scenario& scenario, const core::Result& result);

    /// Bars shown (stages, or 1), for tests.
    [[nodiscard]] int barCount() const { return int(m_keys.size()); }
    /// Stacked total of bar i in bytes.
    [[nodiscard]] double barTotal(int i) const;
    [[nodiscard]] const CapacityMarks& capacityMarks() const { return *m_marks; }
    /// The stacked series (one per memory term, in the core's order), for tests.
    [[nodiscard]] const MemoryStack& stack() const { return *m_stack; }
    /// The bars' 80% ranges, for tests.
    [[nodiscard]] const RangeWhiskers& whiskers() const { return *m_whiskers; }
    /// What legend entry item means, without this scenario's figures (a legend shared by several charts).
    [[nodiscard]] QString legendExplanation(int item) const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    QString itemToolTip(QCPAbstractItem* item) const override;
    void themeChanged() override;

private:
    [[nodiscard]] const core::MemoryBreakdown* breakdown(int bar) const;
    [[nodiscard]] QString legendToolTip(int item) const;
    /// The usable-memory line's tooltip: the memory.usable term (capacity − CUDA context − headroom).
    [[nodiscard]] QString usableToolTip() const;
    std::unique_ptr<MemoryStack> m_stack;
    std::unique_ptr<CapacityMarks> m_marks;
    std::unique_ptr<RangeWhiskers> m_whiskers;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    QVector<double> m_keys;
    bool m_perStage = false;
    core::Scenario m_scenario;
    core::Result m_result;
};

} // namespace shardscope::ui
