// SPDX-License-Identifier: GPL-3.0-or-later
// The communication stage: per-call costs of each layer's collectives and the step's collectives with their bytes
// and exposure (docs/model.md §communication-volume, §communication-time).
#include "communication_stage.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace shardscope::core::detail {

namespace {
// FP8 training dispatches tokens in FP8 and combines them in BF16, forward and backward (DeepSeek-V3 report §3.3):
// of the four all-to-alls two move 1 byte per element and two move 2, 0.75 of the BF16 bytes on average.
constexpr double kFp8AllToAllFactor = 0.75;

/// Bytes one GPU sends over the step in a collective of n GPUs: per call (n − 1)/n of the message (ring reduce-scatter,
/// all-gather, all-to-all), twice that for a ring all-reduce, the whole message for a send/recv (nccl-tests
/// doc/PERFORMANCE.md); over `calls` calls, or over the exact total of bucketed calls (the last bucket is partial).
/// X = Fast for Collective::bytes, Expr for its communication term.
template <class X> X collectiveBytes(CollectiveOp op, double n, double calls, double message, double totalMessage)
{
    const X S = X::input("S", message, "B", "message of one call (nccl-tests convention)");
    const X N = X::input("n", n, "GPUs", "group size");
    X perCall = S;
    switch (op) {
    case CollectiveOp::AllReduce: perCall = X::constant(2) * (N - X::constant(1)) / N * S; break;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll: perCall = (N - X::constant(1)) / N * S; break;
    case CollectiveOp::SendRecv: break;
    }
    const X sent = X::named("S_sent", perCall, "B", "bytes one call sends");
    return totalMessage > 0 ? sent / S
            * X::input("S_total", totalMessage, "B", "all calls' messages over the step (the last bucket partial)")
                            : sent * X::input("calls", calls, "", "calls per step (one per bucket, unit or layer)");
}

/// The same bytes with their text, for the communication term; out of line, so that addCollective stays small on the
/// fast path.
[[gnu::noinline]] Expr collectiveBytesTerm(CollectiveOp op, double n, double calls, double message, double totalMessage)
{
    return collectiveBytes<Expr>(op, n, calls, message, totalMessage);
}

/// Where recordCollectives writes: the result's collectives, and with terms their bytes' expressions.
struct CollectiveSink {
    Result& r;
    std::vector<Expr>* bytesTerms;
};

void addCollective(CollectiveSink& out, Group group, CollectiveOp op, int groupSize, double count, double message,
    const CollectiveCost& cost, double exposed, bool crossesNodes, const char* purpose, bool perMicroBatch = false,
    double totalMessage = 0)
{
    if (count <= 0 || message <= 0 || groupSize <= 1)
        return;
    Result& r = out.r;
    Collective c;
    c.group = group;
    c.op = op;
    c.groupSize = groupSize;
    // count > 0 here; rounded half up (std::llround's result for positive values, without its libm call) and
    // saturated for absurd inputs
    if (count < 9e18) {
        c.count = static_cast<int64_t>(count);
        c.count += count - static_cast<double>(c.count) >= 0.5 ? 1 : 0;
    } else
        c.count = INT64_MAX;
    c.messageBytes = message;
    c.bytes = collectiveBytes<Fast>(op, groupSize, count, message, totalMessage).value();
    if (out.bytesTerms)
        out.bytesTerms->push_back(collectiveBytesTerm(op, groupSize, count, message, totalMessage));
    c.time = cost.time * count;
    c.latencyTime = cost.latency * count;
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
    if (total <= 0 || bucket <= 0)
        return {};
    return bucketed(s, collectiveCurve(op, g, s.cluster, s.nccl), total, bucket);
}

Bucketed bucketed(const Scenario& s, const CollectiveCurve& curve, double total, double bucket)
{
    Bucketed b;
    if (total <= 0 || bucket <= 0)
        return b;
    const double full = std::floor(total / bucket * (1 + 1e-12));
    const double last = total - full * bucket;
    const bool partial = last > bucket * 1e-9;
    b.calls = full + (partial ? 1 : 0);
    // one curve for both sizes
    const CollectiveCost f = collectiveCost(s, curve, std::min(bucket, total));
    double time = f.time * full, latency = f.latency * full;
    if (partial) {
        const CollectiveCost p = collectiveCost(s, curve, last);
        time += p.time;
        latency += p.latency;
    }
    b.perCall = f;
    b.perCall.time = time / b.calls;
    b.perCall.latency = latency / b.calls;
    return b;
}

UnitCollectives unitCollectives(
    const Scenario& s, double unitElems, double stageElems, const StateBytes& bytes, const GroupPlacement& g)
{
    // FSDP gathers and reduces a wrapped unit in one call each (torch/distributed/fsdp/_fully_shard/
    // _fsdp_collectives.py foreach_all_gather, foreach_reduce). DeepSpeed's ZeRO-3 gathers at most its prefetch bucket
    // per call (deepspeed/runtime/zero/partitioned_param_coordinator.py) and reduce-scatters gradient buckets that
    // fill across layers (deepspeed/runtime/zero/stage3.py __reduce_and_partition_ipg_grads).
    UnitCollectives u;
    if (unitElems <= 0 || g.size <= 1)
        return u;
    const bool zero3 = s.parallelism.sharding == Sharding::Zero3;
    const double cap = s.profile.gatherBucketElements;
    const double agElems = zero3 && cap > 0 ? std::min(unitElems, cap) : unitElems;
    // one curve prices the all-gathers and the reduce-scatters alike (NCCL's tuning.cc: same steps, algorithms and
    // protocols)
    const CollectiveCurve curve = collectiveCurve(CollectiveOp::AllGather, g, s.cluster, s.nccl);
    const Bucketed ag = bucketed(s, curve, bytes.w * unitElems, bytes.w * agElems);
    u.ag = ag.perCall;
    u.agCalls = ag.calls;
    u.agMsg = bytes.w * agElems;
    const double r = bytes.reduce;
    // DeepSpeed-style (a gather bucket): gradients in reduce buckets; FSDP-style (one call per unit): per unit
    const bool bucketedZero3 = zero3 && cap > 0;
    double bucket = bucketedZero3 ? gradBucketElements(s.profile, g.size, r) : unitElems;
    if (bucket <= 0)
        bucket = stageElems; // no bucketing: the stage's gradient in one call
    if (bucket >= unitElems) {
        // a bucket holds several units: a unit is unitElems/bucket of a call (the last bucket holds what is left)
        bucket = std::min(bucket, std::max(unitElems, stageElems));
        u.rs = collectiveCost(s, curve, r * bucket);
        u.rsCalls = unitElems / bucket;
    } else {
        const Bucketed rs = bucketed(s, curve, r * unitElems, r * bucket);
        u.rs = rs.perCall;
        u.rsCalls = rs.calls;
    }
    u.rsMsg = r * bucket;
    return u;
}

CollectiveCost collectiveCost(const Scenario& s, const CollectiveCurve& curve, double messageBytes)
{
    CollectiveCost c = collectiveTime(curve, messageBytes);
    c.time /= s.profile.collectiveEfficiency; // the framework's achieved / NCCL-modelled bandwidth (profile)
    c.latency /= s.profile.collectiveEfficiency;
    return c;
}

CollectiveCost collectiveCost(
    const Scenario& s, CollectiveOp op, double messageBytes, const GroupPlacement& g, double offNodeShare)
{
    return collectiveCost(s, collectiveCurve(op, g, s.cluster, s.nccl, offNodeShare), messageBytes);
}

namespace {
/// What of the distributed optimizer's parameter all-gather (`all` over its buckets, `perCall` each) stays exposed
/// with parallelism.overlap_param_gather (megatron/core/distributed/distributed_data_parallel.py forward pre-hooks;
/// param_and_grad_buffer.py finish_param_sync): the first bucket is gathered and waited for at the first forward,
/// each later one hides behind the forward of the layers before it, so without pipelining all but one bucket hides
/// behind the first micro-batch's forward. Pipeline ranks after the first keep one bucket (the DDP's bucket_size is
/// None when pp_rank > 0), gathered as their first forward starts: exposed. Interleaved, each model chunk is one
/// gather started ahead by the schedule (schedules.py param_sync_func), and only the first chunk's is waited for.
double paramGatherExposed(double perCall, double all, int pp, int v, double firstForward)
{
    if (pp == 1)
        return std::max(perCall, all - firstForward);
    return v > 1 ? all / v : all;
}
} // namespace

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
            bytes
                += ncclCommunicatorBytes(ncclChannels(g, s.cluster, s.nccl), 2); // ring: one send and one receive peer
    };
    add(l.tpGroup);
    add(l.cpGroup);
    add(l.shardGroupPlacement); // dp·cp, or fsdp-hybrid's shard group and its replicas
    add(l.replicaGroup);
    add(l.ppPair);
    if (l.etp != l.tp)
        add(l.etpGroup); // the expert tensor-parallel communicator
    if (l.ep > 1) {
        if (s.model.moe.dispatcher == MoeDispatcher::AllGather) // a ring communicator over ep × expert_tp
            add(placeGroup(l.ep * l.etp, 1, l.gpusPerNode));
        else // all-to-all runs as grouped send/recv: one Simple buffer per peer and direction (NCCL p2p)
            bytes += ncclPointToPointBytes(l.ep - 1);
        add(l.expertDpGroup);
    }
    return bytes;
}

