// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/step_time_chart.h"

#include "charts/qcp.h"
#include "explain/tooltips.h"
#include "util/units.h"

namespace shardscope::ui {

StepTimeChart::StepTimeChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.time"), tr("Step time: this scenario and by strategy"), parent)
    , m_ticker(new QCPAxisTickerText)
    , m_totals(new QCPAxisTickerText)
{
    m_bars = setupStackedRows(m_plot, m_ticker, m_totals, 0.62);
    addLegend(Qt::BottomEdge, 3)->setEntries(legendEntries());
    applyTheme();
}

std::array<QCPBars*, StepTimeChart::kParts> StepTimeChart::setupStackedRows(QCustomPlot* plot,
    const QSharedPointer<QCPAxisTickerText>& rows, const QSharedPointer<QCPAxisTickerText>& totals, double barWidth)
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
    QObject::connect(key, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), right,
        qOverload<const QCPRange&>(&QCPAxis::setRange));
    std::array<QCPBars*, kParts> out{};
    QCPBars* below = nullptr;
    for (int i = 0; i < kParts; ++i) {
        auto* bars = new QCPBars(key, value);
        bars->setName(partName(i));
        bars->setBrush(timeColor(i));
        bars->setPen(QPen(timeColor(i).darker(130), 1));
        bars->setWidth(barWidth);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (below)
            bars->moveAbove(below);
        below = bars;
        out[size_t(i)] = bars;
    }
    return out;
}

QList<LegendStrip::Entry> StepTimeChart::legendEntries()
{
    QList<LegendStrip::Entry> entries;
    for (int i = 0; i < kParts; ++i)
        entries.push_back({partName(i), timeColor(i), LegendStrip::Swatch::Box, explainHtml(partKey(i))});
    return entries;
}

QString StepTimeChart::partKey(int part)
{
    static const char* keys[] = {"time.compute", "time.recompute", "time.exposed_communication",
                                 "time.pipeline_bubble", "time.offload", "time.optimizer"};
    return QString::fromLatin1(keys[part]);
}

QString StepTimeChart::partName(int part)
{
    static const char* names[] = {QT_TRANSLATE_NOOP("StepTimeChart", "Compute"),
                                  QT_TRANSLATE_NOOP("StepTimeChart", "Recompute"),
                                  QT_TRANSLATE_NOOP("StepTimeChart", "Exposed comm."),
                                  QT_TRANSLATE_NOOP("StepTimeChart", "Pipeline bubble"),
                                  QT_TRANSLATE_NOOP("StepTimeChart", "Offload"),
                                  QT_TRANSLATE_NOOP("StepTimeChart", "Optimizer")};
    return QCoreApplication::translate("StepTimeChart", names[part]);
}

double StepTimeChart::partSeconds(const core::StepTime& t, int part)
{
    switch (part) {
    case 0: return t.compute;
    case 1: return t.recompute;
    case 2: return t.exposedCommunication;
    case 3: return t.pipelineBubble;
    case 4: return t.offload;
    case 5: return t.optimizer;
    }
    return 0;
}

void StepTimeChart::setResult(const core::Scenario& scenario, const core::Result& result,
                              const StrategyComparison& comparison)
{
    m_scenario = scenario;
    m_result = result;
    m_comparison = comparison;
    m_rows.clear();
    m_rows.push_back({tr("this scenario"), &m_scenario, &m_result});
    for (const StrategyVariant& v : m_comparison)
        m_rows.push_back({QString(v.label).replace(QLatin1Char('\n'), QLatin1Char(' ')), &v.scenario, &v.result});

    double maxTotal = 0;
    for (const Row& r : std::as_const(m_rows))
        if (r.result->valid)
            maxTotal = std::max(maxTotal, r.result->step.total());
    const auto [scale, unit] = Units::timeScale(maxTotal);
    m_scale = scale;
    m_ticker->clear();
    m_totals->clear();
    std::array<QVector<double>, kParts> values;
    QVector<double> keys;
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        const Row& row = m_rows[i];
        const double key = double(i + 1) + (i > 0 ? 0.3 : 0.0); // a gap after "this scenario"
        m_ticker->addTick(key, row.label);
        if (!row.result->valid) {
            m_totals->addTick(key, tr("not allowed"));
            continue;
        }
        keys << key;
        for (int p = 0; p < kParts; ++p)
            values[size_t(p)] << partSeconds(row.result->step, p) / scale;
        const double t = row.result->step.total();
        m_totals->addTick(key, row.result->fits ? Units::seconds(t) : tr("%1 · OOM").arg(Units::seconds(t)));
    }
    for (int p = 0; p < kParts; ++p)
        m_bars[size_t(p)]->setData(keys, values[size_t(p)], true);
    m_plot->yAxis->setRange(0.4, double(m_rows.size()) + 0.9);
    m_plot->xAxis->setRange(0, maxTotal > 0 ? maxTotal / scale * 1.04 : 1);
    m_plot->xAxis->setLabel(tr("time per optimizer step (%1)").arg(unit));
    setMessage(maxTotal > 0 ? QString() : tr("No figures: the scenario is invalid (see Issues)"));
    requestReplot();
}

double StepTimeChart::value(int row, int part) const
{
    if (row < 0 || row >= m_rows.size() || !m_rows[row].result->valid)
        return 0;
    return partSeconds(m_rows[row].result->step, part) / m_scale;
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
                 r.result->issues.empty() ? QString() : QString::fromStdString(r.result->issues.front().message).toHtmlEscaped());
    return explainHtml(QStringLiteral("time.total"),
                       Units::seconds(r.result->step.total()) + QStringLiteral(", ") + r.label
                           + (r.result->fits ? QString() : tr(" (does not fit in GPU memory)")),
                       timeValues(QStringLiteral("time.total"), *r.scenario, *r.result));
}

QString StepTimeChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    int part = -1;
    for (int p = 0; p < kParts; ++p)
        if (m_bars[size_t(p)] == plottable)
            part = p;
    if (part < 0 || index < 0)
        return {};
    const int row = rowAt(static_cast<QCPBars*>(plottable)->data()->at(index)->key);
    if (row < 0)
        return {};
    const Row& r = m_rows[row];
    const double seconds = partSeconds(r.result->step, part);
    const double total = r.result->step.total();
    return explainHtml(partKey(part),
                       tr("%1 (%2 of %3), %4").arg(Units::seconds(seconds), Units::percent(total > 0 ? seconds / total : 0, 0),
                                                 Units::seconds(total), r.label),
                       timeValues(partKey(part), *r.scenario, *r.result));
}

QString StepTimeChart::axisToolTip(QCPAxis* axis, const QPoint& pos) const
{
    if (axis != m_plot->yAxis && axis != m_plot->yAxis2)
        return {};
    const int row = rowAt(axis->pixelToCoord(pos.y()));
    return row >= 0 ? rowToolTip(row) : QString();
}

} // namespace shardscope::ui
