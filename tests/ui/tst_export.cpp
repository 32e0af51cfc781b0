// SPDX-License-Identifier: GPL-3.0-or-later
// Exports (issue 5, item 1): every chart as PNG, SVG and PDF is a valid file of the chosen size with the title and
// caption in it; the light theme gives a white background in a dark app; the report has the expected pages; the
// numbers as CSV and JSON; copy to the clipboard; the dialog's choices; the window's menu and context menus.
// Issue 12: a PNG over the pixel budget is refused before it is drawn (writer, dialog, clipboard); high DPI gives the
// pixels it promises; a failed write (injected, core/file_io.h) says what failed and keeps the previous file.
#include "test_support.h"

#include "analysis/analysis_tabs.h"
#include "analysis/rank_map_chart.h"
#include "analysis/rank_map_pane.h"
#include "analysis/search_pane.h"
#include "analysis/search_scatter.h"
#include "analysis/sizing_chart.h"
#include "analysis/sizing_pane.h"
#include "analysis/sweep_chart.h"
#include "analysis/sweep_pane.h"
#include "analysis/timeline_chart.h"
#include "analysis/timeline_pane.h"
#include "compare/compare_controller.h"
#include "compare/compare_time_chart.h"
#include "compare/compare_view.h"
#include "analysis/waterfall_chart.h"
#include "session/app_theme.h"
#include "charts/chart_base.h"
#include "charts/qcp.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "document/scenario_document.h"
#include "export/analysis_figures.h"
#include "export/chart_figure.h"
#include "export/export_controller.h"
#include "export/export_dialog.h"
#include "export/numbers_export.h"
#include "export/report_writer.h"
#include "editors/scenario_text.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/what_if.h>
#include <shardscope/core/file_io.h>
#include <shardscope/core/scenario_json.h>
#include <shardscope/core/waterfall.h>
#include <shardscope/core/search.h>
#include <shardscope/core/sweep.h>

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QMenu>
#include <QDir>
#include <QLabel>
#include <QPushButton>
#include <QFileInfo>
#include <QSignalSpy>
#include <QGuiApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPainter>
#include <QJsonObject>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTest>
#include <QUndoStack>
#include <QXmlStreamReader>

using namespace shardscope;

namespace {
bool close(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max({ 1.0, std::abs(a), std::abs(b) });
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Page objects in a PDF ("/Type /Page", not "/Type /Pages").
int pdfPages(const QByteArray& pdf)
{
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?!s)"));
    return int(QString::fromLatin1(pdf).count(page));
}

/// Distinct colours in a sample of the image (a blank or one-colour image has 1).
int colours(const QImage& image)
{
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

/// What the window shows for the scenario in file (the default scenario for "").
core::WhatIf makeCase(const QString& file)
{
    return core::whatIf(file.isEmpty() ? core::defaultScenario(test::catalog()) : test::loadScenario(file));
}
} // namespace

class TestExport : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void chartFilesAreValid_data();
    void chartFilesAreValid();
    void pngScaleAndDpi();
    void settingsReadAsTheEditorSaysThem();
    void highDpiPngHasItsPixels();
    void pngOverPixelBudgetIsRefused();
    void failedWriteKeepsOldFile_data();
    void failedWriteKeepsOldFile();
    void lightThemeInDarkApp();
    void timelineDrawsEveryStage();
    void reportHasExpectedPages_data();
    void reportHasExpectedPages();
    void numbersAsCsvAndJson();
    void reportHasAnalysisChartsAndPins();
    void copyToClipboard();
    void dialogChoiceRoundTrips();
    void windowHasExportMenuAndContextMenus();
    void analysisFiguresAreValid_data();
    void analysisFiguresAreValid();
    void chartKindIds();
    void rightClickAnywhereOnEveryChart();
    void screenshot();

private:
    QTemporaryDir m_dir;
};

void TestExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCoreApplication::setApplicationVersion(QStringLiteral("test"));
}

void TestExport::chartFilesAreValid_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("format");
    const QStringList files
        = { QString(), QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json") };
    for (const QString& file : files)
        for (ui::ChartKind k : ui::kScenarioChartKinds)
            for (ui::FigureFormat f : { ui::FigureFormat::Png, ui::FigureFormat::Svg, ui::FigureFormat::Pdf })
                QTest::addRow("%s %s %s", file.isEmpty() ? "default" : "3d", qPrintable(ui::chartKindId(k)),
                    qPrintable(ui::figureFormatSuffix(f)))
                    << file << int(k) << int(f);
}

