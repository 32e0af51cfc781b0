// SPDX-License-Identifier: GPL-3.0-or-later
// Layout search: enumerate, pre-screen on memory (cheap, no allocation), score the ones that fit, rank, Pareto.
#include "shardscope/core/search.h"

#include "assumed_hidden.h"
#include "usable_memory.h"
#include "engine.h"
#include "shardscope/core/enum_names.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/uncertainty.h"
#include "evaluate_into.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace shardscope::core {

Scenario applyLayout(const Scenario& base, const LayoutChoice& l)
{
    Scenario s = base;
    s.cluster.nodes = std::max(1, l.gpus / std::max(1, base.cluster.gpusPerNode));
    auto& p = s.parallelism;
    p.sharding = l.sharding;
    p.tp = l.tp;
    p.pp = l.pp;
    p.cp = l.cp;
    p.cpCommType = l.cpCommType;
    p.ep = l.ep;
    p.schedule = l.schedule;
    p.virtualStages = l.virtualStages;
    p.sequenceParallel = l.tp > 1; // always worth it with TP (Korthikanti §4.2.2)
    p.shardGroup = 0; // fsdp-hybrid: one node per shard group, as the search assumes
    p.pipelineLayout.clear(); // a layout belongs to one pp × virtual stages: the search's split is even
    s.training.microBatch = l.microBatch;
    s.training.recompute = l.recompute;
    if (l.recompute != Recompute::Selective) // recompute_modules apply to selective recompute only (validate.cpp)
        s.training.recomputeModules.reset();
    s.offload.optimizer = l.offloadOptimizer;
    s.offload.parameters = l.offloadParameters;
    s.offload.activationLayers = l.activationLayers;
    return s;
}

namespace {
/// x rounded to a 40-bit mantissa (about 12 significant digits): scores that differ only by rounding compare equal.
double rankKey(double x)
{
    int e = 0;
    const double m = std::frexp(x, &e);
    return std::ldexp(std::round(std::ldexp(m, 40)), e - 40);
}
} // namespace

namespace {
/// What rankedBefore compares: the score's rank key, then the memory, then the enumeration index.
struct RankedKey {
    double key = 0, memory = 0;
    int64_t index = 0;
    size_t at = 0; ///< the point's place in the unsorted list
};

RankedKey rankedKey(const SearchPoint& p, size_t at) { return { rankKey(p.score), p.memory, p.index, at }; }

bool keyBefore(const RankedKey& a, const RankedKey& b)
{
    if (a.key != b.key)
        return a.key > b.key;
    if (a.memory != b.memory)
        return a.memory < b.memory;
    return a.index < b.index;
}

/// Sorts points by rankedBefore with each point's rank key made once, not twice per comparison.
void sortRanked(std::vector<SearchPoint>& points)
{
    std::vector<RankedKey> keys(points.size());
    for (size_t i = 0; i < points.size(); ++i)
        keys[i] = rankedKey(points[i], i);
    std::sort(keys.begin(), keys.end(), keyBefore);
    std::vector<SearchPoint> sorted;
    sorted.reserve(points.size());
    for (const RankedKey& k : keys)
        sorted.push_back(points[k.at]);
    points = std::move(sorted);
}
} // namespace

bool rankedBefore(const SearchPoint& a, const SearchPoint& b) { return keyBefore(rankedKey(a, 0), rankedKey(b, 0)); }

std::vector<size_t> paretoFront(const std::vector<SearchPoint>& points)
{
    std::vector<size_t> order(points.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (points[a].stepTime != points[b].stepTime)
            return points[a].stepTime < points[b].stepTime;
        if (points[a].memory != points[b].memory)
            return points[a].memory < points[b].memory;
        return points[a].index < points[b].index;
    });
    std::vector<size_t> front;
    double bestMem = INFINITY;
    for (size_t i : order) {
        if (points[i].memory < bestMem) {
            front.push_back(i);
            bestMem = points[i].memory;
        }
    }
    return front;
}

namespace {

std::vector<int> divisorsUpTo(int64_t n, int64_t limit)
{
    std::vector<int> d;
    for (int64_t k = 1; k <= std::min(n, limit); ++k)
        if (n % k == 0)
            d.push_back(static_cast<int>(k));
    return d;
}

/// The outer part of a layout: GPU count, tp, pp, cp and its exchange, ep (the inner loops share its shape work).
struct OuterTask {
    int gpus, tp, pp, cp, ep;
    CpCommType cpType;
};

struct Worker {
    const Scenario& base;
    const SearchOptions& opt;
    SearchProgress* progress;
    std::vector<SearchPoint> points;
    int64_t evaluated = 0;
    int64_t index = 0;

