// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The communication stage of evaluate(): what each collective costs per call (tensor, context, expert and
// ZeRO-3/FSDP unit collectives of one layer), and the step's collectives of the slowest pipeline stage with their
// bytes and exposed time (docs/model.md §communication-volume, §communication-time).

#include "collective.h"
#include "engine.h"

#include "shardscope/core/layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

/// One layer's collectives for one micro-batch, per call, and their exposed time.
struct LayerComm {
    double tpMsg = 0;                  ///< β·T·h: a TP all-reduce / all-gather message
    CollectiveCost tpAR, tpAG, tpRS;
    double tpFwd = 0, tpBwd = 0;       ///< TP time per layer, forward and backward (exposed: on the critical path)
    double cpChunk = 0;                ///< one K/V chunk of the context-parallel ring
    CollectiveCost cpCost;
    double cpFwdExposed = 0, cpBwdExposed = 0; ///< the ring transfers beyond the blockwise attention they hide behind
    double epMsg = 0;                  ///< one expert-parallel all-to-all message
    CollectiveCost epCost;
    CollectiveCost unitAG, unitRS;     ///< one ZeRO-3/FSDP unit (a layer) gathered / reduce-scattered
};
LayerComm layerCommunication(const Scenario& s, const Shape& sh, const Layout& layout, double coreTime,
                             double coreBwdTime);

/// A collective over `total` bytes issued in buckets of at most `bucket` bytes: the number of calls and the
/// time of them all (full buckets plus the partial last one), for the average-per-call cost.
struct Bucketed {
    double calls = 0;
    CollectiveCost perCall; ///< time = total time / calls
};
Bucketed bucketed(const Scenario& s, CollectiveOp op, double total, double bucket, const GroupPlacement& g);

/// One collective's cost as NCCL's model gives it (collectiveTime), at the framework profile's collective efficiency.
CollectiveCost collectiveCost(const Scenario& s, CollectiveOp op, double messageBytes, const GroupPlacement& g);

/// Whether the data-parallel parameters are gathered per micro-batch (ZeRO-3 and the FSDP strategies).
bool gathersPerMicroBatch(Sharding shard);

/// The slowest stage's step: what recordCollectives needs besides the layer costs.
struct SlowStage {
    StageShape shape;
    double m = 1;            ///< micro-batches per step
    double lastBackward = 0; ///< the last micro-batch's backward, which bucketed gradient reductions hide behind
    double dpFwd = 0, dpBwd = 0; ///< exposed ZeRO-3/FSDP/ZeRO-2 time per micro-batch, forward and backward
};
/// Exposed communication outside the micro-batch times.
struct StepCollectives {
    double ppExposed = 0; ///< pipeline fill/drain send/recv on the critical path
    double dpTail = 0;    ///< data-parallel collectives left after the last backward and after the optimizer step
};
/// Records every collective of the slowest stage in r.collectives (counts over the step) and returns the exposed
/// time that is not in the micro-batch times.
StepCollectives recordCollectives(const Scenario& s, const Shape& sh, const Layout& layout, const LayerComm& lc,
                                  const SlowStage& slow, Result& r);

} // namespace shardscope::core::detail
