// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/chart_grid.h"

#include "charts/legend_strip.h"

#include <QResizeEvent>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace shardscope::ui {

namespace {
int leastWidth(const QWidget* w) { return w->minimumSizeHint().expandedTo(w->minimumSize()).width(); }
} // namespace

ChartGrid::ChartGrid(QSplitter* grid, QList<QSplitter*> rows, QWidget* parent)
    : QWidget(parent)
    , m_rows(std::move(rows))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(grid);
    // A chart narrower than its legend's columns wraps the legend to more rows rather than widen the page.
    for (LegendStrip* legend : grid->findChildren<LegendStrip*>())
        legend->setWrapping(true);
}

bool ChartGrid::stacked() const { return !m_rows.isEmpty() && m_rows.front()->orientation() == Qt::Vertical; }

int ChartGrid::sideBySideWidth() const
{
    int width = 0;
    for (const QSplitter* row : m_rows) {
        int sum = row->handleWidth() * std::max(0, row->count() - 1);
        for (int i = 0; i < row->count(); ++i)
            sum += leastWidth(row->widget(i));
        width = std::max(width, sum);
    }
    return width;
}

QSize ChartGrid::minimumSizeHint() const
{
    // As narrow as one chart: side by side or stacked is decided by the width given (resizeEvent).
    int column = 0;
    for (const QSplitter* row : m_rows)
        for (int i = 0; i < row->count(); ++i)
            column = std::max(column, leastWidth(row->widget(i)));
    return { column, QWidget::minimumSizeHint().height() };
}

void ChartGrid::arrange() { arrangeFor(width()); }

void ChartGrid::arrangeFor(int width)
{
    const Qt::Orientation want = width >= sideBySideWidth() ? Qt::Horizontal : Qt::Vertical;
    bool changed = false;
    for (QSplitter* row : std::as_const(m_rows))
        if (row->orientation() != want) {
            row->setOrientation(want);
            changed = true;
        }
    if (changed)
        updateGeometry(); // the minimum height changes: the page scrolls down when stacked
}

void ChartGrid::resizeEvent(QResizeEvent* event)
{
    arrangeFor(event->size().width());
    QWidget::resizeEvent(event);
}

} // namespace shardscope::ui
