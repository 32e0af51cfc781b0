// SPDX-License-Identifier: GPL-3.0-or-later
// The issue-4 views render exactly what the core computes: the search table holds every feasible layout of
// core::search, Apply is one undoable edit, sweep points equal evaluate(), the timeline ends at the step time,
// the rank map colours groups as core::groupsOf forms them, and the tabs live in the main window.
#include "settle.h"
#include "test_support.h"

#include "analysis/analysis_tabs.h"
#include "analysis/layout_text.h"
#include "analysis/rank_map_chart.h"
#include "analysis/rank_map_pane.h"
#include "analysis/search_pane.h"
#include "analysis/search_scatter.h"
#include "analysis/search_table_model.h"
#include "analysis/sizing_chart.h"
#include "analysis/sizing_pane.h"
#include "analysis/sizing_table_model.h"
#include "charts/axis_ticks.h"
#include "analysis/sweep_chart.h"
#include "analysis/sweep_pane.h"
#include "analysis/timeline_chart.h"
#include "analysis/timeline_pane.h"
#include "analysis/waterfall_chart.h"
#include "charts/qcp.h"
#include "document/scenario_document.h"
#include "explain/tooltips.h"
#include "main_window.h"
#include "settings/app_settings.h"
#include "util/contrast.h"
#include "util/units.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/rank_map.h>
#include <shardscope/core/scenario_json.h>
#include <shardscope/core/search.h>
#include <shardscope/core/sweep.h>
#include <shardscope/core/timeline.h>
#include <shardscope/core/waterfall.h>

#include <QAbstractItemModelTester>
#include <QDoubleSpinBox>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace shardscope;

namespace {
bool close(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max({ 1.0, std::abs(a), std::abs(b) });
}

/// Runs the pane's search and waits for it.
bool runSearch(ui::SearchPane& pane)
{
    QSignalSpy finished(&pane, &ui::SearchPane::finished);
    pane.run();
    return finished.wait(60000) && !pane.isRunning();
}

core::Scenario threeD()
{
    return test::loadScenario(QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json"));
}
} // namespace

class TestAnalysis : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { ui::Units::setByteUnit(ui::ByteUnit::GiB); }
    void searchFillsTableLikeCore();
    void searchTableModelIsConsistent();
    void searchTableSortsNumerically();
    void applyIsOneUndoableEdit();
    void scatterClickSelectsRow();
    void cancelEndsSearch();
    void searchMarksStaleResults();
    void searchOverlapEfficiencyIsASetting();
    void strategiesFilterStaysOpen();
    void whyNotThisLayout();
    void guaranteedFitSaysWhichEnd();
    void sweepPointsEqualEvaluate_data();
    void sweepPointsEqualEvaluate();
    void sweepMarksPointsThatDoNotFit();
    void sizingMatchesCore();
    void sizingTableModelIsConsistent();
    void sizingChartTitleFollowsTheMetric();
    void sizingLabelsNeverCollide();
    void timelineTotalEqualsStepTime_data();
    void timelineTotalEqualsStepTime();
    void timelineDrawsOnlyWhatIsVisible();
    void timelineZoomClampsToStep();
    void timelineOfTheLongestPipelineIsBounded();
    void rankMapColoursTpGroups();
    void rankMapShowsPlacementWarnings();
    void rankMapNamesExpertCollectives();
    void rankMapLimitsNodes();
    void rankMapIsBoundedAtTheLimits();
    void tabsInMainWindow();
};

void TestAnalysis::searchFillsTableLikeCore()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    QVERIFY(runSearch(pane));
    const core::SearchResult expected = core::search(doc.scenario(), pane.options());
    QVERIFY(expected.feasible > 0);
    QCOMPARE(qint64(pane.model()->rowCount()), expected.feasible);
    QCOMPARE(pane.lastFeasible(), expected.feasible);
    QCOMPARE(pane.lastEvaluated(), expected.evaluated);
    QCOMPARE(pane.scatter()->pointCount(), int(expected.feasible));
    QCOMPARE(pane.scatter()->paretoCount(), int(expected.pareto.size()));
    // Same order (deterministic for any thread count), same figures.
    for (int row : { 0, 1, int(expected.points.size()) / 2, int(expected.points.size()) - 1 }) {
        const core::SearchPoint& got = pane.model()->point(row);
        const core::SearchPoint& want = expected.points[size_t(row)];
        QCOMPARE(got.index, want.index);
        QCOMPARE(got.stepTime, want.stepTime);
        QCOMPARE(got.memory, want.memory);
    }
    // MFU per row equals evaluate() of that layout.
    for (int row : { 0, int(expected.points.size()) - 1 }) {
        const core::Result r = core::evaluate(core::applyLayout(doc.scenario(), pane.model()->point(row).layout));
        QVERIFY2(close(pane.model()->mfu(row), r.throughput.mfu, 1e-9),
            qPrintable(QStringLiteral("%1 vs %2").arg(pane.model()->mfu(row)).arg(r.throughput.mfu)));
    }
}

void TestAnalysis::searchTableModelIsConsistent()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    QAbstractItemModelTester tester(pane.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(runSearch(pane));
    QCOMPARE(pane.model()->columnCount(), int(ui::SearchTableModel::kColumns));
    for (int c = 0; c < ui::SearchTableModel::kColumns; ++c)
        QVERIFY(!pane.model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().isEmpty());
}

