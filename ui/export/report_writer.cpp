// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/report_writer.h"

#include "charts/chart_base.h"
#include "charts/qcp.h"
#include "explain/field_names.h"
#include "explain/status_summary.h"
#include "explain/tooltips.h"
#include "export/chart_figure.h"
#include "editors/scenario_text.h"
#include "util/atomic_file.h"
#include "util/units.h"
#include "explain/uncertainty_text.h"

#include <shardscope/core/scenario_name.h>

#include <QApplication>
#include <QBuffer>
#include <QPdfWriter>

#include <memory>

namespace shardscope::ui {

namespace {
constexpr double kMargin = 48; // logical pixels at 96 per inch: half an inch

QString tr(const char* text) { return QCoreApplication::translate("ReportWriter", text); }

QFont font(double points, bool bold = false)
{
    QFont f = QApplication::font();
    f.setPointSizeF(points);
    f.setBold(bold);
    return f;
}

/// The painter on the PDF and a cursor that moves down the page; tables start new pages when they run out.
class Pages
{
public:
    Pages(QPdfWriter& pdf, QCPPainter& painter, int& count)
        : m_pdf(pdf)
        , m_painter(painter)
        , m_count(count)
    {
        m_count = 1;
        reset();
    }
    void newPage(QPageLayout::Orientation orientation)
    {
        m_pdf.setPageOrientation(orientation);
        m_pdf.newPage();
        ++m_count;
        reset();
    }
    [[nodiscard]] QRectF area() const { return m_area; }
    [[nodiscard]] double y() const { return m_y; }
    void advance(double dy) { m_y += dy; }
    [[nodiscard]] double left() const { return m_area.bottom() - m_y; }
    QCPPainter& p() { return m_painter; }

    void text(const QString& t, const QFont& f, const QColor& colour = Qt::black, double gapAfter = 6)
    {
        m_painter.setFont(f);
        m_painter.setPen(colour);
        const QRectF bounds
            = m_painter.boundingRect(QRectF(m_area.left(), m_y, m_area.width(), 1e5), Qt::TextWordWrap, t);
        m_painter.drawText(QRectF(m_area.left(), m_y, m_area.width(), bounds.height()), Qt::TextWordWrap, t);
        m_y += bounds.height() + gapAfter;
    }

    /// Height of text in font f wrapped to the page's width (what text() advances, without the gap).
    [[nodiscard]] double textHeight(const QString& t, const QFont& f) const
    {
        return QFontMetricsF(f, m_painter.device())
            .boundingRect(QRectF(0, 0, m_area.width(), 1e5), Qt::TextWordWrap, t)
            .height();
    }
    /// Height of table() with these cells, without page breaks.
    [[nodiscard]] double tableHeight(
        const QStringList& header, const QList<QStringList>& rows, const QList<double>& widths, double width = -1) const
    {
        const double span = width < 0 ? m_area.width() : width;
        double h = rowHeight(header, true, widths, span) + 10;
        for (const QStringList& r : rows)
            h += rowHeight(r, false, widths, span);
        return h;
    }
    /// Starts a new page when height does not fit in what is left of this one but fits on a page of its own: a
    /// heading and its table stay together.
    void keepTogether(double height, QPageLayout::Orientation orientation)
    {
        if (height > left() && height <= m_area.height() && m_y > m_area.top())
            newPage(orientation);
    }

