// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/range_whiskers.h"

#include "charts/qcp.h"

namespace shardscope::ui {

RangeWhiskers::RangeWhiskers(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : m_anchor(new QCPGraph(keyAxis, valueAxis))
    , m_bars(new QCPErrorBars(keyAxis, valueAxis))
{
    m_anchor->setLineStyle(QCPGraph::lsNone);
    m_anchor->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssNone));
    m_anchor->setSelectable(QCP::stNone);
    m_bars->setDataPlottable(m_anchor);
    m_bars->setErrorType(QCPErrorBars::etValueError);
    m_bars->setWhiskerWidth(14);
    m_bars->setSymbolGap(0);
    m_bars->setSelectable(QCP::stNone);
}

void RangeWhiskers::set(
    const QVector<double>& keys, const QVector<double>& points, const QVector<double>& lo, const QVector<double>& hi)
{
    m_anchor->setData(keys, points, true);
    QVector<double> minus, plus;
    for (qsizetype i = 0; i < points.size(); ++i) {
        minus << points[i] - lo[i];
        plus << hi[i] - points[i];
    }
    m_bars->setData(minus, plus);
}

void RangeWhiskers::setTheme(const ChartTheme& theme) { m_bars->setPen(QPen(theme.foreground, 1.5)); }

int RangeWhiskers::count() const { return m_bars->dataCount(); }

double RangeWhiskers::top(int i) const { return m_anchor->data()->at(i)->value + m_bars->data()->at(i).errorPlus; }

double RangeWhiskers::bottom(int i) const { return m_anchor->data()->at(i)->value - m_bars->data()->at(i).errorMinus; }

} // namespace shardscope::ui
