// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/sweep_chart.h"

#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "util/units.h"

#include <QFontMetricsF>
#include <QLocale>

#include <cmath>
#include <limits>

namespace shardscope::ui {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString metricTitle(SweepChart::Metric m)
{
    switch (m) {
    case SweepChart::Metric::Memory: return SweepChart::tr("Memory per GPU");
    case SweepChart::Metric::StepTime: return SweepChart::tr("Step time");
    case SweepChart::Metric::Mfu: return SweepChart::tr("MFU");
    case SweepChart::Metric::Communication: return SweepChart::tr("Communication per GPU per step");
    }
    return {};
}
} // namespace

SweepChart::SweepChart(Metric metric, QWidget* parent)
    : ChartBase(QStringLiteral("chart.sweep"), metricTitle(metric), parent)
    , m_metric(metric)
    , m_xTicker(new FitTextTicker)
{
    m_plot->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid | QCP::aeSubGrid | QCP::aeZeroLine);
    m_plot->xAxis->setTicker(m_xTicker);
    m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    m_plot->xAxis->grid()->setVisible(true);
    m_plot->setMinimumSize(200, 150);
    m_capacity = new QCPItemStraightLine(m_plot);
    m_capacity->setSelectable(false);
    m_capacity->setVisible(false);
    m_capacityLabel = new QCPItemText(m_plot);
    m_capacityLabel->setSelectable(false);
    m_capacityLabel->setVisible(false);
    m_capacityLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_capacityLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_capacityLabel->position->setTypeY(QCPItemPosition::ptPlotCoords);
    m_current = new QCPItemStraightLine(m_plot);
    m_current->setSelectable(false);
    m_current->setVisible(false);
    applyTheme();
}

QColor SweepChart::curveColor(int curve)
{
    using namespace okabe_ito;
    static const QColor colors[] = { grey, orange, skyBlue, blue, bluishGreen, reddishPurple, vermillion, yellow };
    return colors[std::clamp(curve, 0, 7)];
}

QString SweepChart::axisValueLabel(core::SweepAxis axis, double x)
{
    switch (axis) {
    case core::SweepAxis::ModelSize: return Units::count(x, x >= 1e11 ? 0 : 1);
    case core::SweepAxis::SeqLen:
        return x >= 1024 ? QStringLiteral("%1k").arg(QLocale().toString(x / 1024.0, 'g', 4))
                         : QLocale().toString(x, 'f', 0);
    default: return x >= 1e4 ? siLabel(x) : QLocale().toString(x, 'f', 0); // 16384 GPUs: "16.4k"
    }
}

void SweepChart::themeChanged()
{
    m_capacity->setPen(QPen(okabe_ito::vermillion, 1.2, Qt::DashLine));
    m_capacityLabel->setColor(okabe_ito::vermillion);
    m_capacityLabel->setFont(smallFont());
    m_current->setPen(QPen(m_theme.muted, 1, Qt::DotLine));
    for (auto it = m_series.cbegin(); it != m_series.cend(); ++it) {
        auto* g = static_cast<QCPGraph*>(it.key());
        const QColor c = curveColor(it.value().curve);
        QPen pen = g->pen();
        pen.setColor(c);
        g->setPen(pen);
        if (it.value().part == Part::Solid)
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(c, 1.5), c, 6));
        else if (it.value().part == Part::Hollow)
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(c, 1.5), m_theme.background, 7));
    }
}

double SweepChart::metricValue(const core::SweepPoint& p) const
{
    switch (m_metric) {
    case Metric::Memory: return p.memory;
    case Metric::StepTime: return p.stepTime;
    case Metric::Mfu: return p.mfu;
    case Metric::Communication: return p.commBytes;
    }
    return 0;
}

void SweepChart::clearGraphs()
{
    for (auto it = m_series.cbegin(); it != m_series.cend(); ++it)
        m_plot->removePlottable(it.key());
    m_series.clear();
}

QList<LegendStrip::Entry> SweepChart::legendEntries()
{
    QList<LegendStrip::Entry> entries;
    const core::StrategyLadder& strategies = core::sweepStrategies();
    for (size_t i = 0; i < strategies.size(); ++i)
        entries.push_back(
            { QString::fromStdString(strategies[i].label), curveColor(int(i)), LegendStrip::Swatch::Box, {} });
    return entries;
}

