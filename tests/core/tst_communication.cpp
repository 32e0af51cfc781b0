// SPDX-License-Identifier: GPL-3.0-or-later
// Communication volumes per GPU per optimizer step and collective times from NCCL's model.
// Sources: formulas.md §4.1 (per-rank bytes), §4.2 (data parallel), §4.3 (TP), §4.4 (PP), §4.6 (EP),
// §5.2–§5.5 (NCCL tuning model), calibration.md / catalogs.md for the hardware.
#include "test_support.h"

#include "communication_stage.h"
#include "attention_rate.h"
#include "compute_stage.h"
#include "timing_stage.h"
#include "shardscope/core/catalog.h"
#include "shardscope/core/rank_map.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <algorithm>
#include <cmath>
#include <utility>

using namespace shardscope::core;

class TestCommunication : public QObject
{
    Q_OBJECT
private slots:
    void tpCommOverlapHidesBehindTheGemms();
    void gradReduceAfterTheBackwardIsExposed_data();
    void gradReduceAfterTheBackwardIsExposed();
    void paramGatherHidesBehindTheFirstForward();
    void zero3MovesOneAndAHalfDdp_data();
    void zero3MovesOneAndAHalfDdp();
    void ddpBytesHandComputed();
    void zero3BytesHandComputed();
    void zero1BytesHandComputed();
    void zero2ReduceScatterRepeatsPerMicroBatch();
    void tpBytesPerLayer_data();
    void tpBytesPerLayer();
    void ppSendRecvBytes();
    void epAllToAllBytes();
    void largeAllReduceInsideA100Node();
    void forcedLl128AllReduceInsideA100Node();
    void smallAllReducePicksLowLatencyProtocol();
    void treeAndRingDifferAcrossNodes();
    void nvl72DomainSpansTrays();
    void forcedTreeInsideOneNodeIsNotFree();
    void byGroupSumsToTotal_data();
    void byGroupSumsToTotal();
    void ddpAllReducesBucketsOf25MiB();
    void deepspeedBucketsOf5e8Elements();
    void epAllToAllDispatchesInFp8();
    void megatronBucketsGrowWithDp();
    void deepspeedZero3GathersPrefetchBuckets();
    void fsdpGathersOneUnitPerCall();
    void cpRingStepExposedBeyondItsAttention();
    void cpAllToAllTradesSequenceForHeads();
    void cpAllGatherGathersKvExposed();
    void epOverlapHidesBehindAnotherMicroBatch();
    void dualPipeKeepsSmsForCommunication();
    void nodeLimitedRoutingCutsNetworkBytes();
    void latencyOncePerBucket();
    void expertTpMovesTheMoeMlpCollectives();
    void expertGridPlacesEpGroups();
    void allgatherDispatcherGathersEveryToken();
    void deepepCrossesTheNetworkOncePerNode();
};

namespace {

constexpr double MiB = 1024.0 * 1024.0;

/// Data-parallel scenario: a preset on nodes × 8 H100, tp = pp = 1, zero-paper accounting (w = r = 2 bytes),
/// `micro` micro-batches per step.
Scenario dpScenario(const std::string& preset, int nodes, Sharding sh, int64_t microBatches = 1)
{
    Scenario s = sstest::presetScenario(preset, nodes, 8);
    s.training.accounting = Accounting::ZeroPaper;
    s.training.precision = Precision::Bf16Mixed;
    s.training.seqLen = 2048;
    s.parallelism.sharding = sh;
    sstest::setBatch(s, 1, microBatches);
    return s;
}

/// A GPT with big layers on one DGX A100 (8 × A100 80GB on NVLink 3 / NVSwitch), TP 8: its TP all-reduces
/// carry β·s·b·h bytes each (formulas.md §4.3).
Scenario a100TpScenario(int64_t seq, int64_t micro, int64_t hidden)
{
    Scenario s = sstest::presetScenario("gpt3-xl", 1, 8, "a100-sxm4-80gb", "nvlink3", "ib-hdr200");
    s.model = sstest::gptModel(2, hidden, 8, 4 * hidden, 1000, seq);
    s.training.seqLen = seq;
    s.training.recompute = Recompute::None;
    s.parallelism.sharding = Sharding::Ddp;
    s.parallelism.tp = 8;
    sstest::setBatch(s, micro, 1);
    return s;
}

double perCallTime(const Collective& c) { return c.time / double(c.count); }

Scenario withFramework(Scenario s, Framework f)
{
    const bool ok = applyFramework(s, f, sstest::catalog());
    if (!ok)
        qFatal("no profile");
    return s;
}

} // namespace

void TestCommunication::paramGatherHidesBehindTheFirstForward()
{
    // Megatron-LM's distributed optimizer gathers the updated parameters inside the optimizer step unless
    // --overlap-param-gather (distrib_optimizer.py step_with_ready_grads: all exposed). With it, the forward pre-hooks
    // gather bucket by bucket in the next step's first forward (distributed_data_parallel.py): the first bucket is
    // waited for, the rest hide behind the first micro-batch's forward, max(one call, calls × call − t_fwd).
    // Pipelined, ranks after the first keep one bucket (exposed); interleaved, only the first of v chunks is waited
    // for. Llama 3 8B on 2 × 8 H100, data-parallel 16, Megatron-LM, micro-batches of 1,024 tokens (a forward shorter
    // than the whole gather).
    Scenario s = withFramework(dpScenario("llama3-8b", 2, Sharding::Zero1, 4), Framework::Megatron);
    s.training.seqLen = 1024;
    SS_EVALUATE(step, s);
    s.parallelism.overlapParamGather = true;
    SS_EVALUATE(next, s);
    const Collective* inStep = sstest::findCollective(step, Group::Dp, CollectiveOp::AllGather);
    const Collective* inFwd = sstest::findCollective(next, Group::Dp, CollectiveOp::AllGather);
    QVERIFY(inStep && inFwd);
    QVERIFY(inStep->count > 1);
    SS_COMPARE_REL(inStep->exposedTime, inStep->time, 1e-12);
    SS_COMPARE_REL(inFwd->time, inStep->time, 1e-12);
    const double fwd = next.stages[0].forwardTime;
    QVERIFY(fwd > perCallTime(*inFwd) && inFwd->time > fwd); // the forward hides some buckets but not all
    SS_COMPARE_REL(inFwd->exposedTime, inFwd->time - fwd, 1e-12);
    SS_COMPARE_REL(step.step.total() - next.step.total(), fwd, 1e-9);

    // pipelined: one bucket per rank after the first, exposed; interleaved over v = 2: half of it
    s.parallelism.pp = 2;
    SS_EVALUATE(pipelined, s);
    const Collective* one = sstest::findCollective(pipelined, Group::Dp, CollectiveOp::AllGather);
    QVERIFY(one);
    SS_COMPARE_REL(one->exposedTime, one->time, 1e-12);
    s.parallelism.schedule = PpSchedule::Interleaved;
    s.parallelism.virtualStages = 2;
    SS_EVALUATE(interleaved, s);
    const Collective* chunk = sstest::findCollective(interleaved, Group::Dp, CollectiveOp::AllGather);
    QVERIFY(chunk);
    SS_COMPARE_REL(chunk->exposedTime, chunk->time / 2, 1e-12);

    // Megatron asserts it needs --overlap-grad-reduce; DeepSpeed gathers inside step(); ZeRO-2 is warned about
    s.parallelism.overlapGradReduce = false;
    QVERIFY(sstest::hasIssue(validate(s), "parallelism.overlap_param_gather", "needs overlap_grad_reduce"));
    s.parallelism.overlapGradReduce = true;
    QVERIFY(sstest::hasIssue(validate(withFramework(s, Framework::DeepSpeed)), "parallelism.overlap_param_gather",
        "inside the optimizer step"));
    s.parallelism.sharding = Sharding::Zero2;
    SS_EVALUATE(z2, s);
    QVERIFY(sstest::hasIssue(z2.warnings, "parallelism.overlap_param_gather", "no effect with zero2"));
}

void TestCommunication::zero3MovesOneAndAHalfDdp_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<double>("psi"); // > 0: Ψ override
    QTest::newRow("llama3-8b dp16") << "llama3-8b" << 2 << 0.0;
    QTest::newRow("llama2-7b dp8") << "llama2-7b" << 1 << 0.0;
    QTest::newRow("gpt3-xl dp32") << "gpt3-xl" << 4 << 0.0;
    // Ψ = 600 DDP buckets of 25 MiB in bf16 (600 × 13,107,200 parameters): no partial bucket at all.
    QTest::newRow("psi = 600 buckets, dp16") << "llama3-8b" << 2 << 600 * 13107200.0;
}

