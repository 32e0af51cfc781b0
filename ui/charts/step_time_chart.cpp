// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/step_time_chart.h"

#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "charts/range_whiskers.h"
#include "explain/tooltips.h"
#include "util/units.h"

namespace shardscope::ui {

StepTimeChart::StepTimeChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.time"), tr("Step time: this scenario and by strategy"), parent)
    , m_ticker(new FitTextTicker)
    , m_totals(new FitTextTicker)
{
    m_bars = setupStackedRows(m_plot, m_ticker, m_totals, 0.62);
    m_whiskers = std::make_unique<RangeWhiskers>(m_plot->yAxis, m_plot->xAxis);
    for (const core::TermKey& k : core::termKeys(core::TermGroup::StepTime))
        m_keys.push_back(QString::fromUtf8(k.key.data(), qsizetype(k.key.size())));
    LegendStrip* legend = addLegend(Qt::BottomEdge, 3);
    legend->setEntries(legendEntries(m_bars));
    legend->setToolTipProvider([this](int part) { return legendToolTip(part); });
    applyTheme();
}

StepTimeChart::~StepTimeChart() = default;

void StepTimeChart::themeChanged()
{
    if (m_whiskers)
        m_whiskers->setTheme(m_theme);
}

std::vector<QCPBars*> StepTimeChart::setupStackedRows(QCustomPlot* plot, const QSharedPointer<QCPAxisTickerText>& rows,
    const QSharedPointer<QCPAxisTickerText>& totals, double barWidth)
{
    QCPAxis* key = plot->yAxis;
    QCPAxis* value = plot->xAxis;
    key->setTicker(rows);
    key->setRangeReversed(true);
    key->grid()->setVisible(false);
    key->setTickLength(0, 3);
    // Each row's total as a tick label on the right: an aligned column, and cached by QCustomPlot.
    QCPAxis* right = plot->yAxis2;
    right->setVisible(true);
    right->setTicker(totals);
    right->setRangeReversed(true);
    right->setTickLength(0, 0);
    right->setSubTicks(false);
    QObject::connect(
        key, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), right, qOverload<const QCPRange&>(&QCPAxis::setRange));
    std::vector<QCPBars*> out;
    QCPBars* below = nullptr;
    for (const core::TermKey& term : core::termKeys(core::TermGroup::StepTime)) {
        const QColor colour = termColor(term.key);
        auto* bars = new QCPBars(key, value);
        bars->setName(QString::fromUtf8(term.label.data(), qsizetype(term.label.size())));
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(130), 1));
        bars->setWidth(barWidth);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (below)
            bars->moveAbove(below);
        below = bars;
        out.push_back(bars);
    }
    return out;
}

QList<LegendStrip::Entry> StepTimeChart::legendEntries(const std::vector<QCPBars*>& bars)
{
    QList<LegendStrip::Entry> entries;
    for (QCPBars* b : bars)
        entries.push_back({ b->name(), b->brush().color(), LegendStrip::Swatch::Box, {} });
    return entries;
}

QString StepTimeChart::partKey(int part) const { return m_keys[size_t(part)]; }

QString StepTimeChart::partName(int part) const { return m_bars[size_t(part)]->name(); }

std::vector<TermFigure> StepTimeChart::figures(int row) const
{
    return termFigures(*m_rows[row].result, core::TermGroup::StepTime);
}

QString StepTimeChart::legendToolTip(int part) const
{
    if (const core::Term* t = findTerm(m_result.terms, m_keys[size_t(part)].toStdString()))
        return termHtml(*t, {}, tr("this scenario"));
    return explainHtml(m_keys[size_t(part)]);
}

