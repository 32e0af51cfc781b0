// SPDX-License-Identifier: GPL-3.0-or-later
// Charts render exactly the Result they are given (in the display unit), mark the excess, explain every
// element in its tooltip and survive invalid results.
#include "test_support.h"

#include "charts/capacity_marks.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/memory_stack.h"
#include "charts/qcp.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "document/strategy_comparison.h"
#include "util/units.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>

#include <QTest>

using namespace shardscope;

namespace {
double stackedAt(QCPBars* bars, double key)
{
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
        if (qFuzzyCompare(it->key, key))
            return it->value;
    return -1;
}

template <class Chart>
void showChart(Chart& chart)
{
    chart.resize(700, 450);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replotNow();
}
} // namespace

class TestCharts : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { ui::Units::setByteUnit(ui::ByteUnit::GiB); }
    void memoryBarMatchesResult();
    void memoryOneBarPerStage();
    void memoryMarksExcess();
    void memoryTooltipExplains();
    void memoryInvalidShowsMessage();
    void unitsFollowSetting();
    void commRowsMatchCollectives();
    void stepTimeMatchesResult();
    void strategyChartShowsVariants();
};

void TestCharts::memoryBarMatchesResult()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::evaluate(s);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    QCOMPARE(chart.barCount(), 1);
    QCOMPARE(chart.barTotal(0), r.memory.total());
    // Each stacked item holds its own value, in GiB.
    int found = 0;
    for (int i = 0; i < chart.plot()->plottableCount(); ++i) {
        auto* bars = qobject_cast<QCPBars*>(chart.plot()->plottable(i));
        if (!bars)
            continue;
        for (int item = 0; item < ui::MemoryStack::kItems; ++item)
            if (bars->name() == ui::MemoryStack::itemName(item)) {
                QCOMPARE(stackedAt(bars, 1), ui::MemoryStack::itemBytes(r.memory, item) / 1073741824.0);
                ++found;
            }
    }
    QCOMPARE(found, ui::MemoryStack::kItems);
}

void TestCharts::memoryOneBarPerStage()
{
    core::Scenario s = test::loadScenario(QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json"));
    const core::Result r = core::evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(r.pp > 1);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    QCOMPARE(chart.barCount(), int(r.stages.size()));
    for (int i = 0; i < chart.barCount(); ++i)
        QCOMPARE(chart.barTotal(i), r.stages[size_t(i)].memory.total());
}

void TestCharts::memoryMarksExcess()
{
    core::Scenario s = core::defaultScenario(test::catalog());
    s.parallelism.sharding = core::Sharding::Ddp; // 16 bytes per parameter on every GPU: cannot fit 70B
    const core::Result r = core::evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(!r.fits);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    QCOMPARE(chart.capacityMarks().excessCount(), 1);
    s.cluster.gpu.memoryBytes = 1e15; // a huge GPU: nothing over
    chart.setResult(s, core::evaluate(s));
    QCOMPARE(chart.capacityMarks().excessCount(), 0);
}

void TestCharts::memoryTooltipExplains()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::evaluate(s);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    showChart(chart);
    QCustomPlot* plot = chart.plot();
    // Middle of the lowest segment (parameters).
    const QPoint onParameters(int(plot->xAxis->coordToPixel(1)), int(plot->yAxis->coordToPixel(r.memory.parameters / 2 / 1073741824.0)));
    const QString tip = chart.toolTipAt(onParameters);
    QVERIFY2(tip.contains(QStringLiteral("Parameters")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("Formula")));
    QVERIFY(tip.contains(QStringLiteral("Source")));
    QVERIFY(tip.contains(QStringLiteral("Ψ =")));
    // Empty space explains the chart itself.
    const QString chartTip = chart.toolTipAt(QPoint(plot->axisRect()->left() + 3, plot->axisRect()->top() + 3));
    QVERIFY2(chartTip.contains(QStringLiteral("Memory per GPU")), qPrintable(chartTip));
}

void TestCharts::memoryInvalidShowsMessage()
{
    core::Scenario s = core::defaultScenario(test::catalog());
    s.parallelism.tp = 6;
    const core::Result r = core::evaluate(s);
    QVERIFY(!r.valid);
    ui::MemoryChart memory;
    memory.setResult(s, r);
    QVERIFY(!memory.message().isEmpty());
    ui::CommChart comm;
    comm.setResult(s, r);
    QVERIFY(!comm.message().isEmpty());
    ui::StepTimeChart time;
    time.setResult(s, r, ui::compareStrategies(s));
    QVERIFY(!time.message().isEmpty());
    ui::StrategyChart strategies;
    strategies.setComparison(ui::compareStrategies(s));
    QCOMPARE(strategies.barCount(), 0);
    showChart(memory);
    showChart(comm);
    showChart(time);
    showChart(strategies);
}

void TestCharts::unitsFollowSetting()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::evaluate(s);
    ui::MemoryChart chart;
    ui::Units::setByteUnit(ui::ByteUnit::GB);
    chart.setResult(s, r);
    QVERIFY(chart.plot()->yAxis->label().contains(QStringLiteral("GB")));
    QVERIFY(chart.plot()->yAxis->range().upper >= r.capacity / 1e9);
    ui::Units::setByteUnit(ui::ByteUnit::GiB);
    chart.setResult(s, r);
    QVERIFY(chart.plot()->yAxis->label().contains(QStringLiteral("GiB")));
}

void TestCharts::commRowsMatchCollectives()
{
    const core::Scenario s = test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json"));
    const core::Result r = core::evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(!r.collectives.empty());
    ui::CommChart chart;
    chart.setResult(s, r);
    QCOMPARE(chart.rowCount(), int(r.collectives.size()));
    for (size_t i = 0; i < r.collectives.size(); ++i)
        QCOMPARE(stackedAt(chart.bytesBars(), double(i + 1)), r.collectives[i].bytes / 1073741824.0);
    showChart(chart);
    QVERIFY(chart.message().isEmpty());
}

void TestCharts::stepTimeMatchesResult()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::evaluate(s);
    ui::StepTimeChart chart;
    chart.setResult(s, r, ui::compareStrategies(s));
    double sum = 0;
    for (int p = 0; p < ui::StepTimeChart::kParts; ++p) {
        QCOMPARE(chart.value(0, p) * chart.timeScale(), ui::StepTimeChart::partSeconds(r.step, p));
        sum += chart.value(0, p) * chart.timeScale();
    }
    QVERIFY(qAbs(sum - r.step.total()) <= 1e-9 * r.step.total());
}

void TestCharts::strategyChartShowsVariants()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    ui::StrategyChart chart;
    chart.setComparison(ui::compareStrategies(s));
    QVERIFY(chart.barCount() >= 4);
    showChart(chart);
    const QString tip = chart.toolTipAt(QPoint(int(chart.plot()->xAxis->coordToPixel(4)), int(chart.plot()->yAxis->coordToPixel(1))));
    QVERIFY2(tip.contains(QStringLiteral("ZeRO-3")), qPrintable(tip));
}

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
