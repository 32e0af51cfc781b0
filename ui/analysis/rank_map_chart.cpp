// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/rank_map_chart.h"

#include "analysis/layout_text.h"
#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "util/contrast.h"

#include <algorithm>
#include <map>

namespace shardscope::ui {

/// One rectangle per GPU, drawn in one pass, with the rank number and group label where they fit.
class RankCells : public QCPAbstractPlottable
{
public:
    struct Cell {
        int rank = 0, node = 0, gpu = 0;
        int group = -1; ///< index of its group of the chosen kind (colour), -1: none
        QColor color;
        QString label; ///< second line ("TP 3")
    };
    RankCells(QCPAxis* key, QCPAxis* value)
        : QCPAbstractPlottable(key, value)
    { }
    std::vector<Cell> cells;
    int columns = 1, rows = 1;
    int hoveredGroup = -1;
    QColor outline = Qt::black, text = Qt::black, textLight = Qt::white;

    [[nodiscard]] int cellAt(const QPointF& pos) const
    {
        const int gpu = int(std::lround(mKeyAxis->pixelToCoord(pos.x())));
        const int node = int(std::lround(mValueAxis->pixelToCoord(pos.y())));
        if (gpu < 0 || gpu >= columns || node < 0 || node >= rows)
            return -1;
        const int i = node * columns + gpu;
        return i < int(cells.size()) ? i : -1;
    }
    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override
    {
        if (onlySelectable && !selectable())
            return -1;
        const int i = cellAt(pos);
        if (i < 0)
            return -1;
        if (details)
            details->setValue(QCPDataSelection(QCPDataRange(i, i + 1)));
        return 0;
    }
    QCPRange getKeyRange(bool& found, QCP::SignDomain) const override
    {
        found = true;
        return { -0.5, columns - 0.5 };
    }
    QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override
    {
        found = true;
        return { -0.5, rows - 0.5 };
    }

protected:
    void draw(QCPPainter* painter) override
    {
        QFont big = mParentPlot->font();
        QFont small = big;
        small.setPointSizeF(std::max(6.0, big.pointSizeF() * 0.8));
        const QFontMetricsF fb(big), fs(small);
        for (const Cell& c : cells) {
            const QPointF a = coordsToPixels(c.gpu - 0.5, c.node - 0.5);
            const QPointF b = coordsToPixels(c.gpu + 0.5, c.node + 0.5);
            QRectF r = QRectF(a, b).normalized();
            const double gap = std::min(3.0, std::min(r.width(), r.height()) * 0.08);
            r.adjust(gap, gap, -gap, -gap);
            painter->setPen(Qt::NoPen);
            painter->setBrush(c.color);
            painter->drawRect(r);
            if (hoveredGroup >= 0 && c.group == hoveredGroup) {
                painter->setPen(QPen(outline, 2.5));
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(r.adjusted(1, 1, -1, -1));
            }
            const QString rank = QString::number(c.rank);
            const bool two
                = fb.height() + fs.height() + 2 <= r.height() && fs.horizontalAdvance(c.label) + 4 <= r.width();
            if (fb.horizontalAdvance(rank) + 4 > r.width() || fb.height() > r.height())
                continue;
            painter->setPen(readableOn(c.color, text, textLight));
            if (two) {
                painter->setFont(big);
                painter->drawText(
                    QRectF(r.left(), r.center().y() - fb.height(), r.width(), fb.height()), Qt::AlignCenter, rank);
                painter->setFont(small);
                painter->drawText(
                    QRectF(r.left(), r.center().y() + 1, r.width(), fs.height()), Qt::AlignCenter, c.label);
            } else {
                painter->setFont(big);
                painter->drawText(r, Qt::AlignCenter, rank);
            }
        }
    }
    void drawLegendIcon(QCPPainter*, const QRectF&) const override { }
};

RankMapChart::RankMapChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.rank_map"), tr("Rank map: GPUs by node, coloured by group"), parent)
    , m_xTicker(new FitTextTicker)
    , m_yTicker(new FitTextTicker)
{
    m_plot->xAxis->setTicker(m_xTicker);
    m_plot->yAxis->setTicker(m_yTicker);
    m_plot->yAxis->setRangeReversed(true);
    for (QCPAxis* a : { m_plot->xAxis, m_plot->yAxis }) {
        a->grid()->setVisible(false);
        a->setTickLength(0, 0);
        a->setSubTicks(false);
        a->setBasePen(Qt::NoPen);
    }
    // GPU numbers on top, like a rack diagram read from the top-left.
    m_plot->xAxis->setVisible(false);
    m_plot->xAxis2->setVisible(true);
    m_plot->xAxis2->setTicker(m_xTicker);
    m_plot->xAxis2->grid()->setVisible(false);
    m_plot->xAxis2->setTickLength(0, 0);
    m_plot->xAxis2->setSubTicks(false);
    m_plot->xAxis2->setBasePen(Qt::NoPen);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), m_plot->xAxis2,
        qOverload<const QCPRange&>(&QCPAxis::setRange));
    m_cells = new RankCells(m_plot->xAxis, m_plot->yAxis);
    m_cells->setSelectable(QCP::stNone);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const int i = m_cells->cellAt(e->position());
        setHoveredRank(i >= 0 ? m_cells->cells[size_t(i)].rank : -1);
    });
    applyTheme();
    // applyTheme() gives every axis a base pen; these stay without.
    for (QCPAxis* a : { m_plot->xAxis2, m_plot->yAxis })
        a->setBasePen(Qt::NoPen);
}

