// SPDX-License-Identifier: GPL-3.0-or-later
// Tools → Calibrate to My Cluster… (issue 11 item 1): runs added from the open scenario with what a cluster measured
// are fitted by the core, the errors before and after drawn, the profile saved in the user's data folder and used
// for the scenario (one undo step); refusals and bad runs files are shown naming the field; the main window's
// Tools menu opens it and its status bar names the profile in use.
#include "settle.h"
#include "test_support.h"

#include "calibrate/calibrate_dialog.h"
#include "charts/qcp.h"
#include "session/app_theme.h"
#include "util/contrast.h"
#include "document/scenario_document.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>

#include <QAction>
#include <QDir>
#include <QHeaderView>
#include <QTableWidget>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace shardscope;
using ui::CalibrateDialog;
using ui::ScenarioDocument;

class TestCalibrateDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void fitsSavesAndUsesAProfile();
    void refusalsAreShown();
    void columnHeadersAreNotClipped();
    void noBlankBandBeforeAFit();
    void residualChartFollowsTheTheme();
    void mainWindowOffersItAndNamesTheProfile();
};

namespace {
/// What a cluster whose GEMMs run at 60% of MAMF (Megatron-Core's profile says 80%) measures for s.
double slowClusterTokens(const core::Scenario& s)
{
    core::Scenario t = s;
    t.profile.gemmEfficiency = 0.6;
    return core::predictedFigure(core::evaluate(t), core::Figure::TokensPerSecondPerGpu);
}
} // namespace

void TestCalibrateDialog::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QDir(CalibrateDialog::profileFolder()).removeRecursively();
}

void TestCalibrateDialog::fitsSavesAndUsesAProfile()
{
    ScenarioDocument doc(test::catalog());
    CalibrateDialog dialog(&doc);
    // Three runs: the default scenario (Llama 3 70B, 4 x 8 H100, ZeRO-3), then on 2 nodes, then with TP 2.
    std::vector<core::Scenario> runs;
    dialog.addCurrentScenario();
    runs.push_back(doc.scenario());
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 8; });
    QVERIFY(test::settle(doc));
    dialog.addCurrentScenario();
    runs.push_back(doc.scenario());
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 2; });
    QVERIFY(test::settle(doc));
    dialog.addCurrentScenario();
    runs.push_back(doc.scenario());
    QCOMPARE(dialog.runCount(), 3);
    QVERIFY(!dialog.residualChart()->legend->visible()); // no bars before Fit: no empty legend box
    for (int i = 0; i < 3; ++i)
        dialog.setMeasured(i, core::Figure::TokensPerSecondPerGpu, slowClusterTokens(runs[size_t(i)]));

    QVERIFY2(dialog.fit(), qPrintable(dialog.message()));
    const auto& fit = dialog.calibration();
    const auto gemm
        = std::find_if(fit.fitted.begin(), fit.fitted.end(), [](const auto& f) { return f.key == "gemm_efficiency"; });
    QVERIFY(gemm != fit.fitted.end());
    QVERIFY(std::abs(gemm->after - 0.6) < 1e-3);
    QVERIFY(dialog.message().contains(QStringLiteral("Fitted on 3 runs")));
    // The residuals chart: the default profile's error and the calibrated one's for each of the 3 figures.
    QCOMPARE(dialog.residualChart()->plottableCount(), 2);
    QVERIFY(dialog.residualChart()->legend->visible());
    QCOMPARE(dialog.residualChart()->plottable(0)->interface1D()->dataCount(), 3);
    QVERIFY(
        std::abs(dialog.residualChart()->plottable(0)->interface1D()->dataMainValue(0) - (0.8 / 0.6 - 1) * 100) < 15);
    // Each bar is named by run and figure in words, not by the runs file's key ("tokens_per_second_per_gpu").
    auto ticker = dialog.residualChart()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().value(1.0), QStringLiteral("run 1\ntokens/s"));
    for (const QString& label : ticker->ticks())
        QVERIFY2(!label.contains(QLatin1Char('_')), qPrintable(label));

    QVERIFY2(dialog.saveProfile(QStringLiteral("my-cluster")), qPrintable(dialog.message()));
    QVERIFY(QFileInfo::exists(QDir(CalibrateDialog::profileFolder()).filePath(QStringLiteral("my-cluster.json"))));

    const int steps = doc.undoStack()->count();
    QVERIFY2(dialog.useSavedProfile(QStringLiteral("my-cluster")), qPrintable(dialog.message()));
    QVERIFY(std::abs(doc.scenario().profile.gemmEfficiency - 0.6) < 1e-3);
    QCOMPARE(doc.scenario().profile.id, std::string("my-cluster"));
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    // The profile is saved with the scenario (`calibration`) and reopening restores it.
    const core::ScenarioParse reopened
        = core::parseScenario(core::scenarioToJson(doc.scenario(), test::catalog()), test::catalog());
    QVERIFY(reopened.ok());
    QVERIFY(reopened.scenario.profile == doc.scenario().profile);
    // The calibrated scenario predicts what the cluster measured.
    QVERIFY(test::settle(doc));
    QVERIFY(std::abs(doc.result().throughput.tokensPerSecondPerGpu / slowClusterTokens(runs[2]) - 1) < 1e-3);
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario().profile.gemmEfficiency, 0.8);
}

