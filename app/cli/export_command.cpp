// SPDX-License-Identifier: GPL-3.0-or-later
#include "export_command.h"

#include "charts/chart_base.h"
#include "session/app_theme.h"
#include "export/analysis_figures.h"
#include "export/chart_figure.h"
#include "export/report_writer.h"
#include "editors/scenario_text.h"

#include <shardscope/core/what_if.h>

#include <QApplication>
#include <QDir>

#include <algorithm>
#include <charconv>

namespace shardscope::cli {

namespace {
constexpr int kOk = 0, kInternal = 1, kInvalid = 2;

bool readInt(
    const std::map<std::string, std::string>& options, const char* name, int lo, int hi, int& value, std::ostream& err)
{
    const auto it = options.find(name);
    if (it == options.end())
        return true;
    const std::string& s = it->second;
    int v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) {
        err << "shardscope-cli: export: " << name << " must be a whole number from " << lo << " to " << hi << ", not '"
            << s << "'\n";
        return false;
    }
    value = v;
    return true;
}
} // namespace

int runExport(const core::Scenario& scenario, const core::Result& result, const core::Catalog& catalog,
    const std::map<std::string, std::string>& options, std::ostream& out, std::ostream& err)
{
    std::string charts; // the --chart values: kCliChartKinds, then the report
    for (ui::ChartKind k : ui::kCliChartKinds)
        charts += ui::chartKindId(k).toStdString() + "|";
    charts += "report";
    const auto chart = options.find("--chart");
    const auto path = options.find("--out");
    if (chart == options.end() || path == options.end()) {
        err << "shardscope-cli: export: needs --chart " << charts << " and --out FILE.png|.svg|.pdf\n";
        return kInvalid;
    }
    int width = 1000, height = 620, dpi = 96;
    if (!readInt(options, "--width", 100, 20000, width, err) || !readInt(options, "--height", 80, 20000, height, err)
        || !readInt(options, "--dpi", 24, 1200, dpi, err))
        return kInvalid;
    const bool report = chart->second == "report";
    ui::ChartKind kind {};
    if (!report
        && (!ui::parseChartKind(QString::fromStdString(chart->second), kind)
            || std::find(ui::kCliChartKinds.begin(), ui::kCliChartKinds.end(), kind) == ui::kCliChartKinds.end())) {
        err << "shardscope-cli: export: --chart must be one of " << charts << ", not '" << chart->second << "'\n";
        return kInvalid;
    }
    const QString file = QString::fromLocal8Bit(path->second.c_str());
    ui::FigureFormat format {};
    if (!ui::figureFormatFromPath(file, format) || (report && format != ui::FigureFormat::Pdf)) {
        err << "shardscope-cli: export: --out must end in " << (report ? ".pdf" : ".png, .svg or .pdf") << ", not '"
            << path->second << "'\n";
        return kInvalid;
    }

    ui::FigureOptions figure;
    figure.size = QSize(width, height);
    figure.scale = dpi / 96.0;
    if (const QString budget = ui::pixelBudgetError(figure);
        !report && format == ui::FigureFormat::Png && !budget.isEmpty()) {
        err << "shardscope-cli: export: " << budget.toStdString() << " (--width, --height, --dpi)\n";
        return kInvalid;
    }

    // Qt only from here on, and without a display unless the caller chose a platform.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // Root in a container has no XDG_RUNTIME_DIR: Qt falls back to /tmp/runtime-USER and warns; that is noise here.
    static const QtMessageHandler previous = qInstallMessageHandler(nullptr);
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext& context, const QString& message) {
        if (!message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR")))
            previous(type, context, message);
    });
    static int argc = 1;
    static char name[] = "shardscope-cli";
    static char* argv[] = { name, nullptr };
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("ShardScope"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDSCOPE_VERSION));
    ui::AppTheme::apply(ui::ThemeMode::Light);

    const core::WhatIf shown = core::whatIf(scenario); // what the window would show: figures, strategies, advice
    QString error;
    if (report) {
        ui::ReportWriter writer;
        ui::ReportWriter::Options reportOptions;
        reportOptions.analysisChart
            = [&](ui::ChartKind which) { return ui::makeAnalysisChart(which, scenario, result, catalog); };
        error = writer.write(file, shown, reportOptions);
        if (error.isEmpty())
            out << "wrote " << path->second << " (" << writer.pageCount() << " pages)\n";
    } else {
        figure.lightTheme = true;
        figure.caption = ui::scenarioCaption(scenario, result);
        const ui::ChartFigure chartFigure = ui::isScenarioChart(kind)
            ? ui::ChartFigure(kind, shown, true)
            : ui::ChartFigure(kind, ui::makeAnalysisChart(kind, scenario, result, catalog), true);
        error = chartFigure.save(file, format, figure);
        if (error.isEmpty())
            out << "wrote " << path->second << "\n";
    }
    if (!error.isEmpty()) {
        err << "shardscope-cli: export: " << path->second << ": " << error.toStdString() << "\n";
        return kInternal;
    }
    return kOk;
}

} // namespace shardscope::cli
