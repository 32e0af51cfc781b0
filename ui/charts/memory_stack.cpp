// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/memory_stack.h"

#include "charts/chart_theme.h"
#include "charts/qcp.h"
#include "util/units.h"

namespace shardscope::ui {

MemoryStack::MemoryStack(QCustomPlot* plot, QCPAxis* keyAxis, QCPAxis* valueAxis, bool inLegend)
{
    QCPBars* below = nullptr;
    for (const core::TermKey& term : core::termKeys(core::TermGroup::Memory)) {
        const QColor colour = termColor(term.key);
        auto* bars = new QCPBars(keyAxis, valueAxis);
        bars->setName(QString::fromUtf8(term.label.data(), qsizetype(term.label.size())));
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(130), 1));
        bars->setWidth(0.6);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (below)
            bars->moveAbove(below);
        if (!inLegend)
            bars->removeFromLegend();
        below = bars;
        m_bars.push_back(bars);
        m_keys.push_back(QString::fromUtf8(term.key.data(), qsizetype(term.key.size())));
    }
    Q_UNUSED(plot);
}

void MemoryStack::setData(const QVector<double>& keys, const std::vector<std::vector<TermFigure>>& bars)
{
    for (size_t i = 0; i < m_bars.size(); ++i) {
        QVector<double> k;
        QVector<double> v;
        k.reserve(keys.size());
        v.reserve(keys.size());
        for (qsizetype j = 0; j < keys.size(); ++j) {
            const std::vector<TermFigure>& figures = bars[size_t(j)];
            if (figures.empty())
                continue;
            k << keys[j];
            v << Units::toUnit(figureValue(figures, m_keys[i], i));
        }
        m_bars[i]->setData(k, v, true);
    }
}

void MemoryStack::setWidth(double width)
{
    for (QCPBars* b : m_bars)
        b->setWidth(width);
}

int MemoryStack::itemOf(const QCPAbstractPlottable* plottable) const
{
    for (size_t i = 0; i < m_bars.size(); ++i)
        if (m_bars[i] == plottable)
            return int(i);
    return -1;
}

QString MemoryStack::name(int item) const { return m_bars[size_t(item)]->name(); }

} // namespace shardscope::ui