void StepTimeChart::setResult(const core::Result& result, const core::StrategyComparison& comparison)
{
    m_result = result;
    m_comparison = comparison;
    m_rows.clear();
    m_rows.push_back({ tr("this scenario"), &m_result });
    for (const core::StrategyVariant& v : m_comparison)
        if (!v.own) // already the first row
            m_rows.push_back(
                { QString::fromStdString(v.label).replace(QLatin1Char('\n'), QLatin1Char(' ')), &v.result, &v });

    double maxTotal = 0, maxHigh = 0;
    for (const Row& r : std::as_const(m_rows))
        if (r.result->valid) {
            maxTotal = std::max(maxTotal, r.result->step.total());
            maxHigh = std::max({ maxHigh, maxTotal, r.result->stepTimeRange.hi });
        }
    const auto [scale, unit] = Units::timeScale(maxTotal);
    m_scale = scale;
    m_ticker->clear();
    m_totals->clear();
    std::vector<QVector<double>> values(m_bars.size());
    QVector<double> keys, rangeKeys, points, lows, highs;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        const Row& row = m_rows[i];
        const double key = double(i + 1) + (i > 0 ? 0.3 : 0.0); // a gap after "this scenario"
        m_ticker->addTick(key, row.label);
        if (!row.result->valid) {
            m_totals->addTick(key, tr("not allowed"));
            continue;
        }
        keys << key;
        const std::vector<TermFigure> parts = figures(int(i));
        double t = 0;
        for (size_t p = 0; p < m_bars.size(); ++p) {
            const double seconds = figureValue(parts, m_keys[p], p);
            values[p] << seconds / scale;
            t += seconds;
        }
        m_totals->addTick(key, row.result->fits ? Units::seconds(t) : tr("%1 · OOM").arg(Units::seconds(t)));
        if (row.result->stepTimeRange.hi > 0) { // evaluate()'s results carry it
            rangeKeys << key;
            points << t / scale;
            lows << row.result->stepTimeRange.lo / scale;
            highs << row.result->stepTimeRange.hi / scale;
        }
    }
    m_whiskers->set(rangeKeys, points, lows, highs);
    for (size_t p = 0; p < m_bars.size(); ++p)
        m_bars[p]->setData(keys, values[p], true);
    m_plot->yAxis->setRange(0.4, double(m_rows.size()) + 0.9);
    m_plot->xAxis->setRange(0, maxTotal > 0 ? maxHigh / scale * 1.04 : 1);
    m_plot->xAxis->setLabel(tr("time per optimizer step (%1)").arg(unit));
    setMessage(maxTotal > 0 ? QString() : tr("No figures: the scenario is invalid (see Issues)"));
    requestReplot();
}

double StepTimeChart::value(int row, int part) const
{
    if (row < 0 || row >= m_rows.size() || !m_rows[row].result->valid || part < 0 || size_t(part) >= m_bars.size())
        return 0;
    return figureValue(figures(row), m_keys[size_t(part)], size_t(part)) / m_scale;
}

int StepTimeChart::rowAt(double key) const
{
    const int row = key < 1.5 ? 0 : int(key - 0.3 + 0.5) - 1; // keys: 1, then 2.3, 3.3, ...
    return row >= 0 && row < m_rows.size() ? row : -1;
}

QString StepTimeChart::rowToolTip(int row) const
{
    const Row& r = m_rows[row];
    if (!r.result->valid)
        return tr("<b>%1 is not allowed with this scenario</b><br>%2")
            .arg(r.label.toHtmlEscaped(),
                r.result->issues.empty() ? QString()
                                         : QString::fromStdString(r.result->issues.front().message).toHtmlEscaped());
    return sumHtml(QStringLiteral("step_time.total"), figures(row), "s", Units::seconds(r.result->step.total()),
        r.label + (r.result->fits ? QString() : tr(" (does not fit in GPU memory)")));
}

QString StepTimeChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    int part = -1;
    for (size_t p = 0; p < m_bars.size(); ++p)
        if (m_bars[p] == plottable)
            part = int(p);
    if (part < 0 || index < 0)
        return {};
    const int row = rowAt(static_cast<QCPBars*>(plottable)->data()->at(index)->key);
    if (row < 0)
        return {};
    const Row& r = m_rows[row];
    const std::string key = m_keys[size_t(part)].toStdString();
    const double seconds = breakdownValue(r.result->step, key);
    const double total = r.result->step.total();
    const QString value
        = tr("%1 (%2 of %3)")
              .arg(Units::seconds(seconds), Units::percent(total > 0 ? seconds / total : 0, 0), Units::seconds(total));
    const std::vector<core::Term> variantTerms = r.variant ? core::variantTerms(*r.variant) : std::vector<core::Term>();
    const core::Term* term = findTerm(r.variant ? variantTerms : r.result->terms, key);
    return term ? termHtml(*term, value, r.label) : explainHtml(m_keys[size_t(part)], value, r.label);
}

QString StepTimeChart::axisToolTip(QCPAxis* axis, const QPoint& pos) const
{
    if (axis != m_plot->yAxis && axis != m_plot->yAxis2)
        return {};
    const int row = rowAt(axis->pixelToCoord(pos.y()));
    return row >= 0 ? rowToolTip(row) : QString();
}

} // namespace shardscope::ui