QString sweepAxisName(core::SweepAxis axis)
{
    switch (axis) {
    case core::SweepAxis::ModelSize: return SweepChart::tr("Model size (family)");
    case core::SweepAxis::Gpus: return SweepChart::tr("GPU count");
    case core::SweepAxis::Nodes: return SweepChart::tr("Nodes");
    case core::SweepAxis::Tp: return SweepChart::tr("Tensor parallel (TP)");
    case core::SweepAxis::Pp: return SweepChart::tr("Pipeline parallel (PP)");
    case core::SweepAxis::MicroBatch: return SweepChart::tr("Micro-batch");
    case core::SweepAxis::SeqLen: return SweepChart::tr("Sequence length");
    case core::SweepAxis::GlobalBatch: return SweepChart::tr("Global batch");
    }
    return {};
}

std::unique_ptr<ChartBase> SweepChart::copy() const
{
    auto c = std::make_unique<SweepChart>(m_metric);
    c->setCurves(m_curves, m_axis, m_currentX, m_capacityBytes);
    c->nameAxis();
    return c;
}

void SweepChart::nameAxis() { m_plot->xAxis->setLabel(sweepAxisName(m_axis)); }

void SweepChart::setCurves(
    const std::vector<core::SweepCurve>& curves, core::SweepAxis axis, double currentX, double capacity)
{
    m_curves = curves;
    m_axis = axis;
    m_currentX = currentX;
    m_capacityBytes = capacity;
    clearGraphs();
    m_plotted.assign(curves.size(), {});

    // Unit of the value axis.
    double maxValue = 0, minPositive = INFINITY;
    for (const auto& c : curves)
        for (const auto& p : c.points)
            if (p.valid) {
                const double v = metricValue(p);
                maxValue = std::max(maxValue, v);
                if (v > 0)
                    minPositive = std::min(minPositive, v);
            }
    QString unit;
    switch (m_metric) {
    case Metric::Memory:
    case Metric::Communication:
        m_divisor = Units::bytesPerUnit();
        unit = Units::unitName();
        break;
    case Metric::StepTime: {
        const auto [scale, u] = Units::timeScale(maxValue);
        m_divisor = scale;
        unit = u;
        break;
    }
    case Metric::Mfu:
        m_divisor = 0.01;
        unit = QStringLiteral("%");
        break;
    }
    // Values spanning decades (memory and time against model size or GPUs) read best on a log axis.
    const bool logY = m_metric != Metric::Mfu && minPositive < INFINITY && maxValue / minPositive > 30;
    m_plot->yAxis->setScaleType(logY ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logY)
        m_plot->yAxis->setTicker(QSharedPointer<FitLogTicker>::create());
    else
        m_plot->yAxis->setTicker(QSharedPointer<FitTicker>::create());
    m_plot->yAxis->setLabel(unit);

    for (size_t ci = 0; ci < curves.size(); ++ci) {
        const auto& pts = curves[ci].points;
        auto y = [&](size_t i) {
            const double v = metricValue(pts[i]) / m_divisor;
            return logY && v <= 0 ? kNaN : v;
        };
        auto& plotted = m_plotted[ci];
        plotted.assign(pts.size(), kNaN);
        QVector<double> sk, sv, dk, dv, hk, hv;
        Series solid { int(ci), Part::Solid, {} }, dashed { int(ci), Part::Dashed, {} },
            hollow { int(ci), Part::Hollow, {} };
        auto brk = [](QVector<double>& k, QVector<double>& v, Series& s, double x) {
            if (!v.isEmpty() && !std::isnan(v.back())) {
                k << x;
                v << kNaN;
                s.points.push_back(-1);
            }
        };
        for (size_t i = 0; i < pts.size(); ++i) {
            const auto& p = pts[i];
            if (!p.valid || !(p.x > 0)) {
                brk(sk, sv, solid, p.x);
                brk(dk, dv, dashed, p.x);
                continue;
            }
            plotted[i] = y(i);
            if (p.fits) {
                sk << p.x;
                sv << y(i);
                solid.points.push_back(int(i));
            } else {
                brk(sk, sv, solid, p.x);
                hk << p.x;
                hv << y(i);
                hollow.points.push_back(int(i));
            }
            // Dashed segment from i-1 to i when both are drawn and either does not fit.
            if (i > 0 && pts[i - 1].valid && !(pts[i - 1].fits && p.fits)) {
                if (dk.isEmpty() || dk.back() != pts[i - 1].x) {
                    brk(dk, dv, dashed, pts[i - 1].x);
                    dk << pts[i - 1].x;
                    dv << y(i - 1);
                    dashed.points.push_back(int(i - 1));
                }
                dk << p.x;
                dv << y(i);
                dashed.points.push_back(int(i));
            }
        }
        const QColor c = curveColor(int(ci));
        auto* g = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
        g->setName(QString::fromStdString(curves[ci].strategy.label));
        g->setPen(QPen(c, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(c, 1.5), c, 6));
        g->setData(sk, sv, true);
        g->setSelectable(QCP::stNone);
        m_series.insert(g, solid);
        auto* d = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
        d->setPen(QPen(c, 1.6, Qt::DashLine));
        d->setData(dk, dv, true);
        d->setSelectable(QCP::stNone);
        m_series.insert(d, dashed);
        auto* h = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
        h->setLineStyle(QCPGraph::lsNone);
        h->setPen(QPen(c, 1.5));
        h->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(c, 1.5), m_theme.background, 7));
        h->setData(hk, hv, true);
        h->setSelectable(QCP::stNone);
        m_series.insert(h, hollow);
    }

    // x, on a log axis (powers of two, or model sizes): the values at which some strategy is possible (impossible ones are listed under the charts).
    double lo = INFINITY, hi = 0;
    m_xs.clear();
    if (!curves.empty())
        for (size_t i = 0; i < curves.front().points.size(); ++i) {
            bool any = false;
            for (const auto& c : curves)
                any = any || (i < c.points.size() && c.points[i].valid);
            const double x = curves.front().points[i].x;
            if (!any || !(x > 0))
                continue;
            m_xs.push_back(x);
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
    updateTicks();
    if (hi > 0)
        m_plot->xAxis->setRange(lo / 1.25, hi * 1.25);

    double yMax = maxValue / m_divisor;
    if (m_metric == Metric::Memory && capacity > 0) {
        const double cap = capacity / m_divisor;
        m_capacity->point1->setCoords(0, cap);
        m_capacity->point2->setCoords(1, cap);
        m_capacityLabel->position->setCoords(0.02, cap);
        m_capacityLabel->setText(tr("usable %1").arg(Units::bytes(capacity)));
        m_capacity->setVisible(true);
        m_capacityLabel->setVisible(true);
        // Keep the capacity line in view but do not let one runaway curve squash the rest.
        yMax = logY ? std::max(yMax, cap * 1.5) : std::min(std::max(yMax, cap * 1.15), cap * 4);
    } else {
        m_capacity->setVisible(false);
        m_capacityLabel->setVisible(false);
    }
    if (logY)
        m_plot->yAxis->setRange(minPositive / m_divisor / 1.6, yMax * 1.6);
    else
        m_plot->yAxis->setRange(0, yMax > 0 ? yMax * 1.08 : 1);

    if (currentX > 0) {
        m_current->point1->setCoords(currentX, 0);
        m_current->point2->setCoords(currentX, 1);
        m_current->setVisible(true);
    } else {
        m_current->setVisible(false);
    }
    themeChanged();
    bool any = false;
    for (const auto& v : m_plotted)
        for (double y : v)
            any = any || !std::isnan(y);
    setMessage(any ? QString() : tr("No point of this sweep is possible"));
    requestReplot();
}

