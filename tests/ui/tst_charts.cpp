// SPDX-License-Identifier: GPL-3.0-or-later
// Charts render exactly the Result they are given (in the display unit), mark the excess, explain every
// element in its tooltip and survive invalid results. Their series, the KPI cards and the status line are the
// core's terms (labels, values, order); a tooltip is the term's formula, substituted expression, inputs and
// source, with a link to its derivation that a click opens.
#include "test_support.h"

#include "analysis/sweep_chart.h"
#include "charts/axis_ticks.h"
#include "charts/capacity_marks.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/memory_stack.h"
#include "charts/qcp.h"
#include "charts/range_whiskers.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "explain/status_summary.h"
#include "explain/tooltips.h"
#include "help/model_reference.h"
#include "util/units.h"
#include "views/kpi_panel.h"
#include "explain/uncertainty_text.h"

#include <shardscope/core/catalog.h>
#include <shardscope/core/evaluate.h>
#include <shardscope/core/what_if.h>
#include <shardscope/core/scenario_json.h>
#include <shardscope/core/uncertainty.h>

#include <QRegularExpression>
#include <QSignalSpy>
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

/// The tooltip as text to search: the line-break hints (zero-width spaces) of expressions removed.
QString plain(const QString& tip) { return QString(tip).remove(QChar(0x200B)); }

/// Middle of stacked segment `item` (a series of the memory chart) of bar 1, in pixels.
QPoint segmentCentre(const ui::MemoryChart& chart, int item)
{
    double below = 0;
    for (int i = 0; i < item; ++i)
        below += chart.stack().bars(i)->data()->at(0)->value;
    const double mid = below + chart.stack().bars(item)->data()->at(0)->value / 2;
    return { int(chart.plot()->xAxis->coordToPixel(1)), int(chart.plot()->yAxis->coordToPixel(mid)) };
}

template <class Chart> void showChart(Chart& chart)
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
    void replotNowDrawsOnlyWhatChanged();
    void memorySeriesAreTheCoreTerms();
    void activationsTooltipIsTheTerm();
    void clickOpensDerivation();
    void kpiAndStatusAreTheTerms();
    void memoryOneBarPerStage();
    void memoryMarksExcess();
    void excessLabelsStayInsidePlot();
    void excessLabelsNeverOverlap();
    void memoryTooltipExplains();
    void memoryInvalidShowsMessage();
    void unitsFollowSetting();
    void commRowsMatchCollectives();
    void stepTimeMatchesResult();
    void strategyChartShowsVariants();
    void rangesAsWhiskersAndBorderline();
    void siTickLabels();
    void tickLabelsKeepApart_data();
    void tickLabelsKeepApart();
    void shortAxisShowsTwoLabels();
    void strategyChartShowsOwnStrategy();
    void exportedSweepNamesItsAxis();
    void strategyChartKeepsCurrentLabel();
    void sweepCapacityLabelAvoidsCurves();
};

void TestCharts::memoryBarMatchesResult()
{
    // A result of evaluate() (no terms, as the compare view's pins): the breakdown under the core's labels.
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::evaluate(s);
    QVERIFY(r.terms.empty());
    ui::MemoryChart chart;
    chart.setResult(s, r);
    QCOMPARE(chart.barCount(), 1);
    QCOMPARE(chart.barTotal(0), r.memory.total());
    double sum = 0;
    for (int i = 0; i < chart.stack().count(); ++i) {
        const double v = chart.stack().bars(i)->data()->at(0)->value;
        QCOMPARE(v, ui::breakdownValue(r.memory, chart.stack().key(i).toStdString()) / 1073741824.0);
        sum += v;
    }
    QVERIFY(qAbs(sum - r.memory.total() / 1073741824.0) <= 1e-9 * sum);
}

void TestCharts::replotNowDrawsOnlyWhatChanged()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    ui::MemoryChart chart;
    chart.resize(600, 400);
    chart.show();
    QSignalSpy drawn(chart.plot(), &QCustomPlot::afterReplot);
    chart.setResult(s, core::evaluate(s));
    chart.replotNow(); // new figures: drawn at once
    QCOMPARE(drawn.count(), 1);
    QCoreApplication::processEvents(); // the queued replot of setResult
    const qsizetype afterQueue = drawn.count();
    chart.replotNow(); // nothing changed since: repainted from the buffer, not drawn again
    QCOMPARE(drawn.count(), afterQueue);
    core::Scenario other = s;
    other.cluster.nodes *= 2;
    chart.setResult(other, core::evaluate(other));
    chart.replotNow();
    QCOMPARE(drawn.count(), afterQueue + 1);
}