void TestExport::chartFilesAreValid()
{
    QFETCH(QString, scenario);
    QFETCH(int, kind);
    QFETCH(int, format);
    const core::WhatIf c = makeCase(scenario);
    const ui::ChartFigure figure(ui::ChartKind(kind), c);
    ui::FigureOptions o;
    o.size = QSize(900, 560);
    o.caption = ui::scenarioCaption(c.scenario, c.result);
    const QString path = m_dir.filePath(QStringLiteral("chart-%1-%2.%3")
                                            .arg(QTest::currentDataTag())
                                            .replace(QLatin1Char(' '), QLatin1Char('-'))
                                            .arg(kind)
                                            .arg(ui::figureFormatSuffix(ui::FigureFormat(format))));
    const QString error = figure.save(path, ui::FigureFormat(format), o);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QByteArray bytes = readAll(path);
    QVERIFY(bytes.size() > 1000);
    const QByteArray name = QByteArray::fromStdString(c.scenario.name);
    switch (ui::FigureFormat(format)) {
    case ui::FigureFormat::Png: {
        QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
        const QImage image(path);
        QCOMPARE(image.size(), QSize(900, 560));
        QVERIFY(colours(image) > 8);
        break;
    }
    case ui::FigureFormat::Svg: {
        QXmlStreamReader xml(bytes);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QSvgRenderer svg(path);
        QVERIFY(svg.isValid());
        QCOMPARE(svg.viewBox(), QRect(0, 0, 900, 560));
        QVERIFY(bytes.contains("<title>" + figure.title().toHtmlEscaped().toUtf8()));
        // SVG has no clipping from QSvgGenerator: nothing of the plot may reach the title band (bars taller than the
        // range are clamped). Only grey text and white there.
        QImage image(900, 560, QImage::Format_ARGB32);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            svg.render(&p);
        }
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                QVERIFY2(c.hsvSaturationF() < 0.25,
                    qPrintable(QStringLiteral("coloured pixel %1 at %2,%3").arg(c.name()).arg(x).arg(y)));
            }
        break;
    }
    case ui::FigureFormat::Pdf:
        QVERIFY(bytes.startsWith("%PDF-"));
        QCOMPARE(pdfPages(bytes), 1);
        QVERIFY(bytes.contains("/MediaBox [0 0 675.000000 420.000000]")); // 900 x 560 logical pixels at 96 per inch
        break;
    }
}

void TestExport::pngScaleAndDpi()
{
    const core::WhatIf c = makeCase({});
    const ui::ChartFigure figure(ui::ChartKind::Memory, c);
    ui::FigureOptions o;
    o.size = QSize(640, 400);
    o.scale = 2;
    const QString path = m_dir.filePath(QStringLiteral("scaled.png"));
    QVERIFY(figure.save(path, ui::FigureFormat::Png, o).isEmpty());
    const QImage image(path);
    QCOMPARE(image.size(), QSize(1280, 800));
    QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), 192);
}

void TestExport::highDpiPngHasItsPixels()
{
    // 1200 DPI, the CLI's highest: 12.5 image pixels per logical pixel, every one of them drawn.
    const core::WhatIf c = makeCase({});
    const ui::ChartFigure figure(ui::ChartKind::Memory, c);
    ui::FigureOptions o;
    o.size = QSize(400, 300);
    o.scale = 1200 / 96.0;
    QVERIFY(ui::pixelBudgetError(o).isEmpty());
    const QString path = m_dir.filePath(QStringLiteral("dpi1200.png"));
    const QString error = figure.save(path, ui::FigureFormat::Png, o);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QImage image(path);
    QCOMPARE(image.size(), QSize(5000, 3750));
    QCOMPARE(qRound(image.dotsPerMeterX() * 0.0254), 1200);
    QVERIFY(colours(image.scaled(500, 375)) > 8);
}

