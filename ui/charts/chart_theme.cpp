// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/chart_theme.h"

#include "charts/qcp.h"

namespace shardscope::ui {

namespace {
QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
        float(a.greenF() + (b.greenF() - a.greenF()) * t), float(a.blueF() + (b.blueF() - a.blueF()) * t));
}
} // namespace

ChartTheme ChartTheme::fromPalette(const QPalette& palette)
{
    ChartTheme t;
    t.background = palette.color(QPalette::Base);
    t.foreground = palette.color(QPalette::Text);
    t.dark = t.background.lightnessF() < 0.5;
    t.axis = mix(t.background, t.foreground, 0.65);
    t.grid = mix(t.background, t.foreground, t.dark ? 0.22 : 0.13);
    t.muted = mix(t.background, t.foreground, 0.7);
    t.highlight = mix(t.background, palette.color(QPalette::Highlight), t.dark ? 0.3 : 0.15);
    return t;
}

void ChartTheme::apply(QCustomPlot* plot) const
{
    plot->setBackground(background);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(Qt::NoBrush); // the plot background shows through: one fill less per replot
        for (QCPAxis* ax : rect->axes()) {
            ax->setBasePen(QPen(axis, 1));
            ax->setTickPen(QPen(axis, 1));
            ax->setSubTickPen(QPen(axis, 1));
            ax->setTickLabelColor(foreground);
            ax->setLabelColor(foreground);
            ax->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
            ax->grid()->setSubGridVisible(false);
            ax->grid()->setZeroLinePen(Qt::NoPen);
        }
    }
    if (plot->legend) {
        plot->legend->setBrush(background);
        plot->legend->setBorderPen(Qt::NoPen);
        plot->legend->setTextColor(foreground);
    }
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
        if (auto* text = qobject_cast<QCPTextElement*>(element))
            text->setTextColor(foreground);
}

QColor termColor(std::string_view key)
{
    using namespace okabe_ito;
    static const std::pair<std::string_view, const QColor*> colours[] = {
        { "memory.parameters", &blue },
        { "memory.gradients", &skyBlue },
        { "memory.optimizer_states", &bluishGreen },
        { "memory.activations", &orange },
        { "memory.gathered_parameters", &reddishPurple },
        { "memory.communication_buffers", &yellow },
        { "memory.framework_overhead", &grey },
        { "step_time.compute", &blue },
        { "step_time.recompute", &skyBlue },
        { "step_time.exposed_communication", &vermillion },
        { "step_time.pipeline_bubble", &yellow },
        { "step_time.offload", &reddishPurple },
        { "step_time.optimizer", &bluishGreen },
    };
    for (const auto& [k, colour] : colours)
        if (k == key)
            return *colour;
    return grey;
}

} // namespace shardscope::ui