void TestCharts::memorySeriesAreTheCoreTerms()
{
    for (const QString& file : { QStringLiteral("resources/scenarios/default.shardscope.json"),
             QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json"),
             QStringLiteral("resources/scenarios/offload-llama3-8b-cpu.shardscope.json") }) {
        const core::Scenario s = test::loadScenario(file);
        const core::Result r = core::explain(s);
        QVERIFY(r.valid);
        const std::vector<const core::Term*> terms = core::termsOf(r.terms, core::TermGroup::Memory);
        ui::MemoryChart chart;
        chart.setResult(s, r);
        // Series and legend: the core's labels, in its order; each segment the term's value.
        QCOMPARE(chart.stack().count(), int(terms.size()));
        for (size_t i = 0; i < terms.size(); ++i) {
            QCOMPARE(chart.stack().key(int(i)), QString::fromStdString(terms[i]->key));
            QCOMPARE(chart.stack().name(int(i)), QString::fromStdString(terms[i]->label));
            QCOMPARE(chart.legend()->entries().at(qsizetype(i)).text, QString::fromStdString(terms[i]->label));
            QCOMPARE(chart.stack().bars(int(i))->data()->at(0)->value, terms[i]->value / 1073741824.0);
            // A breakdown without terms (a pipeline stage) reads the same figure under the same key.
            QCOMPARE(ui::breakdownValue(r.memory, terms[i]->key), terms[i]->value);
        }
        // The step-time chart likewise.
        const std::vector<const core::Term*> parts = core::termsOf(r.terms, core::TermGroup::StepTime);
        ui::StepTimeChart time;
        time.setResult(r, core::compareStrategies(s));
        QCOMPARE(time.partCount(), int(parts.size()));
        for (size_t p = 0; p < parts.size(); ++p) {
            QCOMPARE(time.partName(int(p)), QString::fromStdString(parts[p]->label));
            QCOMPARE(time.legend()->entries().at(qsizetype(p)).text, QString::fromStdString(parts[p]->label));
            QCOMPARE(time.value(0, int(p)) * time.timeScale(), parts[p]->value);
            QCOMPARE(ui::breakdownValue(r.step, parts[p]->key), parts[p]->value);
        }
    }
}

void TestCharts::activationsTooltipIsTheTerm()
{
    core::Scenario s = test::loadScenario(QStringLiteral("resources/scenarios/cp-llama3-70b-128k.shardscope.json"));
    s.parallelism.cp = 4;
    const core::Result r = core::explain(s);
    QVERIFY2(r.valid, r.issues.empty() ? "" : r.issues.front().message.c_str());
    const core::Term* term = ui::findTerm(r.terms, "memory.activations");
    QVERIFY(term);
    // CP shows where it enters: the sequence per CP rank, s/c.
    QVERIFY2(QString::fromStdString(term->expression).contains(QStringLiteral("131072/4")), term->expression.c_str());
    ui::MemoryChart chart;
    chart.setResult(s, r);
    showChart(chart);
    int item = -1;
    for (int i = 0; i < chart.stack().count(); ++i)
        if (chart.stack().key(i) == QLatin1String("memory.activations"))
            item = i;
    QVERIFY(item >= 0);
    const QString tip = chart.toolTipAt(segmentCentre(chart, item));
    QVERIFY2(plain(tip).contains(QString::fromStdString(term->expression)), qPrintable(tip));
    QVERIFY2(tip.contains(QString::fromStdString(term->source).toHtmlEscaped()), qPrintable(tip));
    QVERIFY(tip.contains(QString::fromStdString(term->formula).toHtmlEscaped()));
    for (const core::TermInput& in : term->inputs)
        if (!in.meaning.empty())
            QVERIFY2(tip.contains(QString::fromStdString(in.meaning).toHtmlEscaped()), in.meaning.c_str());
    QVERIFY(tip.contains(QStringLiteral("docs/model.md §")));
    QCOMPARE(ui::derivationAnchor(tip), QString::fromStdString(term->anchor));
}

