// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "explain/formulas.h"

#include <QString>
#include <QVector>

#include <vector>

class QCPAbstractPlottable;
class QCPAxis;
class QCPBars;
class QCustomPlot;

namespace shardscope::ui {

/// The memory terms as stacked QCPBars, in the display byte unit: one series per term in the core's order,
/// named by the core's label and coloured by termColor(key).
class MemoryStack
{
public:
    MemoryStack(QCustomPlot* plot, QCPAxis* keyAxis, QCPAxis* valueAxis, bool inLegend);

    /// One stacked bar per key from that bar's memory figures (termFigures(), memoryFigures()); an empty list
    /// leaves its key empty.
    void setData(const QVector<double>& keys, const std::vector<std::vector<TermFigure>>& bars);
    void setWidth(double width);
    /// The number of series (memory terms).
    [[nodiscard]] int count() const { return int(m_bars.size()); }
    /// Which series a plottable draws, or -1.
    [[nodiscard]] int itemOf(const QCPAbstractPlottable* plottable) const;
    [[nodiscard]] QCPBars* bars(int item) const { return m_bars[size_t(item)]; }
    /// The term key of a series ("memory.activations").
    [[nodiscard]] const QString& key(int item) const { return m_keys[size_t(item)]; }
    /// The series' name (the core's label).
    [[nodiscard]] QString name(int item) const;

private:
    std::vector<QCPBars*> m_bars;
    std::vector<QString> m_keys;
};

} // namespace shardscope::ui