void TestAnalysis::searchTableSortsNumerically()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    QVERIFY(runSearch(pane));
    QSortFilterProxyModel* proxy = pane.proxy();
    proxy->sort(ui::SearchTableModel::Memory, Qt::AscendingOrder);
    double last = -1;
    for (int r = 0; r < proxy->rowCount(); ++r) {
        const double m = proxy->index(r, ui::SearchTableModel::Memory).data(ui::SearchTableModel::SortRole).toDouble();
        QVERIFY(m >= last);
        last = m;
    }
}

void TestAnalysis::applyIsOneUndoableEdit()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    pane.resize(1000, 700);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QVERIFY(runSearch(pane));
    const core::Scenario before = doc.scenario();
    const core::Result resultBefore = doc.result();
    const int undoBefore = doc.undoStack()->count();
    // The best layout differs from the (not fitting) default scenario.
    const int row = 0;
    const core::LayoutChoice layout = pane.model()->point(row).layout;
    pane.table()->selectRow(pane.proxy()->mapFromSource(pane.model()->index(row, 0)).row());
    QVERIFY(pane.applyButton()->isEnabled());
    QTest::mouseClick(pane.applyButton(), Qt::LeftButton);
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.undoStack()->count(), undoBefore + 1);
    QCOMPARE(doc.scenario(), core::applyLayout(before, layout));
    QVERIFY(doc.result().fits);
    QCOMPARE(doc.result().step.total(), pane.model()->point(row).stepTime);
    QVERIFY(!pane.isStale()); // applying a result keeps the search current
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario(), before);
    QCOMPARE(doc.result().memory.total(), resultBefore.memory.total());
    QCOMPARE(doc.undoStack()->index(), undoBefore);
    // A double-click applies too.
    const QModelIndex second = pane.proxy()->mapFromSource(pane.model()->index(5, ui::SearchTableModel::Strategy));
    pane.table()->scrollTo(second);
    const QRect cell = pane.table()->visualRect(second);
    QTest::mouseClick(
        pane.table()->viewport(), Qt::LeftButton, {}, cell.center()); // the press a real double-click starts with
    QTest::mouseDClick(pane.table()->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(doc.scenario(), core::applyLayout(before, pane.model()->point(5).layout));
}

void TestAnalysis::scatterClickSelectsRow()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    QVERIFY(runSearch(pane));
    emit pane.scatter()->pointClicked(7);
    const QModelIndex current = pane.table()->selectionModel()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(pane.proxy()->mapToSource(current).row(), 7);
    QCOMPARE(pane.scatter()->selectedPoint(), 7);
}

void TestAnalysis::searchOverlapEfficiencyIsASetting()
{
    // Issue 21 item 5: the overlap efficiency is 100% (the model's assumption) by default, kept in the settings when
    // changed, read back next time. The memory headroom is the scenario's (one "fits" in every view).
    QTemporaryDir dir;
    ui::ScenarioDocument doc(test::catalog());
    {
        ui::SearchPane pane(&doc);
        QCOMPARE(pane.options().overlapEfficiency, 1.0);
        ui::AppSettings settings(dir.filePath(QStringLiteral("s.ini")), nullptr);
        pane.setSettings(&settings);
        QCOMPARE(pane.options().overlapEfficiency, 1.0);
        auto* spin = pane.findChild<QDoubleSpinBox*>();
        QVERIFY(spin);
        spin->setValue(60);
        QCOMPARE(settings.searchOverlapEfficiency(), 0.60);
        QVERIFY(!pane.options().pessimistic); // "guaranteed to fit" is off until chosen, then kept too
        pane.findChild<QCheckBox*>(QStringLiteral("guaranteedFit"))->setChecked(true);
        QVERIFY(settings.searchGuaranteedFit());
    }
    ui::AppSettings again(dir.filePath(QStringLiteral("s.ini")), nullptr);
    ui::SearchPane pane(&doc);
    pane.setSettings(&again);
    QCOMPARE(pane.options().overlapEfficiency, 0.60);
    QVERIFY(pane.options().pessimistic);
    // The layouts of a search fit in the scenario's usable memory, 15% headroom here: the H100's driver-reported
    // 81559 MiB less the 1 GiB CUDA context less 15% of 81559 MiB.
    doc.edit(QStringLiteral("headroom 15%"), QStringLiteral("cluster.memory_headroom"),
        [](core::Scenario& s) { s.cluster.memoryHeadroom = 0.15; });
    QVERIFY(runSearch(pane));
    QVERIFY(pane.model()->rowCount() > 0);
    const double usable = 81559.0 * 1048576 - 1073741824.0 - 0.15 * 81559.0 * 1048576;
    for (int row = 0; row < pane.model()->rowCount(); ++row)
        QVERIFY(pane.model()->point(row).memory <= usable);
}

void TestAnalysis::strategiesFilterStaysOpen()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QMenu* menu = pane.strategiesMenu();
    menu->popup(pane.mapToGlobal(QPoint(10, 10)));
    QVERIFY(QTest::qWaitForWindowExposed(menu));
    const QList<QAction*> actions = menu->actions();
    QCOMPARE(actions.size(), 7);
    // Two clicks uncheck two strategies; the menu stays open for the next.
    for (int i : { 0, 2 }) {
        QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(actions[i]).center());
        QVERIFY(menu->isVisible());
        QVERIFY(!actions[i]->isChecked());
    }
    // The keyboard too: Space on the active entry toggles it.
    menu->setActiveAction(actions[2]);
    QTest::keyClick(menu, Qt::Key_Space);
    QVERIFY(menu->isVisible());
    QVERIFY(actions[2]->isChecked());
    QCOMPARE(int(pane.options().shardings.size()), 6); // DDP unchecked
    QTest::keyClick(menu, Qt::Key_Escape);
    QVERIFY(!menu->isVisible());
}