void TestCommunication::zero3MovesOneAndAHalfDdp()
{
    // issue #2 item 6 / formulas.md §4.2: at one micro-batch and equal dtypes (zero-paper: w = r = 2),
    // ZeRO-3 = AG Ψ (fwd) + AG Ψ (bwd) + RS Ψ = 3Ψ against DDP's all-reduce 2Ψ: 1.5×.
    QFETCH(QString, preset);
    QFETCH(int, nodes);
    QFETCH(double, psi);
    Scenario s = dpScenario(preset.toStdString(), nodes, Sharding::Ddp);
    s.model.paramsOverride = psi;
    SS_EVALUATE(ddp, s);
    s.parallelism.sharding = Sharding::Zero3;
    SS_EVALUATE(z3, s);
    QCOMPARE(ddp.microBatches, int64_t(1));
    const double ddpBytes = ddp.bytesByGroup[int(Group::Dp)];
    const double z3Bytes = z3.bytesByGroup[int(Group::Dp)];
    QVERIFY(ddpBytes > 0);
    // Every row fails today: DDP's bytes are ceil(2Ψ / 25 MiB) full buckets. Even at Ψ = 600 whole buckets the
    // stage's Ψ is a floating sum of scaled parts a hair above 600 buckets, and the ceil adds a 601st.
    SS_COMPARE_REL(z3Bytes / ddpBytes, 1.5, 1e-9);
}

void TestCommunication::ddpBytesHandComputed()
{
    // formulas.md §4.2: DDP sends 2·φ·r·Ψ per rank per step, φ = (N−1)/N; pp = tp = 1, r = 2 (bf16 gradients).
    // Llama 3 8B over 16 GPUs: 2·(15/16)·2·8,030,261,248 bytes.
    const double psi = 8'030'261'248.0, N = 16;
    SS_EVALUATE(r, dpScenario("llama3-8b", 2, Sharding::Ddp));
    QCOMPARE(r.dp, 16);
    const double expected = 2 * (N - 1) / N * 2 * psi;
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Dp)], expected, 1e-9);
    // Whatever the bucketing, the step's DP traffic is one all-reduce of the gradients: never more than one bucket
    // above the formula.
    QVERIFY(r.bytesByGroup[int(Group::Dp)] >= expected * (1 - 1e-12));
    QVERIFY(r.bytesByGroup[int(Group::Dp)] <= expected + 2 * (N - 1) / N * 25 * MiB);
}

void TestCommunication::zero3BytesHandComputed()
{
    // formulas.md §4.2: ZeRO-3 without no_sync: A·(2·φ·w·Ψ + φ·r·Ψ), w = r = 2.
    const double psi = 8'030'261'248.0, N = 16, phi = (N - 1) / N;
    for (int A : { 1, 4 }) {
        SS_EVALUATE(r, dpScenario("llama3-8b", 2, Sharding::Zero3, A));
        QCOMPARE(r.microBatches, int64_t(A));
        SS_COMPARE_REL(sstest::collectiveBytes(r, Group::Dp, CollectiveOp::AllGather), A * 2 * phi * 2 * psi, 1e-12);
        SS_COMPARE_REL(sstest::collectiveBytes(r, Group::Dp, CollectiveOp::ReduceScatter), A * phi * 2 * psi, 1e-12);
        SS_COMPARE_REL(r.bytesByGroup[int(Group::Dp)], A * 3 * phi * 2 * psi, 1e-12);
    }
}

void TestCommunication::zero1BytesHandComputed()
{
    // formulas.md §4.2: ZeRO-1: φ·r·Ψ (reduce-scatter gradients) + φ·w·Ψ (all-gather updated parameters).
    const double psi = 8'030'261'248.0, N = 16, phi = (N - 1) / N;
    SS_EVALUATE(r, dpScenario("llama3-8b", 2, Sharding::Zero1));
    SS_COMPARE_REL(sstest::collectiveBytes(r, Group::Dp, CollectiveOp::ReduceScatter), phi * 2 * psi, 1e-9);
    SS_COMPARE_REL(sstest::collectiveBytes(r, Group::Dp, CollectiveOp::AllGather), phi * 2 * psi, 1e-9);
}

void TestCommunication::zero2ReduceScatterRepeatsPerMicroBatch()
{
    // formulas.md §4.2: ZeRO-2 reduce-scatters every micro-step (A·φ·r·Ψ) and all-gathers once (φ·w·Ψ);
    // DDP with no_sync all-reduces once per step whatever A is.
    const int A = 4;
    SS_EVALUATE(z1, dpScenario("llama3-8b", 2, Sharding::Zero2, 1));
    SS_EVALUATE(zA, dpScenario("llama3-8b", 2, Sharding::Zero2, A));
    SS_EVALUATE(d1, dpScenario("llama3-8b", 2, Sharding::Ddp, 1));
    SS_EVALUATE(dA, dpScenario("llama3-8b", 2, Sharding::Ddp, A));
    QCOMPARE(zA.microBatches, int64_t(A));
    const double rs1 = sstest::collectiveBytes(z1, Group::Dp, CollectiveOp::ReduceScatter);
    const double rsA = sstest::collectiveBytes(zA, Group::Dp, CollectiveOp::ReduceScatter);
    QVERIFY(rs1 > 0);
    SS_COMPARE_REL(rsA, A * rs1, 1e-12);
    SS_COMPARE_REL(sstest::collectiveBytes(zA, Group::Dp, CollectiveOp::AllGather),
        sstest::collectiveBytes(z1, Group::Dp, CollectiveOp::AllGather), 1e-12);
    const Collective* rs = sstest::findCollective(zA, Group::Dp, CollectiveOp::ReduceScatter);
    const Collective* rsOne = sstest::findCollective(z1, Group::Dp, CollectiveOp::ReduceScatter);
    QVERIFY(rs && rsOne);
    QCOMPARE(rs->count, A * rsOne->count);
    // DDP: the same bytes and calls at A = 1 and A = 4.
    SS_COMPARE_REL(dA.bytesByGroup[int(Group::Dp)], d1.bytesByGroup[int(Group::Dp)], 1e-12);
    const Collective* ar1 = sstest::findCollective(d1, Group::Dp, CollectiveOp::AllReduce);
    const Collective* arA = sstest::findCollective(dA, Group::Dp, CollectiveOp::AllReduce);
    QVERIFY(ar1 && arA);
    QCOMPARE(arA->count, ar1->count);
}

void TestCommunication::tpBytesPerLayer_data()
{
    QTest::addColumn<bool>("sp");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<double>("coefficient"); // bytes per layer per micro-batch in units of (t−1)/t·β·sbh
    // formulas.md §4.3: without SP 4 all-reduces (2 fwd, 2 bwd) = 8(t−1)/t·β·sbh; full recompute repeats the
    // 2 forward all-reduces (+4). With SP 6 all-gathers + 4 reduce-scatters = 10(t−1)/t·β·sbh; full recompute
    // repeats the forward's 2 AG + 2 RS (+4) [DERIVED, same rule].
    QTest::newRow("no SP, selective") << false << int(Recompute::Selective) << 8.0;
    QTest::newRow("no SP, none") << false << int(Recompute::None) << 8.0;
    QTest::newRow("no SP, full") << false << int(Recompute::Full) << 12.0;
    QTest::newRow("SP, selective") << true << int(Recompute::Selective) << 10.0;
    QTest::newRow("SP, full") << true << int(Recompute::Full) << 14.0;
}

void TestCommunication::tpBytesPerLayer()
{
    QFETCH(bool, sp);
    QFETCH(int, recompute);
    QFETCH(double, coefficient);
    // Llama 3 8B, TP 8 on one node, pp = 1, s = 4096, b = 1, 4 micro-batches per step, β = 2.
    const double L = 32, t = 8, beta = 2, s = 4096, b = 1, h = 4096, m = 4;
    Scenario sc = sstest::presetScenario("llama3-8b", 1, 8);
    sc.training.seqLen = int64_t(s);
    sc.training.recompute = static_cast<Recompute>(recompute);
    sc.parallelism.tp = int(t);
    sc.parallelism.sequenceParallel = sp;
    sstest::setBatch(sc, int64_t(b), int64_t(m));
    SS_EVALUATE(r, sc);
    const double expected = m * L * coefficient * (t - 1) / t * beta * s * b * h;
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Tp)], expected, 1e-12);
}

void TestCommunication::ppSendRecvBytes()
{
    // formulas.md §4.4: per stage boundary, per micro-batch, β·s·b·h/t forward and the same backward (Megatron
    // scatter/gather); per step m × 2 × β·sbh/t; × v with the interleaved schedule.
    const double t = 2, beta = 2, s = 4096, b = 1, h = 4096, m = 8;
    for (int v : { 1, 2 }) {
        Scenario sc = sstest::presetScenario("llama3-8b", 1, 8);
        sc.training.seqLen = int64_t(s);
        sc.parallelism.tp = int(t);
        sc.parallelism.pp = 4;
        sc.parallelism.schedule = v > 1 ? PpSchedule::Interleaved : PpSchedule::OneFOneB;
        sc.parallelism.virtualStages = v;
        sstest::setBatch(sc, int64_t(b), int64_t(m));
        SS_EVALUATE(r, sc);
        SS_COMPARE_REL(r.bytesByGroup[int(Group::Pp)], v * m * 2 * beta * s * b * h / t, 1e-12);
    }
}