void TestCharts::clickOpensDerivation()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::explain(s);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    showChart(chart);
    int item = -1;
    for (int i = 0; i < chart.stack().count(); ++i)
        if (chart.stack().key(i) == QLatin1String("memory.activations"))
            item = i;
    QVERIFY(item >= 0);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, segmentCentre(chart, item));
    ui::ModelReferenceWindow* reference = ui::showModelReference();
    QVERIFY(reference->isVisible());
    QCOMPARE(reference->currentSection(), QString::fromStdString(ui::findTerm(r.terms, "memory.activations")->anchor));
    // Every memory and step-time term links to a section that exists.
    for (const core::Term& t : r.terms)
        if (t.group == core::TermGroup::Memory || t.group == core::TermGroup::StepTime)
            QVERIFY2(reference->hasSection(QString::fromStdString(t.anchor)), t.anchor.c_str());
    reference->close();
}

void TestCharts::kpiAndStatusAreTheTerms()
{
    for (const QString& file : { QStringLiteral("resources/scenarios/default.shardscope.json"),
             QStringLiteral("resources/scenarios/3d-gpt3-175b-megatron.shardscope.json") }) {
        const core::Scenario s = test::loadScenario(file);
        const core::Result r = core::explain(s);
        QVERIFY(r.valid);
        double step = 0;
        for (const core::Term* t : core::termsOf(r.terms, core::TermGroup::StepTime))
            step += t->value;
        const std::vector<const core::Term*> memory = core::termsOf(r.terms, core::TermGroup::Memory);
        double total = 0;
        const core::Term* largest = memory.front();
        for (const core::Term* t : memory) {
            total += t->value;
            if (t->value > largest->value)
                largest = t;
        }
        ui::KpiPanel kpis;
        kpis.setResult(s, r);
        QCOMPARE(kpis.valueText(QStringLiteral("kpi.step_time")), ui::Units::seconds(step));
        QCOMPARE(kpis.valueText(QStringLiteral("kpi.fits")), ui::Units::bytes(total));
        QCOMPARE(kpis.valueText(QStringLiteral("kpi.tokens_per_second")),
            ui::Units::tokensPerSecond(ui::findTerm(r.terms, "throughput.tokens_per_second")->value));
        QCOMPARE(kpis.valueText(QStringLiteral("kpi.mfu")),
            ui::Units::percent(ui::findTerm(r.terms, "throughput.mfu")->value));
        // The cards' tooltips list the terms the figures add up from, and the terms themselves.
        const QString stepTip = kpis.cardToolTip(QStringLiteral("kpi.step_time"));
        for (const core::Term* t : core::termsOf(r.terms, core::TermGroup::StepTime))
            QVERIFY2(stepTip.contains(QString::fromStdString(t->label)), qPrintable(stepTip));
        QVERIFY(plain(kpis.cardToolTip(QStringLiteral("kpi.mfu")))
                    .contains(QString::fromStdString(ui::findTerm(r.terms, "throughput.mfu")->expression)));
        // The status line names the largest memory term with its value, the total and (when it fits) the step.
        const QString status = ui::summarize(core::whatIf(s)).text;
        QVERIFY2(status.contains(QString::fromStdString(largest->label).toLower()), qPrintable(status));
        QVERIFY2(status.contains(ui::Units::bytes(largest->value)), qPrintable(status));
        QVERIFY2(status.contains(ui::Units::bytes(total)), qPrintable(status));
        if (r.fits)
            QVERIFY2(status.contains(ui::Units::seconds(step)), qPrintable(status));
    }
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
    showChart(chart); // where the label goes depends on the room the plot has
    QCOMPARE(chart.capacityMarks().excessCount(), 1);
    // The "+N" label sits above the bar's whisker (the top of its 80% range), not across it.
    const double high = r.memory.total() + r.memory.reservedPeak * (r.uncertainty.memoryRatio.hi - 1);
    QVERIFY(r.uncertainty.memoryRatio.hi > 1);
    QVERIFY(chart.capacityMarks().labelY(0) >= ui::Units::toUnit(high) * (1 - 1e-12));
    s.cluster.gpu.reportedMemoryBytes = 0; // a huge GPU (its datasheet figure is the capacity): nothing over
    s.cluster.gpu.memoryBytes = 1e15;
    chart.setResult(s, core::evaluate(s));
    QCOMPARE(chart.capacityMarks().excessCount(), 0);
}

