// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The throughput stage of evaluate(): tokens per second, model and hardware FLOP/s, MFU and cost from the step time
// (docs/model.md §throughput).

#include "compute_stage.h"
#include "expr.h"

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

/// The throughput figures that are terms, computed once: X = Fast for the values, Expr for the throughput.* terms.
template <class X> struct ThroughputOf {
    X tokensPerSecond, tokensPerSecondPerGpu, modelTflopsPerGpu, mfu;
    X hardwareTflopsPerGpu; ///< with the recomputed work
    X costPerStepUsd; ///< 0 when the GPU has no hourly price
};
/// step.total() > 0; flopsPerToken: model FLOPs per token; mfuPeak: the datasheet peak MFU divides by.
template <class X> ThroughputOf<X> throughputFigures(
    const Scenario& s, const StepTime& step, double flopsPerToken, double mfuPeak, int gpus);

Throughput throughputOf(const Scenario& s, const StepTime& step, double flopsPerToken, const Peak& peak, int gpus);

} // namespace shardscope::core::detail
