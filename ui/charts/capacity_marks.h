// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_theme.h"

#include <QColor>
#include <QObject>
#include <QRectF>
#include <QString>
#include <QVector>

class QCPAbstractItem;
class QCPAxisRect;
class QCPItemRect;
class QCPItemStraightLine;
class QCPAxisTickerText;
class QCPItemText;
class QCustomPlot;

#include <QSharedPointer>

namespace shardscope::ui {

/// The GPU-memory line, labelled on the right axis (so the label never covers a bar), and for each bar above
/// it a hatched box over the excess with its size. Bars taller than the visible range get their total printed
/// at the top with an arrow. A label goes above its bar, or inside the bar's top where the plot has no room above. Call set() after the value axis range is final.
class CapacityMarks
{
public:
    CapacityMarks(QCustomPlot* plot, QCPAxisRect* rect);
    ~CapacityMarks();
    CapacityMarks(const CapacityMarks&) = delete;
    CapacityMarks& operator=(const CapacityMarks&) = delete;

    /// capacity, totals and yMax in display units; totals[i] < 0 means no bar at keys[i]. labelTops (optional, one per
    /// key): what is drawn above each bar (its whisker's top), so the excess label sits above it, not across it.
    void set(double capacity, const QString& label, const QVector<double>& keys, const QVector<double>& totals,
        double barWidth, double yMax, const QVector<double>& labelTops = {});
    void setTheme(const ChartTheme& theme);
    [[nodiscard]] bool isCapacityItem(const QCPAbstractItem* item) const;
    /// Index into keys of the excess mark item, or -1.
    [[nodiscard]] int excessIndexOf(const QCPAbstractItem* item) const;
    /// The y (display units) where the label of bar `index` is anchored, or NaN when that bar has none.
    [[nodiscard]] double labelY(int index) const;
    /// Where the label of bar `index` is drawn, in the plot's pixels (after a replot), or an empty rectangle.
    [[nodiscard]] QRectF labelRect(int index) const;
    /// Number of bars currently marked as over capacity.
    [[nodiscard]] int excessCount() const { return m_visibleExcess; }
    /// Labels without the unit ("+142", "↑1190") for narrow bars; the axis names the unit.
    void setCompactLabels(bool compact) { m_compact = compact; }

private:
    struct LabelAt {
        double key = 0;
        double top = 0; ///< the bar's visible top
        double above = 0; ///< above its whisker
        bool clipped = false;
        double excess = 0; ///< how far over capacity (the total where clipped): larger excesses keep their label
    };
    void grow(int n);
    void fitLabels();
    QCustomPlot* m_plot;
    QCPAxisRect* m_rect;
    QCPItemStraightLine* m_line;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    QVector<QCPItemRect*> m_boxes;
    QVector<QCPItemText*> m_texts;
    QVector<int> m_boxKey; // box -> index into keys
    QVector<LabelAt> m_labelAt; // per label in use: where it may go
    int m_used = 0;
    QMetaObject::Connection m_fit;
    int m_visibleExcess = 0;
    bool m_compact = false;
    QColor m_labelBackground = Qt::white;
};

} // namespace shardscope::ui