void TestCharts::excessLabelsStayInsidePlot()
{
    // Llama 3 70B on 4 x 8 H100: every strategy over 80 GiB, ZeRO-3 (223 GiB) just under the 240 GiB (3 x 80) top,
    // so its "+143" has no room above the bar; DDP's 1,235 GiB runs off the top. No label may be cut by the plot's
    // edge (beyond the one pixel of rounding), at the window's chart sizes and smaller, nor after a resize alone.
    core::Scenario s = core::defaultScenario(test::catalog());
    s.cluster.nodes = 4;
    ui::StrategyChart chart;
    chart.setComparison(core::compareStrategies(s));
    QCOMPARE(chart.capacityMarks().excessCount(), chart.barCount());
    showChart(chart);
    for (const QSize size : { QSize(582, 341), QSize(582, 305), QSize(400, 200), QSize(700, 450) }) {
        chart.resize(size);
        chart.replotNow();
        const QRect plotArea = chart.plot()->axisRect()->rect();
        for (int i = 0; i < chart.barCount(); ++i) {
            const QRectF label = chart.capacityMarks().labelRect(i);
            QVERIFY(!label.isEmpty());
            QVERIFY2(label.top() >= plotArea.top() - 1 && label.bottom() <= plotArea.bottom() + 1,
                qPrintable(QStringLiteral("bar %1 at %2x%3: label %4..%5, plot %6..%7")
                               .arg(i)
                               .arg(size.width())
                               .arg(size.height())
                               .arg(label.top())
                               .arg(label.bottom())
                               .arg(plotArea.top())
                               .arg(plotArea.bottom())));
        }
    }
}

void TestCharts::excessLabelsNeverOverlap()
{
    // Llama 3.1 405B with 16 pipeline stages, every stage over 80 GiB: at 1280 x 800 the memory chart is about 300
    // pixels wide, 18 per bar, and the "+N" labels ran into each other. Drawn labels keep apart; the largest excess
    // keeps its label; with room (1400 pixels) every label is drawn.
    const core::Scenario s
        = test::loadScenario(QStringLiteral("resources/scenarios/3d-llama3.1-405b-h100.shardscope.json"));
    const core::Result r = core::evaluate(s);
    QCOMPARE(int(r.stages.size()), 16);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    showChart(chart);
    int largest = 0;
    for (int i = 1; i < chart.barCount(); ++i)
        if (chart.barTotal(i) > chart.barTotal(largest))
            largest = i;
    for (const int width : { 300, 1400 }) {
        chart.resize(width, 340);
        chart.replotNow();
        QVector<QRectF> drawn;
        for (int i = 0; i < chart.barCount(); ++i)
            if (const QRectF label = chart.capacityMarks().labelRect(i); !label.isEmpty())
                drawn << label;
        for (qsizetype a = 0; a < drawn.size(); ++a)
            for (qsizetype b = a + 1; b < drawn.size(); ++b)
                QVERIFY2(!drawn[a].intersects(drawn[b]), qPrintable(QStringLiteral("at %1 px").arg(width)));
        QVERIFY(!chart.capacityMarks().labelRect(largest).isEmpty());
        if (width == 1400)
            QCOMPARE(int(drawn.size()), chart.capacityMarks().excessCount());
    }
}

void TestCharts::memoryTooltipExplains()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::explain(s);
    ui::MemoryChart chart;
    chart.setResult(s, r);
    showChart(chart);
    QCustomPlot* plot = chart.plot();
    // Middle of the lowest segment (parameters).
    const QPoint onParameters(
        int(plot->xAxis->coordToPixel(1)), int(plot->yAxis->coordToPixel(r.memory.parameters / 2 / 1073741824.0)));
    const QString tip = chart.toolTipAt(onParameters);
    QVERIFY2(tip.contains(QStringLiteral("Parameters")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("Formula")));
    QVERIFY(tip.contains(QStringLiteral("Source")));
    QVERIFY(tip.contains(QStringLiteral("Ψ_d</i> =")));
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
    time.setResult(r, core::compareStrategies(s));
    QVERIFY(!time.message().isEmpty());
    ui::StrategyChart strategies;
    strategies.setComparison(core::compareStrategies(s));
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
    const core::Scenario s
        = test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json"));
    const core::Result r = core::evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(!r.collectives.empty());
    ui::CommChart chart;
    chart.setResult(s, r);
    QCOMPARE(chart.rowCount(), int(r.collectives.size()));
    for (size_t i = 0; i < r.collectives.size(); ++i)
        QCOMPARE(stackedAt(chart.bytesBars(), double(i + 1)), r.collectives[i].bytes / chart.bytesScale());
    showChart(chart);
    QVERIFY(chart.message().isEmpty());
}

