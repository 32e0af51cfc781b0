// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One-click fixes for a scenario validate() refuses: the nearest node counts, global batch sizes and micro-batch
/// sizes with which it is valid, each changing that one field only.

#include "shardscope/core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::core {

struct Fix {
    std::string field; ///< "cluster.nodes", "training.global_batch" or "training.micro_batch"
    int64_t value = 0; ///< the field's new value
    Scenario scenario; ///< the scenario with it; validate(scenario) is empty
};

/// For a scenario with validation issues: per field (cluster.nodes, then training.global_batch, then
/// training.micro_batch) the nearest valid value below the current one, then the nearest above, when one exists
/// within kFixSearchSteps steps. Node counts and micro-batch sizes step by 1; global batch sizes step through the
/// multiples of micro_batch × dp (validate's rule: each optimizer step is a whole number of micro-batches on every
/// data-parallel rank), so the first candidate each way is the multiple just below or above. Every candidate is
/// checked with validate(), so a fix also honours the rules it does not aim at (interleaved micro-batch counts, ep
/// dividing dp × cp). A valid scenario gets no fixes; an issue none of these fields can cure (tp not dividing the
/// heads) gets none either.
[[nodiscard]] std::vector<Fix> nearestValidFixes(const Scenario& scenario);

/// How far nearestValidFixes looks each way from the current value, in steps.
inline constexpr int kFixSearchSteps = 256;

} // namespace shardscope::core