void SweepChart::updateTicks()
{
    // One label per sweep value; the ticker keeps every n-th when they would collide (charts/axis_ticks.h).
    m_xTicker->clear();
    for (double x : m_xs)
        m_xTicker->addTick(x, axisValueLabel(m_axis, x));
}

void SweepChart::plotResized()
{
    updateTicks();
    requestReplot();
}

QRectF SweepChart::capacityLabelRect() const
{
    if (!m_capacityLabel->visible())
        return {};
    return QRectF(m_capacityLabel->topLeft->pixelPosition(), m_capacityLabel->bottomRight->pixelPosition())
        .normalized();
}

bool SweepChart::curvesCross(const QRectF& rect) const
{
    const QRectF box = rect.adjusted(-2, -2, 2, 2);
    for (auto it = m_series.cbegin(); it != m_series.cend(); ++it) {
        const auto* g = static_cast<const QCPGraph*>(it.key());
        const bool line = g->lineStyle() != QCPGraph::lsNone;
        const double marker = g->scatterStyle().isNone() ? 0 : g->scatterStyle().size() / 2 + 1;
        QPointF prev;
        bool hasPrev = false;
        for (auto d = g->data()->constBegin(); d != g->data()->constEnd(); ++d) {
            if (std::isnan(d->value)) {
                hasPrev = false;
                continue;
            }
            const QPointF p(m_plot->xAxis->coordToPixel(d->key), m_plot->yAxis->coordToPixel(d->value));
            if (marker > 0 && box.adjusted(-marker, -marker, marker, marker).contains(p))
                return true;
            if (line && hasPrev) {
                // The segment crosses the box if it has a point in it: sample it finely (segments are short).
                const int steps = std::max(2, int(QLineF(prev, p).length() / 2));
                for (int k = 0; k <= steps; ++k)
                    if (box.contains(prev + (p - prev) * (double(k) / steps)))
                        return true;
            }
            prev = p;
            hasPrev = true;
        }
    }
    return false;
}

