// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_theme.h"

#include <QString>
#include <QVector>

class QCPAbstractItem;
class QCPAxisRect;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;

namespace shardscope::ui {

/// The GPU-memory line with its label and, for each bar above it, a hatched box over the excess with its size.
/// Bars taller than the visible range get their total printed at the top with an arrow.
class CapacityMarks
{
public:
    CapacityMarks(QCustomPlot* plot, QCPAxisRect* rect);

    /// capacity, totals and yMax in display units; totals[i] < 0 means no bar at keys[i].
    void set(double capacity, const QString& label, const QVector<double>& keys, const QVector<double>& totals,
             double barWidth, double yMax);
    void setTheme(const ChartTheme& theme);
    [[nodiscard]] bool isCapacityItem(const QCPAbstractItem* item) const;
    /// Index into keys of the excess mark item, or -1.
    [[nodiscard]] int excessIndexOf(const QCPAbstractItem* item) const;
    /// Number of bars currently marked as over capacity.
    [[nodiscard]] int excessCount() const { return m_visibleExcess; }

private:
    void grow(int n);
    QCustomPlot* m_plot;
    QCPAxisRect* m_rect;
    QCPItemStraightLine* m_line;
    QCPItemText* m_label;
    QVector<QCPItemRect*> m_boxes;
    QVector<QCPItemText*> m_texts;
    QVector<int> m_boxKey;  // box -> index into keys
    int m_visibleExcess = 0;
};

} // namespace shardscope::ui