void TestCommunication::epAllToAllBytes()
{
    // formulas.md §4.6: per MoE layer per micro-batch, dispatch + combine forward and again backward:
    // 4·β·h·T·k·(e−1)/e bytes per rank, T = s·b tokens (uniform routing, capacity factor 1).
    // Mixtral 8x7B (32 MoE layers, h 4096, top-2), EP 8 inside one node, s = 4096, b = 1, one micro-batch.
    const double L = 32, beta = 2, h = 4096, s = 4096, b = 1, k = 2, e = 8;
    Scenario sc = sstest::presetScenario("mixtral-8x7b", 1, 8);
    sc.training.seqLen = int64_t(s);
    sc.parallelism.ep = int(e);
    sstest::setBatch(sc, int64_t(b), 1);
    SS_EVALUATE(r, sc);
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Ep)], L * 4 * beta * h * s * b * k * (e - 1) / e, 1e-12);
}

void TestCommunication::largeAllReduceInsideA100Node()
{
    // formulas.md §5.2–§5.3: on SM80 NCCL rates each NVLink at 20 GB/s; A100 has 12 links → busBw 240 GB/s;
    // Ring AllReduce algBw = busBw·n/(2(n−1)), so one call takes ≈ 2(n−1)/n·S / 240 GB/s for large S
    // (the ~56 µs latency is < 1% at 2 GB).
    const double n = 8, s = 2048, b = 64, h = 8192, beta = 2;
    SS_EVALUATE(r, a100TpScenario(int64_t(s), int64_t(b), int64_t(h)));
    const Collective* ar = sstest::findCollective(r, Group::Tp, CollectiveOp::AllReduce);
    QVERIFY(ar);
    const double S = beta * s * b * h;
    QCOMPARE(ar->messageBytes, S);
    QCOMPARE(ar->groupSize, 8);
    QVERIFY(!ar->crossesNodes);
    QCOMPARE(ar->algo, Algo::Ring); // A100 has no NVLink SHARP (NVLS needs SM90)
    SS_COMPARE_REL(perCallTime(*ar), 2 * (n - 1) / n * S / (12 * 20e9), 0.02);
}

void TestCommunication::forcedLl128AllReduceInsideA100Node()
{
    // NCCL_PROTO=LL128 (formulas.md §5.3): Ring LL128 busBw = min(0.92 × busBw, nCh × perChMaxRingLL128Bw)
    // = min(0.92 × 240, 12 channels × 20) GB/s = 220.8 GB/s; latency base 14 µs + 14 hops × 1.9 µs = 40.6 µs.
    const double n = 8, s = 2048, b = 64, h = 8192, beta = 2;
    Scenario sc = a100TpScenario(int64_t(s), int64_t(b), int64_t(h));
    sc.nccl.proto = NcclProto::LL128;
    SS_EVALUATE(r, sc);
    const Collective* ar = sstest::findCollective(r, Group::Tp, CollectiveOp::AllReduce);
    QVERIFY(ar);
    QCOMPARE(ar->proto, Proto::LL128);
    const double S = beta * s * b * h;
    const double expected = 40.6e-6 + 2 * (n - 1) / n * S / std::min(0.92 * 240e9, 12 * 20e9);
    SS_COMPARE_REL(perCallTime(*ar), expected, 0.02);
}

void TestCommunication::smallAllReducePicksLowLatencyProtocol()
{
    // NCCL picks the (algorithm, protocol) of least predicted time (formulas.md §5.5). An 8 KiB all-reduce over
    // 8 A100s (TP 8, s = 16, b = 1, h = 256: S = 2·16·256 = 8192 B), one node, Ring (§5.4, 14 steps):
    //   Simple: 8.4 + 14 × 3.4  = 56.0 µs + 1.75·S / 240 GB/s
    //   LL    : 6.6 + 14 × 0.6  = 15.0 µs + 1.75·S / min(llMaxBw 87.7, 0.5 × 240) GB/s
    //   LL128 : 14  + 14 × 1.9  = 40.6 µs + 1.75·S / 220.8 GB/s
    const double S = 2.0 * 16 * 256, f = 2 * 7.0 / 8;
    const double simple = 56.0e-6 + f * S / 240e9;
    const double ll = 15.0e-6 + f * S / 87.7e9;
    const double ll128 = 40.6e-6 + f * S / 220.8e9;
    const double best = std::min({ simple, ll, ll128 });
    QCOMPARE(best, ll);
    SS_EVALUATE(r, a100TpScenario(16, 1, 256));
    const Collective* ar = sstest::findCollective(r, Group::Tp, CollectiveOp::AllReduce);
    QVERIFY(ar);
    QCOMPARE(ar->messageBytes, S);
    QVERIFY(perCallTime(*ar) <= simple * (1 + 1e-9)); // never slower than the Simple protocol
    SS_COMPARE_REL(perCallTime(*ar), best, 0.02);
}

void TestCommunication::treeAndRingDifferAcrossNodes()
{
    // formulas.md §5.3: Tree AllReduce algBw = busBw/2 with its own per-channel caps and latency
    // 2·((n/nNodes − 1)·intraLat + log2(nNodes)·interLat); Ring has 2(n−1) steps. Across nodes they differ, the
    // bytes do not, and auto takes the faster one.
    Scenario s = dpScenario("llama3-8b", 4, Sharding::Ddp);
    s.nccl.algo = NcclAlgo::Ring;
    SS_EVALUATE(ring, s);
    s.nccl.algo = NcclAlgo::Tree;
    SS_EVALUATE(tree, s);
    s.nccl.algo = NcclAlgo::Auto;
    SS_EVALUATE(autoR, s);
    const Collective* cr = sstest::findCollective(ring, Group::Dp, CollectiveOp::AllReduce);
    const Collective* ct = sstest::findCollective(tree, Group::Dp, CollectiveOp::AllReduce);
    const Collective* ca = sstest::findCollective(autoR, Group::Dp, CollectiveOp::AllReduce);
    QVERIFY(cr && ct && ca);
    QVERIFY(cr->crossesNodes);
    QCOMPARE(cr->algo, Algo::Ring);
    QCOMPARE(ct->algo, Algo::Tree);
    QCOMPARE(ct->bytes, cr->bytes);
    QVERIFY2(std::fabs(ct->time - cr->time) > 0.01 * cr->time,
        qPrintable(QStringLiteral("tree %1 s vs ring %2 s").arg(ct->time).arg(cr->time)));
    QVERIFY(ca->time <= std::min(cr->time, ct->time) * (1 + 1e-12));
}

void TestCommunication::nvl72DomainSpansTrays()
{
    // GB200 NVL72 (NVIDIA GB200 NVL72 datasheet): 72 GPUs in one NVLink domain, 4 per compute tray. With multi-node
    // NVLink, NCCL fuses the clique's topology into one system (NVIDIA/nccl src/graph/topo.cc ncclTopoGetSystem): a TP
    // group of 8 over two trays runs as one inside an 8-GPU node would, on NVLink, and the data-parallel group of 9
    // (stride 8) over all 18 trays stays on NVLink too.
    auto nvl72 = [](int nodes, int perNode, int domain) {
        Scenario s = sstest::presetScenario("llama3-70b", nodes, perNode, "gb200", "nvlink5", "ib-ndr400");
        s.cluster.gpu.scaleUpDomain = domain;
        s.training.seqLen = 4096;
        s.parallelism.tp = 8;
        s.parallelism.sharding = Sharding::Zero1;
        sstest::setBatch(s, 1, 4);
        return s;
    };
    SS_EVALUATE(trays, nvl72(18, 4, 72));
    SS_EVALUATE(nodes, nvl72(9, 8, 72)); // the same 72 GPUs as 9 "nodes" of 8 in the same domain
    const Collective* tpTrays = sstest::findCollective(trays, Group::Tp, CollectiveOp::AllReduce);
    const Collective* tpNodes = sstest::findCollective(nodes, Group::Tp, CollectiveOp::AllReduce);
    QVERIFY(tpTrays && tpNodes);
    QVERIFY(!tpTrays->crossesNodes);
    QCOMPARE(tpTrays->time, tpNodes->time);
    const Collective* dpTrays = sstest::findCollective(trays, Group::Dp, CollectiveOp::ReduceScatter);
    QVERIFY(dpTrays && !dpTrays->crossesNodes);
    // A scale-up domain of one tray (4): the TP group of 8 leaves it and crosses the network, slower.
    SS_EVALUATE(split, nvl72(18, 4, 4));
    const Collective* tpSplit = sstest::findCollective(split, Group::Tp, CollectiveOp::AllReduce);
    QVERIFY(tpSplit && tpSplit->crossesNodes);
    QVERIFY(tpSplit->time > tpTrays->time);
    // A domain that is not whole trays (6 of 4-GPU trays) is not taken to span them: placed by node, as before.
    SS_EVALUATE(partial, nvl72(18, 4, 6));
    QCOMPARE(sstest::findCollective(partial, Group::Tp, CollectiveOp::AllReduce)->time, tpSplit->time);
}

