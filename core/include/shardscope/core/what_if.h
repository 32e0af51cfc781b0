// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Everything the explorer window shows for one scenario, computed in one call (off the GUI thread): the explained
/// Result, the same scenario under each compared sharding strategy, the single changes that would make a scenario
/// that does not fit fit, and the one-field fixes of an invalid one. The policy of which variants to evaluate lives
/// here, not in the views.

#include "shardscope/core/fixes.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::core {

/// The scenario re-evaluated under one sharding strategy (and offload), for the comparison charts.
struct StrategyVariant {
    std::string label; ///< "ZeRO-3\n+CPU opt." (Strategy::label, or strategyLabel() of the scenario's own)
    Scenario scenario; ///< the open scenario with only parallelism.sharding and offload changed
    Result result; ///< figures without terms, min_gpus, ranges or warnings (variantTerms()); invalid: the issues
    bool current = false; ///< same strategy and offload as the open scenario
    bool own = false; ///< the open scenario itself, added because no compared strategy is its own
};
using StrategyComparison = std::vector<StrategyVariant>;

/// DDP, ZeRO-1, ZeRO-2, ZeRO-3, ZeRO-3 + CPU optimizer offload, ZeRO-3 + CPU optimizer and parameter offload
/// (comparedStrategies()), each a copy of scenario with only parallelism.sharding and offload changed; then, when
/// none of them is the scenario's own strategy (FSDP, ZeRO-1/2 with offload), the scenario itself (own, current).
/// Each is validated, then evaluated on the fast path: figures without terms (no formula text) and without min_gpus.
[[nodiscard]] StrategyComparison compareStrategies(const Scenario& scenario);

/// The terms of a variant's figures (explain()'s for its scenario, formula text included), evaluated when asked: a
/// chart's tooltip shows one bar's; whatIf() runs per edit and builds text only for the open scenario. Empty for a
/// variant that is not allowed.
[[nodiscard]] std::vector<Term> variantTerms(const StrategyVariant& variant);

/// One change the "what would fit" advice tries on a scenario that does not fit.
enum class FitChange {
    SelectiveRecompute, ///< training.recompute none → selective
    FullRecompute, ///< training.recompute → full
    HalveMicroBatch, ///< training.micro_batch / 2 (value: the new micro-batch)
    SequenceParallel, ///< parallelism.sequence_parallel on (tp > 1)
    RaiseTensorParallel, ///< parallelism.tp: the next power-of-two multiple tensorParallelIssues() allows within a node (value)
    DoublePipeline, ///< parallelism.pp × 2 when it divides the layers (value: the new pp)
    Zero3, ///< parallelism.sharding → ZeRO-3 (unless ZeRO-3 or FSDP full shard already)
    OffloadOptimizer, ///< offload.optimizer → CPU (when not offloaded)
    DoubleNodes, ///< cluster.nodes × 2 (value: the new node count)
    /// offload.activation_layers: the fewest layers whose offloaded activations make the scenario fit (value;
    /// activationOffloadFit)
    OffloadActivations,
};

struct FitSuggestion {
    FitChange change = FitChange::DoubleNodes;
    /// The changed field's new value for HalveMicroBatch, RaiseTensorParallel, DoublePipeline, DoubleNodes and
    /// OffloadActivations; else 0.
    int64_t value = 0;
    Scenario scenario; ///< the scenario with the change; validate(scenario) is empty
    Result result; ///< its figures (no terms, no min_gpus)
};

/// The changes fitAdvice() tries, in this order, each one applicable to scenario; validity is not checked yet.
[[nodiscard]] std::vector<FitSuggestion> fitCandidates(const Scenario& scenario);

struct FitAdvice {
    /// The valid candidates that fit, fastest step first (ties keep the candidate order), at most two
    /// (kShownFits in what_if.cpp).
    std::vector<FitSuggestion> fitting;
    /// When none fits: the valid candidate with the smallest memory total (the first of equals); none when no
    /// candidate is valid.
    std::optional<FitSuggestion> closest;
};

/// The fewest offloaded activation layers (above the scenario's own) with which a scenario that does not fit fits,
/// found by bisection (memory falls with every layer); none when offloading all but one layer is not allowed or does
/// not fit either.
[[nodiscard]] std::optional<FitSuggestion> activationOffloadFit(const Scenario& scenario);

/// For a valid scenario that does not fit: each of fitCandidates() that validates, evaluated, and
/// activationOffloadFit(); empty otherwise.
[[nodiscard]] FitAdvice fitAdvice(const Scenario& scenario, const Result& result);

/// What the window shows for a scenario.
struct WhatIf {
    Scenario scenario;
    Result result; ///< explain(scenario)
    StrategyComparison strategies; ///< compareStrategies(scenario)
    FitAdvice advice; ///< fitAdvice(scenario, result)
    std::vector<Fix> fixes; ///< nearestValidFixes(scenario) (empty for a valid scenario)
    std::vector<Scenario> pins; ///< the scenarios shown beside it (the document's pins, a lesson's previous step)
    std::vector<Result> pinResults; ///< evaluate() of each pin, same order
};

/// All of the above for scenario, and evaluate() of each of pins. Pure; safe to call from any thread.
[[nodiscard]] WhatIf whatIf(const Scenario& scenario, const std::vector<Scenario>& pins = {});

} // namespace shardscope::core
