// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/waterfall_chart.h"

#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "explain/field_names.h"
#include "editors/scenario_text.h"
#include "util/units.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {
const QColor kUp = okabe_ito::vermillion;
const QColor kDown = okabe_ito::bluishGreen;
const QColor kTotal = okabe_ito::blue;

QCPBars* makeBars(QCPAxisRect* rect, const QColor& colour)
{
    auto* b = new QCPBars(rect->axis(QCPAxis::atLeft), rect->axis(QCPAxis::atBottom));
    b->setWidth(0.62);
    b->setStackingGap(0);
    b->setSelectable(QCP::stNone);
    if (colour.isValid()) {
        b->setBrush(colour);
        b->setPen(QPen(colour.darker(130), 1));
    } else {
        b->setBrush(Qt::NoBrush);
        b->setPen(Qt::NoPen);
    }
    return b;
}

QString signedBytes(double d) { return (d > 0 ? QStringLiteral("+") : QString()) + Units::bytes(d); }
QString signedSeconds(double d) { return (d > 0 ? QStringLiteral("+") : QString()) + Units::seconds(d); }
} // namespace

WaterfallChart::WaterfallChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.waterfall"), tr("From A to B, one setting at a time"), parent)
    , m_rowTicker(new FitTextTicker)
{
    m_time.rect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_time.rect);
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_time.rect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    setupPanel(m_memory, m_plot->axisRect());
    setupPanel(m_time, m_time.rect);
    m_time.rect->axis(QCPAxis::atLeft)->setTickLabels(false);
    addLegend(Qt::BottomEdge, 3)
        ->setEntries({ { tr("A and B"), kTotal, LegendStrip::Swatch::Box, {} },
            { tr("setting adds"), kUp, LegendStrip::Swatch::Box, {} },
            { tr("setting saves"), kDown, LegendStrip::Swatch::Box, {} } });
    applyTheme();
}

void WaterfallChart::setupPanel(Panel& p, QCPAxisRect* rect)
{
    p.rect = rect;
    QCPAxis* key = rect->axis(QCPAxis::atLeft);
    key->setTicker(m_rowTicker);
    key->setRangeReversed(true);
    key->grid()->setVisible(false);
    key->setTickLength(0, 3);
    p.deltas.reset(new FitTextTicker);
    QCPAxis* right = rect->axis(QCPAxis::atRight);
    right->setVisible(true);
    right->setTicker(p.deltas);
    right->setRangeReversed(true);
    right->setTickLength(0, 0);
    right->setSubTicks(false);
    connect(
        key, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), right, qOverload<const QCPRange&>(&QCPAxis::setRange));
    p.base = makeBars(rect, QColor());
    p.up = makeBars(rect, kUp);
    p.down = makeBars(rect, kDown);
    p.total = makeBars(rect, kTotal);
    p.up->moveAbove(p.base);
    p.down->moveAbove(p.up);
}

QString WaterfallChart::stepLabel(const core::WaterfallStep& step)
{
    QStringList names;
    for (const std::string& s : step.settings)
        names << settingLabel(QString::fromStdString(s));
    return names.join(QStringLiteral(" + "));
}

std::unique_ptr<ChartBase> WaterfallChart::copy() const
{
    auto c = std::make_unique<WaterfallChart>();
    c->setWaterfall(m_waterfall, m_labelA, m_labelB, m_memoryBasis, m_timeBasis);
    return c;
}