void TestCommunication::forcedTreeInsideOneNodeIsNotFree()
{
    // NCCL_ALGO=tree for a single-node all-reduce: whatever NCCL does (a chain inside the node, or refusing),
    // the model cannot predict zero time. No all-reduce beats the ring's bandwidth bound 2(n−1)/n·S / busBw
    // (Tree's algBw is busBw/2 < Ring's busBw·n/(2(n−1)), formulas.md §5.3).
    const double n = 8, S = 2.0 * 2048 * 64 * 8192;
    Scenario sc = a100TpScenario(2048, 64, 8192);
    sc.nccl.algo = NcclAlgo::Tree;
    SS_EVALUATE(r, sc);
    const Collective* ar = sstest::findCollective(r, Group::Tp, CollectiveOp::AllReduce);
    QVERIFY(ar);
    QVERIFY2(perCallTime(*ar) >= 2 * (n - 1) / n * S / 240e9 * 0.98,
        qPrintable(QStringLiteral("tree all-reduce of %1 B in %2 s").arg(S).arg(perCallTime(*ar))));
}

void TestCommunication::byGroupSumsToTotal_data()
{
    QTest::addColumn<QString>("file");
    for (const QString& f : sstest::shippedScenarioFiles())
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

void TestCommunication::byGroupSumsToTotal()
{
    QFETCH(QString, file);
    const ScenarioParse p = sstest::parse(sstest::readText(file));
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    SS_EVALUATE(r, p.scenario);
    double groups = 0;
    for (double g : r.bytesByGroup)
        groups += g;
    SS_COMPARE_REL(groups, r.totalCommBytes, 1e-12);
    std::array<double, 5> fromCollectives {};
    for (const Collective& c : r.collectives) {
        // formulas.md §4.1: bytes sent per rank per call — AllReduce 2(n−1)/n·S; ReduceScatter, AllGather and
        // AlltoAll (n−1)/n·S; Send/Recv S.
        const double n = c.groupSize;
        double perCall = c.messageBytes;
        switch (c.op) {
        case CollectiveOp::AllReduce: perCall = 2 * (n - 1) / n * c.messageBytes; break;
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllGather:
        case CollectiveOp::AllToAll: perCall = (n - 1) / n * c.messageBytes; break;
        case CollectiveOp::SendRecv: break;
        }
        QVERIFY(c.count > 0 && c.groupSize > 1);
        // Bucketed collectives (DDP 25 MiB, DeepSpeed 5e8 elements) report the bucket as message_bytes and end
        // each pass with a partial bucket; a message smaller than the bucket is sent whole in one call. So every
        // pass of k ≥ 2 calls has at most one partial call: bytes lie in (count/2, count] full calls.
        QVERIFY2(c.bytes <= perCall * double(c.count) * (1 + 1e-9), c.purpose);
        QVERIFY2(c.bytes > perCall * double(c.count) / 2, c.purpose);
        QVERIFY2(c.exposedTime >= 0 && c.exposedTime <= c.time * (1 + 1e-12), c.purpose);
        fromCollectives[static_cast<int>(c.group)] += c.bytes;
    }
    for (int g = 0; g < 5; ++g)
        SS_COMPARE_REL(fromCollectives[g], r.bytesByGroup[g], 1e-12);
    // the result JSON says the same
    const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(resultToJson(r))).object();
    const QJsonObject comm = j.value(QLatin1String("communication_per_gpu")).toObject();
    const QJsonObject by = comm.value(QLatin1String("by_group")).toObject();
    double jsonSum = 0;
    for (const char* k : { "dp", "tp", "pp", "cp", "ep" })
        jsonSum += by.value(QLatin1String(k)).toDouble();
    SS_COMPARE_REL(jsonSum, comm.value(QLatin1String("total_bytes")).toDouble(), 1e-12);
}

void TestCommunication::ddpAllReducesBucketsOf25MiB()
{
    // PyTorch DDP all-reduces gradients in buckets of bucket_cap_mb = 25 MiB (torch/nn/parallel/distributed.py;
    // c10d reducer.hpp kDefaultBucketBytesCap), the last one partial: Llama 3 8B over 16 GPUs, 2Ψ bytes of bf16
    // gradients in ⌈2Ψ / 25 MiB⌉ calls of at most 25 MiB. (DDP's 1 MiB first bucket is not modelled.)
    const double psi = 8'030'261'248.0, cap = 25 * MiB;
    SS_EVALUATE(r, withFramework(dpScenario("llama3-8b", 2, Sharding::Ddp), Framework::PyTorch));
    const Collective* ar = sstest::findCollective(r, Group::Dp, CollectiveOp::AllReduce);
    QVERIFY(ar);
    QCOMPARE(ar->messageBytes, cap);
    QCOMPARE(ar->count, int64_t(std::ceil(2 * psi / cap)));
}

void TestCommunication::deepspeedBucketsOf5e8Elements()
{
    // DeepSpeed ZeRO-1/2 (deepspeed/runtime/zero/config.py): gradients reduce-scattered in reduce_bucket_size = 5e8
    // elements, updated parameters all-gathered in allgather_bucket_size = 5e8 elements; bf16, 2 bytes each.
    // Llama 3 8B over 16 GPUs: ⌈Ψ / 5e8⌉ calls of each.
    const double psi = 8'030'261'248.0, bucket = 5e8;
    SS_EVALUATE(r, withFramework(dpScenario("llama3-8b", 2, Sharding::Zero1), Framework::DeepSpeed));
    const Collective* rs = sstest::findCollective(r, Group::Dp, CollectiveOp::ReduceScatter);
    const Collective* ag = sstest::findCollective(r, Group::Dp, CollectiveOp::AllGather);
    QVERIFY(rs && ag);
    QCOMPARE(rs->messageBytes, 2 * bucket);
    QCOMPARE(ag->messageBytes, 2 * bucket);
    QCOMPARE(rs->count, int64_t(std::ceil(psi / bucket)));
    QCOMPARE(ag->count, int64_t(std::ceil(psi / bucket)));
    // ZeRO-2 reduce-scatters the same buckets after every micro-batch's backward.
    SS_EVALUATE(z2, withFramework(dpScenario("llama3-8b", 2, Sharding::Zero2, 3), Framework::DeepSpeed));
    const Collective* rs2 = sstest::findCollective(z2, Group::Dp, CollectiveOp::ReduceScatter);
    QVERIFY(rs2);
    QCOMPARE(rs2->messageBytes, 2 * bucket);
    QCOMPARE(rs2->count, 3 * int64_t(std::ceil(psi / bucket)));
}

void TestCommunication::epAllToAllDispatchesInFp8()
{
    // DeepSeek-V3 technical report §3.3 (low-precision communication): activations are quantized to FP8 before the
    // dispatch, and so are the activation gradients before the backward dispatch; both combines stay in BF16. Of the
    // four all-to-alls per MoE layer (dispatch and combine, forward and backward) two move 1 byte per element and two
    // move 2. Mixtral 8x7B as in epAllToAllBytes, fp8-mixed: L·(1 + 2 + 1 + 2)·h·T·k·(e−1)/e bytes.
    const double L = 32, h = 4096, s = 4096, b = 1, k = 2, e = 8;
    Scenario sc = sstest::presetScenario("mixtral-8x7b", 1, 8);
    sc.training.seqLen = int64_t(s);
    sc.training.precision = Precision::Fp8Mixed;
    sc.parallelism.ep = int(e);
    sstest::setBatch(sc, int64_t(b), 1);
    SS_EVALUATE(r, sc);
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Ep)], L * (1 + 2 + 1 + 2) * h * s * b * k * (e - 1) / e, 1e-12);
}