void TestExport::pngOverPixelBudgetIsRefused()
{
    const core::WhatIf c = makeCase({});
    const ui::ChartFigure figure(ui::ChartKind::Memory, c);
    ui::FigureOptions o;
    o.size = QSize(20000, 20000);
    o.scale = 300 / 96.0; // 3.9 gigapixels, 15.6 GB: refused before any memory is taken
    const QString path = m_dir.filePath(QStringLiteral("huge.png"));
    const QString error = figure.save(path, ui::FigureFormat::Png, o);
    QVERIFY2(error.contains(QStringLiteral("100 megapixels")), qPrintable(error));
    QVERIFY(!QFileInfo::exists(path));
    // Just inside the budget is accepted by the check.
    o.size = QSize(10000, 10000);
    o.scale = 1;
    QVERIFY(ui::pixelBudgetError(o).isEmpty());
    o.size = QSize(10001, 10000);
    QVERIFY(!ui::pixelBudgetError(o).isEmpty());

    // The dialog says so where it shows the pixel count and offers no Save for that PNG, nor Copy.
    ui::ScenarioDocument doc(test::catalog());
    ui::ExportDialog::Choice choice;
    choice.format = ui::FigureFormat::Png;
    choice.options.size = QSize(8000, 8000);
    choice.options.scale = 1200 / 96.0;
    ui::ExportDialog dialog(&doc, choice);
    QVERIFY2(dialog.pixelsLabel()->text().contains(QStringLiteral("100 megapixels")),
        qPrintable(dialog.pixelsLabel()->text()));
    QVERIFY(!dialog.saveButton()->isEnabled());
    choice.options.scale = 1;
    dialog.setChoice(choice);
    QVERIFY(dialog.saveButton()->isEnabled());
    QVERIFY(dialog.pixelsLabel()->text().contains(QStringLiteral("8000 × 8000")));

    // Copy Chart with such options is refused with a message, the clipboard untouched.
    QWidget window;
    ui::ExportController exporter(&doc, &window);
    QSignalSpy status(&exporter, &ui::ExportController::statusMessage);
    QGuiApplication::clipboard()->clear();
    choice.options.scale = 1200 / 96.0;
    exporter.copyChart(choice);
    QCOMPARE(status.count(), 1);
    QVERIFY(status.front().front().toString().contains(QStringLiteral("100 megapixels")));
    QVERIFY(QGuiApplication::clipboard()->image().isNull());
}

void TestExport::failedWriteKeepsOldFile_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("reason");
    QTest::newRow("png, disk full") << QStringLiteral("png") << int(core::WriteStep::Write) << ENOSPC
                                    << QStringLiteral("No space left on device");
    QTest::newRow("svg, I/O error on fsync")
        << QStringLiteral("svg") << int(core::WriteStep::Sync) << EIO << QStringLiteral("Input/output error");
    QTest::newRow("pdf, rename refused") << QStringLiteral("pdf") << int(core::WriteStep::Rename) << EACCES
                                         << QStringLiteral("Permission denied");
    QTest::newRow("report, close fails") << QStringLiteral("report") << int(core::WriteStep::Close) << EDQUOT
                                         << QStringLiteral("quota");
    QTest::newRow("csv, short file") << QStringLiteral("csv") << int(core::WriteStep::Verify) << EIO
                                     << QStringLiteral("Input/output error");
}

void TestExport::failedWriteKeepsOldFile()
{
    QFETCH(QString, what);
    QFETCH(int, step);
    QFETCH(int, error);
    QFETCH(QString, reason);
    const core::WhatIf c = makeCase({});
    QTemporaryDir dir;
    const QString path
        = dir.filePath(QStringLiteral("export.") + (what == QLatin1String("report") ? QStringLiteral("pdf") : what));
    // Writes the export of this scenario and returns the error; the second export differs from the first.
    auto write = [&](bool second) {
        if (what == QLatin1String("report")) {
            ui::ReportWriter::Options o;
            if (second)
                o.charts = { ui::ChartKind::Memory };
            return ui::ReportWriter().write(path, c, o);
        }
        if (what == QLatin1String("csv"))
            return ui::writeBytes(path, second ? ui::resultCsv(c.scenario, c.result) : QByteArray("old\n"));
        ui::FigureFormat format {};
        [&] { QVERIFY(ui::figureFormatFromPath(path, format)); }();
        const ui::ChartFigure figure(ui::ChartKind::Time, c);
        ui::FigureOptions o;
        o.size = second ? QSize(900, 560) : QSize(600, 400);
        return figure.save(path, format, o);
    };
    QString message = write(false);
    QVERIFY2(message.isEmpty(), qPrintable(message));
    const QByteArray before = readAll(path);
    QVERIFY(!before.isEmpty());

    core::setAtomicWriteFaultForTesting(core::WriteStep(step), error);
    message = write(true);
    core::setAtomicWriteFaultForTesting(core::WriteStep(step), 0);
    QVERIFY2(message.contains(path), qPrintable(message));
    QVERIFY2(message.contains(reason, Qt::CaseInsensitive), qPrintable(message));
    QCOMPARE(readAll(path), before);
    // No temporary file left beside it.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
        QStringList { QStringLiteral("export.") + QFileInfo(path).suffix() });
}

