// SPDX-License-Identifier: GPL-3.0-or-later
// The A→B waterfall of the compare view (issue 5, item 2): settings walk in the fixed order, the step deltas sum
// to the total difference, invalid intermediate scenarios merge with the next setting, and invalid ends are refused.
#include "test_support.h"

#include "shardscope/core/waterfall.h"

#include <QObject>

using namespace shardscope::core;

namespace {
double sumMemory(const Waterfall& w)
{
    double s = 0;
    for (const auto& step : w.steps)
        s += step.memoryDelta;
    return s;
}
double sumTime(const Waterfall& w)
{
    double s = 0;
    for (const auto& step : w.steps)
        s += step.stepTimeDelta;
    return s;
}
std::vector<std::string> allSettings(const Waterfall& w)
{
    std::vector<std::string> out;
    for (const auto& step : w.steps)
        out.insert(out.end(), step.settings.begin(), step.settings.end());
    return out;
}
} // namespace

class TestWaterfall : public QObject
{
    Q_OBJECT
private slots:
    void settingsAreInFixedOrder();
    void sameSettingsGiveNoSteps();
    void differingSettingsIgnoreTheName();
    void settingValuesUseFileSpelling();
    void stepsSumToTotalDifference_data();
    void stepsSumToTotalDifference();
    void invalidIntermediateMergesWithNext();
    void invalidEndsAreRefused();
};

void TestWaterfall::settingsAreInFixedOrder()
{
    const auto& s = waterfallSettings();
    QCOMPARE(s.front(), std::string("model"));
    QCOMPARE(s.back(), std::string("nccl.gdr"));
    auto index = [&](const char* name) { return std::find(s.begin(), s.end(), name) - s.begin(); };
    QVERIFY(index("model") < index("cluster.gpu"));
    QVERIFY(index("cluster.misc_bytes") < index("training.seq_len"));
    QVERIFY(index("training.accounting") < index("parallelism.sharding"));
    QVERIFY(index("parallelism.shard_group") < index("offload.optimizer"));
    QVERIFY(index("parallelism.pp") < index("parallelism.pipeline_layout")); // the layout after the pp it belongs to
    QVERIFY(index("offload.parameters") < index("nccl.algo"));
    // Every setting can be copied and read.
    Scenario a = defaultScenario(sstest::catalog());
    for (const auto& name : s) {
        QVERIFY2(copySetting(a, a, name), name.c_str());
        QVERIFY2(!settingValue(a, name).empty() || name == "model", name.c_str());
    }
    QVERIFY(!copySetting(a, a, "parallelism.nonsense"));
    QVERIFY(settingValue(a, "nonsense").empty());
}

void TestWaterfall::sameSettingsGiveNoSteps()
{
    const Scenario a = defaultScenario(sstest::catalog());
    const Waterfall w = buildWaterfall(a, a);
    QVERIFY(w.ok);
    QVERIFY(w.steps.empty());
    QCOMPARE(w.memoryA, w.memoryB);
    QCOMPARE(w.stepTimeA, w.stepTimeB);
}

void TestWaterfall::differingSettingsIgnoreTheName()
{
    Scenario a = defaultScenario(sstest::catalog());
    Scenario b = a;
    b.name = "another name";
    QVERIFY(differingSettings(a, b).empty());
    b.parallelism.tp = 8;
    b.nccl.algo = NcclAlgo::Ring;
    b.model = sstest::presetModel("llama3-8b");
    const auto d = differingSettings(a, b);
    QCOMPARE(d, (std::vector<std::string> { "model", "parallelism.tp", "nccl.algo" }));
}

void TestWaterfall::settingValuesUseFileSpelling()
{
    Scenario s = defaultScenario(sstest::catalog());
    s.parallelism.sharding = Sharding::FsdpHybrid;
    s.parallelism.schedule = PpSchedule::OneFOneB;
    s.training.flashAttention = true;
    QCOMPARE(settingValue(s, "parallelism.sharding"), std::string("fsdp-hybrid"));
    QCOMPARE(settingValue(s, "parallelism.pp_schedule"), std::string("1f1b"));
    QCOMPARE(settingValue(s, "training.flash_attention"), std::string("true"));
    QCOMPARE(settingValue(s, "cluster.gpu"), std::string("h100-sxm5-80gb"));
    QCOMPARE(settingValue(s, "model"), std::string("llama3-70b"));
    QCOMPARE(settingValue(s, "cluster.nodes"), std::to_string(s.cluster.nodes));
}

void TestWaterfall::stepsSumToTotalDifference_data()
{
    QTest::addColumn<int>("which");
    QTest::newRow("zero3 -> zero1 + recompute") << 0;
    QTest::newRow("70b -> 8b on fewer nodes") << 1;
    QTest::newRow("h100 -> b200, tp 4, offload, nccl") << 2;
    QTest::newRow("3d: pp and schedule") << 3;
    QTest::newRow("megatron -> pytorch fsdp") << 4;
}

