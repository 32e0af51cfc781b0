// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/comm_chart.h"

#include "charts/axis_ticks.h"
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
    : ChartBase(QStringLiteral("chart.comm"), tr("Communication per GPU per step"), parent)
    , m_bytesRect(m_plot->axisRect())
    , m_timeRect(new QCPAxisRect(m_plot))
    , m_ticker(new FitTextTicker)
{
    m_plot->plotLayout()->addElement(0, 1, m_timeRect);
    // Both rects share the rows: align their tops and bottoms.
    auto* margins = new QCPMarginGroup(m_plot);
    m_bytesRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_timeRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    for (QCPAxisRect* rect : { m_bytesRect, m_timeRect }) {
        QCPAxis* key = rect->axis(QCPAxis::atLeft);
        key->setTicker(m_ticker);
        key->setRangeReversed(true); // first collective on top
        key->grid()->setVisible(false);
        key->setTickLength(0, 3);
    }
    m_timeRect->axis(QCPAxis::atLeft)->setTickLabels(false);
    m_bytes = makeBars(m_bytesRect, tr("bytes"), okabe_ito::blue);
    m_hidden = makeBars(m_timeRect, tr("hidden"), okabe_ito::skyBlue);
    m_exposed = makeBars(m_timeRect, tr("exposed"), okabe_ito::vermillion);
    m_exposed->moveAbove(m_hidden);
    m_plot->plotLayout()->setColumnStretchFactor(0, 1.25);
    addLegend(Qt::BottomEdge, 3)
        ->setEntries({ { tr("bytes sent"), okabe_ito::blue, LegendStrip::Swatch::Box, explainHtml(m_chartKey) },
            { tr("hidden time"), okabe_ito::skyBlue, LegendStrip::Swatch::Box,
                explainHtml(QStringLiteral("comm.hidden")) },
            { tr("exposed time"), okabe_ito::vermillion, LegendStrip::Swatch::Box,
                explainHtml(QStringLiteral("comm.exposed")) } });
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
    // Thousands of GiB would need four-digit tick labels on a narrow axis: TiB (TB) then.
    const bool binary = Units::byteUnit() == ByteUnit::GiB;
    const bool tera = maxBytes >= 1000 * Units::bytesPerUnit();
    m_bytesScale = Units::bytesPerUnit() * (tera ? (binary ? 1024.0 : 1000.0) : 1.0);
    const QString bytesUnit = tera ? (binary ? QStringLiteral("TiB") : QStringLiteral("TB")) : Units::unitName();
    m_timeScale = scale;
    QStringList labels;
    for (const core::Collective& c : cs)
        labels << collectiveLabel(c);
    for (size_t i = 0; i < cs.size(); ++i) {
        const core::Collective& c = cs[i];
        const double key = double(i + 1);
        keys << key;
        // The same group and operation twice (dense and expert data parallelism): name the group size.
        QString label = labels[qsizetype(i)];
        if (labels.count(label) > 1)
            label += QStringLiteral(", n=%1").arg(c.groupSize);
        bytes << c.bytes / m_bytesScale;
        hidden << std::max(0.0, c.time - c.exposedTime) / scale;
        exposed << c.exposedTime / scale;
        m_ticker->addTick(key, label);
    }
    m_bytes->setData(keys, bytes, true);
    m_hidden->setData(keys, hidden, true);
    m_exposed->setData(keys, exposed, true);
    for (QCPAxisRect* rect : { m_bytesRect, m_timeRect })
        rect->axis(QCPAxis::atLeft)->setRange(0.4, double(cs.size()) + 0.6);
    bytesAxis->setRange(0, std::max(maxBytes / m_bytesScale * 1.08, 1e-6));
    bytesAxis->setLabel(tr("bytes per step (%1)").arg(bytesUnit));
    timeAxis->setRange(0, std::max(maxTime / scale * 1.08, 1e-6));
    timeAxis->setLabel(tr("time per step (%1)").arg(unit));
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
    if (plottable == m_bytes) {
        const QString value = tr("%1 sent per GPU per step (%2)").arg(Units::bytes(c.bytes), collectiveLabel(c));
        // The core's communication terms: one per collective, in the same order.
        const std::vector<const core::Term*> terms = core::termsOf(m_result.terms, core::TermGroup::Communication);
        if (size_t(i) < terms.size())
            return termHtml(*terms[size_t(i)], value, values);
        return explainHtml(m_chartKey, value, values);
    }
    if (plottable == m_hidden)
        return explainHtml(QStringLiteral("comm.hidden"),
            tr("%1 of %2 (%3)").arg(Units::seconds(c.time - c.exposedTime), Units::seconds(c.time), collectiveLabel(c)),
            values);
    if (plottable == m_exposed)
        return explainHtml(QStringLiteral("comm.exposed"),
            tr("%1 of %2 (%3)").arg(Units::seconds(c.exposedTime), Units::seconds(c.time), collectiveLabel(c)), values);
    return {};
}

} // namespace shardscope::ui
