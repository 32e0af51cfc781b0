// SPDX-License-Identifier: GPL-3.0-or-later
// The communication stage: per-call costs of each layer's collectives and the step's collectives with their bytes
// and exposure (docs/model.md §communication-volume, §communication-time).
#include "communication_stage.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace shardscope::core::detail {

namespace {
// FP8 training dispatches tokens in FP8 and combines them in BF16, forward and backward (DeepSeek-V3 report §3.3):
// of the four all-to-alls two move 1 byte per element and two move 2, 0.75 of the BF16 bytes on average.
constexpr double kFp8AllToAllFactor = 0.75;

void addCollective(Result& r, Group group, CollectiveOp op, int groupSize, double count, double message,
                   const CollectiveCost& cost, double exposed, bool crossesNodes, const char* purpose,
                   bool perMicroBatch = false, double totalMessage = 0)
{
    if (count <= 0 || message <= 0 || groupSize <= 1)
        return;
    Collective c;
    c.group = group;
    c.op = op;
    c.groupSize = groupSize;
    c.count = count < 9e18 ? static_cast<int64_t>(std::llround(count)) : INT64_MAX; // saturate absurd inputs
    c.messageBytes = message;
    const double n = groupSize;
    double perCall = message;
    switch (op) {
    case CollectiveOp::AllReduce: perCall = 2 * (n - 1) / n * message; break;  // nccl-tests doc/PERFORMANCE.md
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll: perCall = (n - 1) / n * message; break;
    case CollectiveOp::SendRecv: break;
    }
    // bucketed calls: the last bucket is partial, so bytes follow the exact total (count × message otherwise)
    c.bytes = totalMessage > 0 ? perCall / message * totalMessage : perCall * count;
    c.time = cost.time * count;
    c.exposedTime = std::min(exposed, c.time);
    c.algo = cost.algo;
    c.proto = cost.proto;
    c.crossesNodes = crossesNodes;
    c.purpose = purpose;
    c.perMicroBatch = perMicroBatch;
    r.collectives.push_back(c);
    r.bytesByGroup[static_cast<int>(group)] += c.bytes;
    r.totalCommBytes += c.bytes;
}
} // namespace

Bucketed bucketed(const Scenario& s, CollectiveOp op, double total, double bucket, const GroupPlacement& g)
{
    Bucketed b;
    if (total <= 0 || bucket <= 0)
        return b;
    const double full = std::floor(total / bucket * (1 + 1e-12));
    const double last = total - full * bucket;
    const bool partial = last > bucket * 1e-9;
    b.calls = full + (partial ? 1 : 0);
    const CollectiveCost f = collectiveCost(s, op, std::min(bucket, total), g);
    double time = f.time * full;
    if (partial)
        time += collectiveCost(s, op, last, g).time;
    b.perCall = f;
    b.perCall.time = time / b.calls;
    return b;
}

CollectiveCost collectiveCost(const Scenario& s, CollectiveOp op, double messageBytes, const GroupPlacement& g)
{
    CollectiveCost c = collectiveTime(op, messageBytes, g, s.cluster, s.nccl);
    c.time /= s.profile.collectiveEfficiency; // the framework's achieved / NCCL-modelled bandwidth (profile)
    return c;
}

bool gathersPerMicroBatch(Sharding shard)
{
    return shard == Sharding::Zero3 || shard == Sharding::FsdpFull || shard == Sharding::FsdpHybrid
        || shard == Sharding::FsdpGradOp;
}

double ncclBufferBytes(const Scenario& s, const Layout& l)
{
    double bytes = 0;
    auto add = [&](const GroupPlacement& g) {
        if (g.size > 1)
            bytes += ncclCommunicatorBytes(ncclChannels(g, s.cluster, s.nccl), 2); // ring: one send and one receive peer
    };
    add(l.tpGroup);
    add(l.cpGroup);
    add(l.shardGroupPlacement); // dp·cp, or fsdp-hybrid's shard group and its replicas
    add(l.replicaGroup);
    add(l.ppPair);
    if (l.ep > 1) {
        // all-to-all runs as grouped send/recv: one Simple buffer per peer and direction (NCCL p2p)
        bytes += ncclPointToPointBytes(l.ep - 1);
        add(l.expertDpGroup);
    }
    return bytes;
}

