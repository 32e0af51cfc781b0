// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/memory_chart.h"

#include "charts/capacity_marks.h"
#include "charts/memory_stack.h"
#include "charts/qcp.h"
#include "explain/tooltips.h"
#include "util/units.h"

namespace shardscope::ui {

MemoryChart::MemoryChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.memory"), tr("Memory per GPU"), parent)
    , m_ticker(new QCPAxisTickerText)
{
    QCPAxisRect* rect = m_plot->axisRect();
    m_stack = std::make_unique<MemoryStack>(m_plot, rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft), true);
    m_marks = std::make_unique<CapacityMarks>(m_plot, rect);
    rect->axis(QCPAxis::atBottom)->setTicker(m_ticker);
    rect->axis(QCPAxis::atBottom)->grid()->setVisible(false);
    rect->axis(QCPAxis::atBottom)->setTickLength(0, 3);
    // Legend in its own column right of the plot, so it never covers a bar.
    auto* legend = addLegend(Qt::RightEdge, 1);
    QList<LegendStrip::Entry> entries;
    for (int i = 0; i < MemoryStack::kItems; ++i)
        entries.push_back({MemoryStack::itemName(i), memoryColor(i), LegendStrip::Swatch::Box, explainHtml(MemoryStack::itemKey(i))});
    entries.push_back({tr("GPU memory"), QColor(), LegendStrip::Swatch::DashedLine, explainHtml(QStringLiteral("memory.capacity"))});
    entries.push_back({tr("excess"), okabe_ito::vermillion, LegendStrip::Swatch::Hatched, explainHtml(QStringLiteral("memory.excess"))});
    legend->setEntries(entries);
    applyTheme();
}

MemoryChart::~MemoryChart() = default;

void MemoryChart::themeChanged()
{
    if (m_marks)
        m_marks->setTheme(m_theme);
}

const core::MemoryBreakdown* MemoryChart::breakdown(int bar) const
{
    if (bar < 0 || bar >= m_keys.size())
        return nullptr;
    return m_perStage ? &m_result.stages[size_t(bar)].memory : &m_result.memory;
}

double MemoryChart::barTotal(int i) const
{
    const core::MemoryBreakdown* m = breakdown(i);
    return m ? m->total() : 0;
}

void MemoryChart::setResult(const core::Scenario& scenario, const core::Result& result)
{
    m_scenario = scenario;
    m_result = result;
    m_keys.clear();
    m_ticker->clear();
    QCPAxis* x = m_plot->xAxis;
    QCPAxis* y = m_plot->yAxis;
    y->setLabel(tr("per GPU (%1)").arg(Units::unitName()));
    if (!result.valid) {
        m_stack->setData({}, {});
        m_marks->set(0, {}, {}, {}, 0.6, 1);
        setMessage(tr("No figures: the scenario is invalid (see Issues)"));
        requestReplot();
        return;
    }
    setMessage({});
    m_perStage = result.pp > 1 && result.stages.size() > 1;
    std::vector<const core::MemoryBreakdown*> breakdowns;
    QVector<double> totals;
    const int bars = m_perStage ? int(result.stages.size()) : 1;
    const int labelEvery = bars <= 10 ? 1 : (bars + 9) / 10;
    for (int i = 0; i < bars; ++i) {
        m_keys << i + 1;
        breakdowns.push_back(breakdown(i));
        totals << Units::toUnit(breakdowns.back()->total());
        if (!m_perStage) {
            m_ticker->addTick(1, tr("most loaded GPU"));
        } else if (i % labelEvery == 0) {
            const core::StageInfo& st = result.stages[size_t(i)];
            // Words while they fit; numbers (the axis says "pipeline stage") beyond four bars.
            QString label = bars <= 4 ? tr("stage %1").arg(st.stage) : QString::number(st.stage);
            if (bars <= 4 && (st.embedding || st.head))
                label += QLatin1Char('\n') + (st.embedding ? tr("+emb") : tr("+head"));
            m_ticker->addTick(i + 1, label);
        }
    }
    const double barWidth = m_perStage ? 0.7 : 0.45;
    m_marks->setCompactLabels(bars > 4); // narrow bars: numbers only, the axis names the unit
    m_stack->setWidth(barWidth);
    m_stack->setData(m_keys, breakdowns);
    x->setLabel(m_perStage ? tr("pipeline stage") : QString());
    x->setRange(0.4, bars + 0.6);
    const double capacity = Units::toUnit(result.capacity);
    const double maxTotal = *std::max_element(totals.cbegin(), totals.cend());
    const double yMax = std::max(capacity, maxTotal) * 1.12;
    y->setRange(0, yMax > 0 ? yMax : 1);
    m_marks->set(capacity,
                 Units::bytes(result.capacity, 0),
                 m_keys, totals, barWidth, yMax * 1.01);
    requestReplot();
}

QString MemoryChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    const int item = m_stack->itemOf(plottable);
    if (item < 0 || index < 0)
        return {};
    const int bar = int(static_cast<QCPBars*>(plottable)->data()->at(index)->key) - 1;
    const core::MemoryBreakdown* m = breakdown(bar);
    if (!m)
        return {};
    const core::StageInfo* stage = m_perStage ? &m_result.stages[size_t(bar)] : nullptr;
    if (!stage && size_t(m_result.peakStage) < m_result.stages.size())
        stage = &m_result.stages[size_t(m_result.peakStage)]; // the most loaded GPU's stage
    QString value = Units::bytes(MemoryStack::itemBytes(*m, item));
    value += m_perStage ? tr(" on stage %1 of %2 (total %3)").arg(bar).arg(m_keys.size()).arg(Units::bytes(m->total()))
                        : tr(" of %1 total").arg(Units::bytes(m->total()));
    return explainHtml(MemoryStack::itemKey(item), value,
                       memoryValues(MemoryStack::itemKey(item), m_scenario, m_result, stage));
}

QString MemoryChart::itemToolTip(QCPAbstractItem* item) const
{
    if (m_marks->isCapacityItem(item))
        return explainHtml(QStringLiteral("memory.capacity"), Units::bytes(m_result.capacity),
                           memoryValues(QStringLiteral("memory.capacity"), m_scenario, m_result));
    const int bar = m_marks->excessIndexOf(item);
    if (const core::MemoryBreakdown* m = breakdown(bar))
        return explainHtml(QStringLiteral("memory.excess"), Units::bytes(m->total() - m_result.capacity),
                           tr("total %1 − capacity %2").arg(Units::bytes(m->total()), Units::bytes(m_result.capacity)));
    return {};
}

} // namespace shardscope::ui
