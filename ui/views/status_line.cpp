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

QSize StatusLine::sizeHint() const { return { 800, fontMetrics().lineSpacing() * 2 + 6 }; }

void StatusLine::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        m_fittedWidth = -1;
        updateGeometry();
    }
    QWidget::changeEvent(event);
}

void StatusLine::setResult(const core::WhatIf& shown)
{
    const StatusSummary summary = summarize(shown);
    if (summary.text != m_text)
        m_fittedWidth = -1;
    m_text = summary.text;
    m_level = int(summary.level);
    setToolTip(m_text); // the whole text, should two lines not hold it
    update();
}

void StatusLine::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    // Okabe-Ito: bluish green good, orange warning, vermillion bad, reddish purple invalid.
    static const QColor colours[]
        = { QColor(0x00, 0x9E, 0x73), QColor(0xE6, 0x9F, 0x00), QColor(0xD5, 0x5E, 0x00), QColor(0xCC, 0x79, 0xA7) };
    p.fillRect(QRect(0, 1, kBar, height() - 2), colours[m_level]);
    p.setPen(palette().color(QPalette::WindowText));
    const QRect box = rect().adjusted(kBar + kPad, 2, -kPad, -1);
    const QStaticText& text = fitted(box);
    p.drawStaticText(QPointF(box.left(), box.top() + (box.height() - text.size().height()) / 2), text);
}

const QStaticText& StatusLine::fitted(const QRect& box)
{
    if (m_fittedWidth == box.width())
        return m_fitted;
    m_fittedWidth = box.width();
    // Two lines hold most summaries; a longer one loses whole words at its end and says so with "…" (the tooltip
    // has all of it), never a line cut through the middle.
    const int flags = Qt::AlignLeft | Qt::TextWordWrap;
    QString body = m_text, text = m_text;
    const QFontMetrics fm = fontMetrics();
    while (fm.boundingRect(QRect(0, 0, box.width(), 100000), flags, text).height() > box.height()) {
        const int cut = body.lastIndexOf(QLatin1Char(' '));
        if (cut <= 0)
            break;
        body.truncate(cut);
        text = body + QStringLiteral(" …");
    }
    m_fitted.setText(text);
    m_fitted.setTextFormat(Qt::PlainText);
    m_fitted.setTextWidth(box.width());
    m_fitted.prepare(QTransform(), font());
    return m_fitted;
}

} // namespace shardscope::ui
