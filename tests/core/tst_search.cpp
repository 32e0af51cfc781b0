// SPDX-License-Identifier: GPL-3.0-or-later
// Layout search: the same answers as brute-force evaluate() over the same space, a correct Pareto front,
// identical results for any thread count, and the known best layout of a small space.
#include "test_support.h"

#include "shardscope/core/layout.h"
#include "shardscope/core/search.h"
#include "shardscope/core/term.h"

#include "engine.h"
#include "evaluate_into.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <tuple>

using namespace sstest;

class TestSearch : public QObject
{
    Q_OBJECT
private slots:
    void bruteForceAgrees();
    void paretoFrontIsExact();
    void threadsGiveSameResults();
    void smallSpaceBestIsSelectiveRecompute();
    void tightMemoryNeedsSharding();
    void equalScoresRankLessMemoryFirst();
    void defaultHeadroomKeepsTenPercentFree();
    void overlapEfficiencyChargesAssumedHiddenCommunication();
    void peakCandidatesHoldEveryPeak();
};

namespace {
Scenario smallScenario()
{
    Scenario s = presetScenario("llama3-8b", 2, 8, "a100-sxm4-80gb", "nvlink3", "ib-hdr200");
    s.training.seqLen = 4096;
    s.training.globalBatch = 64;
    return s;
}
} // namespace

void TestSearch::bruteForceAgrees()
{
    // Enumerate the space independently here and evaluate each layout with evaluate().
    const Scenario base = smallScenario();
    SearchOptions opt;
    opt.maxTp = 8;
    opt.maxPp = 4;
    opt.maxCp = 2;
    opt.maxMicroBatch = 2;
    // the brute force below asks evaluate() whether a layout fits: the same usable memory (issue 21: one "fits")
    const SearchResult res = search(base, opt);
    QVERIFY(res.evaluated > 0);

    int64_t feasible = 0;
    std::set<std::tuple<int, int, int, int, int, int, int, int, int, int>> fitting;
    const int G = base.cluster.gpus();
    for (int tp : { 1, 2, 4, 8 })
        for (int pp : { 1, 2, 4 })
            for (int cp : { 1, 2 })
                for (int mb : { 1, 2 })
                    for (PpSchedule sched : { PpSchedule::OneFOneB, PpSchedule::ZeroBubble, PpSchedule::Interleaved })
                        for (int v : { 1, 2, 4 })
                            for (Recompute rc : { Recompute::None, Recompute::Selective, Recompute::Full })
                                for (Sharding sh : { Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3,
                                         Sharding::FsdpFull, Sharding::FsdpGradOp, Sharding::FsdpHybrid })
                                    for (int k = 0; k < 9; ++k) {
                                        // the offload variant, and the context-parallel exchange: each of the three
                                        // with cp 2, the ring (the base's) with cp 1
                                        const int off = k % 3;
                                        const auto cpType = CpCommType(k / 3);
                                        if (G % (tp * pp * cp) != 0 || (cp == 1 && cpType != CpCommType::P2p))
                                            continue;
                                        if (pp == 1 && !(sched == PpSchedule::OneFOneB && v == 1))
                                            continue;
                                        const int dp = G / (tp * pp * cp);
                                        // the search's rule: hybrid sharding needs several one-node shard groups
                                        if (sh == Sharding::FsdpHybrid && (dp * cp <= 8 || (dp * cp) % 8 != 0))
                                            continue;
                                        if (sched == PpSchedule::Interleaved ? v == 1 : v != 1)
                                            continue;
                                        const bool full = sh == Sharding::Zero3 || sh == Sharding::FsdpFull;
                                        if ((sh == Sharding::Ddp && off > 0) || (!full && off > 1))
                                            continue;
                                        LayoutChoice l { G, sh, tp, pp, cp, 1, v, sched, mb, rc,
                                            off >= 1 ? OffloadTarget::Cpu : OffloadTarget::None,
                                            off >= 2 ? OffloadTarget::Cpu : OffloadTarget::None, cpType };
                                        const Scenario s = applyLayout(base, l);
                                        const Result r = evaluate(s);
                                        if (r.valid && r.fits) {
                                            ++feasible;
                                            fitting.insert(
                                                { tp, pp, cp, mb, int(sched), v, int(rc), int(sh), off, int(cpType) });
                                        } else if (off == 0 && pp == 1 && rc == Recompute::None) {
                                            // Megatron-Core's activation offload: the fewest layers that fit, by a
                                            // linear walk (the search bisects); recorded as offload 100 + layers
                                            for (int n = 1; n < base.model.layers; ++n) {
                                                LayoutChoice a = l;
                                                a.activationLayers = n;
                                                const Result ra = evaluate(applyLayout(base, a));
                                                if (!ra.valid || !ra.fits)
                                                    continue;
                                                ++feasible;
                                                fitting.insert({ tp, pp, cp, mb, int(sched), v, int(rc), int(sh),
                                                    100 + n, int(cpType) });
                                                break;
                                            }
                                        }
                                    }
    QCOMPARE(res.feasible, feasible);
    for (const auto& p : res.points) {
        const auto& l = p.layout;
        const int off = l.activationLayers > 0           ? 100 + l.activationLayers
            : l.offloadParameters != OffloadTarget::None ? 2
                                                         : (l.offloadOptimizer != OffloadTarget::None ? 1 : 0);
        QVERIFY(fitting.count({ l.tp, l.pp, l.cp, l.microBatch, int(l.schedule), l.virtualStages, int(l.recompute),
            int(l.sharding), off, int(l.cpCommType) }));
        const Result r = evaluate(applyLayout(base, l));
        QVERIFY(relClose(r.step.total(), p.stepTime, 1e-12));
        QVERIFY(relClose(r.memory.total(), p.memory, 1e-12));
        QVERIFY(relClose(r.throughput.mfu, p.mfu, 1e-12)); // MFU comes from the core, not the GUI
    }
    // Best first by tokens/s; scores equal to about 12 digits rank as ties, less memory first (search.cpp, rankKey).
    for (size_t i = 1; i < res.points.size(); ++i)
        QVERIFY(res.points[i - 1].score >= res.points[i].score
            || (relClose(res.points[i - 1].score, res.points[i].score, 1e-11)
                && res.points[i - 1].memory <= res.points[i].memory));
}