LayerComm layerCommunication(const Scenario& s, const Shape& sh, const Layout& layout, double coreTime,
                             double coreBwdTime)
{
    const ModelCounts& c = sh.counts;
    const int tp = layout.tp, cp = layout.cp, ep = layout.ep;
    const double T = sh.tokensPerMicroBatch;
    const double beta = sh.bytes.act;
    const double h = static_cast<double>(s.model.hidden);
    const bool sp = s.parallelism.sequenceParallel && tp > 1;
    LayerComm lc;

    // TP collectives per layer per micro-batch (Shoeybi et al. 2019 §3; megatron/core/tensor_parallel/layers.py):
    // without SP 2 all-reduces forward and 2 backward;
    // with SP 2 all-gathers + 2 reduce-scatters forward, the same backward + 2 re-gathers for wgrad.
    lc.tpMsg = beta * T * h;
    if (tp > 1) {
        if (sp) {
            lc.tpAG = collectiveCost(s, CollectiveOp::AllGather, lc.tpMsg, layout.tpGroup);
            lc.tpRS = collectiveCost(s, CollectiveOp::ReduceScatter, lc.tpMsg, layout.tpGroup);
            lc.tpFwd = 2 * lc.tpAG.time + 2 * lc.tpRS.time;
            lc.tpBwd = 4 * lc.tpAG.time + 2 * lc.tpRS.time;
        } else {
            lc.tpAR = collectiveCost(s, CollectiveOp::AllReduce, lc.tpMsg, layout.tpGroup);
            lc.tpFwd = 2 * lc.tpAR.time;
            lc.tpBwd = 2 * lc.tpAR.time;
        }
    }
    // CP (Megatron-LM docs context_parallel.md): KV chunks ring-passed (c−1) times forward, 2(c−1) backward,
    // hidden behind the blockwise attention compute when it is long enough.
    if (cp > 1) {
        const double g = std::max(1, s.model.kvHeads);
        const double kvLocal = c.kvSize * std::max(g, double(tp)) / g / tp;
        lc.cpChunk = 2.0 * beta * T * kvLocal;
        lc.cpCost = collectiveCost(s, CollectiveOp::SendRecv, lc.cpChunk, layout.cpPair);
        lc.cpFwdExposed = std::max(0.0, (cp - 1) * lc.cpCost.time - coreTime);
        lc.cpBwdExposed = std::max(0.0, 2.0 * (cp - 1) * lc.cpCost.time - coreBwdTime);
    }
    // EP all-to-all (GShard; Switch Transformers): dispatch + combine forward and again backward, exposed.
    if (ep > 1) {
        const double cf = s.model.isMoe() ? s.model.moe.capacityFactor : 1.0;
        lc.epMsg = beta * h * T * s.model.moe.topK * cf / (sp ? tp : 1);
        if (s.training.precision == Precision::Fp8Mixed)
            lc.epMsg *= kFp8AllToAllFactor; // dispatch at 1 byte, combine at 2: the average of the four calls
        lc.epCost = collectiveCost(s, CollectiveOp::AllToAll, lc.epMsg, layout.epGroup);
    }
    // ZeRO-3/FSDP: one unit (a layer) gathered before its forward and backward, its gradients reduce-scattered.
    const double U = sh.layerUnitParams;
    lc.unitAG = collectiveCost(s, CollectiveOp::AllGather, sh.bytes.w * U, layout.shardGroupPlacement);
    lc.unitRS = collectiveCost(s, CollectiveOp::ReduceScatter, sh.bytes.reduce * U, layout.shardGroupPlacement);
    return lc;
}