void TestWaterfall::stepsSumToTotalDifference()
{
    QFETCH(int, which);
    const Scenario a = defaultScenario(sstest::catalog());
    Scenario b = a;
    switch (which) {
    case 0:
        b.parallelism.sharding = Sharding::Zero1;
        b.training.recompute = Recompute::Full;
        break;
    case 1:
        b.model = sstest::presetModel("llama3-8b");
        b.cluster.nodes = 1;
        b.training.globalBatch = 64;
        break;
    case 2:
        b.cluster.gpu = sstest::gpu("b200-180gb");
        b.cluster.intraNode = sstest::link("nvlink5");
        b.parallelism.tp = 4;
        b.parallelism.sequenceParallel = true;
        b.offload.optimizer = OffloadTarget::Cpu;
        b.nccl.algo = NcclAlgo::Ring;
        b.nccl.proto = NcclProto::Simple;
        break;
    case 3:
        b.parallelism.sharding = Sharding::Zero1;
        b.parallelism.tp = 8;
        b.parallelism.pp = 4;
        b.parallelism.schedule = PpSchedule::Interleaved;
        b.parallelism.virtualStages = 2;
        break;
    case 4: // the framework brings its profile along (one step, "training.framework")
        b.parallelism.sharding = Sharding::FsdpFull;
        QVERIFY(applyFramework(b, Framework::PyTorch, sstest::catalog()));
        QVERIFY(b.profile.name != a.profile.name);
        break;
    }
    QVERIFY2(validate(b).empty(), validate(b).empty() ? "" : validate(b).front().message.c_str());
    const Waterfall w = buildWaterfall(a, b);
    QVERIFY2(w.ok, w.error.c_str());
    QVERIFY(!w.steps.empty());
    QVERIFY(sstest::relClose(w.memoryA + sumMemory(w), w.memoryB, 1e-9));
    QVERIFY(sstest::relClose(w.stepTimeA + sumTime(w), w.stepTimeB, 1e-9));
    QVERIFY(sstest::relClose(w.steps.back().memory, w.memoryB, 1e-12));
    QVERIFY(sstest::relClose(w.steps.back().stepTime, w.stepTimeB, 1e-12));
    QCOMPARE(allSettings(w), differingSettings(a, b));
    QVERIFY(differingSettings(w.steps.back().scenario, b).empty());
    // The figures after each step are those of evaluate() on that step's scenario.
    for (const auto& step : w.steps) {
        const Result r = evaluate(step.scenario);
        QVERIFY(r.valid);
        QCOMPARE(step.memory, r.memory.total());
        QCOMPARE(step.stepTime, r.step.total());
        QCOMPARE(step.fits, r.fits);
    }
}

void TestWaterfall::invalidIntermediateMergesWithNext()
{
    // A: 32 GPUs, global batch 512. B: 64 GPUs (nodes = 8) with tp = 8 and pp = 2. The order is cluster first:
    // 8 nodes alone is valid (dp 64 divides 512), then tp = 8 alone gives dp = 8 (valid), pp = 2 alone is valid...
    // To force a merge: B has tp = 8 and a global batch that only divides with that tp.
    const Scenario a = defaultScenario(sstest::catalog());
    Scenario b = a;
    b.training.globalBatch = 12; // dp 32 does not divide 12 -> invalid until tp = 8 makes dp = 4
    b.parallelism.tp = 8;
    QVERIFY(validate(b).empty());
    Scenario mid = a;
    mid.training.globalBatch = 12;
    QVERIFY(!validate(mid).empty());
    const Waterfall w = buildWaterfall(a, b);
    QVERIFY2(w.ok, w.error.c_str());
    QCOMPARE(w.steps.size(), size_t(1));
    QCOMPARE(w.steps[0].settings, (std::vector<std::string> { "training.global_batch", "parallelism.tp" }));
    QVERIFY(sstest::relClose(w.memoryA + sumMemory(w), w.memoryB, 1e-9));
    QVERIFY(sstest::relClose(w.stepTimeA + sumTime(w), w.stepTimeB, 1e-9));
}

void TestWaterfall::invalidEndsAreRefused()
{
    const Scenario a = defaultScenario(sstest::catalog());
    Scenario bad = a;
    bad.parallelism.tp = 6; // does not divide the heads
    QVERIFY(!validate(bad).empty());
    Waterfall w = buildWaterfall(a, bad);
    QVERIFY(!w.ok);
    QVERIFY(w.error.rfind("B is invalid", 0) == 0);
    w = buildWaterfall(bad, a);
    QVERIFY(!w.ok);
    QVERIFY(w.error.rfind("A is invalid", 0) == 0);
}

QTEST_APPLESS_MAIN(TestWaterfall)
#include "tst_waterfall.moc"