void TestExport::lightThemeInDarkApp()
{
    ui::AppTheme::apply(ui::ThemeMode::Dark);
    const core::WhatIf c = makeCase({});
    ui::FigureOptions o;
    o.size = QSize(500, 320);
    const QImage light = ui::ChartFigure(ui::ChartKind::Time, c, true).toImage(o);
    const QImage dark = ui::ChartFigure(ui::ChartKind::Time, c, false).toImage(o);
    ui::AppTheme::apply(ui::ThemeMode::Light);
    QCOMPARE(QColor(light.pixel(2, 2)), QColor(Qt::white));
    QVERIFY(QColor(dark.pixel(2, 2)).lightnessF() < 0.3);
}

void TestExport::timelineDrawsEveryStage()
{
    const core::WhatIf c = makeCase(QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json"));
    // --chart timeline renders the analysis tab's TimelineChart.
    const ui::ChartFigure figure(ui::ChartKind::Timeline, c);
    auto* chart = qobject_cast<ui::TimelineChart*>(figure.chart());
    QVERIFY(chart);
    QCOMPARE(chart->timeline().stages, c.result.pp);
    QVERIFY(chart->blockCount() > c.result.pp * 2);
    QVERIFY(chart->message().isEmpty());
    QVERIFY(figure.legend().size() >= 3);
}

void TestExport::reportHasExpectedPages_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<bool>("invalid");
    QTest::newRow("default") << QString() << false;
    QTest::newRow("deepseek moe") << QStringLiteral("resources/scenarios/moe-deepseek-v3-h800.shardscope.json")
                                  << false;
    QTest::newRow("invalid") << QString() << true;
}