void TestSearch::paretoFrontIsExact()
{
    SearchOptions opt;
    opt.maxPp = 4;
    opt.maxCp = 1;
    const SearchResult res = search(smallScenario(), opt);
    QVERIFY(!res.pareto.empty());
    std::set<size_t> front(res.pareto.begin(), res.pareto.end());
    auto dominates = [](const SearchPoint& a, const SearchPoint& b) {
        return a.stepTime <= b.stepTime && a.memory <= b.memory && (a.stepTime < b.stepTime || a.memory < b.memory);
    };
    for (size_t i = 0; i < res.points.size(); ++i) {
        bool dominated = false;
        for (size_t j = 0; j < res.points.size() && !dominated; ++j)
            dominated = dominates(res.points[j], res.points[i]);
        if (front.count(i))
            QVERIFY2(!dominated, "a point on the front is dominated");
        else {
            // off the front: dominated, or an exact duplicate of a front point's (time, memory)
            bool duplicate = false;
            for (size_t f : front)
                duplicate
                    |= res.points[f].stepTime == res.points[i].stepTime && res.points[f].memory == res.points[i].memory;
            QVERIFY2(dominated || duplicate, "a non-dominated point is missing from the front");
        }
    }
    for (size_t k = 1; k < res.pareto.size(); ++k) {
        QVERIFY(res.points[res.pareto[k - 1]].stepTime <= res.points[res.pareto[k]].stepTime);
        QVERIFY(res.points[res.pareto[k - 1]].memory > res.points[res.pareto[k]].memory);
    }
}

void TestSearch::threadsGiveSameResults()
{
    const Scenario base = presetScenario("llama3-70b", 8, 8);
    SearchOptions one;
    one.threads = 1;
    SearchOptions four = one;
    four.threads = 4;
    const SearchResult a = search(base, one), b = search(base, four);
    QCOMPARE(a.evaluated, b.evaluated);
    QCOMPARE(a.feasible, b.feasible);
    QCOMPARE(a.points.size(), b.points.size());
    for (size_t i = 0; i < a.points.size(); ++i) {
        QCOMPARE(a.points[i].index, b.points[i].index);
        QCOMPARE(a.points[i].stepTime, b.points[i].stepTime);
    }
    QCOMPARE(a.pareto, b.pareto);
}

