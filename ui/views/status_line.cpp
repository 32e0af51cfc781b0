// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/status_line.h"

#include "explain/status_summary.h"

#include <QPainter>

namespace shardscope::ui {

namespace {
constexpr int kBar = 6;
constexpr int kPad = 6;
} // namespace

StatusLine::StatusLine(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize StatusLine::sizeHint() const { return {800, fontMetrics().lineSpacing() * 2 + 6}; }

void StatusLine::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        updateGeometry();
    QWidget::changeEvent(event);
}

void StatusLine::setResult(const core::Scenario& scenario, const core::Result& result)
{
    const StatusSummary summary = summarize(scenario, result);
    m_text = summary.text;
    m_level = int(summary.level);
    setToolTip(m_text); // the whole text, should two lines not hold it
    update();
}

void StatusLine::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    // Okabe-Ito: bluish green good, orange warning, vermillion bad, reddish purple invalid.
    static const QColor colours[] = {QColor(0x00, 0x9E, 0x73), QColor(0xE6, 0x9F, 0x00), QColor(0xD5, 0x5E, 0x00),
                                     QColor(0xCC, 0x79, 0xA7)};
    p.fillRect(QRect(0, 1, kBar, height() - 2), colours[m_level]);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(rect().adjusted(kBar + kPad, 2, -kPad, -1), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, m_text);
}

} // namespace shardscope::ui
