// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/sizing_chart.h"

#include "analysis/layout_text.h"
#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "util/contrast.h"
#include "util/units.h"

#include <QFontMetricsF>
#include <QRegularExpression>

#include <algorithm>
#include <array>

namespace shardscope::ui {

namespace {
constexpr double kSpacing = 0.015; ///< between the bars of a group, in key units
} // namespace

SizingChart::SizingChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.sizing"), tr("Minimum GPUs by strategy and GPU type"), parent)
    , m_group(new QCPBarsGroup(m_plot))
    , m_ticker(new FitTextTicker)
{
    m_group->setSpacingType(QCPBarsGroup::stPlotCoords);
    m_group->setSpacing(kSpacing);
    m_plot->xAxis->setTicker(m_ticker);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setTickLength(0, 3);
    m_plot->xAxis->setSubTicks(false);
    addLegend(Qt::BottomEdge, 3);
    applyTheme();
}

QColor SizingChart::gpuColor(int gpu)
{
    using namespace okabe_ito;
    static const QColor colors[] = { blue, orange, bluishGreen, vermillion, skyBlue, reddishPurple, yellow, grey };
    return gpu < 8 ? colors[std::max(0, gpu)] : categoricalColor(gpu);
}

void SizingChart::themeChanged()
{
    for (QCPItemText* t : m_labels) {
        t->setColor(m_theme.foreground);
        t->setFont(smallFont());
    }
}

double SizingChart::metricValue(const core::SizingRow& r) const
{
    if (r.minGpus <= 0)
        return 0;
    switch (m_metric) {
    case Metric::MinGpus: return r.minGpus;
    case Metric::TrainDays: return r.trainSeconds / 86400.0;
    case Metric::Cost: return r.trainCostUsd;
    }
    return 0;
}

QString SizingChart::metricText(const core::SizingRow& r) const
{
    if (r.minGpus <= 0)
        return QStringLiteral("✕");
    switch (m_metric) {
    case Metric::MinGpus: return QString::number(r.minGpus);
    case Metric::TrainDays: return Units::days(r.trainSeconds, false); // narrow bars: the axis says "days"
    case Metric::Cost: return r.trainCostUsd > 0 ? Units::dollars(r.trainCostUsd) : QStringLiteral("—");
    }
    return {};
}

void SizingChart::clear()
{
    for (QCPBars* b : m_bars)
        m_plot->removePlottable(b);
    for (QCPItemText* t : m_labels)
        m_plot->removeItem(t);
    m_bars.clear();
    m_labels.clear();
    m_labelAt.clear();
    m_labelRects.clear();
    m_group->clear();
}

std::unique_ptr<ChartBase> SizingChart::copy() const
{
    auto c = std::make_unique<SizingChart>();
    c->setRows(m_rows, m_metric);
    return c;
}

void SizingChart::setRows(const std::vector<core::SizingRow>& rows, Metric metric)
{
    clear();
    m_rows = rows;
    m_metric = metric;
    m_gpus.clear();
    m_strategies.clear();
    for (const auto& r : rows) {
        if (std::find(m_gpus.begin(), m_gpus.end(), r.gpuId) == m_gpus.end())
            m_gpus.push_back(r.gpuId);
        if (std::find(m_strategies.begin(), m_strategies.end(), r.strategy) == m_strategies.end())
            m_strategies.push_back(r.strategy);
    }
    m_ticker->clear();
    for (size_t s = 0; s < m_strategies.size(); ++s) {
        // "ZeRO-3 + full recompute" -> "ZeRO-3\n+full recomp.": a line per part, short enough that six groups keep
        // their names in the tab of a 1280 x 800 window (the bars' tooltips and the table give the full names).
        QString label = QString::fromStdString(m_strategies[s]);
        label.replace(QStringLiteral(" + "), QStringLiteral("\n+"));
        label.replace(QStringLiteral("+full recompute"), QStringLiteral("+full recomp."));
        m_ticker->addTick(double(s + 1), label);
    }
    const double width = m_gpus.empty() ? 0.8 : std::min(0.8 / double(m_gpus.size()), 0.3);
    m_barWidth = width;
    double maxValue = 0;
    QList<LegendStrip::Entry> entries;
    for (size_t g = 0; g < m_gpus.size(); ++g) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        const QColor c = gpuColor(int(g));
        bars->setBrush(c);
        bars->setPen(QPen(c.darker(130), 1));
        bars->setWidth(width);
        bars->setBarsGroup(m_group);
        bars->setSelectable(QCP::stNone);
        QVector<double> keys, values;
        QString name;
        for (const auto& r : rows) {
            if (r.gpuId != m_gpus[g])
                continue;
            name = QString::fromStdString(r.gpuName);
            const auto s
                = size_t(std::find(m_strategies.begin(), m_strategies.end(), r.strategy) - m_strategies.begin());
            keys << double(s + 1);
            values << metricValue(r);
            maxValue = std::max(maxValue, metricValue(r));
        }
        bars->setName(name);
        bars->setData(keys, values, true);
        m_bars.push_back(bars);
        // The vendor prefix is the same for most entries and costs legend width.
        QString shortName = name;
        shortName.remove(QRegularExpression(QStringLiteral("^(NVIDIA|AMD Instinct|AMD|Intel) ")));
        entries.push_back({ shortName, c, LegendStrip::Swatch::Box, name });
    }
    // Value labels over each bar: the group places bar g at (g − (n − 1)/2)·(width + spacing) from the key.
    const double n = double(m_bars.size());
    for (size_t g = 0; g < m_bars.size(); ++g) {
        for (const auto& r : rows) {
            if (r.gpuId != m_gpus[g])
                continue;
            const auto s
                = size_t(std::find(m_strategies.begin(), m_strategies.end(), r.strategy) - m_strategies.begin());
            auto* t = new QCPItemText(m_plot);
            t->setSelectable(false);
            t->setText(metricText(r));
            t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            t->setPadding(QMargins(1, 0, 1, 1));
            const double key = double(s + 1) + (double(g) - (n - 1) / 2) * (width + kSpacing);
            t->position->setCoords(key, metricValue(r));
            m_labels.push_back(t);
            m_labelAt.push_back({ key, metricValue(r), g });
        }
    }
    m_plot->xAxis->setRange(0.4, double(m_strategies.size()) + 0.6);
    m_plot->yAxis->setRange(0, maxValue > 0 ? maxValue * 1.15 : 1);
    switch (metric) {
    case Metric::MinGpus:
        m_plot->yAxis->setLabel(tr("minimum GPUs"));
        setTitle(tr("Minimum GPUs by strategy and GPU type"));
        break;
    case Metric::TrainDays:
        m_plot->yAxis->setLabel(tr("days to train the token budget"));
        setTitle(tr("Days to train the token budget by strategy and GPU type"));
        break;
    case Metric::Cost:
        m_plot->yAxis->setLabel(tr("cost of the training run (USD)"));
        setTitle(tr("Cost of the training run by strategy and GPU type"));
        break;
    }
    m_legend->setEntries(entries);
    themeChanged();
    setMessage(rows.empty() ? tr("Choose at least one GPU type") : QString());
    requestReplot();
}

