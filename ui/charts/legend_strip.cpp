// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/legend_strip.h"

#include "explain/tooltips.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QToolTip>

#include <algorithm>

namespace shardscope::ui {

namespace {
constexpr int kSwatch = 12;
constexpr int kGap = 5;
constexpr int kColumnGap = 14;
} // namespace

LegendStrip::LegendStrip(int columns, QWidget* parent)
    : QWidget(parent)
    , m_columns(std::max(1, columns))
{
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    setFont(f);
}

void LegendStrip::setEntries(const QList<Entry>& entries)
{
    m_entries = entries;
    m_columnWidth = -1;
    updateGeometry();
    update();
}

int LegendStrip::columnWidth() const
{
    if (m_columnWidth >= 0)
        return m_columnWidth;
    int w = 0;
    for (const Entry& e : m_entries)
        w = std::max(w, fontMetrics().horizontalAdvance(e.text));
    m_columnWidth = kSwatch + kGap + w;
    return m_columnWidth;
}

QSize LegendStrip::sizeFor(int columns) const
{
    columns = std::min<int>(columns, std::max<qsizetype>(1, m_entries.size()));
    const int rows = int((m_entries.size() + columns - 1) / columns);
    const int line = fontMetrics().height() + 2;
    return { columns * columnWidth() + (columns - 1) * kColumnGap + 8, rows * line + 6 };
}

void LegendStrip::setWrapping(bool on)
{
    m_wrap = on;
    QSizePolicy policy(wraps() ? QSizePolicy::Maximum : QSizePolicy::Fixed, QSizePolicy::Fixed);
    policy.setHeightForWidth(wraps());
    setSizePolicy(policy);
    if (!wraps())
        setMinimumHeight(0);
    updateGeometry();
    update();
}

int LegendStrip::columnsFor(int width) const
{
    if (!wraps())
        return m_columns;
    const int fit = (width - 8 + kColumnGap) / (columnWidth() + kColumnGap);
    return std::clamp(fit, 1, m_columns);
}

QSize LegendStrip::sizeHint() const { return sizeFor(m_columns); }

QSize LegendStrip::minimumSizeHint() const
{
    return wraps() ? QSize(sizeFor(1).width(), sizeFor(m_columns).height()) : sizeHint();
}

int LegendStrip::heightForWidth(int width) const { return sizeFor(columnsFor(width)).height(); }

void LegendStrip::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Splitters do not ask for height-for-width: the rows this width takes become the minimum height.
    if (wraps()) {
        const int rows = heightForWidth(event->size().width());
        if (minimumHeight() != rows)
            setMinimumHeight(rows);
    }
}

QRect LegendStrip::entryRect(int index) const
{
    const int line = fontMetrics().height() + 2;
    const int columns = columnsFor(width());
    const int column = index % columns;
    const int row = index / columns;
    return { 4 + column * (columnWidth() + kColumnGap), 3 + row * line, columnWidth(), line };
}

void LegendStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QColor text = palette().color(QPalette::WindowText);
    for (int i = 0; i < m_entries.size(); ++i) {
        const Entry& e = m_entries[i];
        const QRect r = entryRect(i);
        const QRect swatch(r.left(), r.center().y() - kSwatch / 2, kSwatch, kSwatch - 2);
        switch (e.swatch) {
        case Swatch::Box:
            p.fillRect(swatch, e.color);
            p.setPen(e.color.darker(130));
            p.drawRect(swatch.adjusted(0, 0, -1, -1));
            break;
        case Swatch::Hatched:
            p.fillRect(swatch, QBrush(e.color, Qt::BDiagPattern));
            p.setPen(QPen(e.color, 2));
            p.drawRect(swatch.adjusted(1, 1, -1, -1));
            break;
        case Swatch::DashedLine:
            p.setPen(QPen(e.color.isValid() ? e.color : text, 2, Qt::DashLine));
            p.drawLine(swatch.left(), swatch.center().y(), swatch.right(), swatch.center().y());
            break;
        }
        p.setPen(text);
        p.drawText(r.adjusted(kSwatch + kGap, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, e.text);
    }
}

int LegendStrip::entryAt(const QPoint& pos) const
{
    for (int i = 0; i < m_entries.size(); ++i)
        if (entryRect(i).contains(pos))
            return i;
    return -1;
}

QString LegendStrip::entryToolTip(int index) const
{
    if (index < 0 || index >= m_entries.size())
        return {};
    return m_toolTip ? m_toolTip(index) : m_entries[index].toolTip;
}

void LegendStrip::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton
        && openDerivation(entryToolTip(entryAt(event->position().toPoint())), window()))
        return;
    QWidget::mouseReleaseEvent(event);
}

bool LegendStrip::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = entryAt(help->pos());
        if (const QString tip = entryToolTip(i); !tip.isEmpty()) {
            QToolTip::showText(help->globalPos(), tip, this, entryRect(i));
            return true;
        }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

void LegendStrip::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        m_columnWidth = -1;
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

} // namespace shardscope::ui