void TestCharts::stepTimeMatchesResult()
{
    // A result without terms: the step breakdown under the core's keys.
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::Result r = core::evaluate(s);
    ui::StepTimeChart chart;
    chart.setResult(r, core::compareStrategies(s));
    double sum = 0;
    for (int p = 0; p < chart.partCount(); ++p) {
        QCOMPARE(chart.value(0, p) * chart.timeScale(), ui::breakdownValue(r.step, chart.partKey(p).toStdString()));
        sum += chart.value(0, p) * chart.timeScale();
    }
    QVERIFY(qAbs(sum - r.step.total()) <= 1e-9 * r.step.total());
}

void TestCharts::strategyChartShowsVariants()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    const core::StrategyComparison comparison = core::compareStrategies(s);
    ui::StrategyChart chart;
    chart.setComparison(comparison);
    QVERIFY(chart.barCount() >= 4);
    showChart(chart);
    const QString tip
        = chart.toolTipAt(QPoint(int(chart.plot()->xAxis->coordToPixel(4)), int(chart.plot()->yAxis->coordToPixel(1))));
    QVERIFY2(tip.contains(QStringLiteral("ZeRO-3")), qPrintable(tip));
    // The variant under the mouse is explained by its own terms (evaluated when the tooltip asks: the variants carry
    // figures only), down to the substituted expression of the bottom part.
    QVERIFY(comparison[3].result.terms.empty());
    const std::vector<core::Term> terms = core::variantTerms(comparison[3]);
    const std::vector<const core::Term*> memory = core::termsOf(terms, core::TermGroup::Memory);
    QVERIFY2(tip.contains(QStringLiteral("Substituted")), qPrintable(tip));
    const auto unbroken = [](QString html) { return html.remove(QChar(0x200B)); }; // the expression's break points
    QVERIFY2(
        unbroken(tip).contains(QString::fromStdString(memory.front()->expression).toHtmlEscaped()), qPrintable(tip));

    // The step-time chart's rows of the variants, the same: row 1 (key 2.3) is the first compared strategy.
    ui::StepTimeChart time;
    time.setResult(core::explain(s), comparison);
    showChart(time);
    const QString rowTip = time.toolTipAt(QPoint(
        int(time.plot()->xAxis->coordToPixel(time.value(1, 0) / 2)), int(time.plot()->yAxis->coordToPixel(2.3))));
    const std::vector<core::Term> ddp = core::variantTerms(comparison[0]);
    const core::Term* part = ui::findTerm(ddp, time.partKey(0).toStdString());
    QVERIFY(part);
    QVERIFY2(rowTip.contains(QString::fromStdString(comparison[0].label)), qPrintable(rowTip));
    QVERIFY2(unbroken(rowTip).contains(QString::fromStdString(part->expression).toHtmlEscaped()), qPrintable(rowTip));
}