void TestExport::reportHasExpectedPages()
{
    QFETCH(QString, scenario);
    QFETCH(bool, invalid);
    core::WhatIf c = makeCase(scenario);
    if (invalid) {
        core::Scenario bad = c.scenario;
        bad.parallelism.tp = 6; // does not divide the heads
        c = core::whatIf(bad);
        QVERIFY(!c.result.valid);
    }
    ui::ReportWriter writer;
    const QString path = m_dir.filePath(
        QStringLiteral("report-%1.pdf").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    const QString error = writer.write(path, c);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    // Title page, (valid scenarios) the memory and step-time terms, one page per chart, then (valid scenarios) the
    // collectives table. The terms' table continues on a page of its own when its sources are long (a "(continued)"
    // page: with the core merged at 21:17 the step-time table continues on page 3).
    const int expected = 1 + (invalid ? 0 : 1) + int(ui::kScenarioChartKinds.size()) + (invalid ? 0 : 1);
    QVERIFY2(writer.pageCount() >= expected && writer.pageCount() <= expected + (invalid ? 0 : 2),
        qPrintable(QString::number(writer.pageCount())));
    QCOMPARE(pdfPages(pdf), writer.pageCount());
}

void TestExport::reportHasAnalysisChartsAndPins()
{
    // Issue 23 item 9: with the analysis charts and two pins, the report has a page per search, sweep, sizing and
    // rank-map chart and one for the pins, besides what reportHasExpectedPages counts; each analysis chart is made once.
    const core::WhatIf c = makeCase({});
    ui::ReportWriter::Options o;
    QList<ui::ChartKind> made;
    o.analysisChart = [&](ui::ChartKind kind) {
        made << kind;
        return ui::makeAnalysisChart(kind, c.scenario, c.result, test::catalog());
    };
    for (int tp : { 2, 4 }) {
        core::Scenario pin = c.scenario;
        pin.parallelism.tp = tp;
        o.pins.push_back(pin);
        o.pinResults.push_back(core::evaluate(pin));
        o.pinLabels << QStringLiteral("TP %1").arg(tp);
    }
    ui::ReportWriter plain;
    QVERIFY(plain.write(m_dir.filePath(QStringLiteral("plain.pdf")), c).isEmpty());
    ui::ReportWriter writer;
    const QString path = m_dir.filePath(QStringLiteral("full-report.pdf"));
    const QString error = writer.write(path, c, o);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(made,
        (QList<ui::ChartKind> {
            ui::ChartKind::Search, ui::ChartKind::Sweep, ui::ChartKind::Sizing, ui::ChartKind::RankMap }));
    QCOMPARE(writer.pageCount(), plain.pageCount() + 4 + 1);
    QCOMPARE(pdfPages(readAll(path)), writer.pageCount());
}

void TestExport::numbersAsCsvAndJson()
{
    const core::WhatIf c = makeCase({});
    const QByteArray csv = ui::resultCsv(c.scenario, c.result);
    QVERIFY(csv.startsWith("section,name,value,unit\n"));
    bool found = false;
    for (const QByteArray& line : csv.split('\n')) {
        const QList<QByteArray> cells = line.split(',');
        if (cells.size() == 4 && cells[0] == "memory_per_gpu" && cells[1] == "total") {
            QCOMPARE(cells[2].toDouble(), c.result.memory.total());
            QCOMPARE(cells[3], QByteArray("bytes"));
            found = true;
        }
    }
    QVERIFY(found);
    QVERIFY(csv.contains("step_time,total,"));
    QVERIFY(csv.contains("collective,dp."));
    QJsonParseError err {};
    const QJsonDocument json = QJsonDocument::fromJson(ui::resultJson(c.result), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QCOMPARE(json.object().value(QStringLiteral("schema")).toString(), QStringLiteral("shardscope.result/1"));
    QCOMPARE(json.object().value(QStringLiteral("memory_per_gpu")).toObject().value(QStringLiteral("total")).toDouble(),
        c.result.memory.total());
    // Issue 23 item 9: the CSV has the 80% ranges the result JSON has, one row per end, around the figure.
    QHash<QByteArray, double> rows;
    for (const QByteArray& line : csv.split('\n')) {
        const QList<QByteArray> cells = line.split(',');
        if (cells.size() == 4)
            rows.insert(cells[0] + '.' + cells[1], cells[2].toDouble());
    }
    const QJsonObject o = json.object();
    const struct {
        const char* csv;
        QJsonArray range;
        double figure;
    } ranges[] = {
        { "memory_per_gpu.total_range",
            o[QStringLiteral("memory_per_gpu")].toObject()[QStringLiteral("total_range")].toArray(),
            c.result.memory.total() },
        { "step_time.total_range", o[QStringLiteral("step_time")].toObject()[QStringLiteral("total_range")].toArray(),
            c.result.step.total() },
        { "throughput.tokens_per_second_per_gpu_range",
            o[QStringLiteral("throughput")].toObject()[QStringLiteral("tokens_per_second_per_gpu_range")].toArray(),
            c.result.throughput.tokensPerSecondPerGpu },
    };
    for (const auto& r : ranges) {
        const QByteArray name(r.csv);
        QVERIFY2(rows.contains(name + "_lo") && rows.contains(name + "_hi"), r.csv);
        QCOMPARE(r.range.size(), 2);
        QCOMPARE(rows.value(name + "_lo"), r.range[0].toDouble());
        QCOMPARE(rows.value(name + "_hi"), r.range[1].toDouble());
        QVERIFY(rows.value(name + "_lo") < r.figure && r.figure < rows.value(name + "_hi"));
    }
    const QString path = m_dir.filePath(QStringLiteral("numbers.csv"));
    QVERIFY(ui::writeBytes(path, csv).isEmpty());
    QCOMPARE(readAll(path), csv);

    // A name a spreadsheet would run as a formula stays text (OWASP CSV injection); CR and quotes are quoted.
    core::Scenario hostile = c.scenario;
    hostile.name = "=HYPERLINK(\"http://x\",\"y\")\r-1+1";
    const QByteArray evil = ui::resultCsv(hostile, c.result);
    QVERIFY2(
        evil.contains("scenario,name,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\r-1+1\","), evil.left(200).constData());
    QVERIFY(!evil.contains("\n=") && !evil.contains(",=HYPERLINK"));
}

void TestExport::copyToClipboard()
{
    ui::ScenarioDocument doc(test::catalog());
    QWidget window;
    ui::ExportController exporter(&doc, &window);
    QSignalSpy status(&exporter, &ui::ExportController::statusMessage);
    ui::ExportDialog::Choice c;
    c.chart = ui::ChartKind::Communication;
    c.options.size = QSize(400, 300);
    c.options.scale = 1.5;
    exporter.copyChart(c);
    const QImage image = QGuiApplication::clipboard()->image();
    QCOMPARE(image.size(), QSize(600, 450));
    QCOMPARE(status.count(), 1);
}

void TestExport::dialogChoiceRoundTrips()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::ExportDialog::Choice c;
    c.target = ui::ExportDialog::Target::Chart;
    c.chart = ui::ChartKind::Strategy;
    c.format = ui::FigureFormat::Svg;
    c.options.size = QSize(1200, 700);
    c.options.scale = 3;
    c.options.lightTheme = false;
    c.caption = true;
    ui::ExportDialog dialog(&doc, c);
    const ui::ExportDialog::Choice back = dialog.choice();
    QCOMPARE(int(back.chart), int(c.chart));
    QCOMPARE(int(back.format), int(c.format));
    QCOMPARE(back.options.size, c.options.size);
    QCOMPARE(back.options.scale, 3.0);
    QCOMPARE(back.options.lightTheme, false);
    QVERIFY(back.options.caption.contains(QString::fromStdString(doc.scenario().name)));
    QVERIFY(!dialog.previewImage().isNull());
    c.target = ui::ExportDialog::Target::Report;
    dialog.setChoice(c);
    QCOMPARE(int(dialog.choice().target), int(ui::ExportDialog::Target::Report));
}

void TestExport::windowHasExportMenuAndContextMenus()
{
    ui::AppSettings settings(m_dir.filePath(QStringLiteral("settings.ini")), nullptr);
    ui::MainWindow window(test::catalog(), &settings);
    QStringList fileActions;
    for (QAction* a : window.menuBar()->actions().front()->menu()->actions())
        fileActions << a->text();
    QVERIFY(fileActions.contains(QStringLiteral("&Export…")));
    QVERIFY(fileActions.contains(QStringLiteral("Export &Report (PDF)…")));
    for (ui::ChartBase* chart :
        { static_cast<ui::ChartBase*>(window.memoryChart()), static_cast<ui::ChartBase*>(window.strategyChart()),
            static_cast<ui::ChartBase*>(window.commChart()), static_cast<ui::ChartBase*>(window.stepTimeChart()) })
        QCOMPARE(chart->contextMenuPolicy(), Qt::CustomContextMenu);
    // Export through the (replaced) save dialog: it gets a suggested name with the right suffix.
    QString suggested;
    window.exporter()->setFileDialogHandler([&](const QString& s, const QString&) {
        suggested = s;
        return m_dir.filePath(QStringLiteral("from-window.") + QFileInfo(s).suffix());
    });
    window.exporter()->exportReportDialog();
    QVERIFY(suggested.endsWith(QLatin1String("-report.pdf")));
    QVERIFY(readAll(m_dir.filePath(QStringLiteral("from-window.pdf"))).startsWith("%PDF-"));
    ui::ExportDialog::Choice c;
    c.chart = ui::ChartKind::Memory;
    c.format = ui::FigureFormat::Svg;
    const QString svg = m_dir.filePath(QStringLiteral("from-window.svg"));
    QVERIFY(window.exporter()->exportTo(svg, c).isEmpty());
    QVERIFY(QSvgRenderer(svg).isValid());
    window.document()->undoStack()->setClean();
}

void TestExport::analysisFiguresAreValid_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("format");
    for (ui::ChartKind k :
        { ui::ChartKind::Search, ui::ChartKind::Sweep, ui::ChartKind::Sizing, ui::ChartKind::RankMap })
        for (ui::FigureFormat f : { ui::FigureFormat::Png, ui::FigureFormat::Svg, ui::FigureFormat::Pdf })
            QTest::addRow("%s %s", qPrintable(ui::chartKindId(k)), qPrintable(ui::figureFormatSuffix(f)))
                << int(k) << int(f);
}