void TestSearch::smallSpaceBestIsSelectiveRecompute()
{
    // GPT-3 XL (24 layers, h 2048, 16 heads, V 50257) on one H100 80GB (85.9e9 B), DDP only, s = 2048, b = 8,
    // eager attention with dropout: only the recompute setting varies. By hand (Korthikanti Table 2, β = 2):
    //   sbh = 2048·8·2048 = 33.55e6;  no recompute: sbh·(34 + 5·a·s/h) = sbh·(34 + 80) = 3.82e9 B per layer,
    //   × 24 layers = 91.8e9 B: more than the whole GPU, so "none" cannot fit;
    //   selective: 34·sbh = 1.14e9 B per layer, × 24 = 27.4e9 B; model states 16Ψ = 16 × 1.32e9 = 21.1e9 B;
    //   with the logits peak (6·s·b·V = 4.9e9 B) and DDP's gradient bucket copy (2Ψ = 2.6e9 B) ≈ 56e9 B: fits;
    //   full: fits too, but re-runs every forward, so it is slower than selective (which re-runs only the
    //   attention core). The best layout is therefore selective recompute.
    Scenario s = presetScenario("gpt3-xl", 1, 1);
    s.training.seqLen = 2048;
    s.training.flashAttention = false;
    s.training.dropout = true;
    s.training.microBatch = 8;
    s.training.globalBatch = 8;
    SearchOptions opt;
    opt.maxMicroBatch = 8;
    opt.allowOffload = false;
    opt.shardings = { Sharding::Ddp };
    const SearchResult res = search(s, opt);
    // micro-batch 1, 2, 4, 8 × 3 recompute settings on one GPU
    QCOMPARE(res.evaluated, int64_t(12));
    bool noneAt8Fits = false;
    for (const auto& p : res.points)
        noneAt8Fits |= p.layout.microBatch == 8 && p.layout.recompute == Recompute::None;
    QVERIFY(!noneAt8Fits);
    // Best first: the first point with micro-batch 8 is the best layout at that micro-batch.
    const auto best = std::find_if(
        res.points.begin(), res.points.end(), [](const SearchPoint& p) { return p.layout.microBatch == 8; });
    QVERIFY(best != res.points.end());
    QCOMPARE(int(best->layout.sharding), int(Sharding::Ddp)); // enum class: compare as int (Qt 6.4 toString)
    QCOMPARE(int(best->layout.recompute), int(Recompute::Selective));
}

void TestSearch::tightMemoryNeedsSharding()
{
    // Llama 3 70B on 8 x H100 80GB: DDP needs 16 B x 70.55e9 = 1129 GB per GPU (ZeRO paper), ZeRO-1
    // 4Ψ + 12Ψ/8 = 388 GB, ZeRO-2 2Ψ + 14Ψ/8 = 265 GB: none fits in 80 GiB. ZeRO-3 16Ψ/8 = 141 GB does not
    // either; only offload or tensor/pipeline splits can fit, so every feasible point has tp·pp > 1 or offload.
    Scenario s = presetScenario("llama3-70b");
    s.training.seqLen = 4096;
    setBatch(s, 1, 8);
    SearchOptions opt;
    const SearchResult res = search(s, opt);
    QVERIFY(res.feasible > 0);
    for (const auto& p : res.points) {
        const auto& l = p.layout;
        QVERIFY(l.tp * l.pp > 1 || l.offloadOptimizer != OffloadTarget::None);
        QVERIFY(p.memory <= s.cluster.gpu.memoryBytes);
    }
}

void TestSearch::equalScoresRankLessMemoryFirst()
{
    // The rule on its own (issue 13 item 7): equal tokens/s, the smaller memory first; a higher score first whatever
    // its memory; scores equal to 12 digits tie (sums in another order); then enumeration order.
    SearchPoint big, small, faster, same;
    big.score = 1000.0;
    big.memory = 79.5 * 1073741824.0;
    big.index = 1;
    small.score = 1000.0 * (1 + 1e-14); // the same throughput, summed in another order
    small.memory = 61.0 * 1073741824.0;
    small.index = 7;
    faster.score = 1001.0;
    faster.memory = 80.0 * 1073741824.0;
    faster.index = 9;
    same = small;
    same.index = 8;
    QVERIFY(rankedBefore(small, big));
    QVERIFY(!rankedBefore(big, small));
    QVERIFY(rankedBefore(faster, small) && rankedBefore(faster, big));
    QVERIFY(rankedBefore(small, same) && !rankedBefore(same, small));
    QVERIFY(!rankedBefore(small, small));

    // In a real search: every run of equal scores is in increasing memory, and such runs exist (ZeRO-1 and ZeRO-2
    // with their communication hidden, or offload variants, reach the same speed with different memory).
    SearchOptions opt;
    opt.maxPp = 2;
    opt.maxCp = 1;
    const SearchResult res = search(smallScenario(), opt);
    int ties = 0;
    for (size_t i = 1; i < res.points.size(); ++i) {
        const SearchPoint& a = res.points[i - 1];
        const SearchPoint& b = res.points[i];
        QVERIFY(rankedBefore(a, b));
        if (std::abs(a.score - b.score) <= 1e-12 * a.score && a.memory != b.memory) {
            ++ties;
            QVERIFY2(a.memory < b.memory,
                qPrintable(QStringLiteral("rank %1: %2 B before %3 B at the same tokens/s")
                               .arg(i)
                               .arg(a.memory)
                               .arg(b.memory)));
        }
    }
    QVERIFY2(ties > 0, "no equal-throughput layouts with different memory: the test would not see the rule");
}

