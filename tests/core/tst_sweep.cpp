// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps equal evaluate() point by point; the model family is ordered; sizing finds the fewest nodes that fit.
#include "test_support.h"

#include "shardscope/core/sweep.h"

using namespace sstest;

class TestSweep : public QObject
{
    Q_OBJECT
private slots:
    void pointsEqualEvaluate_data();
    void pointsEqualEvaluate();
    void familyIsOrderedBySize();
    void pipelineLayoutStaysWithItsPp();
    void strategiesStopFittingInOrder();
    void sweepLadder();
    void sizingFindsFewestNodes();
    void minGpusIsTheFewestValidFit_data();
    void minGpusIsTheFewestValidFit();
};

void TestSweep::pointsEqualEvaluate_data()
{
    QTest::addColumn<int>("axis");
    QTest::newRow("nodes") << int(SweepAxis::Nodes);
    QTest::newRow("gpus") << int(SweepAxis::Gpus);
    QTest::newRow("micro-batch") << int(SweepAxis::MicroBatch);
    QTest::newRow("sequence length") << int(SweepAxis::SeqLen);
    QTest::newRow("global batch") << int(SweepAxis::GlobalBatch);
    QTest::newRow("tp") << int(SweepAxis::Tp);
    QTest::newRow("pp") << int(SweepAxis::Pp);
    QTest::newRow("model size") << int(SweepAxis::ModelSize);
}

void TestSweep::pointsEqualEvaluate()
{
    QFETCH(int, axis);
    const Scenario base = presetScenario("llama3-8b", 2, 8);
    std::vector<double> values = defaultSweepValues(base, SweepAxis(axis));
    if (SweepAxis(axis) == SweepAxis::ModelSize)
        for (size_t i = 0; i < modelFamily(catalog(), base.model.id).size(); ++i)
            values.push_back(double(i));
    QVERIFY(!values.empty());
    const StrategyLadder& strategies = sweepStrategies();
    const auto curves = sweep(base, SweepAxis(axis), values, strategies, catalog());
    QCOMPARE(curves.size(), strategies.size());
    for (size_t c = 0; c < curves.size(); ++c) {
        QCOMPARE(curves[c].points.size(), values.size());
        for (size_t i = 0; i < values.size(); ++i) {
            // Built here independently of sweep(): strategy fields, then the axis.
            Scenario s = base;
            s.parallelism.sharding = strategies[c].sharding;
            s.training.recompute = strategies[c].recompute.value();
            s.offload.optimizer = strategies[c].optimizer;
            s.offload.parameters = strategies[c].parameters;
            s = applyAxis(s, SweepAxis(axis), values[i], catalog());
            const Result r = evaluate(s);
            const auto& p = curves[c].points[i];
            QCOMPARE(p.valid, r.valid);
            if (!r.valid)
                continue;
            QCOMPARE(p.fits, r.fits);
            QCOMPARE(p.memory, r.memory.total());
            QCOMPARE(p.stepTime, r.step.total());
            QCOMPARE(p.mfu, r.throughput.mfu);
            QCOMPARE(p.commBytes, r.totalCommBytes);
        }
    }
}

void TestSweep::pipelineLayoutStaysWithItsPp()
{
    // A pipeline layout names pp × virtual stages stages of the model's layers: the sweep keeps it at the base pp
    // and splits layers evenly at every other pp, so those points stay valid.
    Scenario base = presetScenario("llama3-8b", 2, 8);
    base.parallelism.pp = 4;
    base.parallelism.pipelineLayout = "Et*7|t*9|t*9|t*7L";
    QVERIFY(validate(base).empty());
    QCOMPARE(applyAxis(base, SweepAxis::Pp, 4, catalog()).parallelism.pipelineLayout, base.parallelism.pipelineLayout);
    const Scenario two = applyAxis(base, SweepAxis::Pp, 2, catalog());
    QVERIFY(two.parallelism.pipelineLayout.empty());
    QVERIFY(validate(two).empty());
}

void TestSweep::familyIsOrderedBySize()
{
    const auto fam = modelFamily(catalog(), "llama3-70b");
    QVERIFY(fam.size() >= 3); // 8B, 70B, 405B (llama3.1-405b joins the llama3 family)
    for (size_t i = 1; i < fam.size(); ++i)
        QVERIFY(modelSize(*fam[i - 1]).total < modelSize(*fam[i]).total);
    QCOMPARE(QString::fromStdString(fam.back()->id), QStringLiteral("llama3.1-405b"));
}

void TestSweep::strategiesStopFittingInOrder()
{
    // Along model size, ZeRO-3 keeps fitting at least as long as DDP (its model states are 16Ψ/N ≤ 16Ψ).
    const Scenario base = presetScenario("llama3-8b", 2, 8);
    std::vector<double> idx;
    for (size_t i = 0; i < modelFamily(catalog(), base.model.id).size(); ++i)
        idx.push_back(double(i));
    const auto curves = sweep(base, SweepAxis::ModelSize, idx, sweepStrategies(), catalog());
    int lastDdp = -1, lastZero3 = -1;
    for (size_t i = 0; i < idx.size(); ++i) {
        if (curves[0].points[i].fits)
            lastDdp = int(i);
        if (curves[3].points[i].fits)
            lastZero3 = int(i);
    }
    QVERIFY(lastZero3 >= lastDdp);
}

