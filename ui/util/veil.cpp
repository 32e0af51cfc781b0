// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/veil.h"

#include <QEvent>
#include <QPaintEvent>
#include <QPainter>

namespace shardscope::ui {

namespace {
/// How much of the window colour lies over the figures: they show at 35 % of their contrast.
constexpr double kVeilAlpha = 0.65;
} // namespace

Veil::Veil(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setFocusPolicy(Qt::NoFocus);
    setObjectName(QStringLiteral("veil"));
    hide();
    parent->installEventFilter(this);
}

void Veil::cover(bool on)
{
    if (on) {
        setGeometry(parentWidget()->rect());
        raise();
    }
    setVisible(on);
}

bool Veil::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize)
        setGeometry(parentWidget()->rect());
    else if (watched == parentWidget() && event->type() == QEvent::ChildAdded && isVisible())
        raise(); // stays above a child added while covering
    return QWidget::eventFilter(watched, event);
}

void Veil::paintEvent(QPaintEvent* event)
{
    QColor veil = palette().color(QPalette::Window);
    veil.setAlphaF(kVeilAlpha);
    QPainter painter(this);
    painter.fillRect(event->rect(), veil);
}

} // namespace shardscope::ui
