// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/export_controller.h"

#include "charts/chart_base.h"
#include "document/scenario_document.h"
#include "export/analysis_figures.h"
#include "export/numbers_export.h"
#include "export/report_writer.h"
#include "editors/scenario_text.h"
#include "util/message.h"

#include <shardscope/core/scenario_name.h>

#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenu>
#include <QMimeData>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

ExportController::ExportController(ScenarioDocument* doc, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_window(window)
{
    // 192 DPI, or the screen's density when higher (3x): sharp on slides and high-density screens.
    m_last.options.scale = std::max(2.0, std::ceil(qGuiApp->devicePixelRatio()));
}

void ExportController::populateMenu(QMenu* menu)
{
    QAction* dialog
        = menu->addAction(tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &ExportController::showDialog);
    dialog->setToolTip(tr("Charts as PNG, SVG or PDF; the report; the numbers as CSV or JSON"));
    menu->addAction(tr("Export &Report (PDF)…"), this, &ExportController::exportReportDialog);
    QMenu* copy = menu->addMenu(tr("Cop&y Chart"));
    // Listed when shown: the analyses' charts join once their panes exist.
    connect(copy, &QMenu::aboutToShow, this, [this, copy] {
        copy->clear();
        for (ChartKind k : availableCharts())
            copy->addAction(chartKindName(k), this, [this, k] {
                ExportDialog::Choice c = m_last;
                c.target = ExportDialog::Target::Chart;
                c.chart = k;
                c.options.caption
                    = c.caption ? scenarioCaption(m_doc->shown()->scenario, m_doc->shown()->result) : QString();
                copyChart(c);
            });
    });
}

QList<ChartKind> ExportController::availableCharts() const
{
    QList<ChartKind> kinds;
    for (ChartKind k : kAllChartKinds)
        if (isScenarioChart(k) || m_makers.count(k))
            kinds << k;
    return kinds;
}

std::unique_ptr<ChartFigure> ExportController::figure(ChartKind kind, bool lightTheme) const
{
    if (const auto it = m_makers.find(kind); it != m_makers.end())
        return std::make_unique<ChartFigure>(kind, it->second(), lightTheme);
    return std::make_unique<ChartFigure>(kind, *m_doc->shown(), lightTheme);
}

QMenu* ExportController::contextMenu(ChartBase* chart, ChartKind kind, const ChartMaker& maker)
{
    if (maker)
        m_makers[kind] = maker; // this chart is the one its kind's exports draw now
    auto* menu = new QMenu(chart);
    menu->addAction(tr("&Copy Image"), this, [this, kind] {
        ExportDialog::Choice c = m_last;
        c.target = ExportDialog::Target::Chart;
        c.chart = kind;
        c.options.caption = c.caption ? scenarioCaption(m_doc->shown()->scenario, m_doc->shown()->result) : QString();
        copyChart(c);
    });
    menu->addAction(tr("&Export This Chart…"), this, [this, kind] { showDialogFor(kind); });
    menu->addAction(tr("Export &Report (PDF)…"), this, &ExportController::exportReportDialog);
    return menu;
}

void ExportController::attachChart(ChartBase* chart, ChartKind kind, ChartMaker maker)
{
    if (maker)
        m_makers[kind] = maker;
    auto show = [this, chart, kind, maker](QWidget* on, const QPoint& pos) {
        QMenu* menu = contextMenu(chart, kind, maker);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(on->mapToGlobal(pos));
    };
    // The plot area is a child widget: give it the menu itself, so a right-click anywhere on the chart opens it.
    for (QWidget* w : { static_cast<QWidget*>(chart), static_cast<QWidget*>(chart->plot()) }) {
        w->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(w, &QWidget::customContextMenuRequested, this, [show, w](const QPoint& pos) { show(w, pos); });
    }
}

QString ExportController::exportTo(const QString& path, const ExportDialog::Choice& choice) const
{
    // What the window shows (the newest scenario once its result has arrived).
    const std::shared_ptr<const core::WhatIf> shown = m_doc->shown();
    const core::Scenario& s = shown->scenario;
    const core::Result& r = shown->result;
    switch (choice.target) {
    case ExportDialog::Target::Chart: {
        return figure(choice.chart, choice.options.lightTheme)->save(path, choice.format, choice.options);
    }
    case ExportDialog::Target::Report: {
        ReportWriter writer;
        ReportWriter::Options o;
        o.lightTheme = choice.options.lightTheme;
        // The analysis panes' charts as they are on screen; one with nothing drawn yet (a search not run) with its
        // pane's opening settings, as the CLI draws it.
        o.analysisChart = [this, &s, &r](ChartKind kind) -> std::unique_ptr<ChartBase> {
            if (const auto it = m_makers.find(kind); it != m_makers.end())
                if (std::unique_ptr<ChartBase> chart = it->second(); chart && chart->message().isEmpty())
                    return chart;
            return makeAnalysisChart(kind, s, r, m_doc->catalog());
        };
        o.pins = shown->pins; // with their results: the pins the compare view shows
        o.pinResults = shown->pinResults;
        for (const core::Scenario& pin : o.pins)
            o.pinLabels << QString::fromStdString(core::scenarioTitle(pin));
        return writer.write(path, *shown, o);
    }
    case ExportDialog::Target::Csv: return writeBytes(path, resultCsv(s, r));
    case ExportDialog::Target::Json: return writeBytes(path, resultJson(r));
    }
    return {};
}

void ExportController::copyChart(const ExportDialog::Choice& choice)
{
    if (const QString budget = pixelBudgetError(choice.options); !budget.isEmpty()) {
        emit statusMessage(tr("Cannot copy the chart: %1").arg(budget));
        return;
    }
    QImage image = figure(choice.chart, choice.options.lightTheme)->toImage(choice.options);
    image.setDevicePixelRatio(1); // the clipboard carries pixels; paste targets size it themselves
    QGuiApplication::clipboard()->setImage(image);
    emit statusMessage(
        tr("Copied “%1” (%2 × %3 pixels)").arg(chartKindName(choice.chart)).arg(image.width()).arg(image.height()));
}

void ExportController::showDialog() { showDialogFor(m_last.chart); }

void ExportController::showDialogFor(ChartKind kind)
{
    ExportDialog::Choice initial = m_last;
    if (initial.target == ExportDialog::Target::Chart || kind != m_last.chart)
        initial.target = ExportDialog::Target::Chart;
    initial.chart = kind;
    ExportDialog dialog(
        m_doc, initial, m_window, availableCharts(), [this](ChartKind k, bool light) { return figure(k, light); });
    connect(&dialog, &ExportDialog::saveRequested, this, [this, &dialog](const ExportDialog::Choice& c) {
        m_last = c;
        saveWithDialog(c);
        dialog.accept();
    });
    connect(&dialog, &ExportDialog::copyRequested, this, [this](const ExportDialog::Choice& c) {
        m_last = c;
        copyChart(c);
    });
    dialog.exec();
    m_last = dialog.choice();
}

void ExportController::exportReportDialog()
{
    ExportDialog::Choice c = m_last;
    c.target = ExportDialog::Target::Report;
    saveWithDialog(c);
}

QString ExportController::suggestedPath(const ExportDialog::Choice& choice) const
{
    QString dir = m_lastDir;
    if (dir.isEmpty())
        dir = m_doc->filePath().isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                                          : QFileInfo(m_doc->filePath()).absolutePath();
    QString stem = QString::fromStdString(core::scenarioTitle(m_doc->scenario())).simplified();
    stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    if (stem.isEmpty())
        stem = QStringLiteral("scenario");
    switch (choice.target) {
    case ExportDialog::Target::Chart:
        return QDir(dir).filePath(
            stem + QLatin1Char('-') + chartKindId(choice.chart) + QLatin1Char('.') + figureFormatSuffix(choice.format));
    case ExportDialog::Target::Report: return QDir(dir).filePath(stem + QStringLiteral("-report.pdf"));
    case ExportDialog::Target::Csv: return QDir(dir).filePath(stem + QStringLiteral(".csv"));
    case ExportDialog::Target::Json: return QDir(dir).filePath(stem + QStringLiteral(".result.json"));
    }
    return dir;
}

void ExportController::saveWithDialog(const ExportDialog::Choice& choice)
{
    QString filter;
    switch (choice.target) {
    case ExportDialog::Target::Chart:
        filter = choice.format == FigureFormat::Png ? tr("PNG images (*.png)")
            : choice.format == FigureFormat::Svg    ? tr("SVG images (*.svg)")
                                                    : tr("PDF documents (*.pdf)");
        break;
    case ExportDialog::Target::Report: filter = tr("PDF documents (*.pdf)"); break;
    case ExportDialog::Target::Csv: filter = tr("CSV files (*.csv)"); break;
    case ExportDialog::Target::Json: filter = tr("JSON files (*.json)"); break;
    }
    const QString suggested = suggestedPath(choice);
    QString path = m_fileDialog ? m_fileDialog(suggested, filter)
                                : QFileDialog::getSaveFileName(m_window, tr("Export"), suggested, filter);
    if (path.isEmpty())
        return;
    const QString suffix = QFileInfo(suggested).suffix();
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    ExportDialog::Choice c = choice;
    if (c.target == ExportDialog::Target::Chart) {
        FigureFormat f;
        if (figureFormatFromPath(path, f)) // the typed suffix wins
            c.format = f;
        c.options.caption = c.caption ? scenarioCaption(m_doc->shown()->scenario, m_doc->shown()->result) : QString();
    }
    m_lastDir = QFileInfo(path).absolutePath();
    const QString error = exportTo(path, c);
    if (!error.isEmpty()) {
        if (!m_fileDialog)
            showMessage(m_window, tr("Export failed"), tr("Cannot write %1:\n%2").arg(path, error));
        emit statusMessage(tr("Export failed: %1").arg(error));
        return;
    }
    emit statusMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
}

} // namespace shardscope::ui
