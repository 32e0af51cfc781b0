// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/timeline_chart.h"

#include "analysis/layout_text.h"
#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "explain/formulas.h"
#include "util/units.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace shardscope::ui {

namespace {
enum Style {
    Forward,
    Backward,
    WeightGrad,
    CommHidden,
    CommExposed,
    P2p,
    DataParallel,
    Optimizer,
    Offload,
    Elided,
    kStyles
};

constexpr double kComputeHeight = 1.0;
constexpr double kCommHeight = 0.42;
constexpr double kCommGap = 0.05;
constexpr double kStageGap = 0.32;
/// Memory lines drawn at most (the peak stage, the first and the last, and stages evenly between): more lines
/// than this cannot be told apart, and a graph per stage of a 1,000-stage pipeline costs seconds to build.
constexpr int kMaxMemoryLines = 24;

int styleOf(core::BlockKind kind)
{
    switch (kind) {
    case core::BlockKind::Forward: return Forward;
    case core::BlockKind::Backward: return Backward;
    case core::BlockKind::WeightGrad: return WeightGrad;
    case core::BlockKind::Communication: return CommHidden;
    case core::BlockKind::PipelineP2p: return P2p;
    case core::BlockKind::DataParallel: return DataParallel;
    case core::BlockKind::Optimizer: return Optimizer;
    case core::BlockKind::Offload: return Offload;
    case core::BlockKind::Elided: return Elided;
    }
    return Forward;
}

QString kindName(core::BlockKind kind)
{
    switch (kind) {
    case core::BlockKind::Forward: return TimelineChart::tr("Forward");
    case core::BlockKind::Backward: return TimelineChart::tr("Backward");
    case core::BlockKind::WeightGrad: return TimelineChart::tr("Weight gradients");
    case core::BlockKind::Communication: return TimelineChart::tr("Communication");
    case core::BlockKind::PipelineP2p: return TimelineChart::tr("Exposed pipeline send/receive");
    case core::BlockKind::DataParallel: return TimelineChart::tr("Exposed data-parallel communication");
    case core::BlockKind::Optimizer: return TimelineChart::tr("Optimizer step");
    case core::BlockKind::Offload: return TimelineChart::tr("Exposed offload (host/NVMe transfers, CPU optimizer)");
    case core::BlockKind::Elided: return TimelineChart::tr("Identical micro-batches, not drawn one by one");
    }
    return {};
}
} // namespace

/// The Gantt blocks, per lane sorted by start, drawn in one pass. Only blocks in the visible time range are
/// visited (binary search per lane), and neighbouring blocks of one style that fall within a pixel of each
/// other merge into one rectangle, so a zoomed-out schedule of 100k blocks costs about one rect per pixel column.
class TimelineLanes : public QCPAbstractPlottable
{
public:
    struct Block {
        double start = 0, end = 0; ///< axis units
        int style = 0;
        int label = -1; ///< micro-batch number, drawn when it fits
        int source = -1; ///< index into Timeline::blocks
    };
    struct Lane {
        double top = 0, bottom = 0; ///< value-axis coordinates (axis reversed: top < bottom)
        std::vector<Block> blocks;
        double maxLength = 0;
    };