    /// A table in the horizontal span [x, x + width) of the page (default: the whole width): header row, then rows;
    /// a row whose cells after the first are all empty is a group heading. right: columns aligned right. A cell
    /// too long for its column wraps onto more lines (the row grows); nothing is cut off.
    /// Returns the y after the table.
    double table(const QStringList& header, const QList<QStringList>& rows, const QList<double>& widths,
        QPageLayout::Orientation orientation, const QString& continued, const QList<int>& right = {}, double x0 = -1,
        double width = -1)
    {
        const double left0 = x0 < 0 ? m_area.left() : x0;
        const double span = width < 0 ? m_area.width() : width;
        const QFont body = font(8.5);
        const QFont bold = font(8.5, true);
        auto cellWidth = [&](const QStringList& cells, int c, bool isHeader) {
            return !isHeader && isHeading(cells) ? span : widths[c] * span;
        };
        auto drawRow = [&](const QStringList& cells, bool isHeader, bool shade) {
            const bool heading = !isHeader && isHeading(cells);
            const double h = rowHeight(cells, isHeader, widths, span);
            if (shade || isHeader)
                m_painter.fillRect(
                    QRectF(left0, m_y, span, h), isHeader ? QColor(0xe4, 0xe8, 0xee) : QColor(0xf4, 0xf5, 0xf7));
            double x = left0;
            m_painter.setPen(Qt::black);
            for (int c = 0; c < cells.size() && c < widths.size(); ++c) {
                const double w = cellWidth(cells, c, isHeader);
                m_painter.setFont(isHeader || heading ? bold : body);
                const Qt::Alignment align = right.contains(c) && !heading ? Qt::AlignRight : Qt::AlignLeft;
                m_painter.drawText(QRectF(x + 4, m_y, w - 8, h), align | Qt::AlignVCenter | Qt::TextWordWrap, cells[c]);
                x += w;
                if (heading)
                    break;
            }
            m_y += h;
        };
        drawRow(header, true, false);
        for (int i = 0; i < rows.size(); ++i) {
            if (left() < rowHeight(rows[i], false, widths, span)) {
                newPage(orientation);
                text(continued, font(11, true), Qt::black, 8);
                drawRow(header, true, false);
            }
            drawRow(rows[i], false, i % 2 == 1);
        }
        m_painter.setPen(QPen(QColor(0xb0, 0xb4, 0xba), 0.8));
        m_painter.drawLine(QPointF(left0, m_y), QPointF(left0 + span, m_y));
        m_y += 10;
        return m_y;
    }
    void setY(double y) { m_y = y; }

private:
    static bool isHeading(const QStringList& cells)
    {
        return cells.size() > 1
            && std::all_of(cells.begin() + 1, cells.end(), [](const QString& c) { return c.isEmpty(); });
    }
    /// Height of a row: one line, or as many as its longest wrapped cell needs.
    [[nodiscard]] double rowHeight(
        const QStringList& cells, bool isHeader, const QList<double>& widths, double span) const
    {
        const QFont body = font(8.5);
        const QFont bold = font(8.5, true);
        double h = QFontMetricsF(body, m_painter.device()).height() + 5;
        const bool heading = !isHeader && isHeading(cells);
        const QFontMetricsF fm(isHeader || heading ? bold : body, m_painter.device());
        for (int c = 0; c < cells.size() && c < widths.size(); ++c) {
            const double w = (heading ? span : widths[c] * span) - 8;
            h = std::max(h, fm.boundingRect(QRectF(0, 0, w, 1e5), Qt::TextWordWrap, cells[c]).height() + 5);
        }
        return h;
    }

    void reset()
    {
        // After an orientation change the painter still has the first page's viewport: reset it to this page.
        const QRect page(0, 0, m_pdf.width(), m_pdf.height());
        m_painter.setViewport(page);
        m_painter.setWindow(page);
        m_painter.setClipping(false);
        m_area = QRectF(page).adjusted(kMargin, kMargin, -kMargin, -kMargin);
        m_y = m_area.top();
        // Footer: page number
        m_painter.setFont(font(8));
        m_painter.setPen(QColor(0x70, 0x70, 0x70));
        m_painter.drawText(QRectF(m_area.left(), m_area.bottom() + 8, m_area.width(), kMargin - 16),
            Qt::AlignRight | Qt::AlignTop, tr("ShardScope report · page %1").arg(m_count));
    }

