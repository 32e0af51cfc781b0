// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>

#include <QString>
#include <QVector>

#include <array>
#include <vector>

class QCPAbstractPlottable;
class QCPAxis;
class QCPBars;
class QCustomPlot;

namespace shardscope::ui {

/// The seven memory items (MemoryBreakdown order) as stacked QCPBars, in the display byte unit.
class MemoryStack
{
public:
    static constexpr int kItems = 7;
    MemoryStack(QCustomPlot* plot, QCPAxis* keyAxis, QCPAxis* valueAxis, bool inLegend);

    /// One stacked bar per key; a null breakdown leaves that key empty.
    void setData(const QVector<double>& keys, const std::vector<const core::MemoryBreakdown*>& breakdowns);
    void setWidth(double width);
    /// Which item a plottable draws, or -1.
    [[nodiscard]] int itemOf(const QCPAbstractPlottable* plottable) const;
    [[nodiscard]] QCPBars* bars(int item) const { return m_bars[size_t(item)]; }

    /// "memory.parameters", ... (explain/formulas.h keys)
    static QString itemKey(int item);
    /// Legend name: "Parameters", "Gradients", "Optimizer", ...
    static QString itemName(int item);
    static double itemBytes(const core::MemoryBreakdown& m, int item);

private:
    std::array<QCPBars*, kItems> m_bars{};
};

} // namespace shardscope::ui