void TestCommunication::megatronBucketsGrowWithDp()
{
    // Megatron-Core (megatron/core/distributed/distributed_data_parallel.py): bucket_size = max(40,000,000,
    // 1,000,000 × dp) parameters, for the gradient reduce-scatter and the distributed optimizer's parameter
    // all-gather. Llama 3 8B: dp 16 → 4e7 (⌈Ψ/4e7⌉ = 201 calls), dp 64 → 6.4e7 (⌈Ψ/6.4e7⌉ = 126 calls).
    const double psi = 8'030'261'248.0;
    for (auto [nodes, bucket] : { std::pair { 2, 4e7 }, std::pair { 8, 6.4e7 } }) {
        SS_EVALUATE(r, dpScenario("llama3-8b", nodes, Sharding::Zero1));
        QCOMPARE(r.dp, 8 * nodes);
        const Collective* rs = sstest::findCollective(r, Group::Dp, CollectiveOp::ReduceScatter);
        const Collective* ag = sstest::findCollective(r, Group::Dp, CollectiveOp::AllGather);
        QVERIFY(rs && ag);
        SS_COMPARE_REL(rs->messageBytes, 2 * bucket, 1e-12);
        SS_COMPARE_REL(ag->messageBytes, 2 * bucket, 1e-12);
        QCOMPARE(rs->count, int64_t(std::ceil(psi / bucket)));
        QCOMPARE(ag->count, int64_t(std::ceil(psi / bucket)));
        // each call pays NCCL's latency once: the step's latency is calls × one call's (all full buckets but the last)
        QVERIFY(rs->latencyTime > 0 && rs->latencyTime < rs->time);
    }
}

void TestCommunication::deepspeedZero3GathersPrefetchBuckets()
{
    // DeepSpeed ZeRO-3 gathers at most stage3_prefetch_bucket_size = 5e7 elements per all-gather and reduce-scatters
    // reduce_bucket_size = 5e8-element gradient buckets (deepspeed/runtime/zero/config.py). Llama 3 8B over 16 GPUs,
    // one micro-batch: 32 layers of Ψ/32 = 250,945,664 parameters each (embeddings spread over the layers) →
    // ⌈250,945,664 / 5e7⌉ = 6 gathers per layer, forward and backward: 2·32·6 = 384 calls of 1e8 bytes; gradients in
    // Ψ/5e8 = 16.06 buckets of 1e9 bytes (16 calls). Bytes stay the ZeRO count: 2·φ·w·Ψ and φ·r·Ψ.
    const double psi = 8'030'261'248.0, N = 16, phi = (N - 1) / N;
    SS_EVALUATE(r, withFramework(dpScenario("llama3-8b", 2, Sharding::Zero3), Framework::DeepSpeed));
    const Collective* ag = sstest::findCollective(r, Group::Dp, CollectiveOp::AllGather);
    const Collective* rs = sstest::findCollective(r, Group::Dp, CollectiveOp::ReduceScatter);
    QVERIFY(ag && rs);
    QCOMPARE(ag->count, int64_t(384));
    SS_COMPARE_REL(ag->messageBytes, 2 * 5e7, 1e-12);
    QCOMPARE(rs->count, int64_t(16));
    SS_COMPARE_REL(rs->messageBytes, 2 * 5e8, 1e-12);
    SS_COMPARE_REL(ag->bytes, 2 * phi * 2 * psi, 1e-12);
    SS_COMPARE_REL(rs->bytes, phi * 2 * psi, 1e-12);
}

void TestCommunication::fsdpGathersOneUnitPerCall()
{
    // FSDP2 all-gathers and reduce-scatters a fully_shard unit in one call each (torch/distributed/fsdp/_fully_shard/
    // _fsdp_collectives.py); torchtitan wraps each transformer block: 2·32 gathers and 32 reduce-scatters of Ψ/32.
    const double psi = 8'030'261'248.0;
    SS_EVALUATE(r, withFramework(dpScenario("llama3-8b", 2, Sharding::FsdpFull), Framework::PyTorch));
    const Collective* ag = sstest::findCollective(r, Group::Dp, CollectiveOp::AllGather);
    const Collective* rs = sstest::findCollective(r, Group::Dp, CollectiveOp::ReduceScatter);
    QVERIFY(ag && rs);
    QCOMPARE(ag->count, int64_t(64));
    QCOMPARE(rs->count, int64_t(32));
    SS_COMPARE_REL(ag->messageBytes, 2 * psi / 32, 1e-12);
    SS_COMPARE_REL(rs->messageBytes, 2 * psi / 32, 1e-12);
}

void TestCommunication::cpRingStepExposedBeyondItsAttention()
{
    // Ring attention (TransformerEngine context_parallel.py, AttnFuncWithCPAndKVP2P): c steps, each computing one
    // chunk's attention while the next K/V chunk arrives; c − 1 transfers forward, 2(c − 1) backward (K/V and dK/dV
    // per step). Exposed per layer: (c − 1)·max(0, t_kv − t_attn,f/c) + (c − 1)·max(0, 2·t_kv − t_attn,b/c).
    // Llama 3 8B, 128K tokens, cp 8 on one H100 node: T = 16,384 tokens per GPU, K and V of 8 heads × 128:
    // S = 2·2·16,384·1,024 bytes; a send/receive inside the node takes 8.4 µs + one NVLink hop + S / B_in.
    Scenario s = sstest::presetScenario("llama3-8b", 1, 8);
    s.training.seqLen = 131072;
    s.model.maxSeq = 131072;
    s.parallelism.sharding = Sharding::Zero1;
    s.parallelism.cp = 8;
    sstest::setBatch(s, 1, 1);
    const double S = 2.0 * 2 * 16384 * 1024;
    const double bIn
        = std::min(s.cluster.gpu.scaleUpBandwidth, s.cluster.intraNode.bandwidth) * s.cluster.intraNode.efficiency;
    const double hop = s.cluster.intraNode.latency > 0 ? s.cluster.intraNode.latency : 3.4e-6;
    const double tkv = 8.4e-6 + hop + S / bIn;
    const detail::Shape sh = detail::makeShape(s);
    const Layout layout = makeLayout(s);
    const double c = 8;
    struct Case {
        double stepFwd, stepBwd, fwd, bwd;
    };
    // per-step attention (forward, backward) as a share of t_kv → the exposed time, by hand
    for (const Case& k : { Case { 0, 0, 7 * tkv, 7 * 2 * tkv }, Case { 0.5, 1.5, 7 * 0.5 * tkv, 7 * 0.5 * tkv },
             // 0.9 t_kv of attention per step: the sum over the layer (7.2 t_kv) exceeds the 7 transfers, yet every
             // step leaves 0.1 t_kv exposed
             Case { 0.9, 2.5, 7 * 0.1 * tkv, 0 }, Case { 3, 6, 0, 0 } }) {
        const detail::LayerComm lc
            = detail::layerCommunication(s, sh, layout, c * k.stepFwd * tkv, c * k.stepBwd * tkv);
        SS_COMPARE_REL(lc.cpChunk, S, 1e-12);
        SS_COMPARE_REL(lc.cpCost.time, tkv, 1e-12);
        QVERIFY(std::abs(lc.cpFwdExposed - k.fwd) <= 1e-12 * tkv);
        QVERIFY(std::abs(lc.cpBwdExposed - k.bwd) <= 1e-12 * tkv);
    }
}

namespace {
/// Llama 3 8B (32 heads, 8 KV heads of 128, 32 layers) at 128K tokens, cp 8 on one H100 node, one micro-batch:
/// T = 16,384 tokens per GPU.
Scenario cpScenario(CpCommType type)
{
    Scenario s = sstest::presetScenario("llama3-8b", 1, 8);
    s.training.seqLen = 131072;
    s.model.maxSeq = 131072;
    s.training.recompute = Recompute::None;
    s.parallelism.sharding = Sharding::Zero1;
    s.parallelism.cp = 8;
    s.parallelism.cpCommType = type;
    sstest::setBatch(s, 1, 1);
    return s;
}
double cpCallTime(const Scenario& s, CollectiveOp op, double message)
{
    return detail::collectiveTime(op, message, makeLayout(s).cpGroup, s.cluster, s.nccl).time
        / s.profile.collectiveEfficiency;
}
} // namespace