void TestCalibrateDialog::refusalsAreShown()
{
    ScenarioDocument doc(test::catalog());
    CalibrateDialog dialog(&doc);
    QVERIFY(!dialog.fit());
    QVERIFY(dialog.message().contains(QStringLiteral("No runs")));
    dialog.addCurrentScenario();
    QVERIFY(!dialog.fit()); // a run without a figure
    QVERIFY(dialog.message().contains(QStringLiteral("Run 1 has no measured figure")));
    dialog.setMeasured(0, core::Figure::TokensPerSecondPerGpu, 500);
    QVERIFY(!dialog.fit());
    QVERIFY2(dialog.message().contains(QStringLiteral("1 time measurement cannot fix a constant and check it")),
        qPrintable(dialog.message()));
    QVERIFY(!dialog.saveProfile(QStringLiteral("refused")));

    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("runs.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "shardscope.runs/1", "runs": [{"scenario": {"schema": "shardscope.scenario/1"},
        "measured": {"step_time": -2}}]})");
    f.close();
    QVERIFY(!dialog.importRunsFile(bad));
    QVERIFY2(dialog.message().contains(QStringLiteral("runs[0].measured.step_time: must be a number > 0")),
        qPrintable(dialog.message()));
    QCOMPARE(dialog.runCount(), 1);
}

void TestCalibrateDialog::columnHeadersAreNotClipped()
{
    // Issue 23 item 8: the figure columns' headers ("Allocated peak (GiB)") were clipped at the default width.
    ScenarioDocument doc(test::catalog());
    CalibrateDialog dialog(&doc);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* table = dialog.findChild<QTableWidget*>();
    QVERIFY(table);
    QHeaderView* header = table->horizontalHeader();
    for (int c = 1; c < table->columnCount(); ++c) {
        const QString text = table->horizontalHeaderItem(c)->text();
        QVERIFY2(header->sectionSize(c) >= QFontMetrics(header->font()).horizontalAdvance(text) + 8,
            qPrintable(QStringLiteral("%1: %2 px").arg(text).arg(header->sectionSize(c))));
    }
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        dialog.addCurrentScenario();
        QVERIFY(dialog.grab().save(dir + QStringLiteral("/calibrate-dialog.png")));
    }
}

void TestCalibrateDialog::noBlankBandBeforeAFit()
{
    // Issue 23's walkthrough at 1280 x 800: before a fit, two empty wrapped labels (for a message and the fitted
    // values) left a blank band between the buttons and the residuals chart. Empty, they take no room; a message (a refused
    // fit) shows there.
    ScenarioDocument doc(test::catalog());
    CalibrateDialog dialog(&doc);
    dialog.resize(1080, 640);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QPushButton* fitButton = nullptr;
    for (QPushButton* b : dialog.findChildren<QPushButton*>())
        if (b->text() == QStringLiteral("Fit"))
            fitButton = b;
    QVERIFY(fitButton);
    const auto gap = [&] {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        return dialog.residualChart()->y() - (fitButton->y() + fitButton->height());
    };
    const int spacing = dialog.layout()->spacing();
    qInfo("buttons to chart: %d px (layout spacing %d)", gap(), spacing);
    QVERIFY2(gap() <= spacing + 1, qPrintable(QString::number(gap())));
    QVERIFY(!dialog.fit()); // no runs: refused, and the dialog says so between the buttons and the chart
    QVERIFY(dialog.message().contains(QStringLiteral("No runs")));
    QVERIFY2(gap() > spacing + QFontMetrics(dialog.font()).height() / 2, qPrintable(QString::number(gap())));
}

