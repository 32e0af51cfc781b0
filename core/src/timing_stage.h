// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The timing stage of evaluate(): one layer's forward, backward and recompute times, each pipeline stage's
// micro-batch time with its exposed data-parallel collectives, the pipeline bubble and the optimizer step and
// offload (docs/model.md §step-time, §pipeline-parallel, §optimizer-step, §offload-time).

#include "communication_stage.h"
#include "compute_stage.h"
#include "engine.h"

#include "shardscope/core/layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include "expr.h"

#include <string>

namespace shardscope::core::detail {

struct LayerTimes {
    double fwd = 0, bwd = 0, wgrad = 0; // compute (GEMM + element-wise), seconds per micro-batch per layer
    double recompute = 0; // extra work in backward from activation recomputation
    double commFwd = 0, commBwd = 0; // exposed TP/CP/EP communication
    double epFwd = 0, epBwd = 0; // of which the expert-parallel all-to-all (after parallelism.moe_overlap)
    double tpFwd = 0, tpBwd = 0; // of which the TP collectives (after parallelism.tp_comm_overlap)
};
/// microBatches: per step, for the all-to-all overlap modes (the first forward and last backward have no partner).
/// Its compute, exposed collectives and recompute are computed by the same templates as the step's terms (stepTimes).
LayerTimes layerTimes(const Scenario& s, const Shape& sh, const LayerCompute& c, const LayerComm& comm, bool moe,
    double microBatches = 1);

/// One micro-batch through one pipeline stage.
struct StageTime {
    double forward = 0, backward = 0, weightGrad = 0; ///< incl. exposed layer and data-parallel communication
    double dpFwd = 0, dpBwd = 0; ///< the exposed data-parallel part of forward / backward
    double contention = 0; ///< compute slowed by the collectives it overlaps (profile overlap_slowdown), in fwd + bwd
};
StageTime stageTime(const Scenario& s, const Shape& sh, const Layout& layout, const StageShape& st,
    const LayerCompute& c, const LayerComm& comm, const LayerTimes& dense, const LayerTimes& moe);

/// The step's compute, recompute and exposed communication on the slowest stage (docs/model.md §step-time): m
/// micro-batches of its layers (and the output layer), the collectives outside them. X = Fast for the values, Expr for
/// the step_time.compute, .recompute and .exposed_communication terms.
template <class X> struct StepTimesOf {
    X compute, recompute, exposedCommunication;
};
/// contention: compute slowed by the collectives it overlaps per micro-batch on the slowest stage (stageTime).
template <class X> StepTimesOf<X> stepTimes(const Scenario& s, const Shape& sh, const LayerCompute& c,
    const LayerComm& comm, const SlowStage& slow, const LayerTimes& dense, const LayerTimes& moe,
    const StepCollectives& collectives, double contention);

/// The pipeline bubble (Narayanan et al. SC'21 §2.2) given every stage's micro-batch time and the slowest stage;
/// X = Fast for the value, Expr for the step_time.pipeline_bubble term (expr.h). `v`: virtual stages.
template <class X> X pipelineBubble(const Scenario& s, int v, double sumStage, double tSlow, double slowWeightGrad);

/// The optimizer step on the GPU, or the offloaded optimizer and parameter traffic (ZeRO-Offload, ZeRO-Infinity);
/// X = Fast for the values, Expr for the step_time.optimizer and step_time.offload terms.
template <class X> struct OptimizerTimeOf {
    X optimizer, offload;
};
template <class X> OptimizerTimeOf<X> optimizerTime(
    const Scenario& s, const Shape& sh, const Layout& layout, const SlowStage& slow, double tSlow);

} // namespace shardscope::core::detail