void TestCharts::rangesAsWhiskersAndBorderline()
{
    // Issue 11 item 3: each bar's 80% range as a whisker, the KPI cards' "± x% (validated on N runs)", and a GPU whose
    // memory is inside the memory range reads borderline (amber, with the reason) in the cards and the status line.
    core::Scenario s = core::defaultScenario(test::catalog());
    core::Result r = core::explain(s);
    QVERIFY(r.valid);
    ui::MemoryChart memory;
    memory.setResult(s, r);
    QCOMPARE(memory.whiskers().count(), 1);
    QVERIFY(qAbs(memory.whiskers().top(0) - ui::Units::toUnit(r.memoryRange.hi)) <= 1e-9 * memory.whiskers().top(0));
    QVERIFY(qAbs(memory.whiskers().bottom(0) - ui::Units::toUnit(r.memoryRange.lo)) <= 1e-9 * memory.whiskers().top(0));
    ui::StepTimeChart time;
    time.setResult(r, core::compareStrategies(s));
    QVERIFY(time.whiskers().count() >= 1);
    QVERIFY(qAbs(time.whiskers().top(0) * time.timeScale() - r.stepTimeRange.hi) <= 1e-9 * r.stepTimeRange.hi);
    ui::KpiPanel kpis;
    kpis.setResult(s, r);
    QVERIFY2(kpis.cardToolTip(QStringLiteral("kpi.fits")).contains(QStringLiteral("80% range")),
        qPrintable(kpis.cardToolTip(QStringLiteral("kpi.fits"))));
    // The default scenario (Megatron-LM on H100) has no published Megatron-LM run of its GPU generation (issue 21); the
    // tooltip's sentence says so.
    QCOMPARE(r.uncertainty.basisKind, std::string("extrapolated"));
    QCOMPARE(ui::rangeNote(r.step.total(), r.stepTimeRange, r.uncertainty, r.uncertainty.throughputRuns),
        QStringLiteral("%1 (extrapolated)")
            .arg(QString::fromStdString(core::rangePercent(r.step.total(), r.stepTimeRange))));
    QVERIFY2(ui::stepRangeSentence(r).contains(QStringLiteral("extrapolated: no published run of this kind")),
        qPrintable(ui::stepRangeSentence(r)));
    // The same run on PyTorch: published PyTorch plain runs on H100 cover throughput and memory.
    core::Scenario py = s;
    core::applyFramework(py, core::Framework::PyTorch, test::catalog());
    const core::Result rp = core::explain(py);
    QCOMPARE(rp.uncertainty.basisKind, std::string("validated"));
    QCOMPARE(ui::rangeNote(rp.step.total(), rp.stepTimeRange, rp.uncertainty, rp.uncertainty.throughputRuns),
        QStringLiteral("%1 (validated on %2 runs)")
            .arg(QString::fromStdString(core::rangePercent(rp.step.total(), rp.stepTimeRange)))
            .arg(rp.uncertainty.throughputRuns));
    // Usable memory between the estimate and the top of its range: no headroom, a GPU whose datasheet memory is that
    // plus the 1 GiB CUDA context.
    s.cluster.memoryHeadroom = 0;
    s.cluster.gpu.reportedMemoryBytes = 0;
    s.cluster.gpu.memoryBytes = 0.5 * (r.memory.total() + r.memoryRange.hi) + 1073741824.0;
    r = core::explain(s);
    QCOMPARE(r.verdict, core::Verdict::Borderline);
    QVERIFY(r.fits);
    const ui::StatusSummary status = ui::summarize(core::whatIf(s));
    QCOMPARE(status.level, ui::StatusSummary::Level::Warning);
    QVERIFY2(status.text.startsWith(QStringLiteral("Borderline:")), qPrintable(status.text));
    QVERIFY2(status.text.contains(ui::Units::bytes(r.memoryRange.hi)), qPrintable(status.text));
    kpis.setResult(s, r);
    QVERIFY(kpis.cardToolTip(QStringLiteral("kpi.fits")).contains(QStringLiteral("Borderline:")));
}

void TestCharts::siTickLabels()
{
    QCOMPARE(ui::siLabel(0, 5000, 15000), QStringLiteral("0"));
    QCOMPARE(ui::siLabel(5000, 5000, 15000), QStringLiteral("5k"));
    QCOMPARE(ui::siLabel(10000, 5000, 15000), QStringLiteral("10k"));
    QCOMPARE(ui::siLabel(1.5e6, 5e5, 2e6), QStringLiteral("1.5M"));
    QCOMPARE(ui::siLabel(2.5e9, 2.5e8, 3e9), QStringLiteral("2.5G"));
    QCOMPARE(ui::siLabel(1250, 250, 2000), QStringLiteral("1250")); // no prefix below 10,000
    QCOMPARE(ui::siLabel(0.25, 0.05, 1), QStringLiteral("0.25"));
    QCOMPARE(ui::siLabel(-5000, 2500, 20000), QStringLiteral("-5k"));
    QCOMPARE(ui::siLabel(16384), QStringLiteral("16.4k"));
    QCOMPARE(ui::siLabel(0.002), QStringLiteral("0.002"));
}

