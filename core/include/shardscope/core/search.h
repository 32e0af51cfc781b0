// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Layout search (auto-configuration): every valid combination of sharding, TP, PP, CP, EP, virtual stages,
/// micro-batch, recompute and offload for the scenario's model, GPU type and GPU budget; ranked; Pareto front.

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace shardscope::core {

enum class SearchObjective { TokensPerSecond, CostPerToken, MemoryHeadroom };

struct SearchOptions {
    int minGpus = 0; ///< 0 = the scenario's GPU count; otherwise every whole node count in [minGpus, maxGpus]
    int maxGpus = 0;
    int maxTp = 0; ///< 0 = GPUs per node
    int maxPp = 64;
    int maxCp = 8;
    int maxEp = 0; ///< 0 = no limit (divisors of experts)
    int maxMicroBatch = 8;
    SearchObjective objective = SearchObjective::TokensPerSecond;
    int topK = 20;
    int threads = 1;
    bool allowOffload = true;
    /// "Guaranteed to fit": screen and rank by the pessimistic end of the 80% ranges (core/uncertainty.h): the top of
    /// the memory range must fit, and the score takes the bottom of the throughput range.
    bool pessimistic = false;
    /// Share of the communication the model counts as hidden behind compute that really is (1 = all of it, the
    /// model's assumption); below 1 each layout's step time is charged (1 − η) × its
    /// communication.assumed_hidden_seconds, so layouts that win only on assumed overlap rank lower.
    double overlapEfficiency = 1.0;
    std::vector<Sharding> shardings; ///< strategies to consider; empty = all seven
};

/// The figures a search screens and ranks a layout on: evaluate's, with (1 − overlapEfficiency) of the communication
/// assumed hidden charged back to the step, and with SearchOptions::pessimistic the slow, large ends of the 80% ranges
/// (pessimisticEnd, core/uncertainty.h). The search's table, scatter and "why not" waterfall all show these.
struct RankedFigures {
    double stepTime = 0; ///< seconds
    double memory = 0; ///< bytes on the most loaded GPU
    double tokensPerSecond = 0;
    double costPerStep = 0; ///< USD; 0 when the GPU has no price
};
[[nodiscard]] RankedFigures rankedFigures(const Scenario& s, const Result& r, const SearchOptions& opt);

/// One layout choice, compact (what the search varies); the layout it implies is makeLayout(applyLayout(...)).
struct LayoutChoice {
    int gpus = 0;
    Sharding sharding = Sharding::Zero3;
    int tp = 1, pp = 1, cp = 1, ep = 1, virtualStages = 1;
    PpSchedule schedule = PpSchedule::OneFOneB;
    int microBatch = 1;
    Recompute recompute = Recompute::None;
    OffloadTarget offloadOptimizer = OffloadTarget::None;
    OffloadTarget offloadParameters = OffloadTarget::None;
    /// With cp > 1, each exchange the framework allows for these heads (contextParallelIssues); with cp 1, the base's.
    CpCommType cpCommType = CpCommType::P2p;
    /// offload.activation_layers: with SearchOptions::allowOffload, a layout that does not fit without it gets the
    /// fewest offloaded layers that make it fit, where validate() allows activation offload (Megatron-Core, pp 1, no
    /// recompute); 0 otherwise.
    int activationLayers = 0;
};

/// The scenario with a layout applied (nodes from gpus / gpus_per_node, sequence parallel whenever tp > 1).
Scenario applyLayout(const Scenario& base, const LayoutChoice& layout);

/// A feasible layout as a point of the search space. With SearchOptions::pessimistic its step time, memory, tokens/s
/// and cost are the pessimistic ends of their 80% ranges (what it was screened and ranked on).
struct SearchPoint {
    LayoutChoice layout;
    double stepTime = 0;
    double memory = 0; ///< bytes on the most loaded GPU
    double tokensPerSecond = 0;
    double mfu = 0; ///< model FLOPs utilisation, scaled as tokensPerSecond is (overlap charge, pessimistic end)
    double costPerToken = 0; ///< USD per token; 0 when the GPU has no price
    double score = 0; ///< larger is better, per the objective
    int64_t index = 0; ///< enumeration order (ties break on it, so results do not depend on threads)
};

struct SearchProgress {
    std::atomic<int64_t> evaluated { 0 };
    std::atomic<bool> cancel { false };
};

struct SearchResult {
    int64_t evaluated = 0; ///< layouts scored (each valid combination, fitting or not)
    int64_t feasible = 0; ///< layouts that fit (with the headroom)
    double seconds = 0; ///< wall time of the search
    bool cancelled = false;
    std::vector<SearchPoint> points; ///< every feasible layout, best first (rankedBefore)
    std::vector<size_t> pareto; ///< indices into points: the step-time vs memory Pareto front, by step time
};

/// Runs the search. Deterministic: the same points in the same order for any thread count.
SearchResult search(const Scenario& base, const SearchOptions& options, SearchProgress* progress = nullptr);

/// The ranking of search results: the higher score first; equal scores (to 12 significant digits, so sums taken in
/// another order still tie) put the layout with less memory per GPU first, as it has more room for the same
/// speed; then enumeration order. A strict weak order.
bool rankedBefore(const SearchPoint& a, const SearchPoint& b);

/// Indices of the points not dominated in (step time, memory), both minimised; sorted by step time.
std::vector<size_t> paretoFront(const std::vector<SearchPoint>& points);

} // namespace shardscope::core
