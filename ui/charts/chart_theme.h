// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Chart colours. Data series use the Okabe–Ito palette (colour-blind safe, Okabe & Ito 2008); axes, text,
/// grid and background follow the widget palette, set by hand because QCustomPlot ignores QPalette.

#include <QColor>
#include <QPalette>

#include <string_view>

class QCustomPlot;

namespace shardscope::ui {

namespace okabe_ito {
inline const QColor black { 0, 0, 0 };
inline const QColor orange { 0xE6, 0x9F, 0x00 };
inline const QColor skyBlue { 0x56, 0xB4, 0xE9 };
inline const QColor bluishGreen { 0x00, 0x9E, 0x73 };
inline const QColor yellow { 0xF0, 0xE4, 0x42 };
inline const QColor blue { 0x00, 0x72, 0xB2 };
inline const QColor vermillion { 0xD5, 0x5E, 0x00 };
inline const QColor reddishPurple { 0xCC, 0x79, 0xA7 };
inline const QColor grey { 0x99, 0x99, 0x99 };
} // namespace okabe_ito

struct ChartTheme {
    QColor background;
    QColor foreground;
    QColor axis;
    QColor grid;
    QColor muted; ///< secondary text
    QColor highlight; ///< band behind the current strategy
    bool dark = false;

    static ChartTheme fromPalette(const QPalette& palette);
    /// Background, every axis of every axis rect, grid, legend and text elements of plot.
    void apply(QCustomPlot* plot) const;
};

/// The colour of a memory or step-time term in every chart, by core::Term::key ("memory.activations",
/// "step_time.pipeline_bubble"); grey for a key without its own colour.
QColor termColor(std::string_view key);

} // namespace shardscope::ui