QRectF SizingChart::barRect(int i) const
{
    if (i < 0 || size_t(i) >= m_labelAt.size())
        return {};
    const LabelAt& at = m_labelAt[size_t(i)];
    const QCPAxis* x = m_plot->xAxis;
    const QCPAxis* y = m_plot->yAxis;
    const double left = x->coordToPixel(at.key - m_barWidth / 2);
    const double right = x->coordToPixel(at.key + m_barWidth / 2);
    const double top = y->coordToPixel(at.value);
    const double base = y->coordToPixel(0);
    return { QPointF(left, std::min(top, base)), QPointF(right, std::max(top, base)) };
}

QRectF SizingChart::labelRect(int i) const
{
    return i >= 0 && size_t(i) < m_labelRects.size() ? m_labelRects[size_t(i)] : QRectF();
}

void SizingChart::laidOut()
{
    // Value labels all level above their bars, or all upright (above a bar, or inside its top where there is no
    // room above), whichever draws more of them; a label that overlaps another label or another bar, or leaves the
    // plot, is left out, and the bar's tooltip still gives the value (issue 23: four GPU types' labels ran into each
    // other and over their neighbours' bars).
    m_labelRects.assign(m_labels.size(), QRectF());
    const QRectF area = m_plot->xAxis->axisRect()->rect();
    if (area.width() <= 0 || area.height() <= 0)
        return;
    struct Place {
        QRectF rect;
        double rotation = 0;
        Qt::Alignment align;
        bool inside = false;
    };
    std::vector<QRectF> bars;
    std::vector<std::array<Place, 3>> candidates; // level above, upright above, upright inside
    for (size_t i = 0; i < m_labels.size(); ++i) {
        const QRectF bar = barRect(int(i));
        bars.push_back(bar);
        const QFontMetricsF fm(m_labels[i]->font());
        const QMargins pad = m_labels[i]->padding();
        const double along = fm.horizontalAdvance(m_labels[i]->text()) + pad.left() + pad.right(); // the text's length
        const double across = fm.height() + pad.top() + pad.bottom();
        const double centre = bar.center().x();
        candidates.push_back({ Place { QRectF(centre - along / 2, bar.top() - across, along, across), 0,
                                   Qt::AlignHCenter | Qt::AlignBottom, false },
            Place { QRectF(centre - across / 2, bar.top() - along, across, along), -90,
                Qt::AlignLeft | Qt::AlignVCenter, false },
            Place { QRectF(centre - across / 2, bar.top() + 1, across, along), -90, Qt::AlignRight | Qt::AlignVCenter,
                true } });
    }
    const auto layout = [&](bool upright) {
        std::vector<int> chosen(m_labels.size(), -1);
        std::vector<QRectF> placed;
        for (size_t i = 0; i < m_labels.size(); ++i) {
            for (int c = upright ? 1 : 0; c <= (upright ? 2 : 0); ++c) {
                const Place& place = candidates[i][size_t(c)];
                if (place.inside && (m_labelAt[i].value <= 0 || !bars[i].contains(place.rect)))
                    continue;
                if (!area.contains(place.rect))
                    continue;
                bool free = std::none_of(
                    placed.begin(), placed.end(), [&](const QRectF& p) { return p.intersects(place.rect); });
                for (size_t b = 0; free && b < bars.size(); ++b)
                    free = b == i || !bars[b].intersects(place.rect);
                if (!free)
                    continue;
                chosen[i] = c;
                placed.push_back(place.rect);
                break;
            }
        }
        return chosen;
    };
    const std::vector<int> level = layout(false);
    const std::vector<int> upright = layout(true);
    const auto drawn
        = [](const std::vector<int>& v) { return std::count_if(v.begin(), v.end(), [](int c) { return c >= 0; }); };
    const std::vector<int>& chosen = drawn(upright) > drawn(level) ? upright : level;
    for (size_t i = 0; i < m_labels.size(); ++i) {
        QCPItemText* t = m_labels[i];
        t->setVisible(chosen[i] >= 0);
        if (chosen[i] < 0)
            continue;
        const Place& place = candidates[i][size_t(chosen[i])];
        t->setRotation(place.rotation);
        t->setPositionAlignment(place.align);
        t->setColor(place.inside ? readableOn(m_bars[m_labelAt[i].gpu]->brush().color(), Qt::black, Qt::white)
                                 : m_theme.foreground);
        m_labelRects[i] = place.rect;
    }
}