void TestAnalysis::whyNotThisLayout()
{
    // "Why not this layout?": the waterfall walks from the best row (#1) to the chosen one with core::buildWaterfall.
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    QVERIFY(runSearch(pane));
    QVERIFY(pane.model()->rowCount() > 4);
    pane.table()->selectRow(pane.proxy()->mapFromSource(pane.model()->index(0, 0)).row());
    QVERIFY(!pane.whyNotButton()->isEnabled()); // nothing to explain about the best
    const int row = 4;
    pane.table()->selectRow(pane.proxy()->mapFromSource(pane.model()->index(row, 0)).row());
    QVERIFY(pane.whyNotButton()->isEnabled());
    QTest::mouseClick(pane.whyNotButton(), Qt::LeftButton);
    ui::WaterfallChart* chart = pane.whyNotChart();
    QVERIFY(chart && chart->isVisible());
    const core::Waterfall w = core::buildWaterfall(core::applyLayout(doc.scenario(), pane.model()->point(0).layout),
        core::applyLayout(doc.scenario(), pane.model()->point(row).layout));
    QVERIFY(w.ok && !w.steps.empty());
    QCOMPARE(chart->rowCount(), int(w.steps.size()) + 2); // A, each step, B
    QVERIFY(close(w.stepTimeA, pane.model()->point(0).stepTime));
    QVERIFY(close(w.stepTimeB, pane.model()->point(row).stepTime));
    QVERIFY(pane.whyNotChart()->window()->windowTitle().contains(QStringLiteral("#5")));
    pane.whyNotChart()->window()->close();
}

void TestAnalysis::guaranteedFitSaysWhichEnd()
{
    // Issue 21 item 4: with "guaranteed to fit" and an overlap efficiency below 100%, the table's headers, the
    // scatter's axes and the "why not" waterfall say which figures they show, and the waterfall ends at the table's.
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    auto* guaranteed = pane.findChild<QCheckBox*>(QStringLiteral("guaranteedFit"));
    QVERIFY(guaranteed);
    guaranteed->setChecked(true);
    pane.findChild<QDoubleSpinBox*>()->setValue(60);
    QVERIFY(runSearch(pane));
    QVERIFY(pane.model()->rowCount() > 4);
    const auto header
        = [&](int column) { return pane.model()->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(); };
    QCOMPARE(header(ui::SearchTableModel::StepTime), QStringLiteral("Step time (slow end, η 60 %)"));
    QCOMPARE(header(ui::SearchTableModel::TokensPerSecond), QStringLiteral("Tokens/s (slow end, η 60 %)"));
    QCOMPARE(header(ui::SearchTableModel::Memory), QStringLiteral("Memory/GPU (top of range)"));
    QCOMPARE(header(ui::SearchTableModel::Gpus), QStringLiteral("GPUs"));
    QVERIFY2(pane.scatter()->plot()->xAxis->label().startsWith(QStringLiteral("step time, slow end, η 60 % (")),
        qPrintable(pane.scatter()->plot()->xAxis->label()));
    QCOMPARE(pane.scatter()->title(),
        QStringLiteral("Feasible layouts: step time (slow end, η 60 %) against memory per GPU (top of range)"));

    const int row = 4;
    pane.table()->selectRow(pane.proxy()->mapFromSource(pane.model()->index(row, 0)).row());
    QTest::mouseClick(pane.whyNotButton(), Qt::LeftButton);
    ui::WaterfallChart* chart = pane.whyNotChart();
    QVERIFY(chart && chart->isVisible());
    const core::Waterfall w = core::buildWaterfall(core::applyLayout(doc.scenario(), pane.model()->point(0).layout),
        core::applyLayout(doc.scenario(), pane.model()->point(row).layout), pane.options());
    QVERIFY(w.ok && !w.steps.empty());
    QVERIFY(close(w.stepTimeA, pane.model()->point(0).stepTime));
    QVERIFY(close(w.stepTimeB, pane.model()->point(row).stepTime));
    QVERIFY(close(w.memoryB, pane.model()->point(row).memory));
    QStringList titles;
    for (QCPAxisRect* rect : chart->plot()->axisRects())
        titles << rect->axis(QCPAxis::atBottom)->label();
    QVERIFY2(titles.size() == 2 && titles[0].startsWith(QStringLiteral("memory per GPU, top of range ("))
            && titles[1].startsWith(QStringLiteral("step time, slow end, η 60 % (")),
        qPrintable(titles.join(QStringLiteral(" | "))));
    chart->window()->close();
}

void TestAnalysis::cancelEndsSearch()
{
    ui::ScenarioDocument doc(test::catalog());
    doc.reset(test::loadScenario(QStringLiteral("resources/scenarios/3d-llama3.1-405b-h100.shardscope.json")), {});
    QVERIFY(test::settle(doc));
    ui::SearchPane pane(&doc);
    QSignalSpy finished(&pane, &ui::SearchPane::finished);
    pane.run();
    QVERIFY(pane.isRunning());
    pane.cancel();
    QVERIFY(finished.wait(60000));
    QVERIFY(!pane.isRunning());
    // Partial or complete, the table holds exactly what the search reported.
    QCOMPARE(qint64(pane.model()->rowCount()), pane.lastFeasible());
}

void TestAnalysis::searchMarksStaleResults()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SearchPane pane(&doc);
    QVERIFY(runSearch(pane));
    QVERIFY(!pane.isStale());
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 2; });
    QVERIFY(test::settle(doc));
    QVERIFY(!pane.isStale()); // the search varies TP itself
    doc.edit(
        QStringLiteral("seq"), QStringLiteral("training.seq_len"), [](core::Scenario& s) { s.training.seqLen = 4096; });
    QVERIFY(test::settle(doc));
    QVERIFY(pane.isStale());
}