void TestExport::analysisFiguresAreValid()
{
    // What `shardscope-cli export --chart search|sweep|sizing|rank-map` draws for the default scenario (Llama 3 70B,
    // 4 x 8 H100): the analyses with their panes' opening settings, each chart holding what the core computed.
    QFETCH(int, kind);
    QFETCH(int, format);
    const core::WhatIf c = makeCase({});
    std::unique_ptr<ui::ChartBase> chart
        = ui::makeAnalysisChart(ui::ChartKind(kind), c.scenario, c.result, test::catalog());
    QVERIFY(chart);
    switch (ui::ChartKind(kind)) {
    case ui::ChartKind::Search: {
        core::SearchOptions o; // the defaults: the scenario's 32 GPUs, 10% headroom
        const core::SearchResult r = core::search(c.scenario, o);
        QVERIFY(r.feasible > 0);
        QCOMPARE(static_cast<ui::SearchScatterChart*>(chart.get())->pointCount(), int(r.feasible));
        break;
    }
    case ui::ChartKind::Sweep: {
        auto* sweep = static_cast<ui::SweepChart*>(chart.get());
        QCOMPARE(int(sweep->metric()), int(ui::SweepChart::Metric::Memory));
        const auto curves = core::sweep(c.scenario, core::SweepAxis::Gpus,
            core::defaultSweepValues(c.scenario, core::SweepAxis::Gpus), core::sweepStrategies(), test::catalog());
        int drawn = 0;
        for (size_t ci = 0; ci < curves.size(); ++ci)
            for (size_t i = 0; i < curves[ci].points.size(); ++i)
                if (curves[ci].points[i].valid) {
                    QVERIFY(close(sweep->plotted(int(ci), int(i)) * sweep->unitDivisor(), curves[ci].points[i].memory));
                    ++drawn;
                }
        QVERIFY(drawn > 0);
        break;
    }
    case ui::ChartKind::Sizing:
        // H100 (the scenario's GPU, also a default), H200, B200, MI300X
        QCOMPARE(static_cast<ui::SizingChart*>(chart.get())->gpuCount(), 4);
        break;
    case ui::ChartKind::RankMap:
        QCOMPARE(static_cast<ui::RankMapChart*>(chart.get())->cellCount(), 32); // 4 nodes of 8, all shown
        break;
    default: QFAIL("not an analysis chart");
    }
    const ui::ChartFigure figure(ui::ChartKind(kind), std::move(chart));
    QVERIFY(!figure.title().isEmpty());
    if (ui::ChartKind(kind) == ui::ChartKind::Sweep)
        QCOMPARE(figure.legend().size(), qsizetype(core::sweepStrategies().size())); // the pane's legend
    ui::FigureOptions o;
    o.size = QSize(900, 560);
    o.caption = ui::scenarioCaption(c.scenario, c.result);
    const QString path = m_dir.filePath(
        QStringLiteral("analysis-%1.%2")
            .arg(ui::chartKindId(ui::ChartKind(kind)), ui::figureFormatSuffix(ui::FigureFormat(format))));
    const QString error = figure.save(path, ui::FigureFormat(format), o);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QByteArray bytes = readAll(path);
    switch (ui::FigureFormat(format)) {
    case ui::FigureFormat::Png: {
        const QImage image(path);
        QCOMPARE(image.size(), QSize(900, 560));
        QVERIFY(colours(image) > 8);
        break;
    }
    case ui::FigureFormat::Svg: QVERIFY(QSvgRenderer(path).isValid()); break;
    case ui::FigureFormat::Pdf: QCOMPARE(pdfPages(bytes), 1); break;
    }
}