void TestSearch::defaultHeadroomKeepsTenPercentFree()
{
    // The default: 10% of the GPU stays free (vLLM's gpu_memory_utilization 0.9); 0 is a choice, not the default.
    // Layouts must fit the scenario's usable memory: the A100 80GB's driver-reported 81920 MiB (nvidia-smi), less
    // the 1 GiB CUDA context, less 10% of 81920 MiB.
    QCOMPARE(Cluster {}.memoryHeadroom, 0.10);
    Scenario s = smallScenario();
    QCOMPARE(s.cluster.gpu.reportedMemoryBytes, 81920.0 * 1024 * 1024);
    const double usable = 81920.0 * 1024 * 1024 - 1024.0 * 1024 * 1024 - 0.10 * 81920.0 * 1024 * 1024;
    QCOMPARE(usableMemory(s), usable);
    const SearchResult tight = search(s, SearchOptions {});
    QVERIFY(tight.feasible > 0);
    for (const SearchPoint& p : tight.points)
        QVERIFY(p.memory <= usable);
    s.cluster.memoryHeadroom = 0;
    const SearchResult full = search(s, SearchOptions {});
    QVERIFY(full.feasible > tight.feasible); // the layouts between 90% and 100% of the GPU are back
    QCOMPARE(full.evaluated, tight.evaluated);
}

void TestSearch::overlapEfficiencyChargesAssumedHiddenCommunication()
{
    // communication.assumed_hidden_seconds is, by its definition, Σ over the step's collectives of (time − exposed
    // time): ZeRO-3's per-layer gathers and reduce-scatters run behind compute in the model, so it is > 0.
    Scenario s = smallScenario();
    s.parallelism.sharding = Sharding::Zero3;
    const auto hiddenOf = [](const Result& r) {
        double h = 0;
        for (const Collective& c : r.collectives)
            h += std::max(0.0, c.time - c.exposedTime);
        return h;
    };
    const Result r = explain(s);
    QVERIFY(r.valid);
    const auto term = std::find_if(
        r.terms.begin(), r.terms.end(), [](const Term& t) { return t.key == "communication.assumed_hidden_seconds"; });
    QVERIFY(term != r.terms.end());
    QVERIFY(hiddenOf(r) > 0.1 * r.step.total()); // most of ZeRO-3's gathers are counted hidden
    QVERIFY(std::abs(term->value - hiddenOf(r)) <= 1e-12 * hiddenOf(r));
    double back = 0;
    QVERIFY(evaluateExpression(term->expression, back)); // the substituted arithmetic gives the value
    QVERIFY(std::abs(back - term->value) <= 1e-9 * term->value);
    const auto j = nlohmann::json::parse(resultToJson(r));
    QCOMPARE(j["communication"]["assumed_hidden_seconds"].get<double>(), term->value);

    // The search charges (1 − η) of it to each layout's step: η = 1 is the model's assumption, unchanged.
    SearchOptions opt;
    opt.shardings = { Sharding::Zero3 };
    opt.topK = 5;
    const SearchResult assumed = search(s, opt);
    opt.overlapEfficiency = 0.5;
    const SearchResult charged = search(s, opt);
    QCOMPARE(charged.feasible, assumed.feasible);
    QVERIFY(!charged.points.empty());
    for (const SearchPoint& p : charged.points) {
        const Result e = evaluate(applyLayout(s, p.layout));
        const double expected = e.step.total() + 0.5 * hiddenOf(e);
        QVERIFY2(std::abs(p.stepTime - expected) <= 1e-9 * expected, qPrintable(QString::number(p.stepTime)));
        QVERIFY(std::abs(p.tokensPerSecond - e.throughput.tokensPerSecond * e.step.total() / expected)
            <= 1e-9 * p.tokensPerSecond);
        // MFU is model FLOPs per second over the peak: it falls with the step as tokens/s does
        QVERIFY(std::abs(p.mfu - e.throughput.mfu * e.step.total() / expected) <= 1e-9 * p.mfu);
    }
    QVERIFY(charged.points.front().stepTime > assumed.points.front().stepTime);
}

