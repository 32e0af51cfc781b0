// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/memory_stack.h"

#include "charts/chart_theme.h"
#include "charts/qcp.h"
#include "util/units.h"

#include <QCoreApplication>

namespace shardscope::ui {

MemoryStack::MemoryStack(QCustomPlot* plot, QCPAxis* keyAxis, QCPAxis* valueAxis, bool inLegend)
{
    QCPBars* below = nullptr;
    for (int i = 0; i < kItems; ++i) {
        auto* bars = new QCPBars(keyAxis, valueAxis);
        bars->setName(itemName(i));
        bars->setBrush(memoryColor(i));
        bars->setPen(QPen(memoryColor(i).darker(130), 1));
        bars->setWidth(0.6);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (below)
            bars->moveAbove(below);
        if (!inLegend)
            bars->removeFromLegend();
        below = bars;
        m_bars[size_t(i)] = bars;
    }
    Q_UNUSED(plot);
}

void MemoryStack::setData(const QVector<double>& keys, const std::vector<const core::MemoryBreakdown*>& breakdowns)
{
    for (int i = 0; i < kItems; ++i) {
        QVector<double> k;
        QVector<double> v;
        k.reserve(keys.size());
        v.reserve(keys.size());
        for (qsizetype j = 0; j < keys.size(); ++j) {
            if (!breakdowns[size_t(j)])
                continue;
            k << keys[j];
            v << Units::toUnit(itemBytes(*breakdowns[size_t(j)], i));
        }
        m_bars[size_t(i)]->setData(k, v, true);
    }
}

void MemoryStack::setWidth(double width)
{
    for (QCPBars* b : m_bars)
        b->setWidth(width);
}

int MemoryStack::itemOf(const QCPAbstractPlottable* plottable) const
{
    for (int i = 0; i < kItems; ++i)
        if (m_bars[size_t(i)] == plottable)
            return i;
    return -1;
}

QString MemoryStack::itemKey(int item)
{
    static const char* keys[] = {"memory.parameters", "memory.gradients", "memory.optimizer_states",
                                 "memory.activations", "memory.gathered_parameters", "memory.communication_buffers",
                                 "memory.framework_overhead"};
    return QString::fromLatin1(keys[item]);
}

QString MemoryStack::itemName(int item)
{
    static const char* names[] = {QT_TRANSLATE_NOOP("MemoryStack", "Parameters"),
                                  QT_TRANSLATE_NOOP("MemoryStack", "Gradients"),
                                  QT_TRANSLATE_NOOP("MemoryStack", "Optimizer"),
                                  QT_TRANSLATE_NOOP("MemoryStack", "Activations"),
                                  QT_TRANSLATE_NOOP("MemoryStack", "Gathered"),
                                  QT_TRANSLATE_NOOP("MemoryStack", "Buffers"),
                                  QT_TRANSLATE_NOOP("MemoryStack", "Overhead")};
    return QCoreApplication::translate("MemoryStack", names[item]);
}

double MemoryStack::itemBytes(const core::MemoryBreakdown& m, int item)
{
    switch (item) {
    case 0: return m.parameters;
    case 1: return m.gradients;
    case 2: return m.optimizerStates;
    case 3: return m.activations;
    case 4: return m.gatheredParameters;
    case 5: return m.communicationBuffers;
    case 6: return m.frameworkOverhead;
    }
    return 0;
}

} // namespace shardscope::ui