    double score(const RankedFigures& f, int gpus, double capacity) const
    {
        switch (opt.objective) {
        case SearchObjective::TokensPerSecond: return f.tokensPerSecond;
        case SearchObjective::CostPerToken: {
            const double cost = f.costPerStep > 0 ? f.costPerStep : gpus * f.stepTime; // GPU-seconds when unpriced
            return -cost / (f.tokensPerSecond * f.stepTime);
        }
        case SearchObjective::MemoryHeadroom: return capacity - f.memory;
        }
        return 0;
    }

    /// The fewest offload.activation_layers with which `s` (no activation offload) fits `capacity` on the figures the
    /// search ranks on, bisected (memory falls with every layer offloaded); 0 when validate() refuses activation offload
    /// for it or even model.layers − 1 layers do not fit.
    int fewestOffloadedLayers(Scenario& s, double capacity)
    {
        Result r;
        const auto fitsWith = [&](int n) {
            s.offload.activationLayers = n;
            evaluateInto(s, r, false);
            return rankedFigures(s, r, opt).memory <= capacity;
        };
        int lo = 0, hi = s.model.layers - 1;
        s.offload.activationLayers = hi;
        const bool allowed = hi >= 1 && validate(s).empty();
        if (!allowed || !fitsWith(hi)) {
            s.offload.activationLayers = 0;
            return 0;
        }
        while (hi - lo > 1) {
            const int mid = lo + (hi - lo) / 2;
            (fitsWith(mid) ? hi : lo) = mid;
        }
        s.offload.activationLayers = 0;
        return hi;
    }