void WaterfallChart::setWaterfall(const core::Waterfall& w, const QString& labelA, const QString& labelB,
    const QString& memoryBasis, const QString& timeBasis)
{
    m_memoryBasis = memoryBasis;
    m_timeBasis = timeBasis;
    m_waterfall = w;
    m_labelA = labelA;
    m_labelB = labelB;
    m_rowTicker->clear();
    m_rowLabels.clear();
    for (Panel* p : { &m_memory, &m_time }) {
        p->deltas->clear();
        for (QCPBars* b : { p->base, p->up, p->down, p->total })
            b->data()->clear();
    }
    m_rows = 0;
    if (!w.ok) {
        setMessage(QString::fromStdString(w.error));
        requestReplot();
        return;
    }
    if (w.steps.empty()) {
        setMessage(tr("A and B have the same settings"));
        requestReplot();
        return;
    }
    setMessage({});
    double maxMemory = std::max(w.memoryA, w.memoryB);
    double maxTime = std::max(w.stepTimeA, w.stepTimeB);
    for (const core::WaterfallStep& s : w.steps) {
        maxMemory = std::max(maxMemory, s.memory);
        maxTime = std::max(maxTime, s.stepTime);
    }
    const auto [scale, unit] = Units::timeScale(maxTime);
    m_timeScale = scale;
    auto memoryValue = [](double bytes) { return Units::toUnit(bytes); };
    auto timeValue = [scale = scale](double seconds) { return seconds / scale; };

    // Rows: A, the steps, B.
    m_rowLabels << tr("A: %1").arg(labelA);
    for (const core::WaterfallStep& s : w.steps)
        m_rowLabels << stepLabel(s);
    m_rowLabels << tr("B: %1").arg(labelB);
    m_rows = int(m_rowLabels.size());
    for (int i = 0; i < m_rows; ++i) {
        QString label = m_rowLabels[i];
        if (label.size() > 42)
            label = label.left(40) + QStringLiteral("…");
        m_rowTicker->addTick(i + 1, label);
    }

    struct Series {
        QVector<double> keys, base, up, down, totalKeys, total;
    };
    auto fill = [&](Panel& p, double a, double b, auto value, auto delta, auto figure, auto text) {
        Series s;
        s.totalKeys << 1 << m_rows;
        s.total << value(a) << value(b);
        p.deltas->addTick(1, text(a, false));
        p.deltas->addTick(m_rows, text(b, false));
        double before = a;
        for (size_t i = 0; i < w.steps.size(); ++i) {
            const core::WaterfallStep& st = w.steps[i];
            const double after = figure(st);
            const double key = double(i + 2);
            s.keys << key;
            s.base << value(std::min(before, after));
            const double d = value(after) - value(before);
            s.up << (d > 0 ? d : 0);
            s.down << (d < 0 ? -d : 0);
            p.deltas->addTick(key, text(delta(st), true));
            before = after;
        }
        p.base->setData(s.keys, s.base, true);
        p.up->setData(s.keys, s.up, true);
        p.down->setData(s.keys, s.down, true);
        p.total->setData(s.totalKeys, s.total, true);
    };
    fill(
        m_memory, w.memoryA, w.memoryB, memoryValue, [](const core::WaterfallStep& s) { return s.memoryDelta; },
        [](const core::WaterfallStep& s) { return s.memory; },
        [](double v, bool delta) { return delta ? signedBytes(v) : Units::bytes(v); });
    fill(
        m_time, w.stepTimeA, w.stepTimeB, timeValue, [](const core::WaterfallStep& s) { return s.stepTimeDelta; },
        [](const core::WaterfallStep& s) { return s.stepTime; },
        [](double v, bool delta) { return delta ? signedSeconds(v) : Units::seconds(v); });
    for (Panel* p : { &m_memory, &m_time })
        p->rect->axis(QCPAxis::atLeft)->setRange(0.4, m_rows + 0.6);
    // Every row keeps its label (the row ticker drops every other one when rows stand closer than a line and a
    // bit): 1.3 lines per row, and the bottom axis, its label and the margins (4.5 lines), at least ChartBase's 180.
    const double line = QFontMetricsF(m_memory.rect->axis(QCPAxis::atLeft)->tickLabelFont()).height();
    m_plot->setMinimumHeight(std::max(180, int(std::ceil(line * (1.3 * m_rows + 4.5)))));
    m_memory.rect->axis(QCPAxis::atBottom)->setRange(0, memoryValue(maxMemory) * 1.05);
    m_memory.rect->axis(QCPAxis::atBottom)->setLabel(axisTitle(tr("memory per GPU"), memoryBasis, Units::unitName()));
    m_time.rect->axis(QCPAxis::atBottom)->setRange(0, timeValue(maxTime) * 1.05);
    m_time.rect->axis(QCPAxis::atBottom)->setLabel(axisTitle(tr("step time"), timeBasis, unit));
    requestReplot();
}

QString WaterfallChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    if (index < 0 || !m_waterfall.ok)
        return {};
    const int row = int(static_cast<QCPBars*>(plottable)->data()->at(index)->key) - 1;
    if (row <= 0 || row > int(m_waterfall.steps.size()))
        return row == 0
            ? tr("<b>A</b>: %1, %2").arg(Units::bytes(m_waterfall.memoryA), Units::seconds(m_waterfall.stepTimeA))
            : tr("<b>B</b>: %1, %2").arg(Units::bytes(m_waterfall.memoryB), Units::seconds(m_waterfall.stepTimeB));
    const core::WaterfallStep& s = m_waterfall.steps[size_t(row - 1)];
    return tr("<b>%1</b><br>memory per GPU %2 → %3 (%4)<br>step time %5 → %6 (%7)%8")
        .arg(m_rowLabels.value(row).toHtmlEscaped(), Units::bytes(s.memory - s.memoryDelta), Units::bytes(s.memory),
            signedBytes(s.memoryDelta), Units::seconds(s.stepTime - s.stepTimeDelta), Units::seconds(s.stepTime),
            signedSeconds(s.stepTimeDelta), s.fits ? QString() : tr("<br>does not fit in GPU memory after this step"));
}

} // namespace shardscope::ui