void TestExport::chartKindIds()
{
    // The CLI's --chart names (shared/DESIGN.md, Contract additions), each parsed back to its kind.
    QStringList ids;
    for (ui::ChartKind k : ui::kCliChartKinds) {
        ids << ui::chartKindId(k);
        ui::ChartKind back {};
        QVERIFY(ui::parseChartKind(ui::chartKindId(k), back));
        QCOMPARE(int(back), int(k));
    }
    QCOMPARE(ids.join(QLatin1Char('|')),
        QStringLiteral("memory|strategy|communication|time|timeline|search|sweep|sizing|rank-map"));
    ui::ChartKind k {};
    QVERIFY(!ui::parseChartKind(u"pie", k));
    QVERIFY(ui::parseChartKind(u"waterfall", k) && k == ui::ChartKind::Waterfall);
}

void TestExport::rightClickAnywhereOnEveryChart()
{
    // Issue 13 item 4: a right-click on a chart's plot area (not only its title) opens Copy Image / Export, on every
    // chart of the window and of the comparison; exporting a window's analysis chart draws what that chart shows.
    ui::AppSettings settings(m_dir.filePath(QStringLiteral("settings-rc.ini")), nullptr);
    ui::MainWindow window(test::catalog(), &settings);
    ui::AnalysisTabs* tabs = window.analysis();
    ui::CompareView* compare = window.compare()->view();
    QList<std::pair<ui::ChartBase*, ui::ChartKind>> charts { { window.memoryChart(), ui::ChartKind::Memory },
        { window.strategyChart(), ui::ChartKind::Strategy }, { window.commChart(), ui::ChartKind::Communication },
        { window.stepTimeChart(), ui::ChartKind::Time }, { tabs->timeline()->chart(), ui::ChartKind::Timeline },
        { tabs->search()->scatter(), ui::ChartKind::Search }, { tabs->sizing()->chart(), ui::ChartKind::Sizing },
        { tabs->rankMap()->chart(), ui::ChartKind::RankMap }, { compare->timeChart(), ui::ChartKind::Compare },
        { compare->waterfallChart(), ui::ChartKind::Waterfall } };
    for (int i = 0; i < ui::SweepPane::kCharts; ++i)
        charts.push_back({ tabs->sweep()->chart(i), ui::ChartKind::Sweep });
    for (const auto& [chart, kind] : charts) {
        QWidget* plot = chart->plot();
        QCOMPARE(plot->contextMenuPolicy(), Qt::CustomContextMenu);
        QContextMenuEvent event(
            QContextMenuEvent::Mouse, plot->rect().center(), plot->mapToGlobal(plot->rect().center()));
        QApplication::sendEvent(plot, &event);
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        QVERIFY2(menu, qPrintable(ui::chartKindId(kind)));
        QStringList actions;
        for (QAction* a : menu->actions())
            actions << a->text();
        QCOMPARE(actions,
            (QStringList { QStringLiteral("&Copy Image"), QStringLiteral("&Export This Chart…"),
                QStringLiteral("Export &Report (PDF)…") }));
        menu->close();
        QVERIFY(window.exporter()->availableCharts().contains(kind));
    }
    QCOMPARE(window.exporter()->availableCharts().size(), qsizetype(ui::kAllChartKinds.size()));
    // The last sweep chart right-clicked is the one its kind exports: here the communication sweep.
    const auto sweep = window.exporter()->figure(ui::ChartKind::Sweep, true);
    QCOMPARE(sweep->title(), tabs->sweep()->chart(ui::SweepPane::kCharts - 1)->title());
    // A window chart's export is a copy of what it shows (the rank map of the open scenario).
    const auto rank = window.exporter()->figure(ui::ChartKind::RankMap, true);
    QCOMPARE(static_cast<ui::RankMapChart*>(rank->chart())->cellCount(), tabs->rankMap()->chart()->cellCount());
    window.document()->undoStack()->setClean();
}

