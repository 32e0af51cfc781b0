// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/legend_strip.h"
#include "export/chart_kind.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/what_if.h>

#include <QImage>
#include <QList>
#include <QSize>
#include <QString>

#include <functional>
#include <memory>

class QCPPainter;
class QRectF;

namespace shardscope::ui {

class ChartBase;

enum class FigureFormat { Png, Svg, Pdf };

/// From the file name's suffix (.png, .svg, .pdf, any case). False for anything else.
[[nodiscard]] bool figureFormatFromPath(const QString& path, FigureFormat& out);
[[nodiscard]] QString figureFormatSuffix(FigureFormat format);

struct FigureOptions {
    /// Logical pixels (1/96 inch): the PNG at scale 1, the SVG's user units, the PDF page (at 96 per inch).
    QSize size { 1000, 620 };
    /// PNG only: device pixels per logical pixel; the PNG says 96 × scale DPI, so it keeps its physical size.
    double scale = 1;
    /// White background and dark text whatever the app's theme (for documents and slides on white).
    bool lightTheme = true;
    /// Drawn under the chart (scenarioCaption()); empty: none.
    QString caption;
};

/// PNG exports (and copied images) are refused above this many device pixels, width × height × (dpi / 96)²:
/// 100 megapixels is 400 MB as 32-bit ARGB and renders in seconds. SVG and PDF are vectors; dpi does not apply.
constexpr qint64 kMaxFigurePixels = 100'000'000;

/// Device pixels of the image of options: size × scale on each side.
[[nodiscard]] QSize figurePixels(const FigureOptions& options);
/// "" when the image of options fits kMaxFigurePixels, otherwise why not, naming the limit.
[[nodiscard]] QString pixelBudgetError(const FigureOptions& options);

/// A chart prepared for export: its own chart widget (never shown; the window's charts are not touched), filled
/// with the scenario's figures, and the parts the window shows outside the plot (title, legend), which exports
/// draw into the image together with the caption. QCustomPlot draws the plot as vectors into SVG and PDF.
class ChartFigure
{
public:
    /// A scenario chart (isScenarioChart(kind)) made from the scenario's core::whatIf() with makeChart().
    ChartFigure(ChartKind kind, const core::WhatIf& shown, bool lightTheme = true);
    /// Any chart, already filled (a window chart's copy(), or export/analysis_figures.h); the figure owns it.
    ChartFigure(ChartKind kind, std::unique_ptr<ChartBase> chart, bool lightTheme = true);
    ~ChartFigure();
    ChartFigure(const ChartFigure&) = delete;
    ChartFigure& operator=(const ChartFigure&) = delete;

    [[nodiscard]] ChartKind kind() const { return m_kind; }
    [[nodiscard]] ChartBase* chart() const { return m_chart.get(); }
    [[nodiscard]] QString title() const;
    [[nodiscard]] const QList<LegendStrip::Entry>& legend() const { return m_legend; }

    /// Draws title, plot, legend and caption into rect (logical pixels) of an active painter.
    void paint(QCPPainter& painter, const QRectF& rect, const QString& caption) const;
    /// The figure as an image of figurePixels(options) (device pixel ratio = scale); null when the memory for it
    /// cannot be had (callers check pixelBudgetError first).
    [[nodiscard]] QImage toImage(const FigureOptions& options) const;
    /// Writes PNG, SVG or PDF atomically (util/atomic_file.h): the old file stays on any failure. Returns "" on
    /// success, otherwise the reason.
    [[nodiscard]] QString save(const QString& path, FigureFormat format, const FigureOptions& options) const;

private:
    ChartKind m_kind;
    std::unique_ptr<ChartBase> m_chart;
    QList<LegendStrip::Entry> m_legend;
};

/// Makes a filled chart (not shown) for an export: a window chart's copy(), or a chart made from the document.
using ChartMaker = std::function<std::unique_ptr<ChartBase>()>;

/// A new chart widget of kind showing the scenario's core::whatIf() (not shown; the caller owns it). kind is a
/// scenario chart (isScenarioChart): the analyses' charts come from their panes or export/analysis_figures.h.
[[nodiscard]] std::unique_ptr<ChartBase> makeChart(
    ChartKind kind, const core::WhatIf& shown, QWidget* parent = nullptr);

} // namespace shardscope::ui