void SweepChart::laidOut()
{
    if (!m_capacityLabel->visible())
        return;
    // Candidates: above the line at the left, right, middle, then below it; the first no curve passes through.
    struct Place {
        double x;
        Qt::Alignment align;
    };
    static const Place places[]
        = { { 0.02, Qt::AlignLeft | Qt::AlignBottom }, { 0.98, Qt::AlignRight | Qt::AlignBottom },
              { 0.5, Qt::AlignHCenter | Qt::AlignBottom }, { 0.02, Qt::AlignLeft | Qt::AlignTop },
              { 0.98, Qt::AlignRight | Qt::AlignTop }, { 0.5, Qt::AlignHCenter | Qt::AlignTop },
              { 0.27, Qt::AlignHCenter | Qt::AlignBottom }, { 0.73, Qt::AlignHCenter | Qt::AlignBottom },
              { 0.27, Qt::AlignHCenter | Qt::AlignTop }, { 0.73, Qt::AlignHCenter | Qt::AlignTop } };
    const QRect area = m_plot->xAxis->axisRect()->rect();
    const QFontMetricsF fm(m_capacityLabel->font());
    const QSizeF size = fm.size(0, m_capacityLabel->text())
        + QSizeF(m_capacityLabel->padding().left() + m_capacityLabel->padding().right(),
            m_capacityLabel->padding().top() + m_capacityLabel->padding().bottom());
    const double y = m_plot->yAxis->coordToPixel(m_capacity->point1->coords().y());
    for (const Place& place : places) {
        const double x = area.left() + place.x * area.width();
        QRectF r(QPointF(0, 0), size);
        if (place.align & Qt::AlignLeft)
            r.moveLeft(x);
        else if (place.align & Qt::AlignRight)
            r.moveRight(x);
        else
            r.moveLeft(x - size.width() / 2);
        if (place.align & Qt::AlignBottom)
            r.moveBottom(y - 1);
        else
            r.moveTop(y + 1);
        if (!QRectF(area).contains(r) || curvesCross(r))
            continue;
        m_capacityLabel->setPositionAlignment(place.align);
        m_capacityLabel->position->setCoords(place.x, m_capacity->point1->coords().y());
        return;
    }
    m_capacityLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom); // nowhere free: the usual place
    m_capacityLabel->position->setCoords(0.02, m_capacity->point1->coords().y());
}

double SweepChart::plotted(int curve, int point) const
{
    if (curve < 0 || curve >= int(m_plotted.size()) || point < 0 || point >= int(m_plotted[size_t(curve)].size()))
        return kNaN;
    return m_plotted[size_t(curve)][size_t(point)];
}

QString SweepChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    const auto it = m_series.constFind(plottable);
    if (it == m_series.cend() || index < 0 || index >= int(it->points.size()) || it->points[size_t(index)] < 0)
        return {};
    const auto& curve = m_curves[size_t(it->curve)];
    const auto& p = curve.points[size_t(it->points[size_t(index)])];
    const QString where = p.label.empty()
        ? axisValueLabel(m_axis, p.x)
        : QStringLiteral("%1 (%2)").arg(QString::fromStdString(p.label), axisValueLabel(m_axis, p.x));
    return tr(
        "<b>%1 at %2</b><br>memory %3 per GPU%4<br>step time %5 · MFU %6<br>%7 sent per GPU per step · %8 tokens/s")
        .arg(QString::fromStdString(curve.strategy.label).toHtmlEscaped(), where.toHtmlEscaped(),
            Units::bytes(p.memory), p.fits ? QString() : tr(" — <b>does not fit</b>"), Units::seconds(p.stepTime),
            Units::percent(p.mfu), Units::bytes(p.commBytes), Units::tokensPerSecond(p.tokensPerSecond));
}

} // namespace shardscope::ui