    TimelineLanes(QCPAxis* key, QCPAxis* value)
        : QCPAbstractPlottable(key, value)
    { }
    void setLanes(std::vector<Lane> lanes, double end)
    {
        m_lanes = std::move(lanes);
        m_end = end;
        m_index.clear();
        for (size_t l = 0; l < m_lanes.size(); ++l) {
            auto& lane = m_lanes[l];
            std::stable_sort(lane.blocks.begin(), lane.blocks.end(),
                [](const Block& a, const Block& b) { return a.start < b.start; });
            lane.maxLength = 0;
            for (size_t b = 0; b < lane.blocks.size(); ++b) {
                lane.maxLength = std::max(lane.maxLength, lane.blocks[b].end - lane.blocks[b].start);
                m_index.push_back({ int(l), int(b) });
            }
        }
        m_bottom = m_lanes.empty() ? 1 : m_lanes.back().bottom;
    }
    [[nodiscard]] int size() const { return int(m_index.size()); }
    [[nodiscard]] int painted() const { return m_painted; }
    [[nodiscard]] double lastEnd() const
    {
        double e = 0;
        for (const auto& lane : m_lanes)
            for (const auto& b : lane.blocks)
                e = std::max(e, b.end);
        return e;
    }
    /// Block at flat index i (the data index tooltips receive).
    [[nodiscard]] const Block* block(int i) const
    {
        if (i < 0 || i >= int(m_index.size()))
            return nullptr;
        return &m_lanes[size_t(m_index[size_t(i)].first)].blocks[size_t(m_index[size_t(i)].second)];
    }
    void setTextColors(const QColor& dark, const QColor& light)
    {
        m_dark = dark;
        m_light = light;
    }

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override
    {
        if (onlySelectable && !selectable())
            return -1;
        if (!mKeyAxis || !mValueAxis)
            return -1;
        const double key = mKeyAxis->pixelToCoord(pos.x());
        const double value = mValueAxis->pixelToCoord(pos.y());
        const double slack = std::abs(mKeyAxis->pixelToCoord(pos.x() + 2) - key); // two pixels
        int flat = 0;
        for (const Lane& lane : m_lanes) {
            if (value >= lane.top && value <= lane.bottom) {
                auto it = std::lower_bound(lane.blocks.begin(), lane.blocks.end(), key - lane.maxLength - slack,
                    [](const Block& b, double k) { return b.start < k; });
                int best = -1;
                double bestLen = INFINITY;
                for (; it != lane.blocks.end() && it->start <= key + slack; ++it)
                    if (it->end >= key - slack && it->end - it->start < bestLen) { // the shortest under the cursor
                        best = int(it - lane.blocks.begin());
                        bestLen = it->end - it->start;
                    }
                if (best < 0)
                    return -1;
                if (details)
                    details->setValue(QCPDataSelection(QCPDataRange(flat + best, flat + best + 1)));
                return 0;
            }
            flat += int(lane.blocks.size());
        }
        return -1;
    }
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain) const override
    {
        foundRange = m_end > 0;
        return { 0, m_end };
    }
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const override
    {
        foundRange = !m_lanes.empty();
        return { 0, m_bottom };
    }

protected:
    void draw(QCPPainter* painter) override
    {
        m_painted = 0;
        if (m_lanes.empty())
            return;
        QFont font = mParentPlot->font();
        font.setPointSizeF(std::max(6.0, font.pointSizeF() * 0.8));
        painter->setFont(font);
        const QFontMetricsF fm(font);
        const QCPRange keys = mKeyAxis->range();
        const QRectF clip = clipRect();
        painter->setPen(Qt::NoPen);
        for (const Lane& lane : m_lanes) {
            const double y0 = mValueAxis->coordToPixel(lane.top);
            const double y1 = mValueAxis->coordToPixel(lane.bottom);
            const QRectF band(0, std::min(y0, y1), 1, std::abs(y1 - y0));
            if (band.bottom() < clip.top() || band.top() > clip.bottom())
                continue;
            auto it = std::lower_bound(lane.blocks.begin(), lane.blocks.end(), keys.lower - lane.maxLength,
                [](const Block& b, double k) { return b.start < k; });
            // A run of merged blocks: [x0, x1] in pixels. Blocks narrower than two pixels merge with their
            // neighbours while the run is one style, or while it is under a pixel wide (then it takes the colour
            // of the style with most time in it): a lane costs at most about one rectangle per pixel column.
            double rx0 = 0, rx1 = 0;
            int rstyle = -1, rcount = 0;
            bool mixed = false;
            std::array<double, kStyles> share {};
            const Block* rfirst = nullptr;
            auto flush = [&] {
                if (rstyle < 0)
                    return;
                int style = rstyle;
                if (mixed)
                    style = int(std::max_element(share.begin(), share.end()) - share.begin());
                QRectF r(rx0, band.top(), std::max(1.0, rx1 - rx0), band.height());
                const QColor c = TimelineChart::styleColor(style);
                if (r.width() > 4 && rcount == 1)
                    r.adjust(0.5, 0, -0.5, 0); // a hairline gap separates neighbouring blocks
                painter->fillRect(r, c);
                ++m_painted;
                if (rcount == 1 && rfirst->label >= 0) {
                    const QString text = QString::number(rfirst->label);
                    if (fm.horizontalAdvance(text) + 4 < r.width() && fm.height() <= r.height() + 2) {
                        painter->setPen(c.lightnessF() < 0.5 ? m_light : m_dark);
                        painter->drawText(r, Qt::AlignCenter, text);
                        painter->setPen(Qt::NoPen);
                    }
                }
                rstyle = -1;
            };
            for (; it != lane.blocks.end() && it->start <= keys.upper; ++it) {
                if (it->end < keys.lower)
                    continue;
                const double x0 = mKeyAxis->coordToPixel(it->start);
                const double x1 = mKeyAxis->coordToPixel(it->end);
                const bool tiny = x1 - x0 < 2.0;
                if (rstyle >= 0 && tiny && x0 - rx1 < 1.0 && (rcount > 1 || rx1 - rx0 < 2.0)
                    && ((!mixed && it->style == rstyle) || rx1 - rx0 < 1.0)) {
                    mixed = mixed || it->style != rstyle;
                    share[size_t(it->style)] += x1 - x0;
                    rx1 = std::max(rx1, x1);
                    ++rcount;
                    continue;
                }
                flush();
                rx0 = x0;
                rx1 = x1;
                rstyle = it->style;
                rcount = 1;
                rfirst = &*it;
                mixed = false;
                share.fill(0);
                share[size_t(it->style)] = x1 - x0;
            }
            flush();
        }
    }
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override
    {
        painter->fillRect(rect, TimelineChart::styleColor(Forward));
    }

