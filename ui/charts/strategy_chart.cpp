// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/strategy_chart.h"

#include "charts/capacity_marks.h"
#include "charts/memory_stack.h"
#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "explain/field_names.h"
#include "explain/tooltips.h"
#include "util/units.h"

#include <limits>

namespace shardscope::ui {

namespace {
constexpr double kBarWidth = 0.62;
}

StrategyChart::StrategyChart(QWidget* parent)
    : ChartBase(QStringLiteral("chart.strategy"), tr("Memory per GPU by sharding strategy"), parent)
    , m_ticker(new FitTextTicker)
    , m_band(new QCPItemRect(m_plot))
{
    QCPAxisRect* rect = m_plot->axisRect();
    m_band->setLayer(QStringLiteral("grid")); // behind the bars
    m_band->setPen(Qt::NoPen);
    m_band->setClipAxisRect(rect);
    m_band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_stack = std::make_unique<MemoryStack>(m_plot, rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft), false);
    m_stack->setWidth(kBarWidth);
    m_marks = std::make_unique<CapacityMarks>(m_plot, rect);
    m_marks->setCompactLabels(true);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    x->setTicker(m_ticker);
    x->grid()->setVisible(false);
    x->setTickLength(0, 3);
    m_plot->legend->setVisible(false); // same colours as "Memory per GPU"
    applyTheme();
}

StrategyChart::~StrategyChart() = default;

void StrategyChart::themeChanged()
{
    if (m_marks)
        m_marks->setTheme(m_theme);
    m_band->setBrush(m_theme.highlight);
    // Six names of two or three lines side by side: a point smaller, so that at 1280 pixels each keeps its name.
    QFont names = smallFont();
    names.setPointSizeF(names.pointSizeF() * 0.92);
    m_plot->xAxis->setTickLabelFont(names);
    for (QCPItemText* t : std::as_const(m_invalid))
        t->setColor(m_theme.muted);
}

int StrategyChart::barCount() const
{
    int n = 0;
    for (const core::StrategyVariant& v : m_comparison)
        n += v.result.valid ? 1 : 0;
    return n;
}

void StrategyChart::setComparison(const core::StrategyComparison& comparison)
{
    m_comparison = comparison;
    m_ticker->clear();
    QVector<double> keys;
    QVector<double> totals;
    std::vector<std::vector<TermFigure>> figures;
    double capacityBytes = 0;
    int current = -1;
    while (m_invalid.size() < qsizetype(comparison.size())) {
        auto* t = new QCPItemText(m_plot);
        t->setClipAxisRect(m_plot->axisRect());
        t->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->setColor(m_theme.muted);
        t->setText(tr("not\nallowed"));
        m_invalid << t;
    }
    for (qsizetype i = 0; i < qsizetype(comparison.size()); ++i) {
        const core::StrategyVariant& v = comparison[size_t(i)];
        const double key = double(i + 1);
        keys << key;
        const bool ok = v.result.valid;
        figures.push_back(termFigures(v.result, core::TermGroup::Memory)); // empty when not allowed
        totals << (ok ? Units::toUnit(v.result.memory.total()) : -1.0);
        m_invalid[i]->setVisible(!ok);
        m_invalid[i]->position->setCoords(key, 0.97);
        if (ok) {
            capacityBytes = v.result.usable; // the line "fits" is judged against
        }
        if (v.current)
            current = int(i);
        const QString time = ok ? Units::seconds(v.result.step.total()) : QStringLiteral("—");
        m_ticker->addTick(key,
            QStringLiteral("%1%2\n%3")
                .arg(v.current ? QStringLiteral("▸ ") : QString(), QString::fromStdString(v.label), time));
    }
    for (qsizetype i = comparison.size(); i < m_invalid.size(); ++i)
        m_invalid[i]->setVisible(false);
    m_stack->setData(keys, figures);
    QCPAxis* y = m_plot->yAxis;
    y->setLabel(tr("per GPU (%1)").arg(Units::unitName()));
    m_plot->xAxis->setRange(0.4, double(comparison.size()) + 0.6);
    m_plot->xAxis->setLabel(tr("strategy, step time"));
    const double capacity = Units::toUnit(capacityBytes);
    double maxTotal = 0;
    for (double t : std::as_const(totals))
        maxTotal = std::max(maxTotal, t);
    // DDP can be many times the GPU: cap the axis at 3x capacity and print taller totals at the top.
    const double yMax
        = capacity > 0 ? std::max(capacity * 1.2, std::min(maxTotal * 1.1, capacity * 3)) : maxTotal * 1.1;
    y->setRange(0, yMax > 0 ? yMax : 1);
    m_marks->set(capacity, Units::bytes(capacityBytes), keys, totals, kBarWidth, yMax);
    m_ticker->setKeep(current >= 0 ? double(current + 1) : std::numeric_limits<double>::quiet_NaN()); // never dropped
    m_band->setVisible(current >= 0);
    if (current >= 0) {
        m_band->topLeft->setCoords(current + 1 - 0.48, 0);
        m_band->bottomRight->setCoords(current + 1 + 0.48, 1);
    }
    const bool none = barCount() == 0;
    if (none) {
        for (QCPItemText* t : std::as_const(m_invalid))
            t->setVisible(false);
        m_band->setVisible(false);
    }
    setMessage(none ? tr("No strategy applies to this scenario (see Issues)") : QString());
    requestReplot();
}

