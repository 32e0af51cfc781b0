// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/chart_base.h"

#include "charts/qcp.h"
#include "explain/tooltips.h"

#include <QHelpEvent>
#include <QToolTip>
#include <QVBoxLayout>

namespace shardscope::ui {

ChartBase::ChartBase(QString chartKey, const QString& title, QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_chartKey(std::move(chartKey))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumSize(260, 200);
    // Axis-aligned bars gain nothing from antialiasing and it costs replot time.
    m_plot->setNotAntialiasedElements(QCP::aePlottables | QCP::aeGrid | QCP::aeAxes);
    m_plot->setPlottingHint(QCP::phCacheLabels, true);
    m_plot->installEventFilter(this);
    m_plot->setFont(font());

    m_plot->plotLayout()->insertRow(0);
    QFont titleFont = font();
    titleFont.setBold(true);
    m_title = new QCPTextElement(m_plot, title, titleFont);
    m_title->setMargins(QMargins(4, 4, 4, 0));
    m_plot->plotLayout()->addElement(0, 0, m_title);

    m_message = new QCPItemText(m_plot);
    m_message->position->setType(QCPItemPosition::ptViewportRatio);
    m_message->position->setCoords(0.5, 0.55);
    m_message->setClipToAxisRect(false);
    m_message->setVisible(false);
    m_message->setSelectable(false);
    applyTheme();
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
}

QString ChartBase::message() const { return m_message->visible() ? m_message->text() : QString(); }

void ChartBase::requestReplot() { m_plot->replot(QCustomPlot::rpQueuedReplot); }

void ChartBase::replotNow() { m_plot->replot(QCustomPlot::rpImmediateRefresh); }

QString ChartBase::plottableToolTip(QCPAbstractPlottable*, int) const { return {}; }
QString ChartBase::itemToolTip(QCPAbstractItem*) const { return {}; }

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
    return explainHtml(m_chartKey);
}

bool ChartBase::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        QToolTip::showText(help->globalPos(), toolTipAt(help->pos()), m_plot);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace shardscope::ui