void TestCalibrateDialog::residualChartFollowsTheTheme()
{
    // Issue 23 item 8: the residuals chart kept QCustomPlot's white background and black text under the dark palette,
    // and its bars took the palette's Mid and Highlight. Now it has the charts' colours in both themes: the background
    // is the palette's Base, the text its Text, and each series stands out from the background by at least 3:1 (WCAG
    // 2.1 SC 1.4.11, non-text contrast).
    ScenarioDocument doc(test::catalog());
    CalibrateDialog dialog(&doc);
    dialog.resize(900, 640);
    std::vector<core::Scenario> runs;
    dialog.addCurrentScenario();
    runs.push_back(doc.scenario());
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 8; });
    QVERIFY(test::settle(doc));
    dialog.addCurrentScenario();
    runs.push_back(doc.scenario());
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 2; });
    QVERIFY(test::settle(doc));
    dialog.addCurrentScenario();
    runs.push_back(doc.scenario());
    for (int i = 0; i < 3; ++i)
        dialog.setMeasured(i, core::Figure::TokensPerSecondPerGpu, slowClusterTokens(runs[size_t(i)]));
    QVERIFY2(dialog.fit(), qPrintable(dialog.message()));
    QCustomPlot* chart = dialog.residualChart();
    for (const bool dark : { true, false }) {
        const QPalette palette = dark ? ui::AppTheme::darkPalette() : ui::AppTheme::lightPalette();
        dialog.setPalette(palette); // the PaletteChange a theme switch sends
        const QColor base = palette.color(QPalette::Base);
        QCOMPARE(chart->toPixmap().toImage().pixelColor(2, 2), base);
        QCOMPARE(chart->xAxis->tickLabelColor(), palette.color(QPalette::Text));
        QCOMPARE(chart->yAxis->labelColor(), palette.color(QPalette::Text));
        QCOMPARE(chart->plottableCount(), 2);
        for (int i = 0; i < chart->plottableCount(); ++i) {
            const QColor fill = chart->plottable(i)->brush().color();
            QVERIFY2(ui::contrastRatio(fill, base) >= 3.0,
                qPrintable(
                    QStringLiteral("%1 on %2: %3").arg(fill.name(), base.name()).arg(ui::contrastRatio(fill, base))));
        }
        QVERIFY(chart->plottable(0)->brush().color() != chart->plottable(1)->brush().color());
        if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            chart->replot();
            QVERIFY(dialog.grab().save(dir + QStringLiteral("/calibrate-fit-%1.png").arg(dark ? u"dark" : u"light")));
        }
    }
}

void TestCalibrateDialog::mainWindowOffersItAndNamesTheProfile()
{
    QTemporaryDir dir;
    ui::AppSettings settings(dir.filePath(QStringLiteral("settings.ini")), nullptr);
    ui::MainWindow window(test::catalog(), &settings);
    QVERIFY(window.findChild<QAction*>(QStringLiteral("calibrateAction")));
    auto* label = window.statusBar()->findChild<QLabel*>(QStringLiteral("profileLabel"));
    QVERIFY(label);
    QCOMPARE(label->text(),
        QStringLiteral("Profile: ") + QString::fromStdString(window.document()->scenario().profile.name));
    core::FrameworkProfile mine = window.document()->scenario().profile;
    mine.name = "My cluster";
    window.document()->edit(QStringLiteral("profile"), QStringLiteral("training.framework"),
        [mine](core::Scenario& s) { s.profile = mine; });
    QVERIFY(test::settle(*window.document()));
    QCOMPARE(label->text(), QStringLiteral("Profile: My cluster"));
    mine.fit.runs = 4; // a calibrated profile says what it rests on
    window.document()->edit(QStringLiteral("profile"), QStringLiteral("training.framework"),
        [mine](core::Scenario& s) { s.profile = mine; });
    QVERIFY(test::settle(*window.document()));
    QCOMPARE(label->text(), QStringLiteral("Calibrated: My cluster, 4 runs"));
    window.document()->undoStack()->setClean();
}

QTEST_MAIN(TestCalibrateDialog)
#include "tst_calibrate_dialog.moc"