    void run(const OuterTask& t, int64_t firstIndex)
    {
        index = firstIndex;
        const int gpn = base.cluster.gpusPerNode;
        const int dp = t.gpus / (t.tp * t.pp * t.cp);
        const int64_t perDp = base.training.globalBatch / dp;
        Scenario s = base;
        s.cluster.nodes = t.gpus / gpn;
        s.parallelism.tp = t.tp;
        s.parallelism.pp = t.pp;
        s.parallelism.cp = t.cp;
        s.parallelism.cpCommType = t.cpType;
        s.parallelism.ep = t.ep;
        s.parallelism.sequenceParallel = t.tp > 1;
        s.parallelism.shardGroup = 0;
        s.parallelism.pipelineLayout.clear(); // as applyLayout: the search splits layers evenly
        s.offload.activationLayers = 0; // tried below, layout by layout, where it is allowed and needed
        // The scenario's usable memory (capacity − CUDA context − headroom): "fits" means the same as in evaluate().
        const double capacity = detail::usableMemory<detail::Fast>(base).value();
        Result r;
        const int layers = base.model.layers;
        struct Sched {
            PpSchedule schedule;
            int v;
        };
        Sched scheds[6];
        int nSched = 0;
        if (t.pp == 1) {
            scheds[nSched++] = { PpSchedule::OneFOneB, 1 };
        } else {
            scheds[nSched++] = { PpSchedule::OneFOneB, 1 };
            scheds[nSched++] = { PpSchedule::ZeroBubble, 1 };
            for (int v : { 2, 4 })
                if (t.pp * v <= layers)
                    scheds[nSched++] = { PpSchedule::Interleaved, v };
        }
        const auto shardings = shardingNames(); // every mode, in the name table's order
        const Recompute recomputes[] = { Recompute::None, Recompute::Selective, Recompute::Full };
        for (int mb = 1; mb <= opt.maxMicroBatch; mb *= 2) {
            if (perDp % mb != 0)
                continue;
            s.training.microBatch = mb;
            const int64_t m = perDp / mb;
            for (int k = 0; k < nSched; ++k) {
                if (scheds[k].schedule == PpSchedule::Interleaved && m % t.pp != 0)
                    continue; // Megatron's interleaved schedule needs whole groups of pp micro-batches
                s.parallelism.schedule = scheds[k].schedule;
                s.parallelism.virtualStages = scheds[k].v;
                for (Recompute rc : recomputes) {
                    s.training.recompute = rc;
                    // the base's recompute_modules apply to selective recompute only (validate.cpp)
                    s.training.recomputeModules
                        = rc == Recompute::Selective ? base.training.recomputeModules : std::nullopt;
                    for (const ShardingName& name : shardings) {
                        const Sharding sh = name.sharding;
                        if (!opt.shardings.empty()
                            && std::find(opt.shardings.begin(), opt.shardings.end(), sh) == opt.shardings.end())
                            continue;
                        if (sh == Sharding::FsdpHybrid && (dp * t.cp <= gpn || (dp * t.cp) % gpn != 0))
                            continue; // hybrid needs several shard groups of one node
                        s.parallelism.sharding = sh;
                        const bool fullShard = sh == Sharding::Zero3 || sh == Sharding::FsdpFull;
                        const int nOff = !opt.allowOffload || sh == Sharding::Ddp ? 1 : (fullShard ? 3 : 2);
                        const detail::Shape shape = detail::makeShape(s); // shared by the offload variants
                        const detail::PeakCandidates cand = detail::peakCandidates(s, shape);
                        const Layout layout = makeLayout(s, dp);
                        const double nccl = detail::ncclBufferBytes(s, layout);
                        bool plainFits = false; // the variant without any offload
                        for (int off = 0; off <= nOff; ++off) {
                            int activationLayers = 0;
                            const bool activationVariant = off == nOff;
                            if (activationVariant && (!opt.allowOffload || t.pp > 1 || rc != Recompute::None))
                                break; // where Megatron-Core allows no activation offload (validate.cpp)
                            ++evaluated;
                            const int64_t myIndex = index++;
                            if (activationVariant) {
                                // Megatron-Core's activation offload, only where the layout does not fit without
                                // offload: the fewest layers that fit (memory falls with each one offloaded).
                                s.offload.optimizer = s.offload.parameters = OffloadTarget::None;
                                if (plainFits)
                                    break;
                                activationLayers = fewestOffloadedLayers(s, capacity);
                                if (activationLayers == 0)
                                    break;
                                s.offload.activationLayers = activationLayers;
                            } else {
                                s.offload.optimizer = off >= 1 ? OffloadTarget::Cpu : OffloadTarget::None;
                                s.offload.parameters = off >= 2 ? OffloadTarget::Cpu : OffloadTarget::None;
                                if (!detail::candidatesFit(s, shape, cand, layout, m, capacity - nccl))
                                    continue;
                            }
                            evaluateInto(s, layout, shape, cand, r, false); // offload variants share layout and shape
                            const RankedFigures f = rankedFigures(s, r, opt);
                            s.offload.activationLayers = 0;
                            if (f.memory > capacity)
                                continue;
                            plainFits = plainFits || off == 0;
                            SearchPoint p;
                            p.layout = { t.gpus, sh, t.tp, t.pp, t.cp, t.ep, scheds[k].v, scheds[k].schedule, mb, rc,
                                s.offload.optimizer, s.offload.parameters, t.cpType, activationLayers };
                            p.stepTime = f.stepTime;
                            p.memory = f.memory;
                            p.tokensPerSecond = f.tokensPerSecond;
                            p.mfu = r.throughput.mfu * f.tokensPerSecond / r.throughput.tokensPerSecond;
                            p.costPerToken = f.costPerStep > 0 ? f.costPerStep / (f.tokensPerSecond * p.stepTime) : 0.0;
                            p.score = score(f, t.gpus, capacity); // memory headroom: what is left of the usable memory
                            p.index = myIndex;
                            points.push_back(p);
                        }
                    }
                }
            }
        }
        if (progress)
            progress->evaluated.fetch_add(evaluated - reported, std::memory_order_relaxed);
        reported = evaluated;
    }
    int64_t reported = 0;
};

bool tpAllowed(const ModelSpec& m, int tp) { return tensorParallelIssues(m, tp).empty(); }

} // namespace

RankedFigures rankedFigures(const Scenario& s, const Result& r, const SearchOptions& opt)
{
    RankedFigures f { r.step.total(), r.memory.total(), r.throughput.tokensPerSecond, r.throughput.costPerStepUsd };
    if (opt.overlapEfficiency < 1) { // charge back the overlap the model assumes
        const double slower
            = 1 + (1 - opt.overlapEfficiency) * detail::assumedHidden<detail::Fast>(r.collectives).value() / f.stepTime;
        f.stepTime *= slower;
        f.tokensPerSecond /= slower;
        f.costPerStep *= slower;
    }
    if (opt.pessimistic) { // the slow, large end of the 80% ranges
        const PessimisticEnd worst = pessimisticEnd(s, r);
        f.memory = worst.memoryTotal;
        f.tokensPerSecond *= worst.tokensPerSecondFactor;
        f.stepTime /= worst.tokensPerSecondFactor;
        f.costPerStep /= worst.tokensPerSecondFactor;
    }
    return f;
}