StepCollectives recordCollectives(const Scenario& s, const Shape& sh, const Layout& layout, const LayerComm& lc,
                                  const SlowStage& slow, Result& r)
{
    const StateBytes& B = sh.bytes;
    const int tp = layout.tp, pp = layout.pp, cp = layout.cp, ep = layout.ep, v = layout.virtualStages;
    const bool sp = s.parallelism.sequenceParallel && tp > 1;
    const bool full = s.training.recompute == Recompute::Full;
    const double mm = slow.m;
    const double layersSlow = slow.shape.layers;
    const double moeSlow = slow.shape.moeLayers;
    StepCollectives out;

    // Per-layer collectives of the slowest stage, counted over the step (a full recompute repeats the forward's).
    if (tp > 1) {
        const bool tpCross = layout.tpGroup.nodes > 1;
        const double recomputeCalls = full ? 1.0 : 0.0;
        if (sp) {
            const double ag = mm * layersSlow * (2 + 4 + 2 * recomputeCalls);
            const double rs = mm * layersSlow * (2 + 2 + 2 * recomputeCalls);
            addCollective(r, Group::Tp, CollectiveOp::AllGather, tp, ag, lc.tpMsg, lc.tpAG, lc.tpAG.time * ag, tpCross,
                "sequence-parallel all-gather of layer inputs", true);
            addCollective(r, Group::Tp, CollectiveOp::ReduceScatter, tp, rs, lc.tpMsg, lc.tpRS, lc.tpRS.time * rs,
                tpCross, "sequence-parallel reduce-scatter of layer outputs", true);
        } else {
            const double ar = mm * layersSlow * (4 + 2 * recomputeCalls);
            addCollective(r, Group::Tp, CollectiveOp::AllReduce, tp, ar, lc.tpMsg, lc.tpAR, lc.tpAR.time * ar, tpCross,
                "tensor-parallel all-reduce of attention and MLP outputs", true);
        }
    }
    if (cp > 1) {
        const double calls = mm * layersSlow * 3.0 * (cp - 1);
        addCollective(r, Group::Cp, CollectiveOp::SendRecv, cp, calls, lc.cpChunk, lc.cpCost,
            mm * layersSlow * (lc.cpFwdExposed + lc.cpBwdExposed), layout.cpGroup.nodes > 1,
            "context-parallel ring exchange of K/V chunks", true);
    }
    if (ep > 1 && moeSlow > 0) {
        const double calls = mm * moeSlow * 4.0;
        addCollective(r, Group::Ep, CollectiveOp::AllToAll, ep, calls, lc.epMsg, lc.epCost, lc.epCost.time * calls,
            layout.epGroup.nodes > 1, "expert-parallel all-to-all dispatch and combine", true);
    }
    if (pp > 1) {
        // Stage boundary p2p: activations forward, gradients backward, β·s·b·h/t (scatter/gather), × v interleaved.
        const double msg = B.act * sh.tokensPerMicroBatch * static_cast<double>(s.model.hidden) / tp;
        const CollectiveCost p2p = collectiveCost(s, CollectiveOp::SendRecv, msg, layout.ppPair);
        const double calls = 2.0 * mm * v;
        // Only the fill and drain hops are on the critical path (docs/model.md §pipeline-parallel).
        const double exposed = 2.0 * (pp * v - 1) * p2p.time;
        addCollective(r, Group::Pp, CollectiveOp::SendRecv, 2, calls, msg, p2p, exposed, layout.ppPair.nodes > 1,
            "pipeline send/recv of activations and gradients");
        out.ppExposed = std::min(exposed, p2p.time * calls);
    }

    // ---- Data-parallel collectives of the slowest stage (ZeRO paper §7; torch/distributed/fsdp/api.py).
    const Sharding shard = s.parallelism.sharding;
    const bool hybrid = shard == Sharding::FsdpHybrid;
    const GroupPlacement& shardG = layout.shardGroupPlacement;
    const GroupPlacement& replicaG = layout.replicaGroup;
    const double lastBwd = slow.lastBackward;
    auto dpGroupCollectives = [&](double psi, const GroupPlacement& g, bool expert) {
        if (psi <= 0 || g.size <= 1)
            return;
        const bool cross = g.nodes > 1;
        switch (shard) {
        case Sharding::Ddp: {
            // DDP all-reduces 25 MiB buckets during the last micro-batch's backward (no_sync before it).
            const double total = psi * B.reduce;
            const double bucket = std::min(total, kDdpBucketBytes);
            const Bucketed ar = bucketed(s, CollectiveOp::AllReduce, total, bucket, g);
            const double exposed = std::max(ar.perCall.time, ar.perCall.time * ar.calls - lastBwd);
            out.dpTail += exposed;
            addCollective(r, Group::Dp, CollectiveOp::AllReduce, g.size, ar.calls, bucket, ar.perCall, exposed, cross,
                expert ? "expert gradient all-reduce (DDP buckets)" : "gradient all-reduce (DDP buckets)", false, total);
            break;
        }
        case Sharding::Zero1:
        case Sharding::Zero2: {
            // DeepSpeed reduce_bucket_size / allgather_bucket_size: 5e8 elements (deepspeed/runtime/zero/config.py)
            const double bucketElems = std::min(psi, kDsReduceBucket), agElems = std::min(psi, kDsAllgatherBucket);
            const Bucketed rs
                = bucketed(s, CollectiveOp::ReduceScatter, psi * B.reduce, bucketElems * B.reduce, g);
            const double repeats = shard == Sharding::Zero2 ? mm : 1.0; // ZeRO-2 reduces every micro-batch
            double rsExposed;
            if (shard == Sharding::Zero1) {
                rsExposed = std::max(rs.perCall.time, rs.perCall.time * rs.calls - lastBwd); // behind the last backward
                out.dpTail += rsExposed;
            } else {
                rsExposed = slow.dpBwd * mm; // already in the per-micro-batch times
            }
            addCollective(r, Group::Dp, CollectiveOp::ReduceScatter, g.size, rs.calls * repeats, bucketElems * B.reduce,
                rs.perCall, rsExposed, cross, expert ? "expert gradient reduce-scatter" : "gradient reduce-scatter",
                shard == Sharding::Zero2, repeats * psi * B.reduce);
            // Updated parameters all-gathered after the optimizer step: exposed (DeepSpeed stage_1_and_2.py).
            const Bucketed ag = bucketed(s, CollectiveOp::AllGather, psi * B.w, agElems * B.w, g);
            out.dpTail += ag.perCall.time * ag.calls;
            addCollective(r, Group::Dp, CollectiveOp::AllGather, g.size, ag.calls, agElems * B.w, ag.perCall,
                ag.perCall.time * ag.calls, cross,
                expert ? "expert parameter all-gather after the optimizer step"
                       : "parameter all-gather after the optimizer step",
                false, psi * B.w);
            break;
        }
        default: {
            // ZeRO-3 / FSDP: per unit, per micro-batch (the exposure is already in the stage times).
            const GroupPlacement& sg = hybrid ? shardG : g;
            const double units = slow.shape.layers;
            const double unit = psi / std::max(1.0, units);
            const CollectiveCost ag = collectiveCost(s, CollectiveOp::AllGather, B.w * unit, sg);
            const CollectiveCost rs = collectiveCost(s, CollectiveOp::ReduceScatter, B.reduce * unit, sg);
            const double agCalls = mm * units * (shard == Sharding::FsdpGradOp ? 1.0 : 2.0);
            const double rsCalls = mm * units;
            const double exposedShare = expert ? 0.0 : 1.0; // the stage-time exposure is counted once
            addCollective(r, Group::Dp, CollectiveOp::AllGather, sg.size, agCalls, B.w * unit, ag,
                exposedShare * mm * slow.dpFwd + exposedShare * mm * slow.dpBwd * 0.5, sg.nodes > 1,
                expert ? "expert parameter all-gather (ZeRO-3/FSDP units)" : "parameter all-gather (ZeRO-3/FSDP units)",
                true);
            addCollective(r, Group::Dp, CollectiveOp::ReduceScatter, sg.size, rsCalls, B.reduce * unit, rs,
                exposedShare * mm * slow.dpBwd * 0.5, sg.nodes > 1,
                expert ? "expert gradient reduce-scatter (units)" : "gradient reduce-scatter (ZeRO-3/FSDP units)",
                true);
            if (hybrid && replicaG.size > 1) {
                // HSDP: the gradient shard is all-reduced across replicas once per step
                // (torch/distributed/fsdp/api.py, HYBRID_SHARD).
                const double msg = B.reduce * psi / sg.size;
                const CollectiveCost ar = collectiveCost(s, CollectiveOp::AllReduce, msg, replicaG);
                const double exposed = std::max(0.0, ar.time - lastBwd);
                out.dpTail += exposed;
                addCollective(r, Group::Dp, CollectiveOp::AllReduce, replicaG.size, 1, msg, ar, exposed,
                    replicaG.nodes > 1, "gradient-shard all-reduce across replicas (HSDP)");
            }
            break;
        }
        }
    };
    dpGroupCollectives(slow.shape.dense, layout.dpcpGroup, false);
    if (s.model.isMoe())
        dpGroupCollectives(slow.shape.expert, layout.expertDpGroup, true);
    return out;
}

} // namespace shardscope::core::detail