void TestCommunication::cpAllToAllTradesSequenceForHeads()
{
    // DeepSpeed-Ulysses (Jacobs et al. 2023 §3.1; TransformerEngine AttnFuncWithCPAndQKVOA2A): per layer, all-to-alls
    // of Q, K, V before attention and of O after it, the same four backward, none overlapped with attention. A rank's
    // tensors: Q and O 2 B × 16,384 × 32·128, K and V 2 B × 16,384 × 8·128; an all-to-all sends 7/8 of its tensor.
    const double T = 16384, c = 8, L = 32;
    const double Mqo = 2 * T * 32 * 128, Mkv = 2 * T * 8 * 128;
    const Scenario s = cpScenario(CpCommType::A2a);
    const double tqo = cpCallTime(s, CollectiveOp::AllToAll, Mqo), tkv = cpCallTime(s, CollectiveOp::AllToAll, Mkv);
    const detail::Shape sh = detail::makeShape(s);
    const Layout layout = makeLayout(s);
    // exposed whatever the attention takes
    for (double attention : { 0.0, 1.0 }) {
        const detail::LayerComm lc = detail::layerCommunication(s, sh, layout, attention, 2.5 * attention);
        SS_COMPARE_REL(lc.cpChunk, Mqo, 1e-12);
        SS_COMPARE_REL(lc.cpMsg2, Mkv, 1e-12);
        SS_COMPARE_REL(lc.cpFwdExposed, 2 * tqo + 2 * tkv, 1e-12);
        SS_COMPARE_REL(lc.cpBwdExposed, 2 * tqo + 2 * tkv, 1e-12);
    }
    // Over the step: 2 tensors of each size forward and 2 backward per layer, (c − 1)/c of each sent.
    SS_EVALUATE(r, s);
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Cp)], L * 4 * (Mqo + Mkv) * (c - 1) / c, 1e-12);
    // one entry: 8 calls per layer of the mean message, all exposed
    const Collective* entry = sstest::findCollective(r, Group::Cp, CollectiveOp::AllToAll);
    QVERIFY(entry);
    QCOMPARE(entry->count, int64_t(L * 8));
    SS_COMPARE_REL(entry->messageBytes, (Mqo + Mkv) / 2, 1e-12);
    SS_COMPARE_REL(entry->time, L * 4 * (tqo + tkv), 1e-12);
    SS_COMPARE_REL(entry->exposedTime, entry->time, 1e-12);
    // Full recompute runs each layer's forward, its all-to-alls with it, again.
    Scenario full = s;
    full.training.recompute = Recompute::Full;
    SS_EVALUATE(rf, full);
    SS_COMPARE_REL(rf.bytesByGroup[int(Group::Cp)], L * 6 * (Mqo + Mkv) * (c - 1) / c, 1e-12);
    // Each rank runs attention over the whole sequence on 1/c of the heads: the kernel's rate at block length s
    // (a ring rank's blocks are s/c).
    const detail::LayerCompute a2a = detail::computeStage(s, sh);
    const detail::AttentionRates whole
        = detail::attentionRates(s.cluster.gpu, s.profile.attentionKernel, 128, true, 131072);
    SS_COMPARE_REL(a2a.peak.attention, s.profile.attentionEfficiency * whole.forward, 1e-12);
    const Scenario ring = cpScenario(CpCommType::P2p);
    const detail::AttentionRates block
        = detail::attentionRates(ring.cluster.gpu, ring.profile.attentionKernel, 128, true, 16384);
    SS_COMPARE_REL(detail::computeStage(ring, detail::makeShape(ring)).peak.attention,
        ring.profile.attentionEfficiency * block.forward, 1e-12);

    // MLA (DeepSeek-V3: 128 heads, q/k 128 + 64 wide, v 128; h 7168) at tp 2, cp 4 of s = 16,384: Q and K carry
    // 128·192/2 per token, V and O 128·128/2; messages are the pair means, β·T·(q + o)/2 and β·T·(k + v)/2.
    Scenario mla = sstest::presetScenario("deepseek-v3", 1, 8);
    mla.training.seqLen = 16384;
    mla.parallelism.tp = 2;
    mla.parallelism.cp = 4;
    mla.parallelism.ep = 1;
    mla.parallelism.cpCommType = CpCommType::A2a;
    const double Tm = 16384.0 / 4, q = 128 * 192 / 2.0, v = 128 * 128 / 2.0;
    const detail::LayerComm lm = detail::layerCommunication(mla, detail::makeShape(mla), makeLayout(mla), 0, 0);
    SS_COMPARE_REL(lm.cpChunk, 2 * Tm * (q + v) / 2, 1e-12);
    SS_COMPARE_REL(lm.cpMsg2, 2 * Tm * (q + v) / 2, 1e-12);
}

void TestCommunication::cpAllGatherGathersKvExposed()
{
    // TransformerEngine AttnFuncWithCPAndKVAllGather ("KV all-gather between CP ranks is exposed"; Llama 3 paper
    // §3.3.2): K and V each all-gathered over the 8 ranks before attention and again in backward, dK and dV
    // reduce-scattered after it. Gathered message: 8 × 2 B × 16,384 × 8·128.
    const double T = 16384, c = 8, L = 32;
    const double M = c * 2 * T * 8 * 128;
    const Scenario s = cpScenario(CpCommType::AllGather);
    const double ag = cpCallTime(s, CollectiveOp::AllGather, M), rs = cpCallTime(s, CollectiveOp::ReduceScatter, M);
    for (double attention : { 0.0, 1.0 }) {
        const detail::LayerComm lc
            = detail::layerCommunication(s, detail::makeShape(s), makeLayout(s), attention, 2.5 * attention);
        SS_COMPARE_REL(lc.cpChunk, M, 1e-12);
        SS_COMPARE_REL(lc.cpFwdExposed, 2 * ag, 1e-12);
        SS_COMPARE_REL(lc.cpBwdExposed, 2 * ag + 2 * rs, 1e-12);
    }
    // Over the step: 4 gathers and 2 reduce-scatters per layer, (c − 1)/c of the message each; all exposed.
    SS_EVALUATE(r, s);
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Cp)], L * 6 * M * (c - 1) / c, 1e-12);
    const Collective* g = sstest::findCollective(r, Group::Cp, CollectiveOp::AllGather);
    const Collective* d = sstest::findCollective(r, Group::Cp, CollectiveOp::ReduceScatter);
    QVERIFY(g && d);
    QCOMPARE(g->count, int64_t(L * 4));
    QCOMPARE(d->count, int64_t(L * 2));
    SS_COMPARE_REL(g->exposedTime, g->time, 1e-12);
    SS_COMPARE_REL(d->exposedTime, d->time, 1e-12);
}

void TestCommunication::epOverlapHidesBehindAnotherMicroBatch()
{
    // A layer with forward compute F = 0.75 and backward 2F = 1.5 (seconds, GEMMs only), all-to-all a = 1 per call:
    // dispatch + combine 2a per pass. Without overlap both passes wait 2a. Overlapped (Megatron-Core's
    // --overlap-moe-expert-parallel-comm, DualPipe), m = 4 micro-batches of which 3 are paired: forward
    // 1/4·2a + 3/4·max(0, 2a − 2F) = 0.5 + 0.375 = 0.875; backward 1/4·2a + 3/4·max(0, 2a − F) = 0.5 + 0.9375 = 1.4375.
    Scenario s = sstest::presetScenario("mixtral-8x7b", 1, 8);
    s.parallelism.ep = 8;
    s.training.recompute = Recompute::None;
    s.profile.elementwiseTraffic = 0; // GEMMs only: no element-wise kernels,
    const detail::Shape sh = detail::makeShape(s);
    detail::LayerCompute c;
    c.peak.linear = 1;
    c.peak.attention = c.peak.attentionBwd = 1; // no attention FLOPs (F_core = 0) at any rate
    c.attnLinear = 0.75;
    detail::LayerComm comm;
    comm.epCost.time = 1; // dispatch
    comm.epCombine.time = 1; // combine
    detail::LayerTimes none = detail::layerTimes(s, sh, c, comm, true, 4);
    QCOMPARE(none.epFwd, 2.0);
    QCOMPARE(none.epBwd, 2.0);
    for (MoeOverlap mode : { MoeOverlap::EpOverlap, MoeOverlap::DualPipe }) {
        s.parallelism.moeOverlap = mode;
        const detail::LayerTimes L = detail::layerTimes(s, sh, c, comm, true, 4);
        QCOMPARE(L.fwd, 0.75);
        QCOMPARE(L.epFwd, 0.875);
        QCOMPARE(L.epBwd, 1.4375);
        QCOMPARE(L.commFwd, 0.875);
        // one micro-batch has no partner
        const detail::LayerTimes one = detail::layerTimes(s, sh, c, comm, true, 1);
        QCOMPARE(one.epFwd, 2.0);
        QCOMPARE(one.epBwd, 2.0);
    }
    // In a whole step the all-to-all's exposed time drops and the collective keeps its calls.
    Scenario step = sstest::presetScenario("mixtral-8x7b", 1, 8);
    step.parallelism.ep = 8;
    step.training.recompute = Recompute::Selective;
    sstest::setBatch(step, 1, 8);
    SS_EVALUATE(plain, step);
    step.parallelism.moeOverlap = MoeOverlap::EpOverlap;
    SS_EVALUATE(over, step);
    const Collective* a = sstest::findCollective(plain, Group::Ep, CollectiveOp::AllToAll);
    const Collective* b = sstest::findCollective(over, Group::Ep, CollectiveOp::AllToAll);
    QVERIFY(a && b);
    QCOMPARE(a->count, b->count);
    SS_COMPARE_REL(a->exposedTime, a->time, 1e-12);
    QVERIFY(b->exposedTime < b->time);
    QVERIFY(over.step.exposedCommunication < plain.step.exposedCommunication);
}