QString StrategyChart::plottableToolTip(QCPAbstractPlottable* plottable, int index) const
{
    const int item = m_stack->itemOf(plottable);
    if (item < 0 || index < 0)
        return {};
    const int i = int(static_cast<QCPBars*>(plottable)->data()->at(index)->key) - 1;
    if (i < 0 || i >= int(m_comparison.size()))
        return {};
    const core::StrategyVariant& v = m_comparison[size_t(i)];
    const std::string key = m_stack->key(item).toStdString();
    const QString value = tr("%1 with %2 (total %3, step %4)")
                              .arg(Units::bytes(breakdownValue(v.result.memory, key)),
                                  QString::fromStdString(v.label).replace(QLatin1Char('\n'), QLatin1Char(' ')),
                                  Units::bytes(v.result.memory.total()), Units::seconds(v.result.step.total()));
    const std::vector<core::Term> terms = core::variantTerms(v); // the variants carry figures only
    if (const core::Term* term = findTerm(terms, key))
        return termHtml(*term, value);
    return explainHtml(m_stack->key(item), value);
}

QString StrategyChart::itemToolTip(QCPAbstractItem* item) const
{
    if (m_marks->isCapacityItem(item))
        return explainHtml(QStringLiteral("memory.usable"));
    for (qsizetype i = 0; i < m_invalid.size() && i < qsizetype(m_comparison.size()); ++i) {
        if (item != m_invalid[i])
            continue;
        const core::StrategyVariant& v = m_comparison[size_t(i)];
        QStringList lines;
        for (const core::Issue& issue : v.result.issues)
            lines << QStringLiteral("%1: %2").arg(
                fieldLabel(QString::fromStdString(issue.field)), QString::fromStdString(issue.message));
        return tr("<b>%1 is not allowed here</b><br>%2")
            .arg(QString::fromStdString(v.label).replace(QLatin1Char('\n'), QLatin1Char(' ')).toHtmlEscaped(),
                lines.join(QStringLiteral("<br>")).toHtmlEscaped());
    }
    const int bar = m_marks->excessIndexOf(item);
    if (bar >= 0 && bar < int(m_comparison.size())) {
        const core::Result& r = m_comparison[size_t(bar)].result;
        return explainHtml(QStringLiteral("memory.excess"), Units::bytes(r.memory.total() - r.usable),
            tr("total %1 − usable %2").arg(Units::bytes(r.memory.total()), Units::bytes(r.usable)));
    }
    return {};
}

} // namespace shardscope::ui