void TestAnalysis::sweepPointsEqualEvaluate_data()
{
    QTest::addColumn<int>("axis");
    QTest::addColumn<int>("strategy");
    QTest::newRow("gpus, ZeRO-3") << int(core::SweepAxis::Gpus) << 3;
    QTest::newRow("tp, ZeRO-1") << int(core::SweepAxis::Tp) << 1;
    QTest::newRow("model size, ZeRO-3 + full recompute") << int(core::SweepAxis::ModelSize) << 4;
    QTest::newRow("sequence length, DDP") << int(core::SweepAxis::SeqLen) << 0;
}

void TestAnalysis::sweepPointsEqualEvaluate()
{
    QFETCH(int, axis);
    QFETCH(int, strategy);
    ui::ScenarioDocument doc(test::catalog());
    ui::SweepPane pane(&doc);
    pane.setAxis(core::SweepAxis(axis));
    pane.refresh();
    const core::StrategyLadder& strategies = core::sweepStrategies();
    QCOMPARE(pane.curves().size(), strategies.size());
    QVERIFY(!pane.values().empty());
    int checked = 0;
    for (size_t i = 0; i < pane.values().size(); ++i) {
        const core::Scenario s = core::applyAxis(core::withStrategy(doc.scenario(), strategies[size_t(strategy)]),
            core::SweepAxis(axis), pane.values()[i], test::catalog());
        const core::Result r = core::evaluate(s);
        const double memory = pane.chart(0)->plotted(strategy, int(i));
        if (!r.valid) {
            QVERIFY(std::isnan(memory));
            continue;
        }
        QVERIFY(close(memory, r.memory.total() / pane.chart(0)->unitDivisor()));
        QVERIFY(close(pane.chart(1)->plotted(strategy, int(i)), r.step.total() / pane.chart(1)->unitDivisor()));
        QVERIFY(close(pane.chart(2)->plotted(strategy, int(i)), r.throughput.mfu * 100));
        QVERIFY(close(pane.chart(3)->plotted(strategy, int(i)), r.totalCommBytes / pane.chart(3)->unitDivisor()));
        QCOMPARE(pane.curves()[size_t(strategy)].points[i].fits, r.fits);
        ++checked;
    }
    QVERIFY(checked > 0);
    QCOMPARE(pane.chart(0)->unitDivisor(), 1073741824.0);
}

void TestAnalysis::sweepMarksPointsThatDoNotFit()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SweepPane pane(&doc);
    pane.setAxis(core::SweepAxis::Gpus);
    pane.refresh();
    // DDP of a 70B model never fits in 80 GB; ZeRO-3 with full recompute does from some GPU count on.
    bool anyHollow = false, anySolid = false;
    for (const auto& p : pane.curves()[0].points)
        anyHollow = anyHollow || (p.valid && !p.fits);
    for (const auto& p : pane.curves()[4].points)
        anySolid = anySolid || (p.valid && p.fits);
    QVERIFY(anyHollow);
    QVERIFY(anySolid);
    // Every graph of the memory chart: fitting points on solid series, the others on hollow/dashed ones.
    QVERIFY(pane.chart(0)->plot()->graphCount() >= 3 * int(pane.curves().size()));
}

void TestAnalysis::sizingMatchesCore()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::SizingPane pane(&doc);
    pane.setCheckedGpus({ "h100-sxm5-80gb", "mi300x" });
    pane.refresh();
    std::vector<const core::GpuSpec*> gpus { test::catalog().gpu("h100-sxm5-80gb"), test::catalog().gpu("mi300x") };
    const auto expected = core::sizeCluster(doc.scenario(), gpus, core::sweepStrategies(), pane.tokens());
    QCOMPARE(pane.model()->rowCount(), int(expected.size()));
    QCOMPARE(pane.chart()->gpuCount(), 2);
    const size_t n = core::sweepStrategies().size();
    for (size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(pane.model()->rows()[i].minGpus, expected[i].minGpus);
        QCOMPARE(pane.chart()->value(int(i / n), int(i % n)), double(expected[i].minGpus));
    }
    // Issue 23 item 9: train time, cost and tokens/s in the one format of every pane (util/units.h).
    using Model = ui::SizingTableModel;
    int fitting = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        if (expected[i].minGpus <= 0)
            continue;
        ++fitting;
        const auto cell = [&](int column) { return pane.model()->index(int(i), column).data().toString(); };
        QCOMPARE(cell(Model::TrainDays), ui::Units::days(expected[i].trainSeconds));
        QCOMPARE(cell(Model::Cost), ui::Units::dollars(expected[i].trainCostUsd));
        QCOMPARE(cell(Model::TokensPerSecond), ui::Units::tokensPerSecond(expected[i].tokensPerSecond));
    }
    QVERIFY(fitting > 0);
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        pane.resize(1000, 700);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        for (const auto metric : { ui::SizingChart::Metric::TrainDays, ui::SizingChart::Metric::Cost }) {
            pane.chart()->setRows(pane.model()->rows(), metric);
            pane.chart()->replotNow();
            QVERIFY(pane.grab().save(dir + QStringLiteral("/sizing-%1.png").arg(int(metric))));
        }
    }
}

