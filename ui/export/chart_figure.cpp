// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/chart_figure.h"

#include "analysis/sweep_chart.h"
#include "analysis/timeline_chart.h"
#include "session/app_theme.h"
#include "charts/chart_base.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/qcp.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "util/atomic_file.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFileInfo>
#include <QImageWriter>
#include <QPdfWriter>
#include <QResizeEvent>
#include <QSvgGenerator>

#include <cmath>

namespace shardscope::ui {

namespace {
constexpr double kMargin = 12;
constexpr double kSwatch = 12;
constexpr double kSwatchGap = 5;
constexpr double kEntryGap = 18;
constexpr double kDotsPerMeterAt96Dpi = 96 / 0.0254;

QFont scaled(const QFont& base, double factor, bool bold = false)
{
    QFont f = base;
    if (f.pointSizeF() > 0)
        f.setPointSizeF(f.pointSizeF() * factor);
    else
        f.setPixelSize(std::max(1, int(std::lround(f.pixelSize() * factor))));
    f.setBold(bold);
    return f;
}

/// Legend entries laid out in centred rows that fit width: the index of the first entry of each row.
QList<int> legendRows(
    const QList<LegendStrip::Entry>& entries, const QFontMetricsF& fm, double width, QList<double>* rowWidths)
{
    QList<int> starts;
    double x = 0;
    for (int i = 0; i < entries.size(); ++i) {
        const double w = kSwatch + kSwatchGap + fm.horizontalAdvance(entries[i].text);
        if (starts.isEmpty() || (x > 0 && x + kEntryGap + w > width)) {
            if (!starts.isEmpty())
                rowWidths->push_back(x);
            starts.push_back(i);
            x = w;
        } else {
            x += kEntryGap + w;
        }
    }
    if (!starts.isEmpty())
        rowWidths->push_back(x);
    return starts;
}

void drawSwatch(QPainter& p, const LegendStrip::Entry& e, const QRectF& r, const QColor& text)
{
    switch (e.swatch) {
    case LegendStrip::Swatch::Box:
        p.fillRect(r, e.color);
        p.setPen(QPen(e.color.darker(130), 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r);
        break;
    case LegendStrip::Swatch::Hatched:
        p.fillRect(r, QBrush(e.color, Qt::BDiagPattern));
        p.setPen(QPen(e.color, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r);
        break;
    case LegendStrip::Swatch::DashedLine:
        p.setPen(QPen(e.color.isValid() ? e.color : text, 2, Qt::DashLine));
        p.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()));
        break;
    }
}

/// QSvgGenerator (Qt 6.4) writes no clip paths, so whatever QCustomPlot clips to the axis rect (bars taller than
/// the range, the hatched excess boxes) would spill over the title in an SVG. Clamp those to the axis ranges
/// instead: the same picture where clipping works. Only for the figure's own chart, which nothing else shows.
void clampToAxisRanges(QCustomPlot* plot)
{
    auto valueAt = [](QCPBars* bars, double key, bool positive) {
        double v = 0;
        const auto it = bars->data()->findBegin(key, false);
        if (it != bars->data()->constEnd() && qFuzzyCompare(it->key + 1, key + 1) && (it->value >= 0) == positive)
            v = it->value;
        return v;
    };
    for (int i = 0; i < plot->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(plot->plottable(i));
        if (!bars || bars->barBelow())
            continue;
        // Bottom of a stack: clamp it and every bar above, bottom-up, so each base is the clamped one below.
        for (QCPBars* b = bars; b; b = b->barAbove()) {
            const QCPRange range = b->valueAxis()->range();
            for (auto it = b->data()->begin(); it != b->data()->end(); ++it) {
                double base = 0;
                for (QCPBars* below = b->barBelow(); below; below = below->barBelow())
                    base += valueAt(below, it->key, it->value >= 0);
                const double top = std::clamp(base + it->value, range.lower, range.upper);
                const double bottom = std::clamp(base, range.lower, range.upper);
                it->value = top - bottom;
            }
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* rect = qobject_cast<QCPItemRect*>(plot->item(i));
        if (!rect || !rect->clipToAxisRect())
            continue;
        for (QCPItemPosition* p : { rect->topLeft, rect->bottomRight }) {
            if (p->typeX() != QCPItemPosition::ptPlotCoords || p->typeY() != QCPItemPosition::ptPlotCoords
                || !p->keyAxis() || !p->valueAxis())
                continue;
            const QCPRange k = p->keyAxis()->range();
            const QCPRange v = p->valueAxis()->range();
            p->setCoords(std::clamp(p->key(), k.lower, k.upper), std::clamp(p->value(), v.lower, v.upper));
        }
    }
}

void initPdf(QPdfWriter& pdf, const QString& title)
{
    pdf.setCreator(QStringLiteral("ShardScope %1").arg(QCoreApplication::applicationVersion()).trimmed());
    pdf.setTitle(title);
    pdf.setResolution(96); // painter units are logical pixels; fonts in points keep their size
}
} // namespace

QSize figurePixels(const FigureOptions& options)
{
    return { int(std::lround(options.size.width() * options.scale)),
        int(std::lround(options.size.height() * options.scale)) };
}

QString pixelBudgetError(const FigureOptions& options)
{
    const double pixels = double(options.size.width()) * options.size.height() * options.scale * options.scale;
    if (pixels <= double(kMaxFigurePixels))
        return {};
    return QCoreApplication::translate("ChartFigure",
        "an image of %1 × %2 pixels (%3 megapixels) is over the limit of %4 megapixels "
        "(%5 MB of image memory); make the size or the DPI smaller")
        .arg(std::lround(options.size.width() * options.scale))
        .arg(std::lround(options.size.height() * options.scale))
        .arg(std::lround(pixels / 1e6))
        .arg(kMaxFigurePixels / 1'000'000)
        .arg(kMaxFigurePixels * 4 / 1'000'000);
}

bool figureFormatFromPath(const QString& path, FigureFormat& out)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        out = FigureFormat::Png;
    else if (suffix == QLatin1String("svg"))
        out = FigureFormat::Svg;
    else if (suffix == QLatin1String("pdf"))
        out = FigureFormat::Pdf;
    else
        return false;
    return true;
}

QString figureFormatSuffix(FigureFormat format)
{
    switch (format) {
    case FigureFormat::Png: return QStringLiteral("png");
    case FigureFormat::Svg: return QStringLiteral("svg");
    case FigureFormat::Pdf: return QStringLiteral("pdf");
    }
    return {};
}

std::unique_ptr<ChartBase> makeChart(ChartKind kind, const core::WhatIf& shown, QWidget* parent)
{
    const core::Scenario& scenario = shown.scenario;
    const core::Result& result = shown.result;
    switch (kind) {
    case ChartKind::Memory: {
        auto c = std::make_unique<MemoryChart>(parent);
        c->setResult(scenario, result);
        return c;
    }
    case ChartKind::Strategy: {
        auto c = std::make_unique<StrategyChart>(parent);
        c->setComparison(shown.strategies);
        return c;
    }
    case ChartKind::Communication: {
        auto c = std::make_unique<CommChart>(parent);
        c->setResult(scenario, result);
        return c;
    }
    case ChartKind::Time: {
        auto c = std::make_unique<StepTimeChart>(parent);
        c->setResult(result, shown.strategies);
        return c;
    }
    case ChartKind::Timeline: {
        auto c = std::make_unique<TimelineChart>(parent); // the analysis tab's timeline (issue 4)
        c->setResult(scenario, result);
        return c;
    }
    case ChartKind::Search:
    case ChartKind::Sweep:
    case ChartKind::Sizing:
    case ChartKind::RankMap:
    case ChartKind::Compare:
    case ChartKind::Waterfall: break; // not drawn from a scenario alone (see the declaration)
    }
    Q_ASSERT_X(false, "makeChart", "not a scenario chart");
    return nullptr;
}

ChartFigure::ChartFigure(ChartKind kind, const core::WhatIf& shown, bool lightTheme)
    : ChartFigure(kind, makeChart(kind, shown), lightTheme)
{ }

ChartFigure::ChartFigure(ChartKind kind, std::unique_ptr<ChartBase> chart, bool lightTheme)
    : m_kind(kind)
    , m_chart(std::move(chart))
{
    Q_ASSERT(m_chart);
    if (lightTheme)
        m_chart->setPalette(AppTheme::lightPalette()); // PaletteChange: the chart re-applies its theme
    if (m_chart->legend()) {
        m_legend = m_chart->legend()->entries();
    } else if (kind == ChartKind::Strategy) {
        // The strategy chart shares the memory chart's colours and shows no legend of its own.
        const MemoryChart memory;
        m_legend = memory.legend()->entries();
    } else if (kind == ChartKind::Sweep) {
        m_legend = SweepChart::legendEntries(); // the sweep pane shows one legend for its four charts
    }
}

ChartFigure::~ChartFigure() = default;

QString ChartFigure::title() const { return m_chart->title(); }

void ChartFigure::paint(QCPPainter& painter, const QRectF& rect, const QString& caption) const
{
    const ChartTheme theme = ChartTheme::fromPalette(m_chart->palette());
    const QFont base = m_chart->font();
    const QFont titleFont = scaled(base, 1.3, true);
    const QFont legendFont = scaled(base, 0.9);
    const QFont captionFont = scaled(base, 0.85);
    QPaintDevice* device = painter.device();
    const QFontMetricsF titleMetrics(titleFont, device);
    const QFontMetricsF legendMetrics(legendFont, device);
    const QFontMetricsF captionMetrics(captionFont, device);

    painter.save();
    painter.fillRect(rect, theme.background);
    const QRectF inner = rect.adjusted(kMargin, kMargin * 0.75, -kMargin, -kMargin * 0.75);

    // Title
    const QRectF titleRect(inner.left(), inner.top(), inner.width(), titleMetrics.height() + 6);
    painter.setFont(titleFont);
    painter.setPen(theme.foreground);
    painter.drawText(titleRect, Qt::AlignHCenter | Qt::AlignTop, title());

    // Caption (bottom), then legend above it
    double bottom = inner.bottom();
    if (!caption.isEmpty()) {
        const QRectF bounds
            = captionMetrics.boundingRect(QRectF(0, 0, inner.width(), 1e6), Qt::TextWordWrap | Qt::AlignLeft, caption);
        const QRectF captionRect(inner.left(), bottom - bounds.height(), inner.width(), bounds.height());
        painter.setFont(captionFont);
        painter.setPen(theme.muted);
        painter.drawText(captionRect, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, caption);
        // A rule between chart and caption
        painter.setPen(QPen(theme.grid, 1));
        bottom = captionRect.top() - 6;
        painter.drawLine(QPointF(inner.left(), bottom), QPointF(inner.right(), bottom));
        bottom -= 6;
    }
    if (!m_legend.isEmpty()) {
        QList<double> widths;
        const QList<int> starts = legendRows(m_legend, legendMetrics, inner.width(), &widths);
        const double line = legendMetrics.height() + 4;
        const double top = bottom - starts.size() * line;
        painter.setFont(legendFont);
        for (int row = 0; row < starts.size(); ++row) {
            const int end = row + 1 < starts.size() ? starts[row + 1] : int(m_legend.size());
            double x = inner.left() + (inner.width() - widths[row]) / 2;
            const double y = top + row * line;
            for (int i = starts[row]; i < end; ++i) {
                const LegendStrip::Entry& e = m_legend[i];
                const QRectF swatch(x, y + (line - kSwatch + 2) / 2, kSwatch, kSwatch - 2);
                drawSwatch(painter, e, swatch, theme.foreground);
                painter.setPen(theme.foreground);
                const double tw = legendMetrics.horizontalAdvance(e.text);
                painter.drawText(
                    QRectF(x + kSwatch + kSwatchGap, y, tw + 2, line), Qt::AlignLeft | Qt::AlignVCenter, e.text);
                x += kSwatch + kSwatchGap + tw + kEntryGap;
            }
        }
        bottom = top - 2;
    }

    // The plot, as QCustomPlot draws it (vectors on SVG/PDF painters)
    const QRectF plotRect(inner.left(), titleRect.bottom(), inner.width(), std::max(40.0, bottom - titleRect.bottom()));
    const QSize plotSize(int(std::floor(plotRect.width())), int(std::floor(plotRect.height())));
    QCustomPlot* plot = m_chart->plot();
    if (plot->size() != plotSize) {
        // The charts adapt tick density to their width when the plot is resized (ChartBase's event filter); the widget
        // is never shown, so hand the filter the event. Not to QCustomPlot itself: its resize handler replots into
        // screen buffers of the whole size (4 bytes a pixel per layer, 1.6 GB at 20000 × 20000), which a figure drawn
        // straight into the painter never uses.
        const QSize old = plot->size();
        plot->resize(plotSize);
        QResizeEvent resize(plotSize, old);
        static_cast<QObject*>(m_chart.get())->eventFilter(plot, &resize);
    }
    painter.translate(plotRect.topLeft());
    painter.setClipRect(QRectF(QPointF(0, 0), QSizeF(plotSize)));
    plot->toPainter(&painter, plotSize.width(), plotSize.height());
    painter.restore();
}

QImage ChartFigure::toImage(const FigureOptions& options) const
{
    const double scale = options.scale;
    QImage image(figurePixels(options), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return image;
    // Fonts in points are laid out at 96 DPI in logical pixels; the device pixel ratio scales everything.
    image.setDotsPerMeterX(int(std::lround(kDotsPerMeterAt96Dpi)));
    image.setDotsPerMeterY(int(std::lround(kDotsPerMeterAt96Dpi)));
    image.setDevicePixelRatio(scale);
    image.fill(ChartTheme::fromPalette(m_chart->palette()).background);
    {
        QCPPainter painter(&image);
        painter.setMode(QCPPainter::pmNoCaching);
        if (scale > 1)
            painter.setMode(QCPPainter::pmNonCosmetic); // lines keep their logical width
        painter.setRenderHint(QPainter::TextAntialiasing);
        paint(painter, QRectF(QPointF(0, 0), QSizeF(options.size)), options.caption);
    }
    // The PNG's pHYs chunk: 96 × scale DPI, the same physical size as at scale 1.
    image.setDotsPerMeterX(int(std::lround(kDotsPerMeterAt96Dpi * scale)));
    image.setDotsPerMeterY(int(std::lround(kDotsPerMeterAt96Dpi * scale)));
    return image;
}

QString ChartFigure::save(const QString& path, FigureFormat format, const FigureOptions& options) const
{
    const QSize size = options.size;
    if (size.width() < 100 || size.height() < 80 || size.width() > 20000 || size.height() > 20000)
        return QCoreApplication::translate("ChartFigure", "size %1 × %2 is outside 100 × 80 … 20000 × 20000")
            .arg(size.width())
            .arg(size.height());
    // Rendered into memory first, then written in one atomic step.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    switch (format) {
    case FigureFormat::Png: {
        if (const QString budget = pixelBudgetError(options); !budget.isEmpty())
            return budget;
        const QImage image = toImage(options);
        if (image.isNull())
            return QCoreApplication::translate("ChartFigure", "not enough memory for an image of %1 × %2 pixels")
                .arg(figurePixels(options).width())
                .arg(figurePixels(options).height());
        QImageWriter writer(&buffer, "png");
        if (!writer.write(image))
            return writer.errorString();
        break;
    }
    case FigureFormat::Svg: {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(96); // the default 72 would shrink text by a quarter (Qt's SVG generator)
        svg.setTitle(title());
        svg.setDescription(options.caption);
        clampToAxisRanges(m_chart->plot());
        QCPPainter painter;
        if (!painter.begin(&svg))
            return QCoreApplication::translate("ChartFigure", "cannot draw the SVG image");
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(painter, QRectF(QPointF(0, 0), QSizeF(size)), options.caption);
        painter.end();
        break;
    }
    case FigureFormat::Pdf: {
        QPdfWriter pdf(&buffer);
        initPdf(pdf, title());
        // Page = the figure at 96 logical pixels per inch (size × 0.75 points), no margins.
        pdf.setPageLayout(
            QPageLayout(QPageSize(QSizeF(size) * 0.75, QPageSize::Point, QString(), QPageSize::ExactMatch),
                QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QCPPainter painter;
        if (!painter.begin(&pdf))
            return QCoreApplication::translate("ChartFigure", "cannot draw the PDF page");
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setMode(QCPPainter::pmNonCosmetic);
        const QRect page = painter.viewport();
        paint(painter, QRectF(QPointF(0, 0), QSizeF(page.size())), options.caption);
        painter.end();
        break;
    }
    }
    buffer.close();
    return writeBytes(path, bytes);
}

} // namespace shardscope::ui
