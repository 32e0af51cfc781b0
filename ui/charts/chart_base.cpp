// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/chart_base.h"

#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "explain/tooltips.h"
#include "util/message.h"

#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>

namespace shardscope::ui {

ChartBase::ChartBase(QString chartKey, const QString& title, QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_title(plainLabel(this, title)) // a title may hold a scenario name
    , m_chartKey(std::move(chartKey))
    , m_layout(new QVBoxLayout(this))
    , m_row(new QHBoxLayout)
{
    m_layout->setContentsMargins(0, 0, 0, 2);
    m_layout->setSpacing(0);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setAlignment(Qt::AlignCenter);
    m_title->setContentsMargins(0, 3, 0, 1);
    m_title->setToolTip(explainHtml(m_chartKey));
    m_layout->addWidget(m_title);
    m_row->setSpacing(0);
    m_row->addWidget(m_plot, 1);
    m_layout->addLayout(m_row, 1);

    m_plot->setMinimumSize(240, 180);
    // The plot paints its whole area (background brush first): Qt need not paint the parent beneath it.
    m_plot->setAttribute(Qt::WA_OpaquePaintEvent);
    // Axis-aligned bars, rects and straight lines gain nothing from antialiasing, and it costs replot time
    // (text keeps QPainter::TextAntialiasing, which this does not touch).
    m_plot->setNotAntialiasedElements(QCP::aeAll);
    m_plot->setPlottingHint(QCP::phCacheLabels, true);
    // One paint buffer instead of two: nothing here draws on the (buffered by default) overlay layer, and
    // every buffer costs a full-size clear and composite per replot.
    m_plot->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    // Legends are LegendStrip widgets. QCustomPlot's own still takes part in every layout pass even when
    // hidden, so keep it empty.
    m_plot->legend->setVisible(false);
    m_plot->setAutoAddPlottableToLegend(false);
    m_plot->installEventFilter(this);
    // Tick labels fit their axis (charts/axis_ticks.h): the tickers learn their axis's length before each replot,
    // and when the layout changed a length (a resize, wider labels on the other axis, an export's size) the ticks
    // are made again for it and the layout redone, before anything is drawn.
    connect(m_plot, &QCustomPlot::beforeReplot, this, [this] { fitTickLabels(m_plot); });
    connect(m_plot, &QCustomPlot::afterReplot, this, [this] { m_upToDate = true; });
    connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
        for (int i = 0; i < 3 && fitTickLabels(m_plot); ++i) {
            m_plot->plotLayout()->update(QCPLayoutElement::upPreparation);
            m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
            m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
        }
        laidOut();
    });

    m_message = new QCPItemText(m_plot);
    m_message->position->setType(QCPItemPosition::ptViewportRatio);
    m_message->position->setCoords(0.5, 0.5);
    m_message->setClipToAxisRect(false);
    m_message->setVisible(false);
    m_message->setSelectable(false);
    applyTheme();
}

LegendStrip* ChartBase::addLegend(Qt::Edge edge, int columns)
{
    m_legend = new LegendStrip(columns, this);
    if (edge == Qt::RightEdge) {
        auto* column = new QVBoxLayout;
        column->setContentsMargins(2, 8, 4, 0);
        column->addWidget(m_legend);
        column->addStretch(1);
        m_row->addLayout(column);
    } else {
        m_layout->addWidget(m_legend, 0, Qt::AlignHCenter);
    }
    return m_legend;
}

QFont ChartBase::smallFont() const
{
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    return f;
}

void ChartBase::applyTheme()
{
    m_theme = ChartTheme::fromPalette(palette());
    m_theme.apply(m_plot);
    for (QCPAxisRect* rect : m_plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            axis->setTickLabelFont(smallFont());
            axis->setLabelFont(smallFont());
        }
    if (m_plot->legend)
        m_plot->legend->setFont(smallFont());
    m_message->setColor(m_theme.muted);
    themeChanged();
    requestReplot();
}

void ChartBase::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyTheme();
    QWidget::changeEvent(event);
}

void ChartBase::setMessage(const QString& text)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
    // No stale axes behind the message: hide axes and grids while it shows, restore them after.
    const bool show = text.isEmpty();
    if (show == m_axesShown)
        return;
    m_axesShown = show;
    for (QCPAxisRect* rect : m_plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            if (!show) {
                m_savedVisibility.insert(axis, { axis->visible(), axis->grid()->visible() });
                axis->setVisible(false);
                axis->grid()->setVisible(false);
            } else {
                const auto saved = m_savedVisibility.value(axis, { true, true });
                axis->setVisible(saved.first);
                axis->grid()->setVisible(saved.second);
            }
        }
}

QString ChartBase::title() const { return m_title->text(); }

void ChartBase::setTitle(const QString& title) { m_title->setText(title); }

QString ChartBase::message() const { return m_message->visible() ? m_message->text() : QString(); }

void ChartBase::requestReplot()
{
    m_upToDate = false;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString ChartBase::axisTitle(const QString& label, const QString& basis, const QString& unit)
{
    return (basis.isEmpty() ? label : QStringLiteral("%1, %2").arg(label, basis)) + QStringLiteral(" (%1)").arg(unit);
}

void ChartBase::replotNow()
{
    drawBuffersNow();
    m_plot->repaint();
}

void ChartBase::drawBuffersNow()
{
    if (!m_upToDate)
        m_plot->replot(QCustomPlot::rpQueuedRefresh);
}

QString ChartBase::plottableToolTip(QCPAbstractPlottable*, int) const { return {}; }
QString ChartBase::itemToolTip(QCPAbstractItem*) const { return {}; }
QString ChartBase::axisToolTip(QCPAxis*, const QPoint&) const { return {}; }

QString ChartBase::toolTipAt(const QPoint& pos) const
{
    int index = -1;
    if (QCPAbstractPlottable* p = m_plot->plottableAt(pos, false, &index)) {
        const QString tip = plottableToolTip(p, index);
        if (!tip.isEmpty())
            return tip;
    }
    if (QCPAbstractItem* item = m_plot->itemAt(pos, false)) {
        const QString tip = itemToolTip(item);
        if (!tip.isEmpty())
            return tip;
    }
    for (QCPAxisRect* rect : m_plot->axisRects())
        for (QCPAxis* axis : rect->axes())
            if (axis->visible() && axis->getPartAt(pos) == QCPAxis::spTickLabels) {
                const QString tip = axisToolTip(axis, pos);
                if (!tip.isEmpty())
                    return tip;
            }
    return explainHtml(m_chartKey);
}

bool ChartBase::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Resize) {
        plotResized();
    }
    if (watched == m_plot
        && (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::MouseButtonRelease)) {
        auto* mouse = static_cast<QMouseEvent*>(event);
        const QPoint pos = mouse->position().toPoint();
        if (mouse->button() == Qt::LeftButton && event->type() == QEvent::MouseButtonPress)
            m_pressPos = pos;
        else if (mouse->button() == Qt::LeftButton && (pos - m_pressPos).manhattanLength() <= 4)
            openDerivation(toolTipAt(pos), window()); // a click, not the end of a drag
    }
    if (watched == m_plot && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QToolTip::showText(help->globalPos(), toolTipAt(help->pos()), m_plot);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace shardscope::ui