void TestAnalysis::sizingChartTitleFollowsTheMetric()
{
    // The chart says what its bars are: the title changes with the metric, as the value axis does.
    ui::ScenarioDocument doc(test::catalog());
    ui::SizingPane pane(&doc);
    pane.setCheckedGpus({ "h100-sxm5-80gb" });
    pane.refresh();
    const std::vector<core::SizingRow> rows = pane.model()->rows();
    ui::SizingChart chart;
    chart.setRows(rows, ui::SizingChart::Metric::MinGpus);
    QCOMPARE(chart.title(), QStringLiteral("Minimum GPUs by strategy and GPU type"));
    chart.setRows(rows, ui::SizingChart::Metric::TrainDays);
    QCOMPARE(chart.title(), QStringLiteral("Days to train the token budget by strategy and GPU type"));
    QCOMPARE(chart.plot()->yAxis->label(), QStringLiteral("days to train the token budget"));
    chart.setRows(rows, ui::SizingChart::Metric::Cost);
    QCOMPARE(chart.title(), QStringLiteral("Cost of the training run by strategy and GPU type"));
}

void TestAnalysis::sizingLabelsNeverCollide()
{
    // Issue 23's walkthrough: with four GPU types the bars' value labels ran into each other and over their
    // neighbours' bars. Four GPU types by six strategies, with counts, days and costs whose labels are wider than a
    // bar ("4,096", "1,234", "$12.3M"), in a narrow and a wide chart: every label drawn lies inside the plot and
    // clear of every other label and every other bar; a label left out still has its figure in the bar's tooltip;
    // in the wide chart a level or upright label fits every bar.
    const char* gpus[] = { "h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb", "mi300x" };
    const core::StrategyLadder& strategies = core::sweepStrategies();
    std::vector<core::SizingRow> rows;
    for (int g = 0; g < 4; ++g)
        for (size_t s = 0; s < strategies.size(); ++s) {
            core::SizingRow r;
            r.gpuId = gpus[g];
            r.gpuName = test::catalog().gpu(gpus[g])->name;
            r.strategy = strategies[s].label;
            const bool fits = !(s == 0 && g < 2); // a few "✕" among them
            r.minGpus = fits ? (s % 2 ? 4096 : 8 << g) : 0;
            r.stepTime = 10;
            r.tokensPerSecond = 1e6;
            r.trainSeconds = (s % 3 ? 1234.4 : 12.5) * 86400;
            r.trainCostUsd = s % 2 ? 12.3e6 : 95.5e3 * (g + 1);
            rows.push_back(r);
        }
    ui::SizingChart chart;
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    for (const auto metric :
        { ui::SizingChart::Metric::MinGpus, ui::SizingChart::Metric::TrainDays, ui::SizingChart::Metric::Cost }) {
        chart.setRows(rows, metric);
        for (const QSize size : { QSize(420, 320), QSize(640, 360), QSize(1600, 500) }) {
            chart.resize(size);
            QCoreApplication::sendPostedEvents();
            chart.replotNow();
            const QRectF area = chart.plot()->axisRect()->rect();
            QCOMPARE(chart.labelCount(), 24);
            int drawn = 0;
            for (int i = 0; i < chart.labelCount(); ++i) {
                const QRectF label = chart.labelRect(i);
                const QString at
                    = QStringLiteral("metric %1, %2 px, label %3").arg(int(metric)).arg(size.width()).arg(i);
                if (label.isEmpty()) {
                    const QPointF centre = chart.barRect(i).center() + QPointF(0, -1);
                    QVERIFY2(
                        !chart.toolTipAt(centre.toPoint()).isEmpty() || chart.barRect(i).height() < 2, qPrintable(at));
                    continue;
                }
                ++drawn;
                QVERIFY2(area.contains(label), qPrintable(at));
                for (int j = 0; j < chart.labelCount(); ++j) {
                    if (j == i)
                        continue;
                    QVERIFY2(!label.intersects(chart.labelRect(j)),
                        qPrintable(at + QStringLiteral(" meets label %1").arg(j)));
                    QVERIFY2(
                        !label.intersects(chart.barRect(j)), qPrintable(at + QStringLiteral(" meets bar %1").arg(j)));
                }
            }
            qInfo("metric %d at %d x %d: %d of 24 labels drawn", int(metric), size.width(), size.height(), drawn);
            if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
                QVERIFY(chart.grab().save(
                    dir + QStringLiteral("/sizing-labels-%1-%2.png").arg(int(metric)).arg(size.width())));
            QVERIFY(drawn > 0);
            if (size.width() >= 1600)
                QCOMPARE(drawn, 24);
            // Every strategy keeps its name under its group from the width the tab has in a 1280 x 800 window (the
            // second, fourth and sixth names were dropped there: "+ full recompute" was wider than a group).
            if (size.width() >= 640) {
                int names = 0;
                for (const ui::DrawnTickLabel& t : ui::drawnTickLabels(chart.plot()->xAxis))
                    names += t.text.startsWith(QLatin1Char('+')) ? 0 : 1; // the first line of each name
                QCOMPARE(names, int(strategies.size()));
            }
        }
    }
}