void TestExport::screenshot()
{
    const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set SHARDSCOPE_SCREENSHOT_DIR to save a picture of the export dialog");
    ui::ScenarioDocument doc(test::catalog());
    ui::ExportDialog::Choice c;
    c.chart = ui::ChartKind::Strategy;
    c.options.scale = 2;
    ui::ExportDialog dialog(&doc, c);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QCoreApplication::sendPostedEvents(); // pending layout; the preview was drawn when the dialog was made
    QVERIFY(dialog.grab().save(dir + QStringLiteral("/export-dialog.png")));
}

void TestExport::settingsReadAsTheEditorSaysThem()
{
    // The report's settings use the editor's names for choices, never the file's spelling ("megatron", "dualpipe").
    const core::Scenario s
        = test::loadScenario(QStringLiteral("resources/scenarios/moe-deepseek-v3-h800.shardscope.json"));
    QCOMPARE(s.parallelism.moeOverlap, core::MoeOverlap::DualPipe);
    QCOMPARE(ui::settingText(s, QStringLiteral("training.framework")), QStringLiteral("Megatron-Core"));
    QCOMPARE(ui::settingText(s, QStringLiteral("parallelism.moe_overlap")), QStringLiteral("DualPipe"));
    for (const ui::LabelledValue& row : ui::settingsRows(s))
        if (!row.value.isEmpty()) // every choice in words: no file spelling with a dash or all lower case
            QVERIFY2(row.value != QString::fromStdString(core::settingValue(s, "training.framework"))
                    && row.value != QString::fromStdString(core::settingValue(s, "parallelism.moe_overlap")),
                qPrintable(row.label + QStringLiteral(": ") + row.value));
}

QTEST_MAIN(TestExport)
#include "tst_export.moc"