private:
    std::vector<Lane> m_lanes;
    std::vector<std::pair<int, int>> m_index; ///< flat index -> (lane, block)
    double m_end = 0;
    double m_bottom = 1;
    int m_painted = 0;
    QColor m_dark = Qt::black, m_light = Qt::white;
};

QColor TimelineChart::styleColor(int style)
{
    using namespace okabe_ito;
    switch (style) {
    case Forward: return blue;
    case Backward: return skyBlue;
    case WeightGrad: return QColor(0x7F, 0xC8, 0xB4); // bluish green, lighter: the deferred half of backward
    case CommHidden: return QColor(0xF2, 0xCF, 0x80); // orange, pale: overlapped with compute
    case CommExposed: return vermillion;
    case P2p: return reddishPurple;
    case DataParallel: return vermillion.darker(120);
    case Optimizer: return bluishGreen;
    case Offload: return grey;
    case Elided: return QColor(0xC8, 0xC8, 0xC8); // neutral: time that passes, drawn as one block
    }
    return grey;
}

QString TimelineChart::styleName(int style)
{
    switch (style) {
    case Forward: return tr("Forward");
    case Backward: return tr("Backward");
    case WeightGrad: return tr("Weight gradients");
    case CommHidden: return tr("Comm. (hidden)");
    case CommExposed: return tr("Comm. (exposed)");
    case P2p: return tr("Pipeline p2p");
    case DataParallel: return tr("Data-parallel tail");
    case Optimizer: return tr("Optimizer");
    case Offload: return tr("Offload");
    case Elided: return tr("Steady state (not drawn)");
    }
    return {};
}