QTEST_APPLESS_MAIN(TestSearch)
#include "tst_search.moc"

void TestSearch::peakCandidatesHoldEveryPeak()
{
    // The search computes the memory of peakCandidates' stages only (the first of each run of stages of one shape):
    // its peak, peak stage, host and NVMe memory and step must be evaluate()'s, over pipeline depths, schedules,
    // micro-batch counts, sharding, recompute and offload, for a dense model and for MoE models whose leading dense
    // layers end on the first stage or several stages on.
    ModelSpec wideDense = presetModel("deepseek-v3");
    wideDense.moe.denseLayers = 13;
    wideDense.name = "DeepSeek-V3 with 13 leading dense layers";
    struct Variant {
        Sharding sharding;
        Recompute recompute;
        OffloadTarget optimizer;
    };
    const Variant variants[] = { { Sharding::Zero1, Recompute::Selective, OffloadTarget::None },
        { Sharding::Zero3, Recompute::Full, OffloadTarget::Cpu },
        { Sharding::FsdpFull, Recompute::None, OffloadTarget::None } };
    int outsideOldCandidates = 0; // peaks on none of the first, second, first-with-an-extra-layer and last stages
    int compared = 0;
    for (const ModelSpec& model : { presetModel("llama3.1-405b"), presetModel("deepseek-v3"), wideDense })
        for (int pp : { 2, 3, 4, 5, 7, 8, 12, 16, 24, 30 })
            for (PpSchedule sched :
                { PpSchedule::OneFOneB, PpSchedule::Interleaved, PpSchedule::GPipe, PpSchedule::ZeroBubble })
                for (int64_t m : { int64_t(1), int64_t(pp), int64_t(4 * pp) })
                    for (const Variant& v : variants) {
                        Scenario s = presetScenario("llama3.1-405b", pp, 8);
                        s.model = model;
                        s.training.seqLen = 4096;
                        s.training.recompute = v.recompute;
                        s.parallelism.tp = 8;
                        s.parallelism.pp = pp;
                        s.parallelism.sequenceParallel = true;
                        s.parallelism.sharding = v.sharding;
                        s.parallelism.schedule = sched;
                        s.parallelism.virtualStages = sched == PpSchedule::Interleaved ? 2 : 1;
                        s.offload.optimizer = v.optimizer;
                        setBatch(s, 1, m);
                        if (!validate(s).empty())
                            continue;
                        const Result full = evaluate(s);
                        const detail::Shape shape = detail::makeShape(s);
                        const detail::PeakCandidates cand = detail::peakCandidates(s, shape);
                        Result fast;
                        evaluateInto(s, makeLayout(s), shape, cand, fast, false);
                        const QString at = QStringLiteral("%1, pp %2, schedule %3, %4 micro-batches, sharding %5")
                                               .arg(QString::fromStdString(model.name))
                                               .arg(pp)
                                               .arg(int(sched))
                                               .arg(m)
                                               .arg(int(v.sharding));
                        QVERIFY2(fast.peakStage == full.peakStage, qPrintable(at));
                        QVERIFY2(fast.memory.total() == full.memory.total(), qPrintable(at));
                        QVERIFY2(fast.fits == full.fits, qPrintable(at));
                        QVERIFY2(fast.hostMemoryPerNode == full.hostMemoryPerNode, qPrintable(at));
                        QVERIFY2(fast.nvmePerNode == full.nvmePerNode, qPrintable(at));
                        QVERIFY2(fast.step.total() == full.step.total(), qPrintable(at));
                        const int extra = model.layers % pp;
                        const int old[] = { 0, 1, extra == 0 ? pp - 1 : pp - extra, pp - 1 };
                        outsideOldCandidates
                            += std::find(std::begin(old), std::end(old), full.peakStage) == std::end(old);
                        ++compared;
                    }
    QVERIFY(compared > 500);
    // At pp >= 16 the 13 leading dense layers end on stage 3 or later, and the stage after them can hold the peak
    QVERIFY(outsideOldCandidates > 0);
}