    QPdfWriter& m_pdf;
    QCPPainter& m_painter;
    int& m_count;
    QRectF m_area;
    double m_y = 0;
};

QString collectiveName(const core::Collective& c) { return collectiveLabel(c); }
} // namespace

QString ReportWriter::write(const QString& path, const core::WhatIf& shown, const Options& options)
{
    const core::Scenario& scenario = shown.scenario;
    const core::Result& result = shown.result;
    m_pages = 0;
    // Drawn into memory, then written in one atomic step: a failed write keeps the previous report.
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter pdf(&buffer);
    const QString name = QString::fromStdString(core::scenarioTitle(scenario));
    pdf.setCreator(QStringLiteral("ShardScope %1").arg(QCoreApplication::applicationVersion()).trimmed());
    pdf.setTitle(tr("ShardScope report: %1").arg(name));
    pdf.setResolution(96);
    pdf.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    QCPPainter painter;
    if (!painter.begin(&pdf))
        return tr("cannot draw the PDF report");
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    int pages = 0;
    Pages doc(pdf, painter, pages);

    // Title page
    doc.text(tr("ShardScope report"), font(10, true), QColor(0x50, 0x50, 0x50), 2);
    doc.text(name, font(20, true), Qt::black, 4);
    doc.text(
        tr("%1 · %2 · %3")
            .arg(settingText(scenario, QStringLiteral("model")), clusterText(scenario), strategyText(scenario, result)),
        font(10), QColor(0x30, 0x30, 0x30), 2);
    doc.text(tr("Analytic model, ShardScope %1, %2")
                 .arg(QCoreApplication::applicationVersion(), options.date.toString(Qt::ISODate)),
        font(9), QColor(0x60, 0x60, 0x60), 14);
    const StatusSummary status = summarize(shown);
    const QColor statusColour = status.level == StatusSummary::Level::Good ? QColor(0x00, 0x7a, 0x55)
        : status.level == StatusSummary::Level::Warning                    ? QColor(0x9a, 0x60, 0x00)
                                                                           : QColor(0xb0, 0x30, 0x00);
    doc.text(status.text, font(10.5, true), statusColour, 12);

    if (!result.valid) {
        QList<QStringList> rows;
        for (const core::Issue& i : result.issues)
            rows.push_back({ QString::fromStdString(i.field), QString::fromStdString(i.message) });
        doc.text(tr("Issues"), font(12, true), Qt::black, 4);
        doc.table({ tr("Field"), tr("Problem") }, rows, { 0.3, 0.7 }, QPageLayout::Portrait, tr("Issues (continued)"));
    } else {
        doc.text(tr("Headline figures"), font(12, true), Qt::black, 4);
        QList<QStringList> rows;
        for (const Headline& h : headlines(result)) {
            rows.push_back({ h.label, h.text });
            // The 80% ranges, as the KPI cards give them (explain/uncertainty_text.h).
            if (h.key == QLatin1String("memory"))
                rows.push_back({ tr("Memory per GPU, 80% range"), memoryRangeSentence(result) });
            else if (h.key == QLatin1String("step_time"))
                rows.push_back({ tr("Step time, 80% range"), stepRangeSentence(result) });
            else if (h.key == QLatin1String("tokens_per_second"))
                rows.push_back({ tr("Tokens per second per GPU, 80% range"),
                    tr("%1 – %2 %3")
                        .arg(Units::tokensPerSecond(result.tokensPerGpuRange.lo),
                            Units::tokensPerSecond(result.tokensPerGpuRange.hi),
                            rangeNote(result.throughput.tokensPerSecondPerGpu, result.tokensPerGpuRange,
                                result.uncertainty, result.uncertainty.throughputRuns)) });
        }
        rows.push_back({ tr("Layout"),
            tr("%1 GPUs: DP %2 × TP %3 × PP %4 × CP %5, %6 micro-batches per step")
                .arg(result.gpus)
                .arg(result.dp)
                .arg(result.tp)
                .arg(result.pp)
                .arg(result.cp)
                .arg(result.microBatches) });
        doc.table({ tr("Figure"), tr("Value") }, rows, { 0.35, 0.65 }, QPageLayout::Portrait,
            tr("Headline figures (continued)"));
    }
    if (!result.warnings.empty()) {
        doc.text(tr("Warnings"), font(12, true), Qt::black, 4);
        for (const core::Issue& w : result.warnings)
            doc.text(
                QStringLiteral("• %1").arg(QString::fromStdString(w.message)), font(9), QColor(0x9a, 0x60, 0x00), 2);
        doc.advance(8);
    }
    // Two columns: model, cluster and training on the left; parallelism, offload and NCCL on the right.
    QList<QStringList> leftRows;
    QList<QStringList> rightRows;
    bool rightColumn = false;
    for (const LabelledValue& row : settingsRows(scenario)) {
        if (row.value.isEmpty() && row.label == fieldLabel(QStringLiteral("parallelism")))
            rightColumn = true;
        (rightColumn ? rightRows : leftRows).push_back({ row.label, row.value });
    }
    const double half = (doc.area().width() - 16) / 2;
    // Both columns on one page: a column that ran onto the next page would leave the other at the first's top.
    doc.keepTogether(doc.textHeight(tr("Settings"), font(12, true)) + 4
            + std::max(doc.tableHeight({ tr("Setting"), tr("Value") }, leftRows, { 0.36, 0.64 }, half),
                doc.tableHeight({ tr("Setting"), tr("Value") }, rightRows, { 0.42, 0.58 }, half)),
        QPageLayout::Portrait);
    doc.text(tr("Settings"), font(12, true), Qt::black, 4);
    const double top = doc.y();
    const double end1 = doc.table({ tr("Setting"), tr("Value") }, leftRows, { 0.36, 0.64 }, QPageLayout::Portrait,
        tr("Settings (continued)"), {}, doc.area().left(), half);
    doc.setY(top);
    const double end2 = doc.table({ tr("Setting"), tr("Value") }, rightRows, { 0.42, 0.58 }, QPageLayout::Portrait,
        tr("Settings (continued)"), {}, doc.area().left() + half + 16, half);
    doc.setY(std::max(end1, end2));

    // The memory and step-time terms of the most loaded GPU, in the core's order
    if (result.valid) {
        doc.newPage(QPageLayout::Portrait);
        doc.text(tr("Memory and step time by term"), font(14, true), Qt::black, 4);
        doc.text(tr("The figures of the most loaded GPU as the model's named terms; each group adds up to its total. "
                    "shardscope-cli evaluate FILE --explain prints every term's formula, the formula with the numbers "
                    "substituted and its inputs; docs/model.md derives each."),
            font(9), QColor(0x40, 0x40, 0x40), 8);
        const struct {
            core::TermGroup group;
            QString title;
            const char* unit;
        } groups[] = { { core::TermGroup::Memory, tr("Memory per GPU"), "B" },
            { core::TermGroup::StepTime, tr("Step time"), "s" } };
        for (const auto& g : groups) {
            const std::vector<TermFigure> figures = termFigures(result, g.group);
            double total = 0;
            for (const TermFigure& f : figures)
                total += f.value;
            QList<QStringList> rows;
            for (const TermFigure& f : figures) {
                const core::TermKey* k = core::findTermKey(f.key.toStdString());
                const QString anchor = f.term ? QString::fromStdString(f.term->anchor)
                    : k                       ? QString::fromUtf8(k->anchor.data(), qsizetype(k->anchor.size()))
                                              : QString();
                rows.push_back(
                    { f.label, figureText(f.value, g.unit), Units::percent(total > 0 ? f.value / total : 0, 0),
                        f.term ? QString::fromStdString(f.term->source) : QString(),
                        anchor.isEmpty() ? QString() : QStringLiteral("§%1").arg(modelSectionTitle(anchor)) });
            }
            rows.push_back(
                { tr("Total"), figureText(total, g.unit), Units::percent(total > 0 ? 1 : 0, 0), QString(), QString() });
            const QStringList header { tr("Term"), tr("Value"), tr("Share"), tr("Source"), tr("docs/model.md") };
            const QList<double> widths { 0.25, 0.1, 0.07, 0.33, 0.25 };
            doc.keepTogether(doc.textHeight(g.title, font(12, true)) + 4 + doc.tableHeight(header, rows, widths),
                QPageLayout::Portrait);
            doc.text(g.title, font(12, true), Qt::black, 4);
            doc.table(header, rows, widths, QPageLayout::Portrait, tr("%1 (continued)").arg(g.title), { 1, 2 });
        }
    }

    // The pinned scenarios' headline figures, this scenario first
    if (!options.pins.empty() && options.pins.size() == options.pinResults.size()) {
        const QStringList header { tr("Scenario"), tr("Memory per GPU"), tr("Step time"), tr("Tokens/s per GPU"),
            tr("MFU") };
        const QList<double> widths { 0.4, 0.18, 0.14, 0.16, 0.12 };
        auto row = [](const QString& label, const core::Result& r) {
            if (!r.valid)
                return QStringList { label, tr("invalid"), QString(), QString(), QString() };
            return QStringList { label,
                tr("%1 (%2 – %3)")
                    .arg(
                        Units::bytes(r.memory.total()), Units::bytes(r.memoryRange.lo), Units::bytes(r.memoryRange.hi)),
                Units::seconds(r.step.total()), Units::tokensPerSecond(r.throughput.tokensPerSecondPerGpu),
                Units::percent(r.throughput.mfu) };
        };
        QList<QStringList> rows { row(tr("This scenario: %1").arg(name), result) };
        for (size_t i = 0; i < options.pins.size(); ++i)
            rows.push_back(
                row(options.pinLabels.value(int(i), QString::fromStdString(core::scenarioTitle(options.pins[i]))),
                    options.pinResults[i]));
        doc.newPage(QPageLayout::Portrait);
        doc.text(tr("Pinned scenarios"), font(14, true), Qt::black, 4);
        doc.text(tr("Memory per GPU with its 80% range, step time, tokens per second per GPU and MFU of every pinned "
                    "scenario (Compare → Show Comparison has the differences and the waterfall between any two)."),
            font(9), QColor(0x40, 0x40, 0x40), 8);
        doc.table(header, rows, widths, QPageLayout::Portrait, tr("Pinned scenarios (continued)"), { 1, 2, 3, 4 });
    }

    // One chart per landscape page
    const QString caption = scenarioCaption(scenario, result, options.date);
    for (ChartKind kind : options.charts) {
        std::unique_ptr<ChartFigure> figure;
        if (isScenarioChart(kind))
            figure = std::make_unique<ChartFigure>(kind, shown, options.lightTheme);
        else if (std::unique_ptr<ChartBase> chart
            = options.analysisChart && result.valid ? options.analysisChart(kind) : nullptr)
            figure = std::make_unique<ChartFigure>(kind, std::move(chart), options.lightTheme);
        if (!figure)
            continue;
        doc.newPage(QPageLayout::Landscape);
        figure->paint(painter, doc.area(), caption);
    }

    // Collectives
    if (result.valid) {
        doc.newPage(QPageLayout::Landscape);
        doc.text(tr("Collectives per GPU per optimizer step"), font(14, true), Qt::black, 4);
        doc.text(
            tr("Bytes each GPU sends (nccl-tests bus-bandwidth convention); time on the communication stream and the "
               "part not hidden behind compute."),
            font(9), QColor(0x40, 0x40, 0x40), 8);
        QList<QStringList> rows;
        for (const core::Collective& c : result.collectives)
            rows.push_back({ collectiveName(c), QString::fromLatin1(c.purpose), QString::number(c.groupSize),
                QLocale().toString(qlonglong(c.count)), Units::bytes(c.messageBytes), Units::bytes(c.bytes),
                Units::seconds(c.time), Units::seconds(c.exposedTime),
                QStringLiteral("%1 / %2").arg(
                    QString::fromLatin1(core::toString(c.algo)), QString::fromLatin1(core::toString(c.proto))),
                c.crossesNodes ? tr("yes") : tr("no") });
        if (rows.isEmpty())
            doc.text(tr("None: one GPU, nothing to exchange."), font(10));
        else {
            const QStringList header { tr("Collective"), tr("Purpose"), tr("Group"), tr("Calls"), tr("Message"),
                tr("Bytes sent"), tr("Time"), tr("Exposed"), tr("Algo / proto"), tr("Inter-node") };
            const QList<double> widths { 0.13, 0.27, 0.05, 0.06, 0.08, 0.09, 0.07, 0.07, 0.11, 0.07 };
            doc.table(
                header, rows, widths, QPageLayout::Landscape, tr("Collectives (continued)"), { 2, 3, 4, 5, 6, 7 });
        }
    }
    painter.end();
    buffer.close();
    if (QString error = writeBytes(path, bytes); !error.isEmpty())
        return error;
    m_pages = pages;
    return {};
}

} // namespace shardscope::ui
