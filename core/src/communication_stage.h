// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The communication stage of evaluate(): what each collective costs per call (tensor, context, expert and
// ZeRO-3/FSDP unit collectives of one layer), and the step's collectives of the slowest pipeline stage with their
// bytes and exposed time (docs/model.md §communication-volume, §communication-time).

#include "collective.h"
#include "engine.h"
#include "expr.h"

#include "shardscope/core/layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <vector>

namespace shardscope::core::detail {

/// One layer's collectives for one micro-batch, per call, and their exposed time.
struct LayerComm {
    double tpMsg = 0; ///< β·T·h: a TP all-reduce / all-gather message
    CollectiveCost tpAR, tpAG, tpRS;
    double tpFwd = 0, tpBwd = 0; ///< TP time per layer, forward and backward (exposed: on the critical path)
    /// An MoE layer's TP time when its experts are not split like the dense layers (expert_tp ≠ tp, or the allgather
    /// dispatcher with ep > 1): the attention's half over tp, the experts' over expert_tp; else tpFwd, tpBwd.
    double tpFwdMoe = 0, tpBwdMoe = 0;
    bool expertTpSplit = false; ///< the case above
    double etpMsg = 0; ///< β·T·h·expert_tp/t: an expert-TP all-reduce / all-gather message
    CollectiveCost etpAR, etpAG, etpRS;
    CpCommType cpType = CpCommType::P2p; ///< parallelism.cp_comm_type
    /// p2p: one K/V chunk of the ring and its send/receive. a2a: the Q/O all-to-all (its message, the mean of the two
    /// widths); allgather: the gathered K (or V) and its all-gather.
    double cpChunk = 0;
    CollectiveCost cpCost;
    /// a2a: the K/V all-to-all (its message, the mean of the two widths); allgather: the reduce-scatter of dK (or dV).
    double cpMsg2 = 0;
    CollectiveCost cpCost2;
    /// Per layer, forward and backward: p2p, the c−1 ring steps' transfers beyond each step's attention; a2a and
    /// allgather, all of their collectives (on the critical path).
    double cpFwdExposed = 0, cpBwdExposed = 0;
    double epMsg = 0; ///< one expert-parallel all-to-all (or allgather dispatcher's gather) message
    CollectiveCost epCost; ///< the dispatch: an all-to-all, or the allgather dispatcher's all-gather
    CollectiveCost epCombine; ///< the combine: the same all-to-all, or the allgather dispatcher's reduce-scatter
    GroupPlacement epPlacement; ///< the dispatcher's group: ep, or ep × expert_tp for the allgather dispatcher
    double epOffNodeShare = 1; ///< share of the all-to-all's off-node bytes on the network (node-limited routing)
    /// One layer's ZeRO-3/FSDP parameter all-gathers and gradient reduce-scatters: time of all its calls, the calls
    /// per layer (DeepSpeed's prefetch bucket splits a layer; its reduce bucket spans several, a fraction of a call
    /// per layer) and one call's message, bytes.
    CollectiveCost unitAG, unitRS;
    double unitAGCalls = 1, unitRSCalls = 1;
    double unitAGMsg = 0, unitRSMsg = 0;
};
/// coreTime, coreBwdTime: the layer's core attention forward and backward for one micro-batch (what CP hides behind).
LayerComm layerCommunication(
    const Scenario& s, const Shape& sh, const Layout& layout, double coreTime, double coreBwdTime);

/// A collective over `total` bytes issued in buckets of at most `bucket` bytes: the number of calls and the
/// time of them all (full buckets plus the partial last one), for the average-per-call cost.
struct Bucketed {
    double calls = 0;
    CollectiveCost perCall; ///< time = total time / calls
};
Bucketed bucketed(const Scenario& s, CollectiveOp op, double total, double bucket, const GroupPlacement& g);
/// The same on a curve already made (one curve prices a reduce-scatter and an all-gather over the same group alike).
Bucketed bucketed(const Scenario& s, const CollectiveCurve& curve, double total, double bucket);

/// A ZeRO-3/FSDP unit's collectives: per-call costs, calls per unit (fractional when a reduce bucket spans units)
/// and the message of one call, bytes.
struct UnitCollectives {
    CollectiveCost ag, rs;
    double agCalls = 0, rsCalls = 0;
    double agMsg = 0, rsMsg = 0;
};
/// The gathers and reductions of a unit of `unitElems` parameters out of `stageElems` on the stage, sized from the
/// framework profile (ZeRO-3: the gather bucket and the gradient buckets; FSDP: one call per unit each).
UnitCollectives unitCollectives(
    const Scenario& s, double unitElems, double stageElems, const StateBytes& bytes, const GroupPlacement& g);

/// One collective's cost as NCCL's model gives it (collectiveTime), at the framework profile's collective efficiency.
CollectiveCost collectiveCost(
    const Scenario& s, CollectiveOp op, double messageBytes, const GroupPlacement& g, double offNodeShare = 1.0);
/// The same on a curve made once for calls of several sizes.
CollectiveCost collectiveCost(const Scenario& s, const CollectiveCurve& curve, double messageBytes);

/// Whether the data-parallel parameters are gathered per micro-batch (ZeRO-3 and the FSDP strategies).
bool gathersPerMicroBatch(Sharding shard);

/// The slowest stage's step: what recordCollectives needs besides the layer costs.
struct SlowStage {
    StageShape shape;
    double m = 1; ///< micro-batches per step
    double lastBackward = 0; ///< the last micro-batch's backward, which bucketed gradient reductions hide behind
    double firstForward = 0; ///< the first micro-batch's forward, which an overlapped parameter all-gather hides behind
    double dpFwd = 0, dpBwd = 0; ///< exposed ZeRO-3/FSDP/ZeRO-2 time per micro-batch, forward and backward
    double epExposed = 0; ///< exposed expert all-to-all per micro-batch (recomputed forward included)
    double tpExposedShare = 1; ///< exposed share of the TP collectives' time (parallelism.tp_comm_overlap)
};
/// Exposed communication outside the micro-batch times.
struct StepCollectives {
    double ppExposed = 0; ///< pipeline fill/drain send/recv on the critical path
    double dpTail = 0; ///< data-parallel collectives left after the last backward and after the optimizer step
};
/// Records every collective of the slowest stage in r.collectives (counts over the step) and returns the exposed
/// time that is not in the micro-batch times. With bytesTerms, also each collective's bytes as an Expr (expr.h), in
/// the order of r.collectives, for its communication term.
StepCollectives recordCollectives(const Scenario& s, const Shape& sh, const Layout& layout, const LayerComm& lc,
    const SlowStage& slow, Result& r, std::vector<Expr>* bytesTerms = nullptr);

} // namespace shardscope::core::detail