TimelineChart::TimelineChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.timeline"),
        tr("One optimizer step: schedule per pipeline stage, and memory in use"), parent)
    , m_laneTicker(new FitTextTicker)
{
    QCPAxisRect* gantt = m_plot->axisRect();
    m_memRect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_memRect);
    m_plot->plotLayout()->setRowStretchFactors({ 3.0, 1.35 });
    m_plot->plotLayout()->setRowSpacing(4);
    auto* margins = new QCPMarginGroup(m_plot);
    gantt->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_memRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    // The gantt's time axis shares the memory plot's labels below.
    gantt->setAutoMargins(QCP::msLeft | QCP::msRight | QCP::msTop);
    gantt->setMargins(QMargins(0, 0, 0, 4));
    m_plot->xAxis->setTickLabels(false);
    m_plot->xAxis->setTickLength(0, 0);
    m_plot->yAxis->setTicker(m_laneTicker);
    m_plot->yAxis->setRangeReversed(true);
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->yAxis->setTickLength(0, 0);
    m_plot->yAxis->setSubTicks(false);

    m_lanes = new TimelineLanes(m_plot->xAxis, m_plot->yAxis);
    m_lanes->setSelectable(QCP::stNone);

    QCPAxis* memX = m_memRect->axis(QCPAxis::atBottom);
    QCPAxis* memY = m_memRect->axis(QCPAxis::atLeft);
    memY->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    memY->ticker()->setTickCount(3);
    for (QCPAxisRect* r : { gantt, m_memRect }) {
        r->setRangeZoom(Qt::Horizontal);
        r->setRangeDrag(Qt::Horizontal);
        r->setRangeZoomAxes(r->axis(QCPAxis::atBottom), nullptr);
        r->setRangeDragAxes(r->axis(QCPAxis::atBottom), nullptr);
        r->setRangeZoomFactor(0.8);
    }
    m_plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimelineChart::clampRange);
    connect(memX, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimelineChart::clampRange);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { resetZoom(); });

    m_peak = new QCPGraph(memX, memY);
    m_peak->setLineStyle(QCPGraph::lsNone);
    m_peak->setSelectable(QCP::stNone);
    m_peakLabel = new QCPItemText(m_plot);
    m_peakLabel->setClipToAxisRect(false);
    m_peakLabel->setSelectable(false);
    m_peakLabel->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_peakLabel->position->setAxisRect(m_memRect);
    m_peakLabel->position->setCoords(0.995, 0.03);
    m_peakLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    m_peakLabel->setPadding(QMargins(4, 1, 4, 1));
    m_capacity = new QCPItemStraightLine(m_plot);
    m_capacity->setSelectable(false);
    m_capacity->setClipAxisRect(m_memRect);
    for (QCPItemPosition* p : { m_capacity->point1, m_capacity->point2 }) {
        p->setAxes(memX, memY);
        p->setAxisRect(m_memRect);
    }
    m_peakLabel->setLayer(QStringLiteral("overlay")); // its box covers the capacity line and the curves below it
    addLegend(Qt::BottomEdge, 5);
    applyTheme();
}

TimelineChart::~TimelineChart() = default;

void TimelineChart::themeChanged()
{
    m_lanes->setTextColors(Qt::black, Qt::white);
    m_capacity->setPen(QPen(okabe_ito::vermillion, 1.2, Qt::DashLine));
    QColor box = m_theme.background;
    box.setAlpha(220);
    m_peakLabel->setBrush(box);
    m_peakLabel->setPen(QPen(m_theme.grid));
    m_peakLabel->setColor(m_theme.foreground);
    m_peakLabel->setFont(smallFont());
    m_peak->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(m_theme.foreground, 2), Qt::NoBrush, 14));
}

