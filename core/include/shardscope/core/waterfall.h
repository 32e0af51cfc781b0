// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Scenario differences and the A→B waterfall (issue 5, item 2): walk from scenario A to scenario B one setting
/// at a time, in a fixed order (model, cluster, training, parallelism, offload, nccl, each in scenario-file field
/// order), and attribute the change in per-GPU memory and step time to each setting. No training math here: every
/// figure is core::evaluate() of an intermediate scenario; this file only orders the settings and subtracts.
///
/// Settings are named by their dotted scenario-file paths ("parallelism.tp", "cluster.gpu"). The model and each
/// catalog reference (cluster.gpu, cluster.intra_node, cluster.inter_node) count as one setting each: they are
/// what the editor sets in one gesture.

#include "shardscope/core/scenario.h"
#include "shardscope/core/search.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

/// Every setting, in walking order: "model", "cluster.gpu", "cluster.nodes", ..., "nccl.gdr". The scenario name
/// is not a setting.
[[nodiscard]] const std::vector<std::string>& waterfallSettings();

/// The settings in which a and b differ, in waterfallSettings() order.
[[nodiscard]] std::vector<std::string> differingSettings(const Scenario& a, const Scenario& b);

/// A setting's value as plain text in the C locale, the spelling of the scenario file where there is one:
/// "zero3", "8", "true", "1f1b"; catalog references by id ("h100-sxm5-80gb"), or by name when the id is empty;
/// bandwidths in bytes/s, sizes in bytes. Empty for an unknown path.
[[nodiscard]] std::string settingValue(const Scenario& s, std::string_view path);

/// Copies one setting from `from` into `into`. False (and `into` unchanged) for an unknown path.
bool copySetting(Scenario& into, const Scenario& from, std::string_view path);

/// One step of the walk: the settings it copied from B, and the figures after it.
struct WaterfallStep {
    /// Settings copied from B in this step. More than one when the scenario after a single setting was invalid
    /// (tp = 8 before the GPU count that makes it divide): such settings are merged with the next one until the
    /// intermediate scenario is valid again.
    std::vector<std::string> settings;
    Scenario scenario; ///< after the step
    double memory
        = 0; ///< per-GPU memory of the most loaded GPU after the step, bytes (MemoryBreakdown::total, or rankedFigures')
    double stepTime = 0; ///< seconds per optimizer step after the step (StepTime::total, or rankedFigures')
    double memoryDelta = 0; ///< memory - memory before the step, bytes
    double stepTimeDelta = 0; ///< stepTime - stepTime before the step, seconds
    bool fits = false; ///< memory ≤ the usable memory after the step
};

struct Waterfall {
    bool ok = false;
    std::string error; ///< when !ok: which end is invalid ("A is invalid: parallelism.tp: ...")
    double memoryA = 0, memoryB = 0; ///< bytes
    double stepTimeA = 0, stepTimeB = 0; ///< seconds
    std::vector<WaterfallStep> steps; ///< empty when A and B have the same settings
};

/// Walks from a to b. Both must be valid (validate() empty); otherwise ok is false with the reason. The step
/// deltas telescope: the memory deltas sum to memoryB - memoryA and the time deltas to stepTimeB - stepTimeA
/// (up to rounding), and the last step's scenario has b's settings. With a search's options, every figure is the one
/// that search ranked on (rankedFigures: the overlap charge, the pessimistic ends), so the walk between two of its
/// layouts ends at the figures its table shows; the default options give evaluate's figures.
[[nodiscard]] Waterfall buildWaterfall(const Scenario& a, const Scenario& b, const SearchOptions& ranking = {});

} // namespace shardscope::core
