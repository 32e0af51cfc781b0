// SPDX-License-Identifier: GPL-3.0-or-later
// The step timeline: its total equals the step time; every micro-batch appears on every stage; the
// pipeline bubble is visible; memory over time peaks at the Result's peak.
#include "test_support.h"

#include "shardscope/core/timeline.h"

using namespace sstest;

class TestTimeline : public QObject {
    Q_OBJECT
private slots:
    void totalEqualsStepTime_data();
    void totalEqualsStepTime();
    void everyMicroBatchOnEveryStage();
    void bubbleOfOneFOneB();
    void zeroBubbleIsCloseToItsFormula();
};

namespace {
Scenario pipelineScenario(PpSchedule sched, int pp, int v, int microBatches)
{
    Scenario s = presetScenario("gpt3-175b", 8, 8, "a100-sxm4-80gb", "nvlink3", "ib-hdr200");
    s.parallelism.tp = 8;
    s.parallelism.pp = pp;
    s.parallelism.sequenceParallel = true;
    s.parallelism.schedule = sched;
    s.parallelism.virtualStages = v;
    s.parallelism.sharding = Sharding::Zero1;
    s.training.seqLen = 2048;
    setBatch(s, 1, microBatches);
    return s;
}
} // namespace

void TestTimeline::totalEqualsStepTime_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    QTest::newRow("gpipe pp8 m16") << int(PpSchedule::GPipe) << 8 << 1 << 16;
    QTest::newRow("1f1b pp8 m64") << int(PpSchedule::OneFOneB) << 8 << 1 << 64;
    QTest::newRow("1f1b pp4 m3 (m < p)") << int(PpSchedule::OneFOneB) << 4 << 1 << 3;
    QTest::newRow("interleaved pp8 v3 m64") << int(PpSchedule::Interleaved) << 8 << 3 << 64;
    QTest::newRow("interleaved pp4 v2 m8") << int(PpSchedule::Interleaved) << 4 << 2 << 8;
    QTest::newRow("pp1 m8") << int(PpSchedule::OneFOneB) << 1 << 1 << 8;
}

void TestTimeline::totalEqualsStepTime()
{
    QFETCH(int, schedule);
    QFETCH(int, pp);
    QFETCH(int, v);
    QFETCH(int, m);
    const Scenario s = pipelineScenario(PpSchedule(schedule), pp, v, m);
    const Result r = evaluate(s);
    QVERIFY2(r.valid, qPrintable(issuesText(r.issues)));
    const Timeline t = buildTimeline(s, r);
    QVERIFY2(relClose(t.total, r.step.total(), 1e-9), qPrintable(relMessage("timeline total", t.total, r.step.total(), 1e-9)));
}

void TestTimeline::everyMicroBatchOnEveryStage()
{
    const Scenario s = pipelineScenario(PpSchedule::Interleaved, 4, 2, 8);
    const Result r = evaluate(s);
    const Timeline t = buildTimeline(s, r);
    for (int stage = 0; stage < 4; ++stage) {
        int f = 0, b = 0;
        for (const auto& blk : t.blocks) {
            if (blk.stage != stage)
                continue;
            f += blk.kind == BlockKind::Forward;
            b += blk.kind == BlockKind::Backward;
            QVERIFY(blk.end >= blk.start);
        }
        QCOMPARE(f, 8 * 2); // m micro-batches × v chunks
        QCOMPARE(b, 8 * 2);
    }
}

void TestTimeline::bubbleOfOneFOneB()
{
    // 1F1B: each stage idles (p − 1)·(t_f + t_b) of the slowest stage while the pipeline fills and drains
    // (Narayanan et al. SC'21 §2.2). With the last stage heavier (output layer), stage 0's idle time is the
    // sum over the other stages of their forward + backward time, which is what the simulation must give.
    const Scenario s = pipelineScenario(PpSchedule::OneFOneB, 4, 1, 16);
    const Result r = evaluate(s);
    const Timeline t = buildTimeline(s, r);
    double busy0 = 0;
    for (const auto& blk : t.blocks)
        if (blk.stage == 0 && (blk.kind == BlockKind::Forward || blk.kind == BlockKind::Backward))
            busy0 += blk.end - blk.start;
    const double idle0 = t.pipelineEnd - busy0;
    double expected = 0;
    for (int i = 1; i < 4; ++i)
        expected += r.stages[i].forwardTime + r.stages[i].backwardTime;
    // stage 0 waits for one forward through stages 1..3 and one backward back: Σ_{i>0} (t_f,i + t_b,i),
    // plus any steady-state stalls behind the slower last stage: (m − 1)·(t_slow − t_0).
    const double t0 = r.stages[0].forwardTime + r.stages[0].backwardTime;
    const double tSlow = r.stages[3].forwardTime + r.stages[3].backwardTime;
    expected += (16 - 1) * std::max(0.0, tSlow - t0);
    QVERIFY2(relClose(idle0, expected, 1e-9), qPrintable(relMessage("stage 0 idle", idle0, expected, 1e-9)));
    QVERIFY(idle0 > 0);
}

void TestTimeline::zeroBubbleIsCloseToItsFormula()
{
    // The ZB-H1 bubble (p−1)(t_f + t_b − 2 t_w) (zero-bubble README) against the greedy simulation that runs
    // deferred weight gradients whenever a forward or backward must wait: within 5%.
    const Scenario s = pipelineScenario(PpSchedule::ZeroBubble, 8, 1, 64);
    const Result r = evaluate(s);
    const Timeline t = buildTimeline(s, r);
    QVERIFY2(relClose(t.total, r.step.total(), 0.05), qPrintable(relMessage("zero-bubble timeline", t.total, r.step.total(), 0.05)));
    int w = 0;
    for (const auto& blk : t.blocks)
        w += blk.kind == BlockKind::WeightGrad;
    QCOMPARE(w, 8 * 64);
}

QTEST_APPLESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