void TestCommunication::dualPipeKeepsSmsForCommunication()
{
    // DeepSeek-V3 report §3.2.2: DualPipe keeps 20 of the H800's 132 SMs for communication, so the layers' compute
    // runs on 112 and takes 132/112 as long: + 20/112 of it. A stage of 2 dense and 3 MoE layers, forward 1 and 3 s,
    // backward 2 and 6 s (host time 0), DDP, no head: forward 2·1 + 3·3 = 11 s, backward 2·2 + 3·6 = 22 s.
    Scenario s = sstest::presetScenario("mixtral-8x7b", 1, 8);
    s.parallelism.ep = 8;
    s.parallelism.sharding = Sharding::Ddp;
    const detail::Shape sh = detail::makeShape(s);
    const Layout layout = makeLayout(s);
    detail::StageShape st;
    st.layers = 5;
    st.denseLayers = 2;
    st.moeLayers = 3;
    detail::LayerCompute c;
    detail::LayerComm comm;
    detail::LayerTimes dense, moe;
    dense.fwd = 1;
    dense.bwd = 2;
    moe.fwd = 3;
    moe.bwd = 6;
    s.parallelism.moeOverlap = MoeOverlap::EpOverlap; // overlap without reserved SMs: compute as it is
    const detail::StageTime plain = detail::stageTime(s, sh, layout, st, c, comm, dense, moe);
    QCOMPARE(plain.forward, 11.0);
    QCOMPARE(plain.backward, 22.0);
    QCOMPARE(plain.contention, 0.0);
    s.parallelism.moeOverlap = MoeOverlap::DualPipe;
    const detail::StageTime dual = detail::stageTime(s, sh, layout, st, c, comm, dense, moe);
    SS_COMPARE_REL(dual.forward, 11.0 * 132 / 112, 1e-12);
    SS_COMPARE_REL(dual.backward, 22.0 * 132 / 112, 1e-12);
    SS_COMPARE_REL(dual.contention, 33.0 * 20 / 112, 1e-12);
}

void TestCommunication::nodeLimitedRoutingCutsNetworkBytes()
{
    // DeepSeek-V3 report §2.1.2: each token goes to experts on at most M nodes; crossing the network once per node
    // (then NVLink), the off-node bytes are at most M/k of a naive dispatch's. Pairwise all-to-all over 16 GPUs on
    // 2 nodes (8 each): of what a rank holds, S·8/16 leaves the node and S·7/16 stays. With M = 4 and k = 8 the
    // network carries S·8/16·4/8 and NVLink S·7/16 + S·8/16 (every off-node copy forwarded at its node).
    Scenario s = sstest::presetScenario("mixtral-8x7b", 2, 8);
    const double S = 64 * MiB;
    const GroupPlacement g { 16, 8, 2 };
    const double bIn
        = std::min(s.cluster.gpu.scaleUpBandwidth, s.cluster.intraNode.bandwidth) * s.cluster.intraNode.efficiency;
    const double bNet
        = s.cluster.interNode.bandwidth * s.cluster.nics() / s.cluster.gpusPerNode * s.cluster.interNode.efficiency;
    const double hop = s.cluster.interNode.latency > 0 ? s.cluster.interNode.latency : 14e-6;
    const double lat = 8.4e-6 + 15 * hop * 0.5;
    const double naive = lat + std::max(S * 8 / 16 / bNet, S * 7 / 16 / bIn);
    const double limited = lat + std::max(S * 8 / 16 * 4 / 8 / bNet, (S * 7 / 16 + S * 8 / 16) / bIn);
    SS_COMPARE_REL(detail::collectiveTime(CollectiveOp::AllToAll, S, g, s.cluster, s.nccl).time, naive, 1e-12);
    SS_COMPARE_REL(detail::collectiveTime(CollectiveOp::AllToAll, S, g, s.cluster, s.nccl, 0.5).time, limited, 1e-12);
    // The scenario field: M = 4 of k = 2 does not limit Mixtral (share 1); a top-8 model at M = 4 halves it.
    s.parallelism.ep = 16;
    s.model.moe.maxNodesPerToken = 4;
    const detail::Shape sh = detail::makeShape(s);
    QCOMPARE(detail::layerCommunication(s, sh, makeLayout(s), 0, 0).epOffNodeShare, 1.0);
    s.model.moe.topK = 8;
    const detail::Shape sh8 = detail::makeShape(s);
    QCOMPARE(detail::layerCommunication(s, sh8, makeLayout(s), 0, 0).epOffNodeShare, 0.5);
}

void TestCommunication::latencyOncePerBucket()
{
    // PyTorch DDP on one H100 node: 2Ψ bytes of bf16 gradients in ⌈2Ψ / 25 MiB⌉ = 613 buckets, each an NVLS all-reduce
    // (one node, 8 GPUs on NVSwitch with SHARP), whose latency is hwLat[NVLINK][NVLS][Simple] = 25 µs
    // (NVIDIA/nccl src/graph/tuning.cc): the step pays 613 × 25 µs of latency.
    const double psi = 8'030'261'248.0;
    Scenario s = withFramework(dpScenario("llama3-8b", 1, Sharding::Ddp), Framework::PyTorch);
    SS_EVALUATE(r, s);
    const Collective* ar = sstest::findCollective(r, Group::Dp, CollectiveOp::AllReduce);
    QVERIFY(ar);
    QCOMPARE(ar->algo, Algo::Nvls);
    QCOMPARE(ar->count, int64_t(std::ceil(2 * psi / (25 * MiB))));
    QCOMPARE(ar->count, int64_t(613));
    SS_COMPARE_REL(ar->latencyTime, 613 * 25e-6, 1e-12);
    const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(resultToJson(r))).object();
    const QJsonObject c0 = j.value(QLatin1String("communication_per_gpu"))
                               .toObject()
                               .value(QLatin1String("collectives"))
                               .toArray()
                               .at(0)
                               .toObject();
    SS_COMPARE_REL(c0.value(QLatin1String("latency_time")).toDouble(), 613 * 25e-6, 1e-12);
}

void TestCommunication::tpCommOverlapHidesBehindTheGemms()
{
    // Transformer Engine's userbuffers overlap (Megatron --tp-comm-overlap) splits each sequence-parallel all-gather
    // and reduce-scatter into t ring steps, each behind the GEMM on the chunk already there: exposed is what the GEMMs
    // do not cover, never less than one step. With h = 8192 on 8 A100s the layer's GEMMs (24·T·h²/t FLOPs forward)
    // dwarf its 4 transfers of 2·T·h bytes: each TP collective is exposed 1/t = 1/8 of its time.
    Scenario s = a100TpScenario(2048, 1, 8192);
    s.parallelism.sequenceParallel = true;
    SS_EVALUATE(plain, s);
    s.parallelism.tpCommOverlap = true;
    SS_EVALUATE(over, s);
    int seen = 0;
    for (const Collective& c : over.collectives)
        if (c.group == Group::Tp) {
            SS_COMPARE_REL(c.exposedTime, c.time / 8, 1e-12);
            ++seen;
        }
    QCOMPARE(seen, 2);
    QVERIFY(over.step.exposedCommunication < plain.step.exposedCommunication);
    // h = 64: NCCL's per-call latency outweighs the GEMMs; what they do not cover stays exposed (more than 1/8).
    Scenario tiny = a100TpScenario(2048, 1, 64);
    tiny.parallelism.sequenceParallel = true;
    tiny.parallelism.tpCommOverlap = true;
    SS_EVALUATE(small, tiny);
    for (const Collective& c : small.collectives)
        if (c.group == Group::Tp)
            QVERIFY(c.exposedTime > c.time / 8 && c.exposedTime < c.time);
    // Megatron's rule (arguments.py): only with sequence parallelism.
    s.parallelism.sequenceParallel = false;
    QVERIFY(sstest::hasIssue(validate(s), "parallelism.tp_comm_overlap", "sequence_parallel"));
}

void TestCommunication::gradReduceAfterTheBackwardIsExposed_data()
{
    QTest::addColumn<int>("sharding");
    QTest::newRow("ddp all-reduce") << int(Sharding::Ddp);
    QTest::newRow("zero1 reduce-scatter") << int(Sharding::Zero1);
}

