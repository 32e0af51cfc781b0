// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/search_scatter.h"

#include "analysis/layout_text.h"
#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "util/units.h"
#include "util/sharding_names.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

SearchScatterChart::SearchScatterChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.search"), tr("Feasible layouts: step time against memory per GPU"), parent)
{
    // Round markers and the front line read better smoothed; axes stay crisp.
    m_plot->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid | QCP::aeSubGrid | QCP::aeZeroLine);
    for (int i = 0; i < kStrategies; ++i) {
        auto* g = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
        g->setName(shardingShort(core::Sharding(i)));
        g->setLineStyle(QCPGraph::lsNone);
        g->setSelectable(QCP::stNone);
        m_series[size_t(i)] = g;
    }
    m_front = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
    m_front->setName(tr("Pareto front"));
    m_front->setSelectable(QCP::stNone);
    m_current = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
    m_current->setName(tr("this scenario"));
    m_current->setLineStyle(QCPGraph::lsNone);
    m_current->setSelectable(QCP::stNone);
    m_ring = new QCPGraph(m_plot->xAxis, m_plot->yAxis);
    m_ring->setLineStyle(QCPGraph::lsNone);
    m_ring->setSelectable(QCP::stNone);
    m_limit = new QCPItemStraightLine(m_plot);
    m_limit->setSelectable(false);
    m_limit->setVisible(false); // until there are results
    m_limitLabel = new QCPItemText(m_plot);
    m_limitLabel->setSelectable(false);
    m_limitLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    m_limitLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_limitLabel->position->setTypeY(QCPItemPosition::ptPlotCoords);
    m_limitLabel->setClipToAxisRect(false);
    m_limitLabel->setVisible(false);

    m_currentLabel = new QCPItemText(m_plot);
    m_currentLabel->setSelectable(false);
    m_currentLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_currentLabel->setPadding(QMargins(10, 0, 0, 0));
    m_currentLabel->setVisible(false);

    m_plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag);
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* p, int dataIndex, QMouseEvent*) {
        const int index = pointIndexOf(p, dataIndex);
        if (index >= 0)
            emit pointClicked(index);
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetView(); });

    addLegend(Qt::BottomEdge, 5);
    applyTheme();
    setMessage(tr("Run a search to see the layouts"));
}

void SearchScatterChart::themeChanged()
{
    const QColor fg = m_theme.foreground;
    m_front->setPen(QPen(fg, 1.6));
    m_front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(fg, 1.4), Qt::NoBrush, 6));
    m_current->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(fg, 2), Qt::NoBrush, 14));
    const QColor ring = palette().color(QPalette::Highlight);
    m_ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(ring, 2.5), Qt::NoBrush, 16));
    m_limit->setPen(QPen(m_theme.muted, 1, Qt::DashLine));
    m_limitLabel->setColor(m_theme.muted);
    m_limitLabel->setFont(smallFont());
    m_currentLabel->setColor(fg);
    m_currentLabel->setFont(smallFont());
    for (int i = 0; i < kStrategies; ++i) {
        QColor c = shardingColor(core::Sharding(i));
        QColor fill = c;
        fill.setAlpha(150);
        if (m_points.size() > 20000) // huge clouds: unoutlined squares draw several times faster than discs
            m_series[size_t(i)]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(fill, 0), fill, 3));
        else
            m_series[size_t(i)]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c.darker(115), fill, 5));
    }
    QList<LegendStrip::Entry> entries;
    if (m_legend) {
        std::array<bool, kStrategies> used {};
        for (const auto& p : m_points)
            used[size_t(p.layout.sharding)] = true;
        for (int i = 0; i < kStrategies; ++i)
            if (used[size_t(i)])
                entries.push_back({ shardingShort(core::Sharding(i)), shardingColor(core::Sharding(i)),
                    LegendStrip::Swatch::Box, tr("Layouts with %1 sharding").arg(shardingShort(core::Sharding(i))) });
        if (!m_pareto.empty())
            entries.push_back({ tr("Pareto front"), fg, LegendStrip::Swatch::DashedLine,
                tr("Layouts no other layout beats in both step time and memory") });
        entries.push_back(
            { tr("⊕ this scenario"), fg, LegendStrip::Swatch::DashedLine, tr("The open scenario's layout") });
        m_legend->setEntries(entries);
    }
    updateMarkers();
}