RankMapChart::~RankMapChart() = default;

bool RankMapChart::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Leave)
        setHoveredRank(-1);
    return ChartBase::eventFilter(watched, event);
}

void RankMapChart::themeChanged()
{
    m_cells->outline = m_theme.foreground;
    m_cells->text = QColor(0x10, 0x10, 0x10);
    m_cells->textLight = Qt::white;
    for (QCPAxis* a : { m_plot->xAxis2, m_plot->yAxis })
        a->setBasePen(Qt::NoPen);
}

std::unique_ptr<ChartBase> RankMapChart::copy() const
{
    auto c = std::make_unique<RankMapChart>();
    core::Result validity; // setScenario reads only whether the scenario was valid
    validity.valid = m_valid;
    c->setScenario(m_scenario, validity, m_kind, m_nodes);
    return c;
}

void RankMapChart::setScenario(const core::Scenario& s, const core::Result& r, core::Group kind, int maxNodes)
{
    m_scenario = s;
    m_kind = kind;
    m_cells->cells.clear();
    m_cells->hoveredGroup = -1;
    m_xTicker->clear();
    m_yTicker->clear();
    m_valid = r.valid;
    if (!r.valid) {
        m_nodes = 0;
        setMessage(tr("No rank map: the scenario is invalid (see Issues)"));
        requestReplot();
        return;
    }
    setMessage({});
    const int gpn = std::max(1, s.cluster.gpusPerNode);
    m_nodes = std::min(std::clamp(maxNodes, 1, std::max(1, s.cluster.nodes)), std::max(1, kMaxCells / gpn));
    // Ranks fill nodes in order (rank = node × gpus_per_node + GPU), so the cells are row-major as cellAt() reads them.
    // Group index = order of first appearance of the group's lowest rank, so neighbouring groups differ in colour.
    std::map<int, int> groupIndex;
    std::vector<RankCells::Cell> cells(size_t(m_nodes) * size_t(gpn));
    for (int rank = 0; rank < int(cells.size()); ++rank) {
        auto& c = cells[size_t(rank)];
        c.rank = rank;
        c.node = rank / gpn;
        c.gpu = rank % gpn;
        const core::RankGroup g = core::groupOf(s, rank, kind, false, 0);
        const auto [it, inserted] = groupIndex.emplace(g.first, int(groupIndex.size()));
        c.group = it->second;
        // Groups of one GPU (degree 1) carry no communication: one neutral colour says so.
        c.color = g.size > 1 ? categoricalColor(c.group) : m_theme.grid;
        c.label = g.size > 1 ? QStringLiteral("%1 %2").arg(groupShort(kind)).arg(c.group)
                             : tr("%1 = 1").arg(groupShort(kind));
    }
    m_cells->cells = std::move(cells);
    m_cells->columns = gpn;
    m_cells->rows = m_nodes;

    const int every = gpn > 16 ? (gpn + 15) / 16 : 1;
    for (int g = 0; g < gpn; g += every)
        m_xTicker->addTick(g, tr("GPU %1").arg(g));
    const int domain = std::max(1, s.cluster.gpu.scaleUpDomain);
    const int rowsEvery = m_nodes > 32 ? (m_nodes + 31) / 32 : 1;
    for (int n = 0; n < m_nodes; n += rowsEvery)
        m_yTicker->addTick(
            n, domain > gpn ? tr("node %1 · NVL %2").arg(n).arg(n * gpn / domain) : tr("node %1").arg(n));
    m_plot->xAxis->setRange(-0.5, gpn - 0.5);
    m_plot->yAxis->setRange(-0.5, m_nodes - 0.5);
    requestReplot();
}