void TimelineChart::setResult(const core::Scenario& scenario, const core::Result& result)
{
    m_result = result;
    for (QCPGraph* g : m_memGraphs)
        m_plot->removePlottable(g);
    m_memGraphs.clear();
    m_laneTicker->clear();
    if (!result.valid || result.stages.empty()) {
        m_timeline = {};
        m_lanes->setLanes({}, 0);
        m_peak->data()->clear();
        m_peakLabel->setVisible(false);
        m_capacity->setVisible(false);
        legend()->setEntries({});
        setMessage(tr("No timeline: the scenario is invalid (see Issues)"));
        requestReplot();
        return;
    }
    m_timeline = core::buildTimeline(scenario, result);
    const core::Timeline& t = m_timeline;
    setMessage(t.notDrawn.empty() ? QString() : tr("No schedule drawn: %1").arg(QString::fromStdString(t.notDrawn)));
    const auto [scale, unit] = Units::timeScale(t.total);
    m_scale = scale;

    // Communication groups present, in a fixed order: one row each under every stage.
    std::vector<core::Group> groups;
    for (core::Group g : { core::Group::Tp, core::Group::Cp, core::Group::Ep, core::Group::Dp, core::Group::Pp })
        for (const auto& b : t.blocks)
            if (b.kind == core::BlockKind::Communication && b.group == g) {
                groups.push_back(g);
                break;
            }
    std::vector<TimelineLanes::Lane> lanes;
    std::vector<int> computeLane(size_t(t.stages)), commLane(size_t(t.stages) * 5, -1);
    double y = 0;
    for (int s = 0; s < t.stages; ++s) {
        computeLane[size_t(s)] = int(lanes.size());
        lanes.push_back({ y, y + kComputeHeight, {}, 0 });
        y += kComputeHeight + kCommGap;
        for (core::Group g : groups) {
            commLane[size_t(s) * 5 + size_t(g)] = int(lanes.size());
            lanes.push_back({ y, y + kCommHeight, {}, 0 });
            y += kCommHeight + kCommGap;
        }
        y += kStageGap;
    }
    std::array<bool, kStyles> used {};
    for (size_t i = 0; i < t.blocks.size(); ++i) {
        const core::TimelineBlock& b = t.blocks[i];
        TimelineLanes::Block g { b.start / scale, b.end / scale, styleOf(b.kind), -1, int(i) };
        if (b.kind == core::BlockKind::Communication) {
            auto& lane = lanes[size_t(commLane[size_t(b.stage) * 5 + size_t(b.group)])];
            const double exposedFrom = (b.end - std::clamp(b.exposed, 0.0, b.end - b.start)) / scale;
            if (exposedFrom > g.start) {
                TimelineLanes::Block hidden = g;
                hidden.end = exposedFrom;
                lane.blocks.push_back(hidden);
                used[CommHidden] = true;
            }
            if (b.exposed > 0) {
                g.start = exposedFrom;
                g.style = CommExposed;
                lane.blocks.push_back(g);
                used[CommExposed] = true;
            }
            continue;
        }
        if (b.kind == core::BlockKind::Forward || b.kind == core::BlockKind::Backward
            || b.kind == core::BlockKind::WeightGrad)
            g.label = b.microBatch;
        used[size_t(g.style)] = true;
        lanes[size_t(computeLane[size_t(b.stage)])].blocks.push_back(g);
    }
    m_lanes->setLanes(std::move(lanes), t.total / scale);
    m_plot->yAxis->setRange(-0.15, y - kStageGap + 0.15);
    // Few stages get less height, so a single lane does not become one huge bar; many get most of it.
    m_plot->plotLayout()->setRowStretchFactors({ std::clamp(0.6 + (y - kStageGap) * 0.5, 1.3, 3.0), 1.35 });
    // Lane labels (thinned in updateLaneTicks when rows get thin).
    m_stageStride = kComputeHeight + kCommGap + double(groups.size()) * (kCommHeight + kCommGap) + kStageGap;
    m_groupNames.clear();
    for (core::Group g : groups)
        m_groupNames << groupShort(g);
    updateLaneTicks();

    // Memory in use over the step, one line per stage.
    QCPAxis* memX = m_memRect->axis(QCPAxis::atBottom);
    QCPAxis* memY = m_memRect->axis(QCPAxis::atLeft);
    double maxBytes = result.usable;
    // The peak stage, then stages evenly spaced from the first to the last, up to kMaxMemoryLines in all.
    m_memStages.clear();
    if (!t.memory.empty()) {
        m_memStages.push_back(t.peakStage);
        const int lines = std::min(t.stages, kMaxMemoryLines);
        for (int k = 0; k < lines && int(m_memStages.size()) < lines; ++k) {
            const int stage = lines == 1 ? 0 : int(std::lround(double(k) * (t.stages - 1) / (lines - 1)));
            if (stage != t.peakStage)
                m_memStages.push_back(stage);
        }
        std::sort(m_memStages.begin(), m_memStages.end());
    }
    for (int s : m_memStages) {
        auto* g = new QCPGraph(memX, memY);
        g->setName(tr("stage %1").arg(s));
        const QColor c = t.stages == 1 ? okabe_ito::blue : categoricalColor(s);
        g->setPen(QPen(c, s == t.peakStage ? 2.2 : 1.3));
        g->setSelectable(QCP::stNone);
        QVector<double> k, v;
        const auto& samples = t.memory[size_t(s)];
        k.reserve(qsizetype(samples.size()));
        v.reserve(qsizetype(samples.size()));
        for (const auto& m : samples) {
            k << m.time / scale;
            v << Units::toUnit(m.bytes);
            maxBytes = std::max(maxBytes, m.bytes);
        }
        g->setData(k, v, true);
        m_memGraphs.push_back(g);
    }
    m_peak->setData({ t.peakTime / scale }, { Units::toUnit(t.peakBytes) }, true);
    m_capacity->point1->setCoords(0, Units::toUnit(result.usable)); // the line "fits" is judged against
    m_capacity->point2->setCoords(1, Units::toUnit(result.usable));
    m_capacity->setVisible(result.usable > 0);
    memY->setRange(0, Units::toUnit(maxBytes) * 1.12);
    memY->setLabel(tr("in use (%1)").arg(Units::unitName()));
    memX->setLabel(tr("time within the optimizer step (%1)").arg(unit));

    // The peak and what owns it: the largest item of the peak stage's memory.
    const core::StageInfo& ps = result.stages[size_t(std::clamp(t.peakStage, 0, int(result.stages.size()) - 1))];
    const std::vector<TermFigure> items = memoryFigures(ps.memory); // the core's memory terms
    const auto owner = std::max_element(
        items.begin(), items.end(), [](const TermFigure& a, const TermFigure& b) { return a.value < b.value; });
    QString peak = t.stages > 1 ? tr("peak %1 on stage %2 at %3")
                                      .arg(Units::bytes(t.peakBytes))
                                      .arg(t.peakStage)
                                      .arg(Units::seconds(t.peakTime))
                                : tr("peak %1 at %2").arg(Units::bytes(t.peakBytes), Units::seconds(t.peakTime));
    if (owner != items.end())
        peak += tr(" · largest item: %1 %2").arg(owner->label.toLower(), Units::bytes(owner->value));
    if (ps.inFlight > 0)
        peak += tr(" · %n micro-batch(es) in flight", nullptr, ps.inFlight);
    m_peakLabel->setText(peak);
    m_peakLabel->setVisible(!t.memory.empty());
    if (t.memory.empty())
        m_peak->data()->clear();

    QList<LegendStrip::Entry> entries;
    for (int s = 0; s < kStyles; ++s)
        if (used[size_t(s)])
            entries.push_back({ styleName(s), styleColor(s), LegendStrip::Swatch::Box, {} });
    legend()->setEntries(entries);
    resetZoom();
}

