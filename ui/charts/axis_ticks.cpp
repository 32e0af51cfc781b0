// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/axis_ticks.h"

#include <QFontMetricsF>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <typeinfo>

namespace shardscope::ui {

namespace {
/// Fewest decimals (0…6) that write x exactly enough.
int decimalsFor(double x)
{
    x = std::abs(x);
    for (int d = 0; d < 6; ++d) {
        const double scaled = x * std::pow(10.0, d);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled))
            return d;
    }
    return 6;
}

QString trimZeros(QString text, const QString& point)
{
    if (!text.contains(point))
        return text;
    while (text.endsWith(QLatin1Char('0')))
        text.chop(1);
    if (text.endsWith(point))
        text.chop(point.size());
    return text;
}
} // namespace

QString siLabel(double value, double step, double magnitude)
{
    if (value == 0 || (step > 0 && std::abs(value) < step * 1e-6))
        return QStringLiteral("0");
    const double mag = magnitude > 0 ? magnitude : std::abs(value);
    double divisor = 1;
    QString suffix;
    if (mag >= 1e4) {
        static const std::pair<double, const char*> prefixes[]
            = { { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
        for (const auto& [p, name] : prefixes)
            if (mag >= p) {
                divisor = p;
                suffix = QLatin1String(name);
                break;
            }
    }
    const double v = value / divisor;
    int decimals = 0;
    if (step > 0)
        decimals = decimalsFor(step / divisor);
    else
        decimals = std::clamp(2 - int(std::floor(std::log10(std::abs(v)))), 0, 6);
    QLocale locale;
    locale.setNumberOptions(QLocale::OmitGroupSeparator);
    return trimZeros(locale.toString(v, 'f', decimals), locale.decimalPoint()) + suffix;
}

double TickSpace::extent(const QString& label) const
{
    const QFontMetricsF fm(font);
    const QStringList lines = label.split(QLatin1Char('\n'));
    if (vertical)
        return fm.height() * double(lines.size());
    double w = 0;
    for (const QString& line : lines)
        w = std::max(w, fm.horizontalAdvance(line));
    return w;
}

void SpaceAwareTicker::setSpace(const TickSpace& space)
{
    if (space.vertical != m_space.vertical || space.font != m_space.font)
        m_extents.clear();
    m_space = space;
}

double SpaceAwareTicker::extent(const QString& label)
{
    if (const auto it = m_extents.constFind(label); it != m_extents.cend())
        return *it;
    if (m_extents.size() >= 512) // labels of ranges long gone
        m_extents.clear();
    return *m_extents.insert(label, m_space.extent(label));
}

double TickSpace::minDistance(double extentA, double extentB, bool names) const
{
    const QFontMetricsF fm(font);
    // Numbers need a clear gap to read as two; names (categories) are told apart by their words.
    const double gap = vertical ? fm.height() * (names ? 0.15 : 0.4)
        : names                 ? 2.0
                                : std::max(8.0, fm.horizontalAdvance(QLatin1Char('0')) * 1.5);
    return (extentA + extentB) / 2 + gap;
}

double TickSpace::pixel(double v, const QCPRange& range) const
{
    if (log) {
        if (!(v > 0) || !(range.lower > 0) || !(range.upper > range.lower))
            return 0;
        return length * std::log(v / range.lower) / std::log(range.upper / range.lower);
    }
    return range.size() > 0 ? length * (v - range.lower) / range.size() : 0;
}

double FitTicker::getTickStep(const QCPRange& range)
{
    m_magnitude = std::max(std::abs(range.lower), std::abs(range.upper));
    if (m_space.length <= 0 || !(range.size() > 0)) {
        m_step = QCPAxisTicker::getTickStep(range);
        return m_step;
    }
    const QFontMetricsF fm(m_space.font);
    // Readable, not only apart: at least 2.2 lines between labels up an axis, 48 pixels across. A short axis on
    // which that leaves one label or none takes the densest step whose labels only keep apart, so that it shows two.
    const double floorPx = m_space.vertical ? fm.height() * 2.2 : 48.0;
    double apartOnly = 0; // the densest step with two or more labels that keep apart
    const double gapOnly = m_space.minDistance(0, 0); // the distance labels of no extent would need
    double decade = std::pow(10.0, std::floor(std::log10(range.size() / 200)));
    for (int i = 0; i < 30; ++i, decade *= 10)
        for (double m : { 1.0, 2.0, 2.5, 5.0 }) {
            const double step = m * decade;
            const double px = step / range.size() * m_space.length;
            const double first = std::ceil(range.lower / step) * step;
            const double last = std::floor(range.upper / step) * step;
            const bool two = last - first >= step * 0.5;
            if (px < floorPx && (apartOnly > 0 || !two))
                continue;
            if (px < gapOnly) // too dense whatever the labels read
                continue;
            // Up the axis a label's extent is the height of its one line, whatever it reads; across it, the widest
            // labels are at the ends (most digits) and in between (most decimals).
            double widest = m_space.vertical ? fm.height() : 0;
            if (!m_space.vertical) {
                const double mid = std::round((first + last) / 2 / step) * step + step;
                for (double v : { first, last, mid })
                    widest = std::max(widest, extent(siLabel(v, step, m_magnitude)));
            }
            if (px < m_space.minDistance(widest, widest))
                continue;
            if (px < floorPx) {
                apartOnly = step;
                continue;
            }
            m_step = two || apartOnly <= 0 ? step : apartOnly;
            return m_step;
        }
    m_step = apartOnly > 0 ? apartOnly : range.size();
    return m_step;
}

QString FitTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return siLabel(tick, m_step, m_magnitude); }

QVector<double> FitLogTicker::createTickVector(double tickStep, const QCPRange& range)
{
    m_subTicks = 8;
    if (m_space.length <= 0 || !(range.lower > 0) || !(range.upper > range.lower))
        return QCPAxisTickerLog::createTickVector(tickStep, range);
    struct Candidate {
        std::vector<double> mantissas;
        int every;
    };
    static const Candidate candidates[] = { { { 1, 2, 5 }, 1 }, { { 1, 3 }, 1 }, { { 1 }, 1 }, { { 1 }, 2 },
        { { 1 }, 3 }, { { 1 }, 5 }, { { 1 }, 10 }, { { 1 }, 20 }, { { 1 }, 50 }, { { 1 }, 100 } };
    const int lo = int(std::floor(std::log10(range.lower)));
    const int hi = int(std::ceil(std::log10(range.upper)));
    QVector<double> chosen;
    for (const Candidate& c : candidates) {
        QVector<double> ticks;
        for (int e = lo - c.every; e <= hi + c.every; ++e) {
            if (e % c.every != 0)
                continue;
            for (double m : c.mantissas)
                ticks << m * std::pow(10.0, e);
        }
        // Neighbours inside the range keep their gap.
        bool fits = true;
        double prevPx = 0, prevExtent = -1;
        for (double t : ticks) {
            if (t < range.lower * (1 - 1e-9) || t > range.upper * (1 + 1e-9))
                continue;
            const double px = m_space.pixel(t, range);
            const double ext = extent(getTickLabel(t, QLocale(), QLatin1Char('g'), 0));
            if (prevExtent >= 0 && std::abs(px - prevPx) < m_space.minDistance(prevExtent, ext)) {
                fits = false;
                break;
            }
            prevPx = px;
            prevExtent = ext;
        }
        chosen = ticks;
        if (fits) {
            m_subTicks = c.mantissas.size() == 1 && c.every == 1 ? 8 : 0;
            return chosen;
        }
    }
    m_subTicks = 0;
    return chosen;
}

int FitLogTicker::getSubTickCount(double) { return m_subTicks; }

QString FitLogTicker::getTickLabel(double tick, const QLocale&, QChar, int)
{
    return siLabel(tick, 0, tick >= 1000 ? std::max(tick, 1e4) : 0); // 1k, 3k, 10k on a log axis, not 3000 beside 10k
}

QVector<double> FitTextTicker::createTickVector(double tickStep, const QCPRange& range)
{
    const QVector<double> all = QCPAxisTickerText::createTickVector(tickStep, range);
    if (m_space.length <= 0 || all.size() < 2)
        return all;
    // Each label's lines measured once (the search for n compares many pairs; a replot must stay cheap).
    const QFontMetricsF fm(m_space.font);
    const double lineHeight = fm.height();
    const double gap = m_space.vertical ? lineHeight * 0.15 : 2.0; // names are told apart by their words
    QVector<double> inside;
    std::vector<double> px;
    std::vector<std::vector<double>> widths; // per line (horizontal axes)
    std::vector<double> heights; // whole label (vertical axes)
    for (double t : all)
        if (range.contains(t)) {
            inside << t;
            px.push_back(m_space.pixel(t, range));
            const QStringList lines = mTicks.value(t).split(QLatin1Char('\n'));
            heights.push_back(lineHeight * double(lines.size()));
            std::vector<double> w;
            if (!m_space.vertical)
                for (const QString& line : lines)
                    w.push_back(fm.horizontalAdvance(line));
            widths.push_back(std::move(w));
        }
    auto needed = [&](size_t a, size_t b) {
        if (m_space.vertical)
            return (heights[a] + heights[b]) / 2 + gap;
        double widest = 0;
        for (size_t l = 0; l < widths[a].size() && l < widths[b].size(); ++l)
            widest = std::max(widest, widths[a][l] + widths[b][l]);
        return widest / 2 + gap;
    };
    // Every n-th label, n as small as keeps every pair of neighbours apart, counted from the label to keep.
    const qsizetype keep = std::max<qsizetype>(0, inside.indexOf(m_keep));
    for (qsizetype n = 1; n < inside.size(); ++n) {
        bool fits = true;
        for (qsizetype i = keep % n; i + n < inside.size() && fits; i += n)
            fits = std::abs(px[size_t(i + n)] - px[size_t(i)]) >= needed(size_t(i), size_t(i + n));
        if (fits) {
            QVector<double> kept;
            for (qsizetype i = keep % n; i < inside.size(); i += n)
                kept << inside[i];
            return kept;
        }
    }
    return inside.mid(keep, 1);
}

bool fitTickLabels(QCustomPlot* plot)
{
    bool stale = false;
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            QSharedPointer<QCPAxisTicker> ticker = axis->ticker();
            if (!ticker)
                continue;
            // QCustomPlot's own tickers know nothing of pixels: the fitted ones take their place.
            if (typeid(*ticker) == typeid(QCPAxisTicker)) {
                ticker = QSharedPointer<FitTicker>::create();
                axis->setTicker(ticker);
            } else if (typeid(*ticker) == typeid(QCPAxisTickerLog)) {
                ticker = QSharedPointer<FitLogTicker>::create();
                axis->setTicker(ticker);
            }
            auto* aware = dynamic_cast<SpaceAwareTicker*>(ticker.data());
            if (!aware)
                continue;
            TickSpace space;
            space.vertical = axis->orientation() == Qt::Vertical;
            space.log = axis->scaleType() == QCPAxis::stLogarithmic;
            space.font = axis->tickLabelFont();
            space.length = space.vertical ? rect->height() : rect->width();
            if (space.length < 20) // not laid out yet: about the plot less the other axis's labels
                space.length = std::max(20, space.vertical ? plot->height() - 50 : plot->width() - 70);
            const TickSpace& before = aware->space();
            if (std::abs(space.length - before.length) > 3 || space.vertical != before.vertical
                || space.log != before.log || space.font != before.font)
                stale = true;
            aware->setSpace(space);
        }
    return stale;
}