void SearchScatterChart::setPoints(const std::vector<core::SearchPoint>& points, const std::vector<size_t>& pareto,
    double limitBytes, const core::SearchOptions& options)
{
    m_options = options;
    m_points = points;
    m_pareto = pareto;
    m_limitBytes = limitBytes;
    m_selected = -1;
    double maxStep = 0, minStep = INFINITY;
    for (const auto& p : m_points) {
        maxStep = std::max(maxStep, p.stepTime);
        minStep = std::min(minStep, p.stepTime);
    }
    if (m_currentValid) {
        maxStep = std::max(maxStep, m_currentStep);
        minStep = std::min(minStep, m_currentStep);
    }
    m_scale = Units::timeScale(maxStep).first;
    // Smoothed markers cost too much for huge clouds (a MoE search gives 200k points): crisp squares-ish discs.
    const bool big = m_points.size() > 20000;
    for (QCPGraph* g : m_series)
        g->setAntialiasedScatters(!big);

    // Each series sorted by step time (QCPGraph keeps keys sorted); remember which point each entry is.
    std::array<std::vector<int>, kStrategies> order;
    for (size_t i = 0; i < m_points.size(); ++i)
        order[size_t(m_points[i].layout.sharding)].push_back(int(i));
    for (int s = 0; s < kStrategies; ++s) {
        auto& idx = order[size_t(s)];
        std::stable_sort(idx.begin(), idx.end(),
            [this](int a, int b) { return m_points[size_t(a)].stepTime < m_points[size_t(b)].stepTime; });
        QVector<double> keys, values;
        keys.reserve(qsizetype(idx.size()));
        values.reserve(qsizetype(idx.size()));
        for (int i : idx) {
            keys << m_points[size_t(i)].stepTime / m_scale;
            values << Units::toUnit(m_points[size_t(i)].memory);
        }
        m_series[size_t(s)]->setData(keys, values, true);
        m_seriesIndex[size_t(s)] = std::move(idx);
    }
    QVector<double> fk, fv;
    for (size_t i : m_pareto) {
        fk << m_points[i].stepTime / m_scale;
        fv << Units::toUnit(m_points[i].memory);
    }
    m_front->setData(fk, fv, true);

    m_limit->point1->setCoords(0, Units::toUnit(limitBytes));
    m_limit->point2->setCoords(1, Units::toUnit(limitBytes));
    m_limitLabel->position->setCoords(0.99, Units::toUnit(limitBytes));
    m_limitLabel->setText(tr("usable memory %1").arg(Units::bytes(limitBytes)));
    m_limit->setVisible(limitBytes > 0);
    m_limitLabel->setVisible(limitBytes > 0);
    const auto unit = Units::timeScale(maxStep).second;
    // The axis titles name the end of the range each figure is; the title says it too, the memory axis being short.
    m_plot->xAxis->setLabel(axisTitle(tr("step time"), rankedTimeBasis(options), unit));
    m_plot->yAxis->setLabel(axisTitle(tr("memory per GPU"), QString(), Units::unitName()));
    setTitle(tr("Feasible layouts: %1 against %2")
                 .arg(withBasis(tr("step time"), rankedTimeBasis(options)),
                     withBasis(tr("memory per GPU"), rankedMemoryBasis(options))));
    const bool logX = !m_points.empty() && minStep > 0 && maxStep / minStep > 8;
    m_plot->xAxis->setScaleType(logX ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    // Log: 1-2-5 in each decade where there is room (a plain log ticker labels only powers of ten).
    if (logX)
        m_plot->xAxis->setTicker(QSharedPointer<FitLogTicker>::create());
    else
        m_plot->xAxis->setTicker(QSharedPointer<FitTicker>::create());
    updateMarkers();
    themeChanged(); // legend entries depend on the strategies present
    resetView();
    setMessage(m_points.empty() ? tr("No layout fits within the constraints") : QString());
    requestReplot();
}

void SearchScatterChart::redraw()
{
    const int selected = m_selected;
    const std::vector<core::SearchPoint> points = m_points;
    const std::vector<size_t> pareto = m_pareto;
    setPoints(points, pareto, m_limitBytes, m_options);
    setSelectedPoint(selected);
}

void SearchScatterChart::resetView()
{
    double lo = INFINITY, hi = 0;
    for (const auto& p : m_points) {
        lo = std::min(lo, p.stepTime / m_scale);
        hi = std::max(hi, p.stepTime / m_scale);
    }
    if (m_currentValid) {
        lo = std::min(lo, m_currentStep / m_scale);
        hi = std::max(hi, m_currentStep / m_scale);
    }
    if (!(hi > 0)) {
        lo = 0;
        hi = 1;
    }
    if (m_plot->xAxis->scaleType() == QCPAxis::stLogarithmic)
        m_plot->xAxis->setRange(lo / 1.12, hi * 1.12);
    else
        m_plot->xAxis->setRange(std::max(0.0, lo - (hi - lo) * 0.06 - hi * 0.02), hi + (hi - lo) * 0.06 + hi * 0.02);
    m_plot->yAxis->setRange(0, yTop());
    updateMarkers();
    requestReplot();
}

double SearchScatterChart::yTop() const
{
    const double limit = Units::toUnit(m_limitBytes);
    double top = limit * 1.12;
    if (m_currentValid && Units::toUnit(m_currentMemory) <= limit * 1.5)
        top = std::max(top, Units::toUnit(m_currentMemory) * 1.08);
    return top > 0 ? top : 1;
}

std::unique_ptr<ChartBase> SearchScatterChart::copy() const
{
    auto c = std::make_unique<SearchScatterChart>();
    c->setCurrent(m_currentValid, m_currentStep, m_currentMemory, m_currentFits);
    c->setPoints(m_points, m_pareto, m_limitBytes, m_options);
    c->setSelectedPoint(m_selected);
    return c;
}

void SearchScatterChart::setCurrent(bool valid, double stepTime, double memoryBytes, bool fits)
{
    m_currentValid = valid && stepTime > 0;
    m_currentStep = stepTime;
    m_currentMemory = memoryBytes;
    m_currentFits = fits;
    updateMarkers();
    requestReplot();
}

void SearchScatterChart::setSelectedPoint(int index)
{
    m_selected = index >= 0 && index < int(m_points.size()) ? index : -1;
    updateMarkers();
    requestReplot();
}

void SearchScatterChart::updateMarkers()
{
    const double top = yTop();
    const double mem = Units::toUnit(m_currentMemory);
    const bool above = m_currentValid && mem > top;
    if (m_currentValid)
        m_current->setData({ m_currentStep / m_scale }, { above ? top * 0.96 : mem }, true);
    else
        m_current->data()->clear();
    // Far above the usable memory: pinned to the top edge, with its real figure.
    m_current->setScatterStyle(QCPScatterStyle(above ? QCPScatterStyle::ssTriangle : QCPScatterStyle::ssCrossCircle,
        QPen(m_theme.foreground, 2), Qt::NoBrush, above ? 11 : 14));
    m_currentLabel->setVisible(above);
    if (above) {
        m_currentLabel->position->setCoords(m_currentStep / m_scale, top * 0.96);
        m_currentLabel->setText(tr("this scenario: %1 per GPU ↑").arg(Units::bytes(m_currentMemory)));
    }
    if (m_selected >= 0) {
        const auto& p = m_points[size_t(m_selected)];
        m_ring->setData({ p.stepTime / m_scale }, { Units::toUnit(p.memory) }, true);
    } else {
        m_ring->data()->clear();
    }
}

int SearchScatterChart::pointCount() const
{
    int n = 0;
    for (auto* g : m_series)
        n += g->dataCount();
    return n;
}

int SearchScatterChart::paretoCount() const { return m_front->dataCount(); }

int SearchScatterChart::pointIndexOf(QCPAbstractPlottable* plottable, int dataIndex) const
{
    if (dataIndex < 0)
        return -1;
    for (int s = 0; s < kStrategies; ++s)
        if (plottable == m_series[size_t(s)] && dataIndex < int(m_seriesIndex[size_t(s)].size()))
            return m_seriesIndex[size_t(s)][size_t(dataIndex)];
    if (plottable == m_front && dataIndex < int(m_pareto.size()))
        return int(m_pareto[size_t(dataIndex)]);
    if (plottable == m_ring)
        return m_selected;
    return -1;
}

QString SearchScatterChart::pointToolTip(int index) const
{
    const core::SearchPoint& p = m_points[size_t(index)];
    const bool front = std::find(m_pareto.begin(), m_pareto.end(), size_t(index)) != m_pareto.end();
    return tr("<b>#%1%2</b><br>%3<br>step time %4 · %5 tokens/s · memory %6 per GPU<br><i>Click to select its row.</i>")
        .arg(index + 1)
        .arg(front ? tr(" (on the Pareto front)") : QString())
        .arg(layoutSummary(p.layout).toHtmlEscaped())
        .arg(Units::seconds(p.stepTime), Units::tokensPerSecond(p.tokensPerSecond), Units::bytes(p.memory));
}

QString SearchScatterChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    if (plottable == m_current)
        return tr("<b>This scenario</b><br>step time %1 · memory %2 per GPU%3")
            .arg(Units::seconds(m_currentStep), Units::bytes(m_currentMemory),
                m_currentFits ? QString() : tr(" · does not fit"));
    const int i = pointIndexOf(plottable, index);
    return i >= 0 ? pointToolTip(i) : QString();
}

} // namespace shardscope::ui