void TestAnalysis::sizingTableModelIsConsistent()
{
    // Issue 22: the sizing table model under QAbstractItemModelTester, as the search one: through a refresh, a change
    // of the GPUs compared (rows come and go) and a change of the byte unit.
    ui::ScenarioDocument doc(test::catalog());
    ui::SizingPane pane(&doc);
    QAbstractItemModelTester tester(pane.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    pane.setCheckedGpus({ "h100-sxm5-80gb", "mi300x" });
    pane.refresh();
    const int two = pane.model()->rowCount();
    QVERIFY(two > 0);
    pane.setCheckedGpus({ "h100-sxm5-80gb" });
    pane.refresh();
    QCOMPARE(pane.model()->rowCount(), two / 2);
    ui::Units::setByteUnit(ui::ByteUnit::GB);
    pane.refresh();
    ui::Units::setByteUnit(ui::ByteUnit::GiB);
    for (int c = 0; c < pane.model()->columnCount(); ++c)
        QVERIFY(!pane.model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().isEmpty());
}

void TestAnalysis::timelineTotalEqualsStepTime_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("schedule"); // -1: as in the file
    QTest::newRow("default (no pipeline)") << QStringLiteral("resources/scenarios/default.shardscope.json") << -1;
    QTest::newRow("interleaved") << QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json") << -1;
    QTest::newRow("1f1b") << QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json")
                          << int(core::PpSchedule::OneFOneB);
    QTest::newRow("gpipe") << QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json")
                           << int(core::PpSchedule::GPipe);
    QTest::newRow("zero bubble") << QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json")
                                 << int(core::PpSchedule::ZeroBubble);
    QTest::newRow("moe") << QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json") << -1;
    QTest::newRow("offload") << QStringLiteral("resources/scenarios/offload-llama3-8b-cpu.shardscope.json") << -1;
}

void TestAnalysis::timelineTotalEqualsStepTime()
{
    QFETCH(QString, file);
    QFETCH(int, schedule);
    core::Scenario s = test::loadScenario(file);
    if (schedule >= 0) {
        s.parallelism.schedule = core::PpSchedule(schedule);
        s.parallelism.virtualStages = 1;
    }
    ui::ScenarioDocument doc(test::catalog());
    doc.reset(s, {});
    QVERIFY(test::settle(doc));
    QVERIFY(doc.result().valid);
    ui::TimelinePane pane(&doc);
    pane.resize(1000, 600);
    pane.refresh();
    ui::TimelineChart* chart = pane.chart();
    QVERIFY(chart->blockCount() > 0);
    // The chart ends where core::buildTimeline ends, and that is the step time. Zero bubble is the exception the
    // core documents (tst_timeline): its greedy ZB-H1 simulation is within 5 % of the bubble formula.
    const double tolerance
        = s.parallelism.pp > 1 && s.parallelism.schedule == core::PpSchedule::ZeroBubble ? 0.05 : 1e-9;
    QVERIFY(close(chart->total(), chart->timeline().total, 1e-12));
    QVERIFY2(close(chart->total(), doc.result().step.total(), tolerance),
        qPrintable(QStringLiteral("%1 vs %2").arg(chart->total()).arg(doc.result().step.total())));
    QCOMPARE(chart->timeline().stages, doc.result().pp);
    QVERIFY(chart->toolTipAt(QPoint(-10, -10)).size() > 0);
    // The summary wraps only between its items: "bubble 2.38 s (17.5 %)" was cut after "2.38".
    const QStringList items = pane.summary().split(QStringLiteral(" · "));
    QVERIFY(items.size() >= 4);
    for (const QString& item : items)
        QVERIFY2(!item.contains(QLatin1Char(' ')), qPrintable(item));
}

