// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRect>
#include <QSize>

class QWidget;

namespace shardscope::ui {

/// Where a window of preferred size goes on a screen whose available area is available: preferred shrunk to 94% of
/// the area where the area is smaller, but not below minimum, centred in it (its top-left corner never outside it).
[[nodiscard]] QRect fittedGeometry(const QRect& available, const QSize& preferred, const QSize& minimum = {});

/// Gives window (a top-level window or dialog about to be shown) fittedGeometry() on the screen of its parent, or
/// the primary screen: a 1400 x 950 window opens at 1203 x 696 on a 1280 x 800 screen (issue 23).
void fitToScreen(QWidget* window, const QSize& preferred);

} // namespace shardscope::ui
