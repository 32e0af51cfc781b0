// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sizing stage of evaluate(): the fewest GPUs at which a layout fits (docs/model.md §min-gpus).

#include "engine.h"

#include "shardscope/core/layout.h"
#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

/// The fewest GPUs (same tp, pp, cp, ep, micro-batch and global batch; data-parallel degree varied) at which the
/// layout fits in `capacity` and is valid (whole nodes or part of one, global batch a multiple of micro-batch × dp, every other
/// rule on dp); 0 when none up to the validated limit (1e7 GPUs). `fitsHere`: the evaluated layout
/// fits, which bounds the search from one side; `buffers`: its NCCL buffer bytes.
int minGpus(const Scenario& s, const Shape& sh, const Layout& layout, bool fitsHere, double capacity, double buffers,
            int peakStage);

} // namespace shardscope::core::detail
