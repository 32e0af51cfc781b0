// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_theme.h"

#include <QVector>

class QCPAxis;
class QCPErrorBars;
class QCPGraph;

namespace shardscope::ui {

/// The 80% range of each bar's total (core/uncertainty.h) as a whisker: QCPErrorBars on an invisible graph of the
/// totals, drawn over the bars in the theme's foreground.
class RangeWhiskers
{
public:
    RangeWhiskers(QCPAxis* keyAxis, QCPAxis* valueAxis);
    /// One whisker per key from lo to hi around point (display units); lo ≤ point ≤ hi.
    void set(const QVector<double>& keys, const QVector<double>& points, const QVector<double>& lo,
        const QVector<double>& hi);
    void setTheme(const ChartTheme& theme);
    /// Whiskers shown, and the top of whisker i (display units), for tests.
    [[nodiscard]] int count() const;
    [[nodiscard]] double top(int i) const;
    [[nodiscard]] double bottom(int i) const;

private:
    QCPGraph* m_anchor;
    QCPErrorBars* m_bars;
};

} // namespace shardscope::ui
