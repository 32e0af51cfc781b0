// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sizing stage of evaluate(): the fewest GPUs at which a layout fits (docs/model.md §min-gpus).

#include "engine.h"

#include "shardscope/core/layout.h"
#include "shardscope/core/scenario.h"

#include <span>

namespace shardscope::core::detail {

/// The fewest GPUs (same tp, pp, cp, ep, micro-batch and global batch; data-parallel degree varied) at which the
/// layout fits in `capacity` and is valid (whole nodes or part of one, global batch a multiple of micro-batch × dp, every other
/// rule on dp); 0 when none up to the validated limit (1e7 GPUs). `fitsHere`: the evaluated layout
/// fits, which bounds the search from one side; `buffers`: its NCCL buffer bytes (ncclBufferBytes of `layout`);
/// `stageShapes`: stageShape of every stage, as evaluate computed them.
int minGpus(const Scenario& s, const Shape& sh, const Layout& layout, bool fitsHere, double capacity, double buffers,
    int peakStage, std::span<const StageShape> stageShapes);

/// Whether validate()'s rules on the data-parallel degree hold at dp (global batch a multiple of micro-batch × dp,
/// the interleaved schedule's micro-batch count, ep·expert_tp | tp·dp·cp, FSDP hybrid shard groups) on nodes of gpusPerNode GPUs;
/// the scenario's other rules do not depend on dp (validate.cpp).
[[nodiscard]] bool dataParallelValid(const Scenario& s, int64_t dp, int gpusPerNode);

} // namespace shardscope::core::detail
