// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/contrast.h"

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

double relativeLuminance(const QColor& c)
{
    // sRGB to linear (WCAG 2.1, "relative luminance"), then the Rec. 709 weights.
    const auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

double contrastRatio(const QColor& a, const QColor& b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor& background, const QColor& dark, const QColor& light)
{
    return contrastRatio(background, dark) >= contrastRatio(background, light) ? dark : light;
}

} // namespace shardscope::ui