void TestCommunication::gradReduceAfterTheBackwardIsExposed()
{
    // Megatron-LM without --overlap-grad-reduce (megatron/training/arguments.py: off by default) reduces the gradient
    // buckets after the last backward, so each call is exposed: exposed = calls × per-call time, and the step grows
    // by exactly what the overlap hid. With overlap, all but the last bucket hides behind the last backward
    // (max(one call, calls × call − t_last backward)). Llama 3 8B on 2 × 8 H100, data-parallel 16.
    QFETCH(int, sharding);
    const Sharding sh = Sharding(sharding);
    const CollectiveOp op = sh == Sharding::Ddp ? CollectiveOp::AllReduce : CollectiveOp::ReduceScatter;
    Scenario s = dpScenario("llama3-8b", 2, sh);
    SS_EVALUATE(over, s);
    s.parallelism.overlapGradReduce = false;
    SS_EVALUATE(after, s);
    const Collective* hidden = sstest::findCollective(over, Group::Dp, op);
    const Collective* exposed = sstest::findCollective(after, Group::Dp, op);
    QVERIFY(hidden && exposed);
    QVERIFY(hidden->count > 1);
    QVERIFY(hidden->exposedTime < hidden->time); // the overlap hides something here
    QCOMPARE(exposed->count, hidden->count);
    SS_COMPARE_REL(exposed->time, hidden->time, 1e-12);
    SS_COMPARE_REL(exposed->exposedTime, exposed->count * perCallTime(*exposed), 1e-12);
    SS_COMPARE_REL(after.step.total() - over.step.total(), hidden->time - hidden->exposedTime, 1e-9);
    // ZeRO-2 and ZeRO-3 reduce inside the backward: there the switch changes nothing, and a warning names it.
    s.parallelism.sharding = Sharding::Zero2;
    SS_EVALUATE(z2off, s);
    s.parallelism.overlapGradReduce = true;
    SS_EVALUATE(z2on, s);
    SS_COMPARE_REL(z2off.step.total(), z2on.step.total(), 1e-15);
    QVERIFY(sstest::hasIssue(z2off.warnings, "parallelism.overlap_grad_reduce", "no effect with zero2"));
    QVERIFY(!sstest::hasIssue(z2on.warnings, "parallelism.overlap_grad_reduce", "zero2"));
}

void TestCommunication::expertTpMovesTheMoeMlpCollectives()
{
    // megatron/core/transformer/moe/token_dispatcher.py: the MoE MLP's tokens are gathered over the expert-TP group,
    // not TP. Mixtral 8x7B (32 MoE layers, h 4096) on 8 H100, TP 4 with SP, s 4096, b 1, β 2, one micro-batch:
    // with SP a layer moves 6 all-gathers + 4 reduce-scatters of β·T·h, (t−1)/t each (tpBytesPerLayer), half of them
    // the attention's and half the MLP's. expert_tp = 1: the MLP's half is gone; expert_tp = 2: it runs over 2 GPUs
    // on the tokens the expert-TP group holds, β·T·h·2/4.
    const double L = 32, t = 4, beta = 2, T = 4096, h = 4096;
    Scenario sc = sstest::presetScenario("mixtral-8x7b", 1, 8);
    sc.training.seqLen = int64_t(T);
    sc.training.recompute = Recompute::Selective;
    sc.parallelism.tp = int(t);
    sc.parallelism.sequenceParallel = true;
    sstest::setBatch(sc, 1, 1);
    SS_EVALUATE(tpOnly, sc);
    SS_COMPARE_REL(tpOnly.bytesByGroup[int(Group::Tp)], L * 10 * (t - 1) / t * beta * T * h, 1e-12);
    sc.parallelism.expertTp = 1;
    SS_EVALUATE(etp1, sc);
    SS_COMPARE_REL(etp1.bytesByGroup[int(Group::Tp)], L * 5 * (t - 1) / t * beta * T * h, 1e-12);
    sc.parallelism.expertTp = 2;
    SS_EVALUATE(etp2, sc);
    SS_COMPARE_REL(etp2.bytesByGroup[int(Group::Tp)],
        L * 5 * (t - 1) / t * beta * T * h + L * 5 * (2 - 1) / 2.0 * beta * T * h * 2 / t, 1e-12);
    const Collective* ag = nullptr;
    for (const Collective& c : etp2.collectives)
        if (c.group == Group::Tp && c.op == CollectiveOp::AllGather && c.groupSize == 2)
            ag = &c;
    QVERIFY(ag);
    QCOMPARE(ag->messageBytes, beta * T * h * 2 / t);
}

void TestCommunication::expertGridPlacesEpGroups()
{
    // megatron/core/parallel_state.py: the expert grid of a stage orders expert_tp fastest, then ep, then expert_dp.
    // 2 × 8 GPUs, tp 4 (dp 4), Mixtral with ep 8: expert_tp 1 puts an EP group on 8 consecutive ranks (one node) and
    // expert_dp = 16/8 = 2 ranks 8 apart (two nodes).
    Scenario s = sstest::presetScenario("mixtral-8x7b", 2, 8);
    s.parallelism.tp = 4;
    s.parallelism.ep = 8;
    s.parallelism.expertTp = 1;
    sstest::setBatch(s, 1, 1);
    QVERIFY2(validate(s).empty(), qPrintable(sstest::issuesText(validate(s))));
    const Layout l = makeLayout(s);
    QCOMPARE(l.epGroup, (GroupPlacement { 8, 8, 1 }));
    QCOMPARE(l.expertDpGroup, (GroupPlacement { 2, 1, 2 }));
    const RankGroup ep = groupOf(s, 13, Group::Ep);
    QCOMPARE(ep.members, (std::vector<int> { 8, 9, 10, 11, 12, 13, 14, 15 }));
    const RankGroup edp = groupOf(s, 13, Group::Dp, true);
    QCOMPARE(edp.members, (std::vector<int> { 5, 13 }));
    QCOMPARE(rankCoord(s, 13).ep, 5);
    QCOMPARE(rankCoord(s, 13).expertDp, 1);
}

void TestCommunication::allgatherDispatcherGathersEveryToken()
{
    // megatron/core/transformer/moe/token_dispatcher.py (MoEAllGatherTokenDispatcher): the hidden states of the
    // ep × expert_tp group all-gathered (output β·h·T·n), the expert outputs reduce-scattered back; forward and their
    // adjoints backward: 2 all-gathers + 2 reduce-scatters, (n−1)/n of β·h·T·n each, whatever top-k. Mixtral 8x7B,
    // EP 8 on one node, tp 1, s 4096, b 1, β 2, one micro-batch: 32 layers × 4 × 7/8 × β·h·T·8.
    const double L = 32, beta = 2, h = 4096, T = 4096, n = 8;
    Scenario sc = sstest::presetScenario("mixtral-8x7b", 1, 8);
    sc.training.seqLen = int64_t(T);
    sc.parallelism.ep = int(n);
    sc.model.moe.dispatcher = MoeDispatcher::AllGather;
    sstest::setBatch(sc, 1, 1);
    SS_EVALUATE(r, sc);
    SS_COMPARE_REL(r.bytesByGroup[int(Group::Ep)], L * 4 * (n - 1) / n * beta * h * T * n, 1e-12);
    SS_COMPARE_REL(
        sstest::collectiveBytes(r, Group::Ep, CollectiveOp::AllGather), L * 2 * (n - 1) / n * beta * h * T * n, 1e-12);
}

void TestCommunication::deepepCrossesTheNetworkOncePerNode()
{
    // DeepEP (its README; DeepSeek-V3 report §3.2.2): a token's copies for one node cross the network once. DeepSeek-V3
    // (256 experts, top-8) with EP 16 over 2 nodes, 128 experts a node: a token misses a given node with probability
    // Π_{i<8} (256 − 128 − i)/(256 − i), so it reaches D = 2·(1 − that) nodes, D/8 of the naive off-node bytes.
    Scenario s = sstest::presetScenario("deepseek-v3", 2, 8);
    s.parallelism.ep = 16;
    s.model.moe.maxNodesPerToken = 0;
    s.model.moe.dispatcher = MoeDispatcher::DeepEp;
    double miss = 1;
    for (int i = 0; i < 8; ++i)
        miss *= (256.0 - 128 - i) / (256.0 - i);
    const detail::Shape sh = detail::makeShape(s);
    SS_COMPARE_REL(detail::layerCommunication(s, sh, makeLayout(s), 0, 0).epOffNodeShare, 2 * (1 - miss) / 8, 1e-12);
    // node-limited routing caps it at M/k: M = 1 gives 1/8
    s.model.moe.maxNodesPerToken = 1;
    QCOMPARE(detail::layerCommunication(s, sh, makeLayout(s), 0, 0).epOffNodeShare, 1.0 / 8);
    // the NCCL all-to-all does not deduplicate
    s.model.moe.maxNodesPerToken = 0;
    s.model.moe.dispatcher = MoeDispatcher::AllToAll;
    QCOMPARE(detail::layerCommunication(s, sh, makeLayout(s), 0, 0).epOffNodeShare, 1.0);
}

QTEST_APPLESS_MAIN(TestCommunication)
#include "tst_communication.moc"
