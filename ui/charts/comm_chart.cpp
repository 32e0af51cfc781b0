// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/comm_chart.h"

#include "charts/qcp.h"
#include "explain/tooltips.h"
#include "util/units.h"

namespace shardscope::ui {

namespace {
QCPBars* makeBars(QCPAxisRect* rect, const QString& name, const QColor& colour)
{
    auto* bars = new QCPBars(rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom));
    bars->setName(name);
    bars->setBrush(colour);
    bars->setPen(QPen(colour.darker(130), 1));
    bars->setWidth(0.6);
    bars->setStackingGap(0);
    bars->setSelectable(QCP::stNone);
    return bars;
}
} // namespace

CommChart::CommChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.comm"), tr("Communication per GPU per step: bytes sent"), parent)
    , m_bytesRect(m_plot->axisRect())
    , m_timeRect(new QCPAxisRect(m_plot))
    , m_ticker(new QCPAxisTickerText)
{
    QFont titleFont = font();
    titleFont.setBold(true);
    auto* timeTitle = new QCPTextElement(m_plot, tr("time: hidden / exposed"), titleFont);
    timeTitle->setMargins(QMargins(4, 4, 4, 0));
    m_plot->plotLayout()->addElement(0, 1, timeTitle);
    m_plot->plotLayout()->addElement(1, 1, m_timeRect);
    // Both rects share the rows: align their tops and bottoms.
    auto* margins = new QCPMarginGroup(m_plot);
    m_bytesRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_timeRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    for (QCPAxisRect* rect : {m_bytesRect, m_timeRect}) {
        QCPAxis* key = rect->axis(QCPAxis::atLeft);
        key->setTicker(m_ticker);
        key->setRangeReversed(true); // first collective on top
        key->grid()->setVisible(false);
        key->setTickLength(0, 3);
    }
    m_timeRect->axis(QCPAxis::atLeft)->setTickLabels(false);
    m_bytes = makeBars(m_bytesRect, tr("bytes"), okabe_ito::blue);
    m_hidden = makeBars(m_timeRect, tr("hidden behind compute"), okabe_ito::skyBlue);
    m_exposed = makeBars(m_timeRect, tr("exposed"), okabe_ito::vermillion);
    m_exposed->moveAbove(m_hidden);
    m_bytes->removeFromLegend();
    // Legend under the time plot, one row.
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setIconSize(12, 10);
    m_plot->plotLayout()->addElement(2, 1, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    m_plot->plotLayout()->setColumnStretchFactor(0, 1.25);
    applyTheme();
}

void CommChart::setResult(const core::Scenario& scenario, const core::Result& result)
{
    m_scenario = scenario;
    m_result = result;
    m_ticker->clear();
    QCPAxis* bytesAxis = m_bytesRect->axis(QCPAxis::atBottom);
    QCPAxis* timeAxis = m_timeRect->axis(QCPAxis::atBottom);
    const auto& cs = result.collectives;
    if (!result.valid || cs.empty()) {
        m_bytes->data()->clear();
        m_hidden->data()->clear();
        m_exposed->data()->clear();
        setMessage(!result.valid ? tr("No figures: the scenario is invalid (see Issues)")
                                 : tr("No communication: one GPU, nothing to exchange"));
        requestReplot();
        return;
    }
    setMessage({});
    QVector<double> keys;
    QVector<double> bytes;
    QVector<double> hidden;
    QVector<double> exposed;
    double maxBytes = 0;
    double maxTime = 0;
    for (size_t i = 0; i < cs.size(); ++i) {
        maxTime = std::max(maxTime, cs[i].time);
        maxBytes = std::max(maxBytes, cs[i].bytes);
    }
    const auto [scale, unit] = Units::timeScale(maxTime);
    m_timeScale = scale;
    for (size_t i = 0; i < cs.size(); ++i) {
        const core::Collective& c = cs[i];
        const double key = double(i + 1);
        keys << key;
        bytes << Units::toUnit(c.bytes);
        hidden << std::max(0.0, c.time - c.exposedTime) / scale;
        exposed << c.exposedTime / scale;
        m_ticker->addTick(key, collectiveLabel(c));
    }
    m_bytes->setData(keys, bytes, true);
    m_hidden->setData(keys, hidden, true);
    m_exposed->setData(keys, exposed, true);
    for (QCPAxisRect* rect : {m_bytesRect, m_timeRect})
        rect->axis(QCPAxis::atLeft)->setRange(0.4, double(cs.size()) + 0.6);
    bytesAxis->setRange(0, std::max(Units::toUnit(maxBytes) * 1.08, 1e-6));
    bytesAxis->setLabel(tr("%1 sent").arg(Units::unitName()));
    timeAxis->setRange(0, std::max(maxTime / scale * 1.08, 1e-6));
    timeAxis->setLabel(unit);
    requestReplot();
}

QString CommChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    if (index < 0 || !m_result.valid)
        return {};
    const auto* bars = static_cast<QCPBars*>(plottable);
    const int i = int(bars->data()->at(index)->key) - 1;
    if (i < 0 || i >= int(m_result.collectives.size()))
        return {};
    const core::Collective& c = m_result.collectives[size_t(i)];
    const QString values = collectiveValues(c, m_scenario);
    if (plottable == m_bytes)
        return explainHtml(collectiveKey(c),
                           tr("%1 sent per GPU per step (%2)").arg(Units::bytes(c.bytes), collectiveLabel(c)), values);
    if (plottable == m_hidden)
        return explainHtml(QStringLiteral("comm.hidden"),
                           tr("%1 of %2 (%3)").arg(Units::seconds(c.time - c.exposedTime), Units::seconds(c.time), collectiveLabel(c)),
                           values);
    if (plottable == m_exposed)
        return explainHtml(QStringLiteral("comm.exposed"),
                           tr("%1 of %2 (%3)").arg(Units::seconds(c.exposedTime), Units::seconds(c.time), collectiveLabel(c)),
                           values);
    return {};
}

} // namespace shardscope::ui