void TestCharts::tickLabelsKeepApart_data()
{
    QTest::addColumn<QCPRange>("range");
    QTest::addColumn<bool>("log");
    QTest::addColumn<int>("width");
    QTest::newRow("throughput, narrow") << QCPRange(0, 15000) << false << 140;
    QTest::newRow("throughput, wide") << QCPRange(0, 2.6e6) << false << 900;
    QTest::newRow("tokens/s at 800,000 GPUs") << QCPRange(1.2e8, 9.7e8) << false << 200;
    QTest::newRow("decimals") << QCPRange(0.01, 0.37) << false << 160;
    QTest::newRow("log, 7 decades, narrow") << QCPRange(3, 8e7) << true << 180;
    QTest::newRow("log, one decade") << QCPRange(40, 700) << true << 400;
}

void TestCharts::tickLabelsKeepApart()
{
    // A bare chart: the value axis is horizontal at the bottom, labels must not touch however narrow.
    QFETCH(QCPRange, range);
    QFETCH(bool, log);
    QFETCH(int, width);
    ui::SweepChart chart(ui::SweepChart::Metric::StepTime);
    QCustomPlot* plot = chart.plot();
    plot->setMinimumSize(40, 40);
    chart.setMinimumSize(0, 0);
    plot->xAxis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(log ? new QCPAxisTickerLog : new QCPAxisTicker));
    plot->xAxis->setRange(range);
    plot->yAxis->setRange(range);
    plot->yAxis->setScaleType(plot->xAxis->scaleType());
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(log ? new QCPAxisTickerLog : new QCPAxisTicker));
    chart.resize(width + 90, 220);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replotNow();
    for (QCPAxis* axis : { plot->xAxis, plot->yAxis }) {
        const QList<ui::DrawnTickLabel> labels = ui::drawnTickLabels(axis);
        QVERIFY2(labels.size() >= 2, qPrintable(QString::number(labels.size())));
        for (qsizetype i = 0; i < labels.size(); ++i)
            for (qsizetype j = i + 1; j < labels.size(); ++j)
                QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                    qPrintable(QStringLiteral("'%1' touches '%2'").arg(labels[i].text, labels[j].text)));
        for (const auto& l : labels)
            QVERIFY2(l.text.size() <= 6, qPrintable(l.text)); // SI-abbreviated, not "970000000"
    }
}

void TestCharts::shortAxisShowsTwoLabels()
{
    // The communication chart's bytes axis in a 1203-pixel window: 55 pixels for 0 to 4.6 TiB showed only "0" (the
    // 48-pixel readability floor left step 5). Every short axis (60 pixels or more: two labels of "0.5" and a gap)
    // shows two labels or more, still apart.
    QFont font;
    for (const double upper : { 4.6, 0.93, 46.0, 9.7, 1.9 })
        for (int length = 60; length <= 100; length += 5) {
            ui::FitTicker ticker;
            ui::TickSpace space;
            space.length = length;
            space.font = font;
            ticker.setSpace(space);
            const QCPRange range(0, upper);
            QVector<double> ticks, subTicks;
            QVector<QString> labels;
            ticker.generate(range, QLocale(), QLatin1Char('g'), 6, ticks, &subTicks, &labels);
            QVector<double> inside;
            QVector<QString> insideLabels;
            for (qsizetype i = 0; i < ticks.size(); ++i)
                if (ticks[i] >= range.lower - 1e-9 && ticks[i] <= range.upper + 1e-9) {
                    inside << ticks[i];
                    insideLabels << labels[i];
                }
            const QString where
                = QStringLiteral("0..%1 on %2 px: %3").arg(upper).arg(length).arg(insideLabels.join(QLatin1Char(' ')));
            QVERIFY2(inside.size() >= 2, qPrintable(where));
            for (qsizetype i = 1; i < inside.size(); ++i)
                QVERIFY2(space.pixel(inside[i], range) - space.pixel(inside[i - 1], range)
                        >= space.minDistance(space.extent(insideLabels[i - 1]), space.extent(insideLabels[i])),
                    qPrintable(where));
        }
}

void TestCharts::exportedSweepNamesItsAxis()
{
    // In the window the pane's selector says what the x axis is; the exported copy stands alone and says it itself.
    const core::Scenario s = core::defaultScenario(test::catalog());
    ui::SweepChart chart(ui::SweepChart::Metric::Memory);
    const auto values = core::defaultSweepValues(s, core::SweepAxis::SeqLen);
    chart.setCurves(core::sweep(s, core::SweepAxis::SeqLen, values, core::sweepStrategies(), test::catalog()),
        core::SweepAxis::SeqLen, double(s.training.seqLen), core::evaluate(s).capacity);
    QVERIFY(chart.plot()->xAxis->label().isEmpty());
    const std::unique_ptr<ui::ChartBase> copy = chart.copy();
    QCOMPARE(copy->plot()->xAxis->label(), QStringLiteral("Sequence length"));
}

