// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Contrast between colours as WCAG 2.1 defines it (§1.4.3 and its "relative luminance" and "contrast ratio"
/// definitions): for text drawn on coloured cells and for checks that what is drawn can be seen.

#include <QColor>

namespace shardscope::ui {

/// WCAG 2.1 relative luminance of an sRGB colour: 0 (black) to 1 (white).
[[nodiscard]] double relativeLuminance(const QColor& c);
/// WCAG 2.1 contrast ratio, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter: 1 to 21.
[[nodiscard]] double contrastRatio(const QColor& a, const QColor& b);
/// Whichever of dark and light has the higher contrast on background.
[[nodiscard]] QColor readableOn(const QColor& background, const QColor& dark, const QColor& light);

} // namespace shardscope::ui