void TimelineChart::updateLaneTicks()
{
    m_laneTicker->clear();
    const int stages = m_timeline.stages;
    if (stages <= 0)
        return;
    const double stride = m_stageStride;
    const QStringList& groups = m_groupNames;
    const double range = m_plot->yAxis->range().size();
    const double height = std::max(40, m_plot->height() * 3 / 5 - 30);
    const double pxPerUnit = range > 0 ? height / range : 0;
    const double line = QFontMetricsF(smallFont()).height();
    const bool commLabels = pxPerUnit * kCommHeight >= line * 0.95;
    const int every = std::max(1, int(std::ceil(line * 1.1 / std::max(1e-9, pxPerUnit * stride))));
    for (int s = 0; s < stages; s += every) {
        const double y = s * stride;
        m_laneTicker->addTick(y + kComputeHeight / 2, stages == 1 ? tr("compute") : tr("stage %1").arg(s));
        if (commLabels)
            for (int g = 0; g < groups.size(); ++g)
                m_laneTicker->addTick(y + kComputeHeight + kCommGap + g * (kCommHeight + kCommGap) + kCommHeight / 2,
                    tr("%1 comm").arg(groups[g]));
    }
}

void TimelineChart::plotResized() { updateLaneTicks(); }

void TimelineChart::clampRange(const QCPRange& requested)
{
    if (m_clamping)
        return;
    m_clamping = true;
    const double end = std::max(1e-12, total() / m_scale);
    QCPRange r = requested;
    const double minWidth = end * 1e-5;
    if (r.size() < minWidth)
        r = QCPRange(r.center() - minWidth / 2, r.center() + minWidth / 2);
    const double pad = end * 0.01;
    if (r.size() > end + 2 * pad)
        r = QCPRange(-pad, end + pad);
    if (r.lower < -pad)
        r = QCPRange(-pad, -pad + r.size());
    if (r.upper > end + pad)
        r = QCPRange(end + pad - r.size(), end + pad);
    m_plot->xAxis->setRange(r);
    m_memRect->axis(QCPAxis::atBottom)->setRange(r);
    m_clamping = false;
    requestReplot();
}

