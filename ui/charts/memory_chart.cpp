// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/memory_chart.h"

#include "charts/capacity_marks.h"
#include "charts/memory_stack.h"
#include "charts/range_whiskers.h"
#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "charts/chart_theme.h"
#include "explain/tooltips.h"
#include "util/units.h"

namespace shardscope::ui {

MemoryChart::MemoryChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.memory"), tr("Memory per GPU"), parent)
    , m_ticker(new FitTextTicker)
{
    QCPAxisRect* rect = m_plot->axisRect();
    m_stack = std::make_unique<MemoryStack>(m_plot, rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft), true);
    m_marks = std::make_unique<CapacityMarks>(m_plot, rect);
    m_whiskers = std::make_unique<RangeWhiskers>(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    rect->axis(QCPAxis::atBottom)->setTicker(m_ticker);
    rect->axis(QCPAxis::atBottom)->grid()->setVisible(false);
    rect->axis(QCPAxis::atBottom)->setTickLength(0, 3);
    // Legend in its own column right of the plot, so it never covers a bar.
    auto* legend = addLegend(Qt::RightEdge, 1);
    QList<LegendStrip::Entry> entries;
    for (int i = 0; i < m_stack->count(); ++i)
        entries.push_back({ m_stack->name(i), termColor(m_stack->key(i).toStdString()), LegendStrip::Swatch::Box, {} });
    entries.push_back({ tr("usable memory"), QColor(), LegendStrip::Swatch::DashedLine, {} });
    entries.push_back({ tr("excess"), okabe_ito::vermillion, LegendStrip::Swatch::Hatched, {} });
    legend->setEntries(entries);
    legend->setToolTipProvider([this](int i) { return legendToolTip(i); });
    applyTheme();
}

MemoryChart::~MemoryChart() = default;

void MemoryChart::themeChanged()
{
    if (m_marks)
        m_marks->setTheme(m_theme);
    if (m_whiskers)
        m_whiskers->setTheme(m_theme);
}

const core::MemoryBreakdown* MemoryChart::breakdown(int bar) const
{
    if (bar < 0 || bar >= m_keys.size())
        return nullptr;
    return m_perStage ? &m_result.stages[size_t(bar)].memory : &m_result.memory;
}

QString MemoryChart::legendToolTip(int item) const
{
    if (item < m_stack->count()) {
        const QString key = m_stack->key(item);
        if (const core::Term* t = findTerm(m_result.terms, key.toStdString()))
            return termHtml(*t, {}, tr("on the most loaded GPU"));
        return explainHtml(key);
    }
    if (item == m_stack->count())
        return usableToolTip();
    return explainHtml(QStringLiteral("memory.excess"));
}

QString MemoryChart::legendExplanation(int item) const
{
    if (item < m_stack->count())
        return explainHtml(m_stack->key(item));
    return explainHtml(item == m_stack->count() ? QStringLiteral("memory.usable") : QStringLiteral("memory.excess"));
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
        m_whiskers->set({}, {}, {}, {});
        setMessage(tr("No figures: the scenario is invalid (see Issues)"));
        requestReplot();
        return;
    }
    setMessage({});
    m_perStage = result.pp > 1 && result.stages.size() > 1;
    std::vector<std::vector<TermFigure>> figures;
    QVector<double> totals, lows, highs;
    const int bars = m_perStage ? int(result.stages.size()) : 1;
    const int labelEvery = bars <= 10 ? 1 : (bars + 9) / 10;
    for (int i = 0; i < bars; ++i) {
        m_keys << i + 1;
        // One bar: the core's terms of the most loaded GPU. Per stage: that stage's breakdown.
        figures.push_back(
            m_perStage ? memoryFigures(result.stages[size_t(i)].memory) : termFigures(result, core::TermGroup::Memory));
        double total = 0;
        for (const TermFigure& f : figures.back())
            total += f.value;
        totals << Units::toUnit(total);
        // The 80% band was measured on the reserved peak; what sits above it (CUDA context, NCCL) is known.
        const double reserved = m_perStage ? result.stages[size_t(i)].memory.reservedPeak : result.memory.reservedPeak;
        lows << Units::toUnit(total + reserved * (result.uncertainty.memoryRatio.lo - 1));
        highs << Units::toUnit(total + reserved * (result.uncertainty.memoryRatio.hi - 1));
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
    m_stack->setData(m_keys, figures);
    x->setLabel(m_perStage ? tr("pipeline stage") : QString());
    x->setRange(0.4, bars + 0.6);
    const double capacity = Units::toUnit(result.usable); // the line "fits" is judged against
    const double maxTotal = *std::max_element(highs.cbegin(), highs.cend());
    const double yMax = std::max(capacity, maxTotal) * 1.12;
    y->setRange(0, yMax > 0 ? yMax : 1);
    m_marks->set(capacity, Units::bytes(result.usable), m_keys, totals, barWidth, yMax * 1.01, highs);
    m_whiskers->set(m_keys, totals, lows, highs);
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
    const QString& key = m_stack->key(item);
    const double bytes = breakdownValue(*m, key.toStdString());
    const core::Term* term = findTerm(m_result.terms, key.toStdString());
    if (!m_perStage) {
        const QString value
            = tr("%1 of %2 total").arg(Units::bytes(term ? term->value : bytes), Units::bytes(m->total()));
        return term ? termHtml(*term, value, tr("on the most loaded GPU")) : explainHtml(key, value);
    }
    const QString value = tr("%1 on stage %2 of %3 (total %4)")
                              .arg(Units::bytes(bytes))
                              .arg(bar)
                              .arg(m_keys.size())
                              .arg(Units::bytes(m->total()));
    if (!term)
        return explainHtml(key, value);
    // The core derives the terms of the most loaded stage; another stage differs in its layers and micro-batches in flight.
    const core::StageInfo& st = m_result.stages[size_t(bar)];
    return termHtml(*term, value,
        bar == m_result.peakStage
            ? tr("Stage %1 is the most loaded: %2 layers, %3 micro-batches in flight.")
                  .arg(bar)
                  .arg(st.layers)
                  .arg(st.inFlight)
            : tr("This stage: %1 layers, %2 micro-batches in flight. Formula and numbers below are for stage %3, "
                 "the most loaded (%4 there).")
                  .arg(st.layers)
                  .arg(st.inFlight)
                  .arg(m_result.peakStage)
                  .arg(Units::bytes(term->value)));
}

QString MemoryChart::itemToolTip(QCPAbstractItem* item) const
{
    if (m_marks->isCapacityItem(item))
        return usableToolTip();
    const int bar = m_marks->excessIndexOf(item);
    if (const core::MemoryBreakdown* m = breakdown(bar))
        return explainHtml(QStringLiteral("memory.excess"), Units::bytes(m->total() - m_result.usable),
            tr("total %1 − usable %2").arg(Units::bytes(m->total()), Units::bytes(m_result.usable)));
    return {};
}

QString MemoryChart::usableToolTip() const
{
    if (const core::Term* t = findTerm(m_result.terms, "memory.usable"))
        return termHtml(*t, {}, QString::fromStdString(m_scenario.cluster.gpu.name));
    return explainHtml(QStringLiteral("memory.usable"), m_result.valid ? Units::bytes(m_result.usable) : QString());
}

} // namespace shardscope::ui
