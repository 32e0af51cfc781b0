// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/compare_time_chart.h"

#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "charts/step_time_chart.h"
#include "explain/tooltips.h"
#include "util/units.h"

namespace shardscope::ui {

namespace {
/// The term key of bar set `part` (the core's step-time terms, in the order setupStackedRows stacks them).
std::string stepKey(int part)
{
    const auto keys = core::termKeys(core::TermGroup::StepTime);
    return part >= 0 && size_t(part) < keys.size() ? std::string(keys[size_t(part)].key) : std::string();
}
} // namespace

CompareTimeChart::CompareTimeChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.time"), tr("Step time of the pinned scenarios"), parent)
    , m_ticker(new FitTextTicker)
    , m_totals(new FitTextTicker)
{
    m_bars = StepTimeChart::setupStackedRows(m_plot, m_ticker, m_totals, 0.6);
    // Right of the plot, as tall as the rows of three pins: below it, it took a row of the window's height and, the
    // window squeezed on a small screen, lay over the axis title (issue 23's walkthrough at 1020 x 750).
    LegendStrip* legend = addLegend(Qt::RightEdge, 1);
    legend->setEntries(StepTimeChart::legendEntries(m_bars));
    legend->setToolTipProvider([this](int part) { return explainHtml(QString::fromStdString(stepKey(part))); });
    applyTheme();
}

std::unique_ptr<ChartBase> CompareTimeChart::copy() const
{
    auto c = std::make_unique<CompareTimeChart>();
    c->setResults(m_labels, m_results);
    return c;
}

void CompareTimeChart::setResults(const QStringList& labels, const std::vector<core::Result>& results)
{
    m_labels = labels;
    m_results = results;
    double maxTotal = 0;
    for (const core::Result& r : results)
        if (r.valid)
            maxTotal = std::max(maxTotal, r.step.total());
    const auto [scale, unit] = Units::timeScale(maxTotal);
    m_ticker->clear();
    m_totals->clear();
    std::vector<QVector<double>> values(m_bars.size());
    QVector<double> keys;
    for (size_t i = 0; i < results.size(); ++i) {
        const double key = double(i + 1);
        m_ticker->addTick(key, i < size_t(labels.size()) ? labels[qsizetype(i)] : QString());
        const core::Result& r = results[i];
        if (!r.valid) {
            m_totals->addTick(key, tr("invalid"));
            continue;
        }
        keys << key;
        for (size_t p = 0; p < m_bars.size(); ++p)
            values[p] << breakdownValue(r.step, stepKey(int(p))) / scale;
        m_totals->addTick(
            key, r.fits ? Units::seconds(r.step.total()) : tr("%1 · OOM").arg(Units::seconds(r.step.total())));
    }
    for (size_t p = 0; p < m_bars.size(); ++p)
        m_bars[p]->setData(keys, values[p], true);
    m_plot->yAxis->setRange(0.4, double(results.size()) + 0.6);
    m_plot->xAxis->setRange(0, maxTotal > 0 ? maxTotal / scale * 1.04 : 1);
    m_plot->xAxis->setLabel(tr("time per optimizer step (%1)").arg(unit));
    setMessage(results.empty() ? tr("No pinned scenarios") : maxTotal > 0 ? QString() : tr("No valid pinned scenario"));
    requestReplot();
}

double CompareTimeChart::total(int row) const
{
    if (row < 0 || size_t(row) >= m_results.size() || !m_results[size_t(row)].valid)
        return 0;
    return m_results[size_t(row)].step.total();
}

QString CompareTimeChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    int part = -1;
    for (size_t p = 0; p < m_bars.size(); ++p)
        if (m_bars[p] == plottable)
            part = int(p);
    if (part < 0 || index < 0)
        return {};
    const int row = int(static_cast<QCPBars*>(plottable)->data()->at(index)->key) - 1;
    if (row < 0 || size_t(row) >= m_results.size())
        return {};
    const core::Result& r = m_results[size_t(row)];
    const double seconds = breakdownValue(r.step, stepKey(part));
    return explainHtml(QString::fromStdString(stepKey(part)),
        tr("%1 of %2, %3").arg(Units::seconds(seconds), Units::seconds(r.step.total()), m_labels.value(row)));
}

} // namespace shardscope::ui