QList<DrawnTickLabel> drawnTickLabels(QCPAxis* axis)
{
    QList<DrawnTickLabel> labels;
    if (!axis->visible() || !axis->tickLabels())
        return labels;
    const QFontMetricsF fm(axis->tickLabelFont());
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> texts = axis->tickVectorLabels();
    for (qsizetype i = 0; i < ticks.size() && i < texts.size(); ++i) {
        if (!axis->range().contains(ticks[i]) || texts[i].isEmpty())
            continue;
        const QStringList lines = texts[i].split(QLatin1Char('\n'));
        const QSizeF block(0, fm.height() * double(lines.size()));
        const double p = axis->coordToPixel(ticks[i]);
        for (qsizetype l = 0; l < lines.size(); ++l) {
            const double w = fm.horizontalAdvance(lines[l]);
            QRectF r;
            if (axis->orientation() == Qt::Horizontal) {
                const double top = axis->axisType() == QCPAxis::atBottom ? axis->axisRect()->bottom()
                                                                         : axis->axisRect()->top() - block.height();
                r = QRectF(p - w / 2, top + fm.height() * double(l), w, fm.height());
            } else {
                const double left
                    = axis->axisType() == QCPAxis::atLeft ? axis->axisRect()->left() - w : axis->axisRect()->right();
                r = QRectF(left, p - block.height() / 2 + fm.height() * double(l), w, fm.height());
            }
            if (w > 0)
                labels.push_back({ lines[l], r });
        }
    }
    std::sort(labels.begin(), labels.end(), [axis](const DrawnTickLabel& a, const DrawnTickLabel& b) {
        return axis->orientation() == Qt::Horizontal ? a.rect.center().x() < b.rect.center().x()
                                                     : a.rect.center().y() < b.rect.center().y();
    });
    return labels;
}

} // namespace shardscope::ui
