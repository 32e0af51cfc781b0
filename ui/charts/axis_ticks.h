// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Tick labels that never run into each other (issue 13 item 8: "5000100001 5000"). Every chart's axes get tickers
/// that know how long their axis is and how wide their labels are: value axes pick the densest 1-2-2.5-5 step whose
/// labels keep a gap, log axes the densest of 1-2-5 per decade, every decade or every n decades, and category axes
/// keep every n-th label. Values are SI-abbreviated ("10k", "1.5M"). ChartBase installs them on every axis
/// (fitTickLabels) before each layout and lays out again when an axis's length changed.

#include "charts/qcp.h"

#include <QFont>
#include <QMap>
#include <QString>

#include <limits>

namespace shardscope::ui {

/// "0", "250", "9500", "10k", "1.5M", "2.25G", "0.05": the value with an SI prefix chosen from `magnitude` (the largest
/// absolute value on the axis; no prefix below 10,000) and as many decimals as `step` needs (trailing zeros dropped).
/// step 0: up to three significant digits.
[[nodiscard]] QString siLabel(double value, double step = 0, double magnitude = 0);

/// What a ticker needs to know of its axis: its length in pixels, direction, scale and label font.
struct TickSpace {
    double length = 0; ///< pixels along the axis; 0 = unknown (the ticker behaves as QCustomPlot's own)
    bool vertical = false;
    bool log = false;
    QFont font;
    /// Smallest distance between neighbouring labels' centres for labels a and b (extent along the axis); names
    /// (category labels) may stand closer than numbers.
    [[nodiscard]] double minDistance(double extentA, double extentB, bool names = false) const;
    /// A label's extent along the axis (width, or height of its lines when vertical).
    [[nodiscard]] double extent(const QString& label) const;
    /// Pixel position of coordinate v on an axis showing range.
    [[nodiscard]] double pixel(double v, const QCPRange& range) const;
};

/// Implemented by the fitted tickers: ChartBase tells them their axis's space before each layout.
class SpaceAwareTicker
{
public:
    virtual ~SpaceAwareTicker() = default;
    void setSpace(const TickSpace& space);
    [[nodiscard]] const TickSpace& space() const { return m_space; }

protected:
    /// m_space.extent(label), measured once per label and font: every replot fits the ticks again, and shaping the
    /// candidate labels' text was a fifth of a chart's replot.
    [[nodiscard]] double extent(const QString& label);

    TickSpace m_space;

private:
    /// label → extent in m_space's font and direction. A QMap, not a QHash: Qt 6.4's AES string hash reads 16 bytes at a
    /// time past a label's end (within its page), which valgrind (tests/ui/gui_leaks.sh) reports as invalid reads.
    QMap<QString, double> m_extents;
};

/// A linear value axis: the densest nice step whose SI labels keep a gap.
class FitTicker : public QCPAxisTicker, public SpaceAwareTicker
{
protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    double m_step = 0;
    double m_magnitude = 0;
};

/// A log axis (base 10): 1-2-5 in every decade when there is room, else every decade, else every n-th decade.
class FitLogTicker : public QCPAxisTickerLog, public SpaceAwareTicker
{
protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

private:
    int m_subTicks = 8;
};

/// Named ticks (categories, sweep values): every n-th label, n as small as lets them keep a gap. Across the axis,
/// multi-line labels (centred, as QCustomPlot draws them) are compared line by line: only lines side by side collide.
class FitTextTicker : public QCPAxisTickerText, public SpaceAwareTicker
{
public:
    /// The tick whose label stays when labels are dropped (the open scenario's strategy); NaN: the first.
    void setKeep(double key) { m_keep = key; }

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;

private:
    double m_keep = std::numeric_limits<double>::quiet_NaN();
};

/// Gives every axis of plot a fitted ticker (plain QCPAxisTicker and QCPAxisTickerLog are replaced) and the space
/// it has: the axis rect's current size. Returns true when some axis's length differs by more than a few pixels from
/// what its ticker assumed (the ticks should be generated again).
bool fitTickLabels(QCustomPlot* plot);

/// For tests: the tick labels of axis as drawn, a rectangle in plot pixels per line (QCustomPlot centres the lines
/// of a label on its tick).
struct DrawnTickLabel {
    QString text;
    QRectF rect;
};
[[nodiscard]] QList<DrawnTickLabel> drawnTickLabels(QCPAxis* axis);

} // namespace shardscope::ui