void TimelineChart::resetZoom()
{
    const double end = total() / m_scale;
    const double pad = end * 0.01;
    m_plot->xAxis->setRange(-pad, end > 0 ? end + pad : 1);
    requestReplot();
}

std::pair<double, double> TimelineChart::visibleRange() const
{
    const QCPRange r = m_plot->xAxis->range();
    return { r.lower * m_scale, r.upper * m_scale };
}

void TimelineChart::setVisibleRange(double from, double to) { m_plot->xAxis->setRange(from / m_scale, to / m_scale); }

double TimelineChart::total() const { return m_lanes->lastEnd() * m_scale; }

int TimelineChart::blockCount() const { return m_lanes->size(); }

int TimelineChart::paintedCount() const { return m_lanes->painted(); }

QString TimelineChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    if (plottable == m_lanes) {
        const TimelineLanes::Block* b = m_lanes->block(index);
        if (!b || b->source < 0 || b->source >= int(m_timeline.blocks.size()))
            return {};
        const core::TimelineBlock& tb = m_timeline.blocks[size_t(b->source)];
        QString title = kindName(tb.kind);
        if (tb.kind == core::BlockKind::Communication)
            title = tr("%1 communication").arg(groupShort(tb.group));
        QString text = QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped());
        if (m_timeline.stages > 1)
            text += tr("<br>stage %1").arg(tb.stage);
        if (tb.kind == core::BlockKind::Elided) {
            const qint64 n = m_timeline.microBatches - m_timeline.microBatchesDrawn;
            text
                += tr("<br>micro-batches %1 to %2: %3 more like the ones drawn, one steady-state period of the slowest "
                      "stage each (%4)")
                       .arg(tb.microBatch)
                       .arg(qint64(tb.microBatch) + n - 1)
                       .arg(groupedInt(n))
                       .arg(Units::seconds((tb.end - tb.start) / double(std::max<qint64>(1, n))));
        } else if (tb.microBatch >= 0)
            text += tr("<br>micro-batch %1").arg(tb.microBatch)
                + (tb.chunk > 0 ? tr(", virtual chunk %1").arg(tb.chunk) : QString());
        text += tr("<br>%1 → %2 (%3)")
                    .arg(Units::seconds(tb.start), Units::seconds(tb.end), Units::seconds(tb.end - tb.start));
        if (tb.kind == core::BlockKind::Communication)
            text += tr("<br>exposed %1, hidden behind compute %2")
                        .arg(Units::seconds(tb.exposed), Units::seconds(std::max(0.0, tb.end - tb.start - tb.exposed)));
        return text;
    }
    for (size_t k = 0; k < m_memGraphs.size(); ++k)
        if (plottable == m_memGraphs[k] && index >= 0 && index < m_memGraphs[k]->dataCount()) {
            const int s = m_memStages[k];
            const auto d = m_memGraphs[k]->data()->at(index);
            const auto& samples = m_timeline.memory[size_t(s)];
            const double acts = index < int(samples.size()) ? samples[size_t(index)].activations : 0;
            return tr("<b>%1</b><br>%2 in use at %3, of which activations %4")
                .arg(m_timeline.stages > 1 ? tr("Stage %1").arg(s) : tr("Memory"))
                .arg(Units::bytes(d->value * Units::bytesPerUnit()), Units::seconds(d->key * m_scale),
                    Units::bytes(acts));
        }
    if (plottable == m_peak)
        return m_peakLabel->text();
    return {};
}

} // namespace shardscope::ui
