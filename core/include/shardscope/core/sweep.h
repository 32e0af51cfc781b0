// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Sweeps and cluster sizing: one axis varied, one curve per strategy; minimum GPUs per strategy and GPU type;
/// time and cost to train on a token budget.

#include "shardscope/core/catalog.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"
#include "shardscope/core/strategies.h"

#include <string>
#include <vector>

namespace shardscope::core {

enum class SweepAxis { ModelSize, Gpus, Nodes, Tp, Pp, MicroBatch, SeqLen, GlobalBatch };

struct SweepPoint {
    double x = 0; ///< axis value (parameters for ModelSize)
    std::string label; ///< preset name for ModelSize, else the value
    bool valid = false; ///< false: the layout is impossible at this value (issue in `issue`)
    bool fits = false;
    double memory = 0, stepTime = 0, mfu = 0, commBytes = 0, tokensPerSecond = 0;
    std::string issue;
};

struct SweepCurve {
    Strategy strategy;
    std::vector<SweepPoint> points;
};

/// Values along an axis around the scenario (powers of two, or the model family's presets for ModelSize).
std::vector<double> defaultSweepValues(const Scenario& base, SweepAxis axis);

/// Presets of the same family as the model, smallest first (llama3, llama3.1 → llama3; gpt3; megatron; ...).
std::vector<const ModelSpec*> modelFamily(const Catalog& catalog, const std::string& modelId);

/// The scenario with one axis set to `value` (ModelSize: `value` indexes modelFamily()).
Scenario applyAxis(const Scenario& base, SweepAxis axis, double value, const Catalog& catalog);

/// One curve per strategy (sweepStrategies() is the usual ladder); each point is exactly
/// evaluate(applyAxis(withStrategy(base, strategy))).
std::vector<SweepCurve> sweep(const Scenario& base, SweepAxis axis, const std::vector<double>& values,
    const StrategyLadder& strategies, const Catalog& catalog);

/// Cluster sizing: for each GPU type and strategy, the fewest GPUs that fit, and the time and cost to train
/// `tokens` tokens on that many GPUs (hourly price from the catalog, or `hourlyPriceOverride` when > 0).
struct SizingRow {
    std::string gpuId, gpuName, strategy;
    int minGpus = 0; ///< whole nodes; 0: does not fit (or the scenario is invalid on this GPU)
    double stepTime = 0, tokensPerSecond = 0, mfu = 0, memory = 0;
    double trainSeconds = 0; ///< tokens / tokens per second, on minGpus GPUs
    double trainCostUsd = 0; ///< 0 when no price is known
};
std::vector<SizingRow> sizeCluster(const Scenario& base, const std::vector<const GpuSpec*>& gpus,
    const StrategyLadder& strategies, double tokens, double hourlyPriceOverride = 0);

} // namespace shardscope::core