namespace {
/// Per-token widths of one rank's attention tensors (elements), for the context-parallel exchanges.
struct CpWidths {
    double q = 0, k = 0, v = 0, o = 0;
};
CpWidths cpWidths(const Scenario& s, const ModelCounts& c, int tp)
{
    const ModelSpec& m = s.model;
    const double a = static_cast<double>(m.heads);
    if (m.isMla()) {
        const double qk = a * static_cast<double>(m.mla.qkNopeHeadDim + m.mla.qkRopeHeadDim) / tp;
        return { qk, qk, c.qSize / tp, c.qSize / tp }; // c.qSize = a·d_v for MLA (model_counts.cpp)
    }
    const double g = std::max(1, m.kvHeads);
    const double kv = c.kvSize * std::max(g, double(tp)) / g / tp;
    return { c.qSize / tp, kv, kv, c.qSize / tp };
}
} // namespace

LayerComm layerCommunication(
    const Scenario& s, const Shape& sh, const Layout& layout, double coreTime, double coreBwdTime)
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
            lc.tpRS = lc.tpAG; // NCCL's model: a reduce-scatter of one buffer as its all-gather (tuning.cc)
            lc.tpFwd = 2 * lc.tpAG.time + 2 * lc.tpRS.time;
            lc.tpBwd = 4 * lc.tpAG.time + 2 * lc.tpRS.time;
        } else {
            lc.tpAR = collectiveCost(s, CollectiveOp::AllReduce, lc.tpMsg, layout.tpGroup);
            lc.tpFwd = 2 * lc.tpAR.time;
            lc.tpBwd = 2 * lc.tpAR.time;
        }
    }
    lc.tpFwdMoe = lc.tpFwd;
    lc.tpBwdMoe = lc.tpBwd;
    const bool allGatherDispatch = ep > 1 && s.model.moe.dispatcher == MoeDispatcher::AllGather;
    lc.expertTpSplit = s.model.isMoe() && (layout.etp != tp || allGatherDispatch);
    if (lc.expertTpSplit) {
        // An MoE layer: the attention's half of the collectives above over tp; the MLP's half over the expert-TP
        // group instead (megatron/core/transformer/moe/token_dispatcher.py gathers the dispatched tokens over
        // expert_tp: none with expert_tp = 1), the same pattern on the tokens an expert-TP group holds, β·T·h·etp/t.
        // The allgather dispatcher's gather over ep × expert_tp (below) does that gather itself.
        const int etp = layout.etp;
        lc.etpMsg = lc.tpMsg * etp / tp;
        double etpFwd = 0, etpBwd = 0;
        if (etp > 1 && !allGatherDispatch) {
            if (sp) {
                lc.etpAG = collectiveCost(s, CollectiveOp::AllGather, lc.etpMsg, layout.etpGroup);
                lc.etpRS = lc.etpAG; // as tpRS
                etpFwd = lc.etpAG.time + lc.etpRS.time;
                etpBwd = 2 * lc.etpAG.time + lc.etpRS.time;
            } else {
                lc.etpAR = collectiveCost(s, CollectiveOp::AllReduce, lc.etpMsg, layout.etpGroup);
                etpFwd = etpBwd = lc.etpAR.time;
            }
        }
        lc.tpFwdMoe = lc.tpFwd / 2 + etpFwd;
        lc.tpBwdMoe = lc.tpBwd / 2 + etpBwd;
    }
    // CP (Megatron-LM docs context_parallel.md): KV chunks ring-passed (c−1) times forward, 2(c−1) backward (K/V and
    // dK/dV). Each ring step computes attention on the chunk it holds while the next arrives
    // (TransformerEngine transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py,
    // AttnFuncWithCPAndKVP2P): a step's transfer is exposed by what exceeds that step's attention, 1/c of the layer's.
    lc.cpType = s.parallelism.cpCommType;
    // The widths one rank holds per token: Q, K, V and the attention output O. MLA's Q and K carry
    // a·(d_nope + d_rope), its V and O a·d_v (megatron/core/transformer/multi_latent_attention.py); else Q and O
    // a·d, K and V g·d, KV heads fewer than t replicated (one per rank).
    const CpWidths w = cp > 1 ? cpWidths(s, c, tp) : CpWidths {};
    if (cp > 1 && lc.cpType == CpCommType::P2p) {
        lc.cpChunk = beta * T * (w.k + w.v); // K and V of the local tokens
        lc.cpCost = collectiveCost(s, CollectiveOp::SendRecv, lc.cpChunk, layout.cpPair);
        lc.cpFwdExposed = (cp - 1) * std::max(0.0, lc.cpCost.time - coreTime / cp);
        lc.cpBwdExposed = (cp - 1) * std::max(0.0, 2.0 * lc.cpCost.time - coreBwdTime / cp);
    } else if (cp > 1) {
        if (lc.cpType == CpCommType::A2a) {
            // All-to-all (Ulysses; Jacobs et al. 2023 §3.1, DeepSpeed-Ulysses): Q, K and V before attention and O
            // after it, each an all-to-all of the rank's β·T·width tensor that trades the sequence split for a head
            // split; backward dO before and dQ, dK, dV after (transformer_engine/pytorch/attention/
            // dot_product_attention/context_parallel.py, AttnFuncWithCPAndQKVOA2A: one all_to_all per tensor,
            // not overlapped with the attention). Message per call: the mean of the pair's widths.
            lc.cpChunk = beta * T * (w.q + w.o) / 2;
            lc.cpMsg2 = beta * T * (w.k + w.v) / 2;
            lc.cpCost = collectiveCost(s, CollectiveOp::AllToAll, lc.cpChunk, layout.cpGroup);
            lc.cpCost2 = collectiveCost(s, CollectiveOp::AllToAll, lc.cpMsg2, layout.cpGroup);
            lc.cpFwdExposed = lc.cpBwdExposed = 2 * lc.cpCost.time + 2 * lc.cpCost2.time;
        } else {
            // All-gather (AttnFuncWithCPAndKVAllGather: "KV all-gather between CP ranks is exposed"; the Llama 3
            // paper §3.3.2): K and V all-gathered over the c ranks before attention, again in backward, and dK, dV
            // reduce-scattered after it. Message: the gathered tensor, β·T·c·width.
            lc.cpChunk = beta * T * cp * (w.k + w.v) / 2;
            lc.cpCost = collectiveCost(s, CollectiveOp::AllGather, lc.cpChunk, layout.cpGroup);
            lc.cpMsg2 = lc.cpChunk;
            lc.cpCost2 = collectiveCost(s, CollectiveOp::ReduceScatter, lc.cpMsg2, layout.cpGroup);
            lc.cpFwdExposed = 2 * lc.cpCost.time;
            lc.cpBwdExposed = 2 * lc.cpCost.time + 2 * lc.cpCost2.time;
        }
    }
    // EP all-to-all (GShard; Switch Transformers): dispatch + combine forward and again backward, exposed.
    if (ep > 1 && allGatherDispatch) {
        // allgather dispatcher (megatron/core/transformer/moe/token_dispatcher.py, MoEAllGatherTokenDispatcher): every
        // rank all-gathers the hidden states of its ep × expert_tp group (tp_ep_group) and keeps the tokens of its
        // experts; the combine reduce-scatters them back. The gather's output is the group's tokens, β·h·(T/r)·n with
        // n = ep·expert_tp: every rank receives every token once, whatever top-k (README: for small EP, large top-k).
        const int n = ep * layout.etp;
        lc.epPlacement = placeGroup(n, 1, layout.gpusPerNode); // expert_tp fastest, then ep: consecutive ranks
        lc.epMsg = beta * h * T / (sp ? tp : 1) * n;
        lc.epCost = collectiveCost(s, CollectiveOp::AllGather, lc.epMsg, lc.epPlacement);
        lc.epCombine = lc.epCost; // as tpRS
    } else if (ep > 1) {
        const double cf = s.model.isMoe() ? s.model.moe.capacityFactor : 1.0;
        lc.epMsg = beta * h * T * s.model.moe.topK * cf / (sp ? tp : 1);
        if (isFp8(s.training.precision))
            lc.epMsg *= kFp8AllToAllFactor; // dispatch at 1 byte, combine at 2: the average of the four calls
        // Node-limited routing: a token crosses the network to at most M nodes instead of its top-k experts' nodes,
        // M/k of the naive off-node volume (DeepSeek-V3 report §2.1.2; DeepEP's internode kernels deduplicate).
        const int M = s.model.moe.maxNodesPerToken;
        const int k = s.model.moe.topK;
        lc.epOffNodeShare = M > 0 && k > 0 ? std::min(1.0, double(M) / k) : 1.0;
        if (s.model.moe.dispatcher == MoeDispatcher::DeepEp && k > 0) {
            // DeepEP (github.com/deepseek-ai/DeepEP README, "kernels for asymmetric-domain bandwidth forwarding";
            // DeepSeek-V3 report §3.2.2): a token crosses the network once per destination node and is forwarded
            // over NVLink there. With its k experts drawn among E spread evenly over the EP group's N nodes it lands
            // on D = N·(1 − C(E − E/N, k)/C(E, k)) nodes on average: D/k of the naive off-node bytes (at most M/k).
            const double N = layout.epGroup.nodes, E = s.model.moe.experts;
            double miss = 1; // probability that none of the k experts is on a given node
            for (int i = 0; i < k; ++i)
                miss *= std::max(0.0, E - E / N - i) / (E - i);
            const double D = N * (1 - miss);
            lc.epOffNodeShare = std::min(lc.epOffNodeShare, std::min(1.0, D / k));
        }
        lc.epPlacement = layout.epGroup;
        lc.epCost = collectiveCost(s, CollectiveOp::AllToAll, lc.epMsg, layout.epGroup, lc.epOffNodeShare);
        lc.epCombine = lc.epCost;
    }
    // ZeRO-3/FSDP: each unit (a layer) gathered before its forward and backward, its gradients reduce-scattered, in
    // the calls and messages the profile's buckets make of it (unitCollectives).
    if (!gathersPerMicroBatch(s.parallelism.sharding))
        return lc;
    const double U = sh.layerUnitParams;
    const UnitCollectives u = unitCollectives(s, U, U * sh.maxStageLayers, sh.bytes, layout.shardGroupPlacement);
    if (u.agCalls > 0) { // a sharding group of one gathers nothing: the unit's costs stay 0 (one call of nothing)
        lc.unitAG = u.ag;
        lc.unitAG.time = u.ag.time * u.agCalls;
        lc.unitRS = u.rs;
        lc.unitRS.time = u.rs.time * u.rsCalls;
        lc.unitAGCalls = u.agCalls;
        lc.unitRSCalls = u.rsCalls;
        lc.unitAGMsg = u.agMsg;
        lc.unitRSMsg = u.rsMsg;
    }
    return lc;
}