void TestAnalysis::timelineDrawsOnlyWhatIsVisible()
{
    // A long schedule: 8 stages, 1024 micro-batches, 3 virtual chunks: tens of thousands of blocks.
    core::Scenario s = threeD();
    s.training.globalBatch = 1024;
    ui::ScenarioDocument doc(test::catalog());
    doc.reset(s, {});
    QVERIFY(test::settle(doc));
    QVERIFY(doc.result().valid);
    ui::TimelineChart chart;
    chart.resize(900, 600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setResult(doc.scenario(), doc.result());
    QVERIFY(chart.blockCount() > 40000);
    chart.replotNow();
    // Blocks under a pixel merge: at most a few rectangles per pixel column per lane.
    const int lanes = 2 * doc.result().pp;
    QVERIFY2(chart.paintedCount() < lanes * chart.plot()->width(), qPrintable(QString::number(chart.paintedCount())));
    QVERIFY(chart.paintedCount() > 0);
    // Zoomed into 1 % of the step, only the blocks there are drawn.
    const double total = chart.total();
    chart.setVisibleRange(total * 0.5, total * 0.51);
    chart.replotNow();
    QVERIFY(chart.paintedCount() > 0);
    QVERIFY(chart.paintedCount() < chart.blockCount() / 20);
}

void TestAnalysis::timelineZoomClampsToStep()
{
    ui::ScenarioDocument doc(test::catalog());
    doc.reset(threeD(), {});
    QVERIFY(test::settle(doc));
    ui::TimelineChart chart;
    chart.setResult(doc.scenario(), doc.result());
    const double total = chart.total();
    chart.setVisibleRange(-5 * total, 5 * total);
    auto [from, to] = chart.visibleRange();
    QVERIFY(from >= -0.02 * total && to <= 1.02 * total);
    chart.setVisibleRange(0.2 * total, 0.3 * total);
    std::tie(from, to) = chart.visibleRange();
    QVERIFY(close(from, 0.2 * total, 1e-6) && close(to, 0.3 * total, 1e-6));
    chart.resetZoom();
    std::tie(from, to) = chart.visibleRange();
    QVERIFY(from <= 0 && to >= total);
}

void TestAnalysis::timelineOfTheLongestPipelineIsBounded()
{
    // Issue 23: 1,024 stages × 65,536 micro-batches aborted the window with std::bad_alloc. The pane shows the
    // bounded timeline: it still ends at the step time, says how many micro-batches it draws, and the grey
    // steady-state block explains itself.
    core::Scenario s = threeD();
    core::ModelSpec& m = s.model;
    m = core::ModelSpec {};
    m.name = "1,024-layer test model";
    m.layers = 1024;
    m.hidden = 1024;
    m.heads = 16;
    m.kvHeads = 16;
    m.ffnHidden = 4096;
    m.vocab = 51200;
    s.cluster.nodes = 128;
    s.cluster.gpusPerNode = 8;
    s.parallelism.tp = 1;
    s.parallelism.pp = 1024;
    s.parallelism.cp = 1;
    s.parallelism.ep = 1;
    s.parallelism.sequenceParallel = false;
    s.parallelism.schedule = core::PpSchedule::OneFOneB;
    s.parallelism.virtualStages = 1;
    s.training.microBatch = 1;
    s.training.globalBatch = 65536;
    ui::ScenarioDocument doc(test::catalog());
    doc.reset(s, {});
    QVERIFY(test::settle(doc));
    QVERIFY2(doc.result().valid, doc.result().issues.empty() ? "" : doc.result().issues.front().message.c_str());
    ui::TimelinePane pane(&doc);
    pane.resize(1000, 600);
    pane.refresh();
    ui::TimelineChart* chart = pane.chart();
    const core::Timeline& t = chart->timeline();
    QVERIFY(t.microBatchesDrawn > 0 && t.microBatchesDrawn < 65536);
    QVERIFY2(chart->blockCount() <= 2 * 200'000, qPrintable(QString::number(chart->blockCount())));
    QVERIFY(close(chart->total(), doc.result().step.total(), 1e-9));
    QString shown = QStringLiteral("showing %1 of %2 micro-batches")
                        .arg(ui::groupedInt(t.microBatchesDrawn), ui::groupedInt(65536));
    shown.replace(QLatin1Char(' '), QChar::Nbsp);
    QVERIFY2(pane.summary().contains(shown), qPrintable(pane.summary()));
    int elided = -1;
    for (size_t i = 0; i < t.blocks.size() && elided < 0; ++i)
        if (t.blocks[i].kind == core::BlockKind::Elided && t.blocks[i].stage == 0)
            elided = int(i);
    QVERIFY(elided >= 0);
}

void TestAnalysis::rankMapColoursTpGroups()
{
    core::Scenario s = core::defaultScenario(test::catalog());
    s.cluster.nodes = 2;
    s.parallelism.tp = 4;
    s.parallelism.pp = 2;
    const core::Result r = core::evaluate(s);
    QVERIFY(r.valid);
    ui::RankMapChart chart;
    chart.setScenario(s, r, core::Group::Tp, 16);
    QCOMPARE(chart.cellCount(), 16);
    for (int a = 0; a < 16; ++a) {
        std::vector<int> members;
        for (const auto& g : core::groupsOf(s, a))
            if (g.group == core::Group::Tp)
                members = g.members;
        QCOMPARE(int(members.size()), 4);
        for (int b = 0; b < 16; ++b) {
            const bool same = std::find(members.begin(), members.end(), b) != members.end();
            QCOMPARE(chart.cellColor(a) == chart.cellColor(b), same);
            QCOMPARE(chart.cellGroup(a) == chart.cellGroup(b), same);
        }
    }
    // Rank numbers readable on every cell: black or white text on any colour reaches 4.58:1 (WCAG 2.1), where the
    // two ratios meet at luminance 0.179; with the near-black #101010 used here, 4.36:1. Mint and amber cells had
    // white text at 1.6:1 and 2.3:1.
    for (int a = 0; a < 16; ++a)
        QVERIFY2(ui::contrastRatio(chart.cellColor(a), chart.cellTextColor(a)) >= 4.3,
            qPrintable(chart.cellColor(a).name() + QStringLiteral(" / ") + chart.cellTextColor(a).name()));
    QCOMPARE(ui::contrastRatio(Qt::white, Qt::black), 21.0);
    QVERIFY(qAbs(ui::contrastRatio(QColor(0x00, 0x9E, 0x73), Qt::white) - 3.42) < 0.01); // L = 0.2569: 1.05 / 0.3069
    // Megatron order: TP fastest, so ranks 0-3 form the first group.
    QCOMPARE(chart.cellColor(0), chart.cellColor(3));
    QVERIFY(chart.cellColor(3) != chart.cellColor(4));
    // The same map by PP: ranks 0 and 8 are the two stages of one pipeline.
    chart.setScenario(s, r, core::Group::Pp, 16);
    QCOMPARE(chart.cellColor(0), chart.cellColor(8));
    QVERIFY(chart.cellColor(0) != chart.cellColor(1));
    QVERIFY(chart.toolTipAt(QPoint(-1, -1)).size() > 0);
}

void TestAnalysis::rankMapNamesExpertCollectives()
{
    // Mixtral 8x22B with EP: the expert data-parallel group lists the experts' gradient and weight collectives (it
    // said "—"), the DP row the dense ones; the communication chart names them "expert DP" likewise.
    ui::ScenarioDocument doc(test::catalog());
    doc.reset(test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json")), {});
    QVERIFY(test::settle(doc));
    QVERIFY(doc.result().valid && doc.scenario().parallelism.ep > 1);
    int experts = 0;
    for (const core::Collective& c : doc.result().collectives)
        if (c.expertDataParallel) {
            ++experts;
            QCOMPARE(c.group, core::Group::Dp);
            QVERIFY(QString::fromLatin1(c.purpose).startsWith(QStringLiteral("expert ")));
            QVERIFY(ui::collectiveLabel(c).startsWith(QStringLiteral("expert DP ")));
        }
    QVERIFY(experts > 0);
    ui::RankMapPane pane(&doc);
    pane.refresh();
    QString expertRow, dpRow;
    for (int row = 0; row < pane.groupsTable()->rowCount(); ++row) {
        const QString group = pane.groupsTable()->item(row, 0)->text();
        if (group == QStringLiteral("expert DP"))
            expertRow = pane.groupsTable()->item(row, 5)->text();
        else if (group == QStringLiteral("DP"))
            dpRow = pane.groupsTable()->item(row, 5)->text();
    }
    QVERIFY2(expertRow.contains(QStringLiteral("expert DP")), qPrintable(expertRow));
    QVERIFY2(!dpRow.contains(QStringLiteral("expert")), qPrintable(dpRow));
}

void TestAnalysis::rankMapShowsPlacementWarnings()
{
    ui::ScenarioDocument doc(test::catalog());
    ui::RankMapPane pane(&doc);
    pane.refresh();
    QVERIFY(!pane.warningsText().contains(QStringLiteral("⚠")));
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 16; });
    QVERIFY(test::settle(doc));
    QVERIFY(doc.result().valid);
    QVERIFY(!core::placementWarnings(doc.scenario()).empty());
    pane.refresh();
    QVERIFY(pane.warningsText().contains(QStringLiteral("⚠")));
    // The TP row of the groups table says it crosses nodes.
    bool found = false;
    for (int row = 0; row < pane.groupsTable()->rowCount(); ++row)
        if (pane.groupsTable()->item(row, 0)->text() == QStringLiteral("TP"))
            found = pane.groupsTable()->item(row, 4)->text() == QStringLiteral("inter-node");
    QVERIFY(found);
}

void TestAnalysis::rankMapLimitsNodes()
{
    core::Scenario s = test::loadScenario(QStringLiteral("resources/scenarios/3d-llama3.1-405b-h100.shardscope.json"));
    const core::Result r = core::evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(s.cluster.nodes > 16);
    ui::RankMapChart chart;
    chart.setScenario(s, r, core::Group::Dp, 16);
    QCOMPARE(chart.nodesShown(), 16);
    QCOMPARE(chart.cellCount(), 16 * s.cluster.gpusPerNode);
}

void TestAnalysis::rankMapIsBoundedAtTheLimits()
{
    // About 10^7 GPUs (9,765 nodes of 1,024; issue 12: 24 s and 5 GB on the UI thread): the map draws at most
    // kMaxCells GPUs and says how many of how many; the groups table and a rank's tooltip know a DP group of 312,480
    // ranks without listing it.
    ui::ScenarioDocument doc(test::catalog());
    doc.edit(QStringLiteral("huge"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) {
        s.cluster.nodes = 9765;
        s.cluster.gpusPerNode = 1024;
        s.parallelism.tp = 8;
        s.parallelism.pp = 4;
        s.training.globalBatch = int64_t(s.cluster.gpus()) / 32 * 4;
    });
    QVERIFY(doc.result().valid);
    ui::RankMapPane pane(&doc);
    pane.findChild<QSpinBox*>()->setValue(512);
    pane.refresh();
    QCOMPARE(pane.chart()->cellCount(), ui::RankMapChart::kMaxCells);
    QCOMPARE(pane.chart()->nodesShown(), ui::RankMapChart::kMaxCells / 1024);
    QVERIFY2(pane.noteText().contains(QStringLiteral("Showing 4 of %1 nodes").arg(QLocale().toString(9765))),
        qPrintable(pane.noteText()));
    QVERIFY2(pane.noteText().contains(QStringLiteral("At most %1 GPUs").arg(QLocale().toString(4096))),
        qPrintable(pane.noteText()));
    const QString dpSize = QString::number(9765 * 1024 / 32);
    bool found = false;
    for (int row = 0; row < pane.groupsTable()->rowCount(); ++row)
        if (pane.groupsTable()->item(row, 0)->text() == QStringLiteral("DP"))
            found = pane.groupsTable()->item(row, 1)->text() == dpSize;
    QVERIFY(found);
    const QString tip = pane.chart()->rankToolTip(4095);
    QVERIFY2(tip.contains(QStringLiteral("… (%1)").arg(dpSize)), qPrintable(tip));
    QVERIFY(pane.chart()->rankToolTip(9765 * 1024).isEmpty()); // no such rank
}

void TestAnalysis::tabsInMainWindow()
{
    QTemporaryDir dir;
    ui::AppSettings settings(dir.filePath(QStringLiteral("settings.ini")), nullptr);
    ui::MainWindow window(test::catalog(), &settings);
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ui::AnalysisTabs* tabs = window.analysis();
    QVERIFY(tabs);
    QCOMPARE(tabs->count(), 6);
    QCOMPARE(tabs->currentIndex(), 0);
    // Showing the search tab starts a search on the open scenario.
    QSignalSpy finished(tabs->search(), &ui::SearchPane::finished);
    QVERIFY(tabs->showTab(QStringLiteral("search")));
    QVERIFY(finished.wait(60000));
    QVERIFY(tabs->search()->model()->rowCount() > 0);
    for (const char* id : { "sweep", "sizing", "timeline", "rankmap", "explorer" }) {
        QVERIFY(tabs->showTab(QString::fromLatin1(id)));
        QCoreApplication::processEvents();
        window.replotAllNow(); // every shown chart drawn and painted at once
    }
    QVERIFY(!tabs->showTab(QStringLiteral("nope")));
    // The window keeps fitting 1280 pixels with every tab.
    QVERIFY(window.minimumSizeHint().width() <= 1280);
    window.document()->undoStack()->setClean();
}

QTEST_MAIN(TestAnalysis)
#include "tst_analysis.moc"