double SizingChart::value(int gpu, int strategy) const
{
    if (gpu < 0 || gpu >= int(m_bars.size()))
        return 0;
    const auto* bars = m_bars[size_t(gpu)]->data().data();
    for (auto it = bars->constBegin(); it != bars->constEnd(); ++it)
        if (qFuzzyCompare(it->key, double(strategy + 1)))
            return it->value;
    return 0;
}

QString SizingChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    const auto it = std::find(m_bars.begin(), m_bars.end(), plottable);
    if (it == m_bars.end() || index < 0)
        return {};
    const size_t g = size_t(it - m_bars.begin());
    const double key = (*it)->data()->at(index)->key;
    const size_t s = size_t(key + 0.5) - 1;
    for (const auto& r : m_rows)
        if (r.gpuId == m_gpus[g] && s < m_strategies.size() && r.strategy == m_strategies[s]) {
            if (r.minGpus <= 0)
                return tr("<b>%1 on %2</b><br>does not fit with any GPU count tried")
                    .arg(QString::fromStdString(r.strategy).toHtmlEscaped(),
                        QString::fromStdString(r.gpuName).toHtmlEscaped());
            return tr("<b>%1 on %2</b><br>minimum %3 GPUs · memory %4 per GPU<br>step time %5 · MFU %6<br>"
                      "train time %7%8")
                .arg(QString::fromStdString(r.strategy).toHtmlEscaped(),
                    QString::fromStdString(r.gpuName).toHtmlEscaped())
                .arg(r.minGpus)
                .arg(Units::bytes(r.memory), Units::seconds(r.stepTime), Units::percent(r.mfu),
                    Units::days(r.trainSeconds),
                    r.trainCostUsd > 0 ? tr(" · cost %1").arg(Units::dollars(r.trainCostUsd)) : QString());
        }
    return {};
}

} // namespace shardscope::ui