StepCollectives recordCollectives(const Scenario& s, const Shape& sh, const Layout& layout, const LayerComm& lc,
    const SlowStage& slow, Result& r, std::vector<Expr>* bytesTerms)
{
    CollectiveSink sink { r, bytesTerms };
    const StateBytes& B = sh.bytes;
    const int tp = layout.tp, pp = layout.pp, cp = layout.cp, ep = layout.ep, v = layout.virtualStages;
    const bool sp = s.parallelism.sequenceParallel && tp > 1;
    const bool full = s.training.recompute == Recompute::Full;
    const double mm = slow.m;
    const double layersSlow = slow.shape.layers;
    const double moeSlow = slow.shape.moeLayers;
    StepCollectives out;

    // Per-layer collectives of the slowest stage, counted over the step (a full recompute repeats the forward's).
    // With the experts split otherwise (lc.expertTpSplit) an MoE layer has only its attention's half over tp.
    const double tpLayers = lc.expertTpSplit ? (layersSlow + slow.shape.denseLayers) / 2.0 : layersSlow;
    if (tp > 1) {
        const bool tpCross = layout.tpGroup.nodes > 1;
        const double recomputeCalls = full ? 1.0 : 0.0;
        if (sp) {
            const double ag = mm * tpLayers * (2 + 4 + 2 * recomputeCalls);
            const double rs = mm * tpLayers * (2 + 2 + 2 * recomputeCalls);
            const double share = slow.tpExposedShare; // parallelism.tp_comm_overlap (timing_stage.cpp, layerTimes)
            addCollective(sink, Group::Tp, CollectiveOp::AllGather, tp, ag, lc.tpMsg, lc.tpAG,
                share * lc.tpAG.time * ag, tpCross, "sequence-parallel all-gather of layer inputs", true);
            addCollective(sink, Group::Tp, CollectiveOp::ReduceScatter, tp, rs, lc.tpMsg, lc.tpRS,
                share * lc.tpRS.time * rs, tpCross, "sequence-parallel reduce-scatter of layer outputs", true);
        } else {
            const double ar = mm * tpLayers * (4 + 2 * recomputeCalls);
            addCollective(sink, Group::Tp, CollectiveOp::AllReduce, tp, ar, lc.tpMsg, lc.tpAR, lc.tpAR.time * ar,
                tpCross, "tensor-parallel all-reduce of attention and MLP outputs", true);
        }
    }
    // The MoE layers' MLP half over the expert-TP group (counted with the TP group's bytes).
    if (lc.expertTpSplit && layout.etp > 1 && lc.etpMsg > 0 && moeSlow > 0) {
        const bool cross = layout.etpGroup.nodes > 1;
        const double half = mm * moeSlow / 2.0;
        const double recomputeCalls = full ? 1.0 : 0.0;
        const double share = slow.tpExposedShare;
        if (lc.etpAG.time > 0) {
            const double ag = half * (2 + 4 + 2 * recomputeCalls), rs = half * (2 + 2 + 2 * recomputeCalls);
            addCollective(sink, Group::Tp, CollectiveOp::AllGather, layout.etp, ag, lc.etpMsg, lc.etpAG,
                share * lc.etpAG.time * ag, cross, "expert tensor-parallel all-gather of the MoE MLP's tokens", true);
            addCollective(sink, Group::Tp, CollectiveOp::ReduceScatter, layout.etp, rs, lc.etpMsg, lc.etpRS,
                share * lc.etpRS.time * rs, cross, "expert tensor-parallel reduce-scatter of the MoE MLP's outputs",
                true);
        } else {
            const double ar = half * (4 + 2 * recomputeCalls);
            addCollective(sink, Group::Tp, CollectiveOp::AllReduce, layout.etp, ar, lc.etpMsg, lc.etpAR,
                lc.etpAR.time * ar, cross, "expert tensor-parallel all-reduce of the MoE MLP's outputs", true);
        }
    }
    if (cp > 1) {
        // a full recompute runs each layer's forward, its exchange included, again in backward
        const double rc = full ? 1.0 : 0.0;
        const double exposed = mm * layersSlow * ((1 + rc) * lc.cpFwdExposed + lc.cpBwdExposed);
        const bool cross = layout.cpGroup.nodes > 1;
        switch (lc.cpType) {
        case CpCommType::P2p:
            addCollective(sink, Group::Cp, CollectiveOp::SendRecv, cp, mm * layersSlow * (3 + rc) * (cp - 1),
                lc.cpChunk, lc.cpCost, exposed, cross, "context-parallel ring exchange of K/V chunks", true);
            break;
        case CpCommType::A2a: {
            // Q, K, V and O each way, two of each message size: one entry, per call the mean message and time
            CollectiveCost mean = lc.cpCost.time >= lc.cpCost2.time ? lc.cpCost : lc.cpCost2;
            mean.time = (lc.cpCost.time + lc.cpCost2.time) / 2;
            mean.latency = (lc.cpCost.latency + lc.cpCost2.latency) / 2;
            addCollective(sink, Group::Cp, CollectiveOp::AllToAll, cp, mm * layersSlow * 4 * (2 + rc),
                (lc.cpChunk + lc.cpMsg2) / 2, mean, exposed, cross,
                "context-parallel all-to-all of Q, K, V and O (dO, dQ, dK, dV)", true);
            break;
        }
        case CpCommType::AllGather: {
            const double ag = mm * layersSlow * 2 * (2 + rc), rs = mm * layersSlow * 2;
            addCollective(sink, Group::Cp, CollectiveOp::AllGather, cp, ag, lc.cpChunk, lc.cpCost, ag * lc.cpCost.time,
                cross, "context-parallel all-gather of K and V", true);
            addCollective(sink, Group::Cp, CollectiveOp::ReduceScatter, cp, rs, lc.cpMsg2, lc.cpCost2,
                rs * lc.cpCost2.time, cross, "context-parallel reduce-scatter of dK and dV", true);
            break;
        }
        }
    }
    if (ep > 1 && moeSlow > 0) {
        // a full recompute re-runs the layer's forward, its dispatch and combine included (Megatron-Core
        // megatron/core/transformer/transformer_block.py checkpoints whole layers), and so does recompute_modules moe
        // (megatron/core/transformer/moe/moe_layer.py checkpoints the MoE block)
        const bool moeAgain
            = full || (s.training.recompute == Recompute::Selective && s.training.effectiveRecomputeModules().moe);
        const double calls = mm * moeSlow * (4.0 + (moeAgain ? 2.0 : 0.0));
        const bool cross = lc.epPlacement.nodes > 1;
        if (s.model.moe.dispatcher == MoeDispatcher::AllGather) {
            // forward: gather, then reduce-scatter; backward: their adjoints, a reduce-scatter and a gather
            const int n = lc.epPlacement.size;
            addCollective(sink, Group::Ep, CollectiveOp::AllGather, n, calls / 2, lc.epMsg, lc.epCost,
                mm * slow.epExposed / 2, cross, "allgather dispatcher: tokens gathered over ep × expert_tp", true);
            addCollective(sink, Group::Ep, CollectiveOp::ReduceScatter, n, calls / 2, lc.epMsg, lc.epCombine,
                mm * slow.epExposed / 2, cross, "allgather dispatcher: expert outputs reduce-scattered back", true);
        } else {
            addCollective(sink, Group::Ep, CollectiveOp::AllToAll, ep, calls, lc.epMsg, lc.epCost, mm * slow.epExposed,
                cross,
                s.model.moe.dispatcher == MoeDispatcher::DeepEp
                    ? "expert-parallel dispatch and combine (DeepEP: once per node over the network, NVLink forwarding)"
                    : "expert-parallel all-to-all dispatch and combine",
                true);
        }
    }
    if (pp > 1) {
        // Stage boundary p2p: activations forward, gradients backward, β·s·b·h/t (scatter/gather), × v interleaved.
        const double msg = B.act * sh.tokensPerMicroBatch * static_cast<double>(s.model.hidden) / tp;
        const CollectiveCost p2p = collectiveCost(s, CollectiveOp::SendRecv, msg, layout.ppPair);
        const double calls = 2.0 * mm * v;
        // Only the fill and drain hops are on the critical path (docs/model.md §pipeline-parallel).
        const double exposed = 2.0 * (pp * v - 1) * p2p.time;
        addCollective(sink, Group::Pp, CollectiveOp::SendRecv, 2, calls, msg, p2p, exposed, layout.ppPair.nodes > 1,
            "pipeline send/recv of activations and gradients");
        out.ppExposed = std::min(exposed, p2p.time * calls);
    }

    // ---- Data-parallel collectives of the slowest stage (ZeRO paper §7; torch/distributed/fsdp/api.py).
    const Sharding shard = s.parallelism.sharding;
    const bool hybrid = shard == Sharding::FsdpHybrid;
    const GroupPlacement& shardG = layout.shardGroupPlacement;
    const GroupPlacement& replicaG = layout.replicaGroup;
    // What a bucketed gradient reduction hides behind: the last micro-batch's backward when the framework overlaps it
    // (parallelism.overlap_grad_reduce; Megatron-LM megatron/core/distributed/distributed_data_parallel.py launches a
    // bucket's reduction as its last gradient arrives), nothing when it reduces after the backward
    const double lastBwd = slow.lastBackward;
    const double gradHiddenBehind = s.parallelism.overlapGradReduce ? lastBwd : 0.0;
    auto dpGroupCollectives = [&](double psi, const GroupPlacement& g, bool expert) {
        if (psi <= 0 || g.size <= 1)
            return;
        const bool cross = g.nodes > 1;
        switch (shard) {
        case Sharding::Ddp: {
            // DDP all-reduces its buckets during the last micro-batch's backward (no_sync before it); the profile's
            // bucket: PyTorch 25 MiB, Megatron-Core max(4e7, 1e6·dp) parameters, DeepSpeed 5e8.
            const double total = psi * B.reduce;
            const double elems = gradBucketElements(s.profile, g.size, B.reduce);
            const double bucket = elems > 0 ? std::min(total, elems * B.reduce) : total;
            const Bucketed ar = bucketed(s, CollectiveOp::AllReduce, total, bucket, g);
            const double exposed = std::max(ar.perCall.time, ar.perCall.time * ar.calls - gradHiddenBehind);
            out.dpTail += exposed;
            addCollective(sink, Group::Dp, CollectiveOp::AllReduce, g.size, ar.calls, bucket, ar.perCall, exposed,
                cross, expert ? "expert gradient all-reduce (DDP buckets)" : "gradient all-reduce (DDP buckets)", false,
                total);
            break;
        }
        case Sharding::Zero1:
        case Sharding::Zero2: {
            // The profile's buckets for the gradient reduce-scatter and the parameter all-gather: DeepSpeed's
            // reduce_bucket_size / allgather_bucket_size 5e8 elements (deepspeed/runtime/zero/config.py), Megatron's
            // distributed optimizer max(4e7, 1e6·dp) (megatron/core/distributed/distributed_data_parallel.py).
            const double elems = gradBucketElements(s.profile, g.size, B.reduce);
            const double bucketElems = elems > 0 ? std::min(psi, elems) : psi, agElems = bucketElems;
            // NCCL's model times an all-gather and a reduce-scatter over one group alike (tuning.cc: same steps,
            // algorithms and protocols): one curve prices both.
            const CollectiveCurve dpCurve = collectiveCurve(CollectiveOp::ReduceScatter, g, s.cluster, s.nccl);
            const Bucketed rs = bucketed(s, dpCurve, psi * B.reduce, bucketElems * B.reduce);
            const double repeats = shard == Sharding::Zero2 ? mm : 1.0; // ZeRO-2 reduces every micro-batch
            double rsExposed;
            if (shard == Sharding::Zero1) {
                // behind the last backward (overlapped), or all of it after the backward
                rsExposed = std::max(rs.perCall.time, rs.perCall.time * rs.calls - gradHiddenBehind);
                out.dpTail += rsExposed;
            } else {
                rsExposed = slow.dpBwd * mm; // already in the per-micro-batch times
            }
            addCollective(sink, Group::Dp, CollectiveOp::ReduceScatter, g.size, rs.calls * repeats,
                bucketElems * B.reduce, rs.perCall, rsExposed, cross,
                expert ? "expert gradient reduce-scatter" : "gradient reduce-scatter", shard == Sharding::Zero2,
                repeats * psi * B.reduce);
            // Updated parameters all-gathered after the optimizer step: equal bytes per element reuse the
            // reduce-scatter's buckets
            const Bucketed ag = B.w == B.reduce
                ? Bucketed { rs.calls, { rs.perCall.time, rs.perCall.latency, rs.perCall.algo, rs.perCall.proto } }
                : bucketed(s, dpCurve, psi * B.w, agElems * B.w);
            const double agAll = ag.perCall.time * ag.calls;
            const double agExposed = shard == Sharding::Zero1 && s.parallelism.overlapParamGather
                ? paramGatherExposed(ag.perCall.time, agAll, pp, v, slow.firstForward)
                : agAll; // inside the optimizer step (DeepSpeed stage_1_and_2.py; Megatron without the overlap)
            out.dpTail += agExposed;
            addCollective(sink, Group::Dp, CollectiveOp::AllGather, g.size, ag.calls, agElems * B.w, ag.perCall,
                agExposed, cross,
                expert ? "expert parameter all-gather after the optimizer step"
                       : "parameter all-gather after the optimizer step",
                false, psi * B.w);
            break;
        }
        default: {
            // ZeRO-3 / FSDP: per unit, per micro-batch (the exposure is already in the stage times); the calls and
            // messages of one layer's gathers and reductions as layerCommunication sized them from the profile.
            const GroupPlacement& sg = hybrid ? shardG : g;
            const double units = std::max(1, slow.shape.layers);
            const UnitCollectives u = unitCollectives(s, psi / units, psi, B, sg);
            if (u.agCalls <= 0)
                break;
            const double agCalls = mm * units * u.agCalls * (shard == Sharding::FsdpGradOp ? 1.0 : 2.0);
            const double rsCalls = mm * units * u.rsCalls;
            const double exposedShare = expert ? 0.0 : 1.0; // the stage-time exposure is counted once
            addCollective(sink, Group::Dp, CollectiveOp::AllGather, sg.size, agCalls, u.agMsg, u.ag,
                exposedShare * mm * slow.dpFwd + exposedShare * mm * slow.dpBwd * 0.5, sg.nodes > 1,
                expert ? "expert parameter all-gather (ZeRO-3/FSDP units)" : "parameter all-gather (ZeRO-3/FSDP units)",
                true, agCalls / u.agCalls * B.w * psi / units);
            addCollective(sink, Group::Dp, CollectiveOp::ReduceScatter, sg.size, rsCalls, u.rsMsg, u.rs,
                exposedShare * mm * slow.dpBwd * 0.5, sg.nodes > 1,
                expert ? "expert gradient reduce-scatter (units)" : "gradient reduce-scatter (ZeRO-3/FSDP units)", true,
                mm * B.reduce * psi);
            if (hybrid && replicaG.size > 1) {
                // HSDP: the gradient shard is all-reduced across replicas once per step
                // (torch/distributed/fsdp/api.py, HYBRID_SHARD).
                const double msg = B.reduce * psi / sg.size;
                const CollectiveCost ar = collectiveCost(s, CollectiveOp::AllReduce, msg, replicaG);
                const double exposed = std::max(0.0, ar.time - lastBwd);
                out.dpTail += exposed;
                addCollective(sink, Group::Dp, CollectiveOp::AllReduce, replicaG.size, 1, msg, ar, exposed,
                    replicaG.nodes > 1, "gradient-shard all-reduce across replicas (HSDP)");
            }
            break;
        }
        }
    };
    dpGroupCollectives(slow.shape.dense, layout.dpcpGroup, false);
    if (s.model.isMoe()) {
        const size_t before = r.collectives.size();
        dpGroupCollectives(slow.shape.expert, layout.expertDpGroup, true);
        for (size_t i = before; i < r.collectives.size(); ++i)
            r.collectives[i].expertDataParallel = true; // over the expert data-parallel group
    }
    return out;
}

} // namespace shardscope::core::detail
