// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/screen_fit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

#include <algorithm>

namespace shardscope::ui {

QRect fittedGeometry(const QRect& available, const QSize& preferred, const QSize& minimum)
{
    const QSize size
        = preferred.boundedTo(QSize(available.width() * 94 / 100, available.height() * 94 / 100)).expandedTo(minimum);
    QRect r(QPoint(0, 0), size);
    r.moveCenter(available.center());
    // Never off the top or left edge (a window larger than the screen keeps its title bar and menus on it).
    r.moveTopLeft(QPoint(std::max(r.left(), available.left()), std::max(r.top(), available.top())));
    return r;
}

void fitToScreen(QWidget* window, const QSize& preferred)
{
    const QWidget* anchor = window->parentWidget() ? window->parentWidget()->window() : window;
    const QScreen* screen = anchor->screen() ? anchor->screen() : QGuiApplication::primaryScreen();
    if (!screen) {
        window->resize(preferred);
        return;
    }
    window->setGeometry(fittedGeometry(screen->availableGeometry(), preferred, window->minimumSizeHint()));
}

} // namespace shardscope::ui
