// SPDX-License-Identifier: GPL-3.0-or-later
// The step timeline: its total equals the step time; every micro-batch appears on every stage; the
// pipeline bubble is visible; memory over time peaks at the Result's peak.
#include "test_support.h"

#include "shardscope/core/timeline.h"

using namespace sstest;

class TestTimeline : public QObject
{
    Q_OBJECT
private slots:
    void totalEqualsStepTime_data();
    void totalEqualsStepTime();
    void everyMicroBatchOnEveryStage();
    void bubbleOfOneFOneB();
    void zeroBubbleIsCloseToItsFormula();
    void elidedMicroBatchesKeepTheTotal_data();
    void elidedMicroBatchesKeepTheTotal();
    void longestPipelineIsBounded();
    void tooLargeToSimulateSaysWhy();
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
    QVERIFY2(relClose(t.total, r.step.total(), 1e-9),
        qPrintable(relMessage("timeline total", t.total, r.step.total(), 1e-9)));
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
    QVERIFY2(relClose(t.total, r.step.total(), 0.05),
        qPrintable(relMessage("zero-bubble timeline", t.total, r.step.total(), 0.05)));
    int w = 0;
    for (const auto& blk : t.blocks)
        w += blk.kind == BlockKind::WeightGrad;
    QCOMPARE(w, 8 * 64);
}

void TestTimeline::elidedMicroBatchesKeepTheTotal_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    QTest::newRow("gpipe pp8 m64") << int(PpSchedule::GPipe) << 8 << 1 << 64;
    QTest::newRow("1f1b pp8 m64") << int(PpSchedule::OneFOneB) << 8 << 1 << 64;
    QTest::newRow("1f1b pp4 m61") << int(PpSchedule::OneFOneB) << 4 << 1 << 61;
    QTest::newRow("interleaved pp4 v3 m64") << int(PpSchedule::Interleaved) << 4 << 3 << 64;
}

void TestTimeline::elidedMicroBatchesKeepTheTotal()
{
    // A bound small enough to elide most micro-batches: each elided one adds one steady-state period of the
    // slowest stage, so the total is the full simulation's (whose total is the step time, above), the blocks stay
    // within the bound, every stage shows one Elided block, and the micro-batches drawn after it carry their real
    // numbers (the last forward on stage 0 is micro-batch m − 1).
    QFETCH(int, schedule);
    QFETCH(int, pp);
    QFETCH(int, v);
    QFETCH(int, m);
    const Scenario s = pipelineScenario(PpSchedule(schedule), pp, v, m);
    const Result r = evaluate(s);
    QVERIFY2(r.valid, qPrintable(issuesText(r.issues)));
    const Timeline full = buildTimeline(s, r);
    QCOMPARE(full.microBatchesDrawn, int64_t(m));
    const int64_t bound = full.blocks.size() / 4;
    const Timeline t = buildTimeline(s, r, bound);
    QVERIFY(t.notDrawn.empty());
    QVERIFY2(t.microBatchesDrawn < m && t.microBatchesDrawn >= 2, qPrintable(QString::number(t.microBatchesDrawn)));
    QCOMPARE(t.microBatches, int64_t(m));
    QVERIFY2(int64_t(t.blocks.size()) <= bound + 4 * pp, qPrintable(QString::number(t.blocks.size())));
    QVERIFY2(relClose(t.total, full.total, 1e-9), qPrintable(relMessage("elided total", t.total, full.total, 1e-9)));
    // The elided steady state holds every micro-batch the stage stores, so the peak is the full simulation's.
    QVERIFY2(relClose(t.peakBytes, full.peakBytes, 1e-9),
        qPrintable(relMessage("elided peak", t.peakBytes, full.peakBytes, 1e-9)));
    std::vector<int> elided(size_t(pp), 0);
    int lastForward = -1;
    for (const auto& b : t.blocks) {
        QVERIFY(b.end >= b.start);
        if (b.kind == BlockKind::Elided)
            ++elided[size_t(b.stage)];
        if (b.kind == BlockKind::Forward && b.stage == 0)
            lastForward = std::max(lastForward, b.microBatch);
    }
    for (int stage = 0; stage < pp; ++stage)
        QCOMPARE(elided[size_t(stage)], 1);
    QCOMPARE(lastForward, m - 1);
    // Nothing overlaps on a stage's compute stream once the later blocks have moved.
    for (int stage = 0; stage < pp; ++stage) {
        std::vector<std::pair<double, double>> spans;
        for (const auto& b : t.blocks)
            if (b.stage == stage && b.kind != BlockKind::Communication && b.microBatch != -1)
                spans.push_back({ b.start, b.end });
        std::sort(spans.begin(), spans.end());
        for (size_t k = 1; k < spans.size(); ++k)
            QVERIFY2(spans[k].first >= spans[k - 1].second - 1e-12 * t.total,
                qPrintable(QString("stage %1: block at %2 starts before %3")
                               .arg(stage)
                               .arg(spans[k].first)
                               .arg(spans[k - 1].second)));
    }
}

void TestTimeline::longestPipelineIsBounded()
{
    // The case that took 108 s and 20 GB (issue 23): a 1,024-layer model over 1,024 pipeline stages with 65,536
    // micro-batches per step. The timeline keeps within its bound, elides the steady state, and still ends at
    // the step time.
    Scenario s = pipelineScenario(PpSchedule::OneFOneB, 1, 1, 1);
    s.model = gptModel(1024, 1024, 16, 4096, 51200, 2048);
    s.parallelism.tp = 1;
    s.parallelism.sequenceParallel = false;
    s.parallelism.pp = 1024;
    s.cluster.nodes = 128;
    s.cluster.gpusPerNode = 8;
    setBatch(s, 1, 65536);
    const Result r = evaluate(s);
    QVERIFY2(r.valid, qPrintable(issuesText(r.issues)));
    QCOMPARE(r.microBatches, int64_t(65536));
    const Timeline t = buildTimeline(s, r);
    QVERIFY(t.notDrawn.empty());
    QVERIFY2(t.blocks.size() <= 200'000 + 4 * 1024, qPrintable(QString::number(t.blocks.size())));
    QVERIFY(t.microBatchesDrawn < t.microBatches);
    QVERIFY2(relClose(t.total, r.step.total(), 1e-9),
        qPrintable(relMessage("timeline total", t.total, r.step.total(), 1e-9)));
    // Fewer micro-batches are drawn than stage 0 stores (1,024), yet memory peaks where the Result's does:
    // static memory + every stored activation of the fullest stage.
    double peak = 0;
    for (const auto& st : r.stages)
        peak = std::max(peak, st.memory.total());
    QVERIFY2(relClose(t.peakBytes, peak, 1e-9), qPrintable(relMessage("timeline peak", t.peakBytes, peak, 1e-9)));
}

void TestTimeline::tooLargeToSimulateSaysWhy()
{
    // Interleaving needs whole groups of p micro-batches: below two groups' blocks there is nothing faithful to
    // draw, so no block is made and the timeline says why (the total is still the step time).
    const Scenario s = pipelineScenario(PpSchedule::Interleaved, 8, 3, 64);
    const Result r = evaluate(s);
    QVERIFY2(r.valid, qPrintable(issuesText(r.issues)));
    const Timeline t = buildTimeline(s, r, 100);
    QVERIFY(t.blocks.empty());
    QVERIFY(t.memory.empty());
    QVERIFY2(t.notDrawn.find("over the 100 a timeline holds") != std::string::npos, t.notDrawn.c_str());
    QCOMPARE(t.total, r.step.total());
}

QTEST_APPLESS_MAIN(TestTimeline)
#include "tst_timeline.moc"