// The sweeps' ladder: DDP to ZeRO-3 with selective recompute, then ZeRO-3 with full recompute, then also offloading
// optimizer and parameters to the CPU; each label names what its rung adds.
void TestSweep::sweepLadder()
{
    const StrategyLadder& ladder = sweepStrategies();
    const char* labels[]
        = { "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3", "ZeRO-3 + full recompute", "ZeRO-3 + full recompute + CPU offload" };
    const Sharding order[]
        = { Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3, Sharding::Zero3, Sharding::Zero3 };
    QCOMPARE(ladder.size(), std::size(labels));
    for (size_t i = 0; i < ladder.size(); ++i) {
        QCOMPARE(ladder[i].label, std::string(labels[i]));
        QCOMPARE(ladder[i].sharding, order[i]);
        QCOMPARE(ladder[i].recompute.value(), i < 4 ? Recompute::Selective : Recompute::Full);
        const OffloadTarget offload = i == 5 ? OffloadTarget::Cpu : OffloadTarget::None;
        QCOMPARE(ladder[i].optimizer, offload);
        QCOMPARE(ladder[i].parameters, offload);
    }
}

void TestSweep::sizingFindsFewestNodes()
{
    Scenario base = presetScenario("llama3-70b", 1, 8);
    base.training.seqLen = 4096;
    base.training.globalBatch = 256;
    const std::vector<const GpuSpec*> gpus { &gpu("h100-sxm5-80gb"), &gpu("h200-sxm-141gb") };
    // ZeRO-3 with full recompute: activations (2sbh per layer) no longer bound the fit, only 16Ψ/N does.
    const auto rows = sizeCluster(base, gpus, { sweepStrategies()[4] }, 1e12);
    QCOMPARE(rows.size(), size_t(2));
    for (const auto& row : rows) {
        QVERIFY(row.minGpus > 0);
        // One node fewer does not fit (or is invalid); the found size does.
        Scenario s = withStrategy(base, sweepStrategies()[4]);
        s.cluster.gpu = *catalog().gpu(row.gpuId);
        s.cluster.nodes = row.minGpus / 8;
        const Result at = evaluate(s);
        QVERIFY(at.valid && at.fits);
        s.cluster.nodes -= 1;
        if (s.cluster.nodes >= 1) {
            const Result below = evaluate(s);
            QVERIFY(!below.valid || !below.fits);
        }
        QVERIFY(relClose(row.trainSeconds, 1e12 / at.throughput.tokensPerSecond, 1e-12));
    }
    // H200's 141 GB needs no more GPUs than H100's 80 GB.
    QVERIFY(rows[1].minGpus <= rows[0].minGpus);
}

void TestSweep::minGpusIsTheFewestValidFit_data()
{
    QTest::addColumn<QString>("text");
    for (const QString& f : shippedScenarioFiles())
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << QString::fromStdString(readText(f));
    // expert_tp 1 lets ep 8 span tp 4 × dp: dp need only be even (ep·expert_tp = 8 | 4·dp), not a multiple of 8
    QTest::newRow("Mixtral 8x7B, tp 4, ep 8 over tp × dp (expert_tp 1)") << QStringLiteral(
        R"({"schema":"shardscope.scenario/1","model":{"preset":"mixtral-8x7b"},)"
        R"("cluster":{"nodes":2,"gpus_per_node":8},"training":{"global_batch":96,"seq_len":4096},)"
        R"("parallelism":{"sharding":"zero1","tp":4,"sequence_parallel":true,"ep":8,"expert_tp":1}})");
}

void TestSweep::minGpusIsTheFewestValidFit()
{
    // min_gpus names a cluster the scenario can take (whole nodes, or part of one node), valid under every rule on
    // dp (global batch a multiple of micro-batch × dp, ep·expert_tp | tp·dp·cp, the interleaved schedule's micro-batch count,
    // shard groups), on which it fits; no smaller such cluster fits. Checked by evaluating every cluster size that
    // is a multiple of t·p·c up to it (or, when min_gpus is 0, up to 64 times the scenario's own size).
    QFETCH(QString, text);
    const ScenarioParse p = parse(text.toStdString());
    QVERIFY(p.ok());
    const Scenario base = p.scenario;
    const Result r = evaluate(base);
    QVERIFY(r.valid);
    const int perRank = r.tp * r.pp * r.cp;
    auto at = [&](int gpus) {
        Scenario s = base;
        if (gpus < base.cluster.gpusPerNode) {
            s.cluster.nodes = 1;
            s.cluster.gpusPerNode = gpus;
        } else {
            s.cluster.nodes = gpus / base.cluster.gpusPerNode;
        }
        return s;
    };
    auto wholeNodes = [&](int gpus) { return gpus < base.cluster.gpusPerNode || gpus % base.cluster.gpusPerNode == 0; };
    const int limit = r.minGpus > 0 ? r.minGpus : 64 * r.gpus;
    for (int gpus = perRank; gpus < limit; gpus += perRank) {
        if (!wholeNodes(gpus))
            continue;
        const Result smaller = evaluate(at(gpus));
        QVERIFY2(!smaller.valid || !smaller.fits, qPrintable(QStringLiteral("%1 GPUs also fit").arg(gpus)));
    }
    if (r.minGpus > 0) {
        QVERIFY(wholeNodes(r.minGpus));
        const Result there = evaluate(at(r.minGpus));
        QVERIFY2(there.valid, qPrintable(issuesText(there.issues)));
        QVERIFY(there.fits);
    }
}

QTEST_APPLESS_MAIN(TestSweep)
#include "tst_sweep.moc"