int RankMapChart::cellCount() const { return int(m_cells->cells.size()); }

QColor RankMapChart::cellColor(int rank) const
{
    return rank >= 0 && rank < cellCount() ? m_cells->cells[size_t(rank)].color : QColor(); // cell i is rank i
}

QColor RankMapChart::cellTextColor(int rank) const
{
    return rank >= 0 && rank < cellCount() ? readableOn(cellColor(rank), m_cells->text, m_cells->textLight) : QColor();
}

int RankMapChart::cellGroup(int rank) const
{
    return rank >= 0 && rank < cellCount() ? m_cells->cells[size_t(rank)].group : -1;
}

void RankMapChart::setHoveredRank(int rank)
{
    const int group = rank >= 0 ? cellGroup(rank) : -1;
    if (group == m_cells->hoveredGroup)
        return;
    m_cells->hoveredGroup = group;
    requestReplot();
}

QString RankMapChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    if (plottable != m_cells || index < 0 || index >= int(m_cells->cells.size()))
        return {};
    return rankToolTip(m_cells->cells[size_t(index)].rank);
}

QString RankMapChart::rankToolTip(int rank) const
{
    if (!m_valid || rank < 0 || rank >= m_scenario.cluster.gpus())
        return {};
    constexpr size_t kListed = 16;
    const core::RankCoord k = core::rankCoord(m_scenario, rank);
    QString text
        = tr("<b>Rank %1</b> · node %2, GPU %3 · NVLink domain %4").arg(rank).arg(k.node).arg(k.localGpu).arg(k.domain);
    text += tr("<br>coordinates: tp %1 · cp %2 · dp %3 · pp %4").arg(k.tp).arg(k.cp).arg(k.dp).arg(k.pp);
    if (m_scenario.parallelism.ep > 1)
        text += tr(" · ep %1 · expert-dp %2").arg(k.ep).arg(k.expertDp);
    for (const core::RankGroup& g : core::groupsOf(m_scenario, rank, kListed)) {
        QStringList members;
        for (int m : g.members)
            members << QString::number(m);
        if (size_t(g.size) > kListed)
            members << QStringLiteral("… (%1)").arg(g.size);
        const QString name = g.expertDataParallel ? tr("expert DP") : groupShort(g.group);
        text += tr("<br><b>%1</b> group: %2").arg(name, members.join(QStringLiteral(", ")));
        if (g.crossesNodes)
            text += tr(" — <i>spans %n node(s)</i>", nullptr, g.nodesSpanned);
    }
    return text;
}

} // namespace shardscope::ui
