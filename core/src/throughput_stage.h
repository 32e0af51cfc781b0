// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The throughput stage of evaluate(): tokens per second, model and hardware FLOP/s, MFU and cost from the step time
// (docs/model.md §throughput).

#include "compute_stage.h"

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

Throughput throughputOf(const Scenario& s, const StepTime& step, double flopsPerToken, const Peak& peak, int gpus);

} // namespace shardscope::core::detail