void TestCharts::strategyChartShowsOwnStrategy()
{
    // FSDP hybrid is none of the six compared strategies: the scenario's own bar is added, highlighted, and the
    // step-time chart does not list it twice (its first row is the scenario).
    const core::Scenario s
        = test::loadScenario(QStringLiteral("resources/scenarios/fsdp-hybrid-llama2-13b.shardscope.json"));
    QCOMPARE(s.parallelism.sharding, core::Sharding::FsdpHybrid);
    const core::StrategyComparison comparison = core::compareStrategies(s);
    QCOMPARE(comparison.size(), size_t(7));
    QVERIFY(comparison.back().own && comparison.back().current);
    QCOMPARE(QString::fromStdString(comparison.back().label), QStringLiteral("FSDP hybrid"));
    QCOMPARE(comparison.back().result.memory.total(), core::evaluate(s).memory.total());
    for (size_t i = 0; i + 1 < comparison.size(); ++i)
        QVERIFY(!comparison[i].current && !comparison[i].own);
    ui::StrategyChart chart;
    chart.setComparison(comparison);
    QCOMPARE(chart.barCount(), 7);
    ui::StepTimeChart time;
    time.setResult(core::evaluate(s), comparison);
    QCOMPARE(time.rowCount(), 7); // this scenario + the six
    // A scenario whose strategy is compared gets no extra bar.
    QCOMPARE(core::compareStrategies(core::defaultScenario(test::catalog())).size(), size_t(6));
}

void TestCharts::strategyChartKeepsCurrentLabel()
{
    // Narrow: labels are dropped, but never the open scenario's strategy (ZeRO-3, the fourth).
    const core::Scenario s = core::defaultScenario(test::catalog());
    QCOMPARE(s.parallelism.sharding, core::Sharding::Zero3);
    ui::StrategyChart chart;
    chart.setComparison(core::compareStrategies(s));
    showChart(chart);
    chart.setMinimumSize(0, 0);
    chart.plot()->setMinimumSize(40, 40);
    chart.resize(300, 300);
    chart.replotNow();
    QStringList lines; // drawn line by line: name, then step time
    for (const ui::DrawnTickLabel& l : ui::drawnTickLabels(chart.plot()->xAxis))
        lines << l.text;
    QVERIFY2(
        lines.filter(QRegularExpression(QStringLiteral(" s$"))).size() < 6, qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY2(lines.contains(QStringLiteral("▸ ZeRO-3")), qPrintable(lines.join(QLatin1Char('|'))));
}

void TestCharts::sweepCapacityLabelAvoidsCurves()
{
    // Curves that run through the label's usual place (above the capacity line at the left), and one along the line.
    ui::SweepChart chart(ui::SweepChart::Metric::Memory);
    const double gib = double(1ULL << 30);
    std::vector<core::SweepCurve> curves(3);
    const double xs[] = { 8, 16, 32, 64, 128, 256, 512, 1024 };
    for (size_t c = 0; c < curves.size(); ++c)
        for (size_t i = 0; i < std::size(xs); ++i) {
            core::SweepPoint p;
            p.x = xs[i];
            p.valid = true;
            const double mem = c == 0 ? 84 - double(i) * 1.5 : c == 1 ? 95 - double(i) * 9 : 30 + double(i);
            p.memory = mem * gib;
            p.fits = p.memory <= 80 * gib;
            p.stepTime = 1;
            curves[c].points.push_back(p);
        }
    chart.setCurves(curves, core::SweepAxis::Gpus, 64, 80 * gib);
    chart.resize(420, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replotNow();
    const QRectF label = chart.capacityLabelRect();
    QVERIFY(!label.isEmpty());
    QVERIFY(!chart.curvesCross(label));
    QVERIFY(QRectF(chart.plot()->xAxis->axisRect()->rect()).contains(label));
    // The test's own check sees a curve where one is: the usual place is taken.
    const double y = chart.plot()->yAxis->coordToPixel(80);
    const double left = chart.plot()->xAxis->axisRect()->left();
    QVERIFY(chart.curvesCross(QRectF(left + 5, y - 14, 90, 12)));
}

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