SearchResult search(const Scenario& base, const SearchOptions& opt, SearchProgress* progress)
{
    const auto t0 = std::chrono::steady_clock::now();
    SearchResult out;
    const int gpn = std::max(1, base.cluster.gpusPerNode);
    int lo = opt.minGpus > 0 ? opt.minGpus : base.cluster.gpus();
    int hi = opt.maxGpus > 0 ? opt.maxGpus : (opt.minGpus > 0 ? opt.minGpus : base.cluster.gpus());
    if (hi < lo)
        std::swap(lo, hi);
    std::vector<int> gpuCounts;
    for (int n = std::max(1, (lo + gpn - 1) / gpn); n * gpn <= hi; ++n)
        gpuCounts.push_back(n * gpn);
    if (gpuCounts.size() > 64) { // a wide range: whole nodes on a geometric grid
        std::vector<int> thinned;
        for (double g = gpuCounts.front(); g <= gpuCounts.back(); g *= 1.25) {
            const int c = static_cast<int>(std::round(g / gpn)) * gpn;
            if (thinned.empty() || thinned.back() != c)
                thinned.push_back(c);
        }
        gpuCounts = thinned;
    }

    const ModelSpec& m = base.model;
    const int maxTp = opt.maxTp > 0 ? opt.maxTp : gpn;
    std::vector<OuterTask> tasks;
    for (int g : gpuCounts)
        for (int tp : divisorsUpTo(g, maxTp)) {
            if (!tpAllowed(m, tp))
                continue;
            for (int pp : divisorsUpTo(g / tp, std::min(opt.maxPp, m.layers))) {
                for (int cp : divisorsUpTo(g / (tp * pp), opt.maxCp)) {
                    if (base.training.seqLen % cp != 0 || (cp > 1 && (base.training.seqLen / cp) % 2 != 0))
                        continue;
                    const int dp = g / (tp * pp * cp);
                    if (base.training.globalBatch % dp != 0)
                        continue;
                    std::vector<int> eps { 1 };
                    if (m.isMoe()) {
                        eps.clear();
                        for (int ep : divisorsUpTo(m.moe.experts, opt.maxEp > 0 ? opt.maxEp : m.moe.experts))
                            // the expert grid: ep × expert_tp divides tp × dp × cp (validate.cpp, Megatron-Core)
                            if ((int64_t(tp) * dp * cp)
                                    % (int64_t(base.parallelism.expertTp > 0 ? base.parallelism.expertTp : tp) * ep)
                                == 0)
                                eps.push_back(ep);
                    }
                    // cp > 1: each exchange the framework allows for these heads (validate.cpp); cp 1: the base's
                    std::vector<CpCommType> cpTypes;
                    for (CpCommType type : { CpCommType::P2p, CpCommType::A2a, CpCommType::AllGather })
                        if (cp > 1 && contextParallelIssues(m, base.training.framework, tp, cp, type).empty())
                            cpTypes.push_back(type);
                    if (cp == 1)
                        cpTypes.push_back(base.parallelism.cpCommType);
                    for (CpCommType type : cpTypes)
                        for (int ep : eps)
                            tasks.push_back({ g, tp, pp, cp, ep, type });
                }
            }
        }

    // Index space: each task gets a fixed block, so indices do not depend on the thread that ran it.
    constexpr int64_t kBlock = 1 << 16;
    const int threads = std::max(1, std::min<int>(opt.threads, static_cast<int>(tasks.size())));
    std::vector<Worker> workers;
    workers.reserve(threads);
    for (int i = 0; i < threads; ++i)
        workers.push_back(Worker { base, opt, progress, {}, 0, 0 });
    auto body = [&](int w) {
        for (size_t i = w; i < tasks.size(); i += threads) {
            if (progress && progress->cancel.load(std::memory_order_relaxed))
                return;
            workers[w].run(tasks[i], static_cast<int64_t>(i) * kBlock);
        }
    };
    if (threads == 1) {
        body(0);
    } else {
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (int w = 0; w < threads; ++w)
            pool.emplace_back(body, w);
        for (auto& t : pool)
            t.join();
    }
    for (auto& w : workers) {
        out.evaluated += w.evaluated;
        out.points.insert(out.points.end(), w.points.begin(), w.points.end());
    }
    out.feasible = static_cast<int64_t>(out.points.size());
    out.cancelled = progress && progress->cancel.load();
    sortRanked(out.points);
    out.pareto = paretoFront(out.points);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace shardscope::core
