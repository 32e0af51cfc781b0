// SPDX-License-Identifier: GPL-3.0-or-later
// evaluate(): communication, compute, overlap, pipeline, offload and totals (docs/model.md §communication and
// §step-time).
#include "shardscope/core/evaluate.h"

#include "shardscope/core/rank_map.h"

#include "collective.h"
#include "engine.h"
#include "step_terms.h"
#include "term_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace shardscope::core {

namespace detail {
namespace {

// ---- The two fitted time-model constants. Fit on Narayanan et al. SC'21 Table 1 and Korthikanti et al. MLSys'23
// Table 5 only (grid search, tests/core/tst_calibration.cpp holds the rows; docs/model.md §validation); every other
// figure comes from a datasheet or NCCL's model. ----
// HBM traffic of the element-wise kernels (norms, GELU/SwiGLU, dropout, softmax, residual adds, casts) per byte of
// activation the layer stores, in each of forward and backward: unfused element-wise kernels read and write each
// stored tensor about three times. Korthikanti Table 4 (22B layer, 7.7 ms forward) pins it together with:
constexpr double kElementwiseTraffic = 3.0;
// Fraction of the best-shape measured matmul rate (MAMF, stas00 ml-engineering compute/accelerator/README.md) that
// a training step's GEMMs sustain:
// real shapes, kernel launch gaps and host overhead. 0.80 × A100's 0.869 MAMF fraction = 70% of peak.
constexpr double kGemmRealized = 0.80;

// The GPU optimizer step is memory-bound: it reads the gradient, master weight and moments and writes the
// master, moments and the half-precision copy (docs/model.md §optimizer-step).
// CPU↔GPU copies run at NCCL's 75% of raw PCIe (NVIDIA/nccl src/graph/topo.cc).
constexpr double kPcieEfficiency = 0.75;
// FP8 training dispatches tokens in FP8 and combines them in BF16, forward and backward (DeepSeek-V3 report §3.3):
// of the four all-to-alls two move 1 byte per element and two move 2, 0.75 of the BF16 bytes on average.
constexpr double kFp8AllToAllFactor = 0.75;

Peak peakFor(const Scenario& s)
{
    const GpuSpec& g = s.cluster.gpu;
    const double eff = g.achievableMatmulFraction * kGemmRealized; // measured MAMF / peak (catalog)
    Peak p;
    switch (s.training.precision) {
    case Precision::Fp32:
        // fp32 GEMMs run on TF32 tensor cores at half the BF16 rate (A100/H100 datasheets)
        p.linear = p.attention = g.bf16DenseFlops * 0.5 * eff;
        p.mfuPeak = g.bf16DenseFlops * 0.5;
        break;
    case Precision::Fp8Mixed:
        p.linear = g.fp8DenseFlops * eff;
        p.attention = g.bf16DenseFlops * eff;
        p.mfuPeak = g.fp8DenseFlops;
        break;
    default:
        p.linear = p.attention = g.bf16DenseFlops * eff;
        p.mfuPeak = g.bf16DenseFlops;
        break;
    }
    return p;
}

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

/// A collective over `total` bytes issued in buckets of at most `bucket` bytes: the number of calls and the
/// time of them all (full buckets plus the partial last one), for the average-per-call cost addCollective takes.
struct Bucketed {
    double calls = 0;
    CollectiveCost perCall; ///< time = total time / calls
};
Bucketed bucketed(CollectiveOp op, double total, double bucket, const GroupPlacement& g, const Cluster& cl,
                  const Nccl& nccl)
{
    Bucketed b;
    if (total <= 0 || bucket <= 0)
        return b;
    const double full = std::floor(total / bucket * (1 + 1e-12));
    const double last = total - full * bucket;
    const bool partial = last > bucket * 1e-9;
    b.calls = full + (partial ? 1 : 0);
    const CollectiveCost f = collectiveTime(op, std::min(bucket, total), g, cl, nccl);
    double time = f.time * full;
    if (partial)
        time += collectiveTime(op, last, g, cl, nccl).time;
    b.perCall = f;
    b.perCall.time = time / b.calls;
    return b;
}

} // namespace

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

} // namespace detail

void evaluateInto(const Scenario& s, Result& r, bool computeMinGpus, std::vector<Term>* terms)
{
    using namespace detail;
    r.valid = true;
    r.collectives.clear();
    r.collectives.reserve(12);
    r.stages.clear();
    r.bytesByGroup = {};
    r.totalCommBytes = 0;

    const Shape sh = makeShape(s);
    const ModelCounts& c = sh.counts;
    const StateBytes& B = sh.bytes;
    const Parallelism& par = s.parallelism;
    const Cluster& cl = s.cluster;
    const Layout layout = makeLayout(s);
    const int tp = layout.tp, pp = layout.pp, cp = layout.cp, ep = layout.ep;
    const int dp = layout.dp;
    const int gpus = layout.gpus;
    const int64_t m = layout.microBatches;
    const int v = layout.virtualStages;

    r.parameters = c.total;
    r.activeParameters = c.active;
    r.gpus = gpus;
    r.dp = dp;
    r.tp = tp;
    r.pp = pp;
    r.cp = cp;
    r.ep = ep;
    r.microBatches = m;
    r.gradAccumulation = m;

    // ---- Model FLOPs per token (Megatron-LM training.py num_floating_point_operations): 6 per matmul
    // parameter (forward + two backward GEMMs), the output layer V·h always, causal attention 6·s·q per layer.
    const double norms = s.model.layers * (c.layerNorms + c.attentionNorms) + c.finalNorm;
    const double V = static_cast<double>(s.model.vocab), h = static_cast<double>(s.model.hidden);
    const double matmulParams = c.active - c.embedding - c.head - c.positions - norms + V * h;
    const double seq = static_cast<double>(s.training.seqLen);
    r.flopsPerToken = 6.0 * matmulParams + 6.0 * s.model.layers * seq * c.qSize;

    // ---- Communication groups, Megatron rank order tp → cp → ep/dp → pp (megatron/core/parallel_state.py).
    const GroupPlacement& tpG = layout.tpGroup;
    const GroupPlacement& cpG = layout.cpGroup;
    const GroupPlacement& dpG = layout.dpcpGroup; // dense gradients: dp × cp
    const GroupPlacement& epG = layout.epGroup;
    const GroupPlacement& edpG = layout.expertDpGroup;
    const GroupPlacement& ppPair = layout.ppPair;

    const Peak peak = peakFor(s);
    const double hbm = cl.gpu.memoryBandwidth;
    const double T = sh.tokensPerMicroBatch;
    const double beta = B.act;
    const bool sp = par.sequenceParallel && tp > 1;
    const bool full = s.training.recompute == Recompute::Full;
    const bool selective = s.training.recompute == Recompute::Selective;

    // ---- One transformer layer, one micro-batch, per GPU.
    // Linear GEMMs: 2 FLOPs per weight per token forward, twice that backward (dgrad + wgrad) (Kaplan et al. 2020,
    // Table 1).
    const double attnLinear = 2.0 * T * c.attention / tp;
    const double denseLinear = 2.0 * T * c.denseMlp / tp;
    const double cf = s.model.isMoe() ? s.model.moe.capacityFactor : 1.0;
    // MoE: top-k routed experts per token, padded to the capacity factor, + shared experts + router
    // (Megatron-LM num_floating_point_operations)
    const double moeLinear = s.model.isMoe() ? 2.0 * T * (cf * c.routedActive + c.sharedExperts + c.router) / tp : 0.0;
    // Attention scores and values: 4·s·q FLOPs per token forward; FlashAttention skips the masked half,
    // eager attention computes the full square (Megatron-LM num_floating_point_operations; MosaicML llm-foundry
    // scripts/train/benchmarking/README.md).
    const double attnCore = (s.training.flashAttention ? 2.0 : 4.0) * T * seq * c.qSize / tp;
    const double coreTime = attnCore / peak.attention;
    const double elemLayer = kElementwiseTraffic * sh.layerActivationFull / hbm;
    const double elemMoeExtra = kElementwiseTraffic * sh.moeLayerExtraFull / hbm;

    // TP collectives per layer per micro-batch (Shoeybi et al. 2019 §3; megatron/core/tensor_parallel/layers.py):
    // without SP 2 all-reduces forward and 2 backward;
    // with SP 2 all-gathers + 2 reduce-scatters forward, the same backward + 2 re-gathers for wgrad.
    const double tpMsg = beta * T * h;
    CollectiveCost tpAR, tpAG, tpRS;
    double tpFwd = 0, tpBwd = 0;
    if (tp > 1) {
        if (sp) {
            tpAG = collectiveTime(CollectiveOp::AllGather, tpMsg, tpG, cl, s.nccl);
            tpRS = collectiveTime(CollectiveOp::ReduceScatter, tpMsg, tpG, cl, s.nccl);
            tpFwd = 2 * tpAG.time + 2 * tpRS.time;
            tpBwd = 4 * tpAG.time + 2 * tpRS.time;
        } else {
            tpAR = collectiveTime(CollectiveOp::AllReduce, tpMsg, tpG, cl, s.nccl);
            tpFwd = 2 * tpAR.time;
            tpBwd = 2 * tpAR.time;
        }
    }
    // CP (Megatron-LM docs context_parallel.md): KV chunks ring-passed (c−1) times forward, 2(c−1) backward,
    // hidden behind the
    // blockwise attention compute when it is long enough.
    double cpFwdExposed = 0, cpBwdExposed = 0;
    CollectiveCost cpCost;
    double cpChunk = 0;
    if (cp > 1) {
        const double g = std::max(1, s.model.kvHeads);
        const double kvLocal = c.kvSize * std::max(g, double(tp)) / g / tp;
        cpChunk = 2.0 * beta * T * kvLocal;
        cpCost = collectiveTime(CollectiveOp::SendRecv, cpChunk, layout.cpPair, cl, s.nccl);
        cpFwdExposed = std::max(0.0, (cp - 1) * cpCost.time - coreTime);
        cpBwdExposed = std::max(0.0, 2.0 * (cp - 1) * cpCost.time - 2.0 * coreTime);
    }
    // EP all-to-all (GShard; Switch Transformers): dispatch + combine forward and again backward, exposed.
    double epMsg = 0;
    CollectiveCost epCost;
    if (ep > 1) {
        // FP8 training dispatches tokens in FP8 (DeepSeek-V3 report §3.3): half the bytes of those calls.
        epMsg = beta * h * T * s.model.moe.topK * cf / (sp ? tp : 1);
        if (s.training.precision == Precision::Fp8Mixed)
            epMsg *= kFp8AllToAllFactor; // dispatch at 1 byte, combine at 2: the average of the four calls
        epCost = collectiveTime(CollectiveOp::AllToAll, epMsg, epG, cl, s.nccl);
    }

    auto layerTimes = [&](bool moe) {
        LayerTimes L;
        const double linear = attnLinear + (moe ? moeLinear : denseLinear);
        const double elem = elemLayer + (moe ? elemMoeExtra : 0.0);
        L.fwd = linear / peak.linear + coreTime + elem;
        // backward: 2× forward GEMMs; FlashAttention re-computes the scores (one more core forward, §3.3 / MosaicML)
        const double flashRecompute = s.training.flashAttention ? coreTime : 0.0;
        L.bwd = 2.0 * linear / peak.linear + 2.0 * coreTime + flashRecompute + elem;
        L.wgrad = linear / peak.linear;
        L.commFwd = tpFwd + cpFwdExposed + (moe && ep > 1 ? 2 * epCost.time : 0.0);
        L.commBwd = tpBwd + cpBwdExposed + (moe && ep > 1 ? 2 * epCost.time : 0.0);
        if (full)
            L.recompute = L.fwd + L.commFwd; // the whole forward again, its collectives included
        else if (selective && !s.training.flashAttention)
            // selective: re-run core attention forward (its GEMMs and its softmax/dropout traffic) (Korthikanti §5)
            L.recompute = coreTime + kElementwiseTraffic * (sh.layerActivationFull - sh.layerActivation) / hbm;
        return L;
    };
    const LayerTimes denseL = layerTimes(false);
    const LayerTimes moeL = layerTimes(true);

    // Output layer (last stage): logits GEMM 2·T·V·h/tp forward, twice backward; softmax/CE element-wise.
    const double headLinear = 2.0 * T * V * h / tp;
    const double headElem = kElementwiseTraffic * 6.0 * T * V / tp / hbm;

    // ---- Data-parallel collectives (ZeRO paper §7; torch/distributed/fsdp/api.py) and their overlap, per stage.
    const Sharding shard = par.sharding;
    const bool perMicroAG = shard == Sharding::Zero3 || shard == Sharding::FsdpFull || shard == Sharding::FsdpHybrid
        || shard == Sharding::FsdpGradOp;
    const bool hybrid = shard == Sharding::FsdpHybrid;
    const GroupPlacement& shardG = layout.shardGroupPlacement; // dp·cp, or fsdp-hybrid's group
    const GroupPlacement& replicaG = layout.replicaGroup;
    const double U = sh.layerUnitParams;
    const CollectiveCost unitAG = collectiveTime(CollectiveOp::AllGather, B.w * U, shardG, cl, s.nccl);
    const CollectiveCost unitRS = collectiveTime(CollectiveOp::ReduceScatter, B.reduce * U, shardG, cl, s.nccl);

    // ---- Per-stage timeline and memory.
    r.stages.resize(pp);
    double worstMem = -1;
    double sumStage = 0, maxStage = 0;
    int slow = 0;
    double hostPerGpuMax = 0, nvmePerGpuMax = 0;
    // per-stage exposed data-parallel time per micro-batch: [2i] forward, [2i+1] backward
    std::vector<double> stageDp(2 * static_cast<size_t>(pp));
    for (int i = 0; i < pp; ++i) {
        const StageShape st = stageShape(s, sh, i);
        StageInfo& si = r.stages[i];
        si.stage = i;
        si.layers = st.layers;
        si.embedding = st.embedding;
        si.head = st.head;
        si.inFlight = static_cast<int>(std::ceil(inFlight(s, i, m)));
        double host = 0, nvme = 0;
        si.memory = stageMemory(s, sh, st, i, layout, m, &host, &nvme);
        hostPerGpuMax = std::max(hostPerGpuMax, host);
        nvmePerGpuMax = std::max(nvmePerGpuMax, nvme);

        double fwd = st.denseLayers * (denseL.fwd + denseL.commFwd) + st.moeLayers * (moeL.fwd + moeL.commFwd);
        double bwd = st.denseLayers * (denseL.bwd + denseL.commBwd + denseL.recompute)
            + st.moeLayers * (moeL.bwd + moeL.commBwd + moeL.recompute);
        double wgrad = st.denseLayers * denseL.wgrad + st.moeLayers * moeL.wgrad;
        if (st.head) {
            fwd += headLinear / peak.linear + headElem;
            bwd += 2 * headLinear / peak.linear + headElem;
            wgrad += headLinear / peak.linear;
        }
        // ZeRO-3/FSDP: per micro-batch, gather each unit before its forward (prefetched one ahead) and again before
        // its backward, reduce-scatter its gradients after (§7 two-stream rule, equal units).
        double dpFwd = 0, dpBwd = 0;
        if (perMicroAG && st.layers > 0) {
            const double tf = fwd / st.layers, tb = bwd / st.layers;
            dpFwd = unitAG.time + st.layers * std::max(0.0, unitAG.time - tf);
            const bool gatherInBwd = shard != Sharding::FsdpGradOp;
            const double bwdComm = (gatherInBwd ? unitAG.time : 0.0) + unitRS.time;
            dpBwd = st.layers * std::max(0.0, bwdComm - tb) + unitRS.time;
        } else if (shard == Sharding::Zero2 && st.layers > 0) {
            // ZeRO-2 reduce-scatters gradient buckets during every backward (overlap_comm), the last one exposed.
            const double psi = st.dense + st.expert;
            // reduce_bucket_size 5e8 elements (deepspeed/runtime/zero/config.py)
            const Bucketed rs = bucketed(CollectiveOp::ReduceScatter, psi * B.reduce, kDsReduceBucket * B.reduce, dpG, cl, s.nccl);
            dpBwd = std::max(rs.perCall.time, rs.perCall.time * rs.calls - bwd);
        }
        stageDp[2 * i] = dpFwd;
        stageDp[2 * i + 1] = dpBwd;
        si.forwardTime = fwd + dpFwd;
        si.backwardTime = bwd + dpBwd;
        si.weightGradTime = wgrad;
        const double tStage = si.forwardTime + si.backwardTime;
        sumStage += tStage;
        if (tStage > maxStage) {
            maxStage = tStage;
            slow = i;
        }
        if (si.memory.total() > worstMem) {
            worstMem = si.memory.total();
            r.peakStage = i;
        }
    }
    r.memory = r.stages[r.peakStage].memory;

    const double nccl = ncclBufferBytes(s, layout);
    for (auto& st : r.stages) {
        st.memory.communicationBuffers += nccl;
    }
    r.memory.communicationBuffers += nccl;

    r.capacity = cl.gpu.memoryBytes;
    r.fits = r.memory.total() <= r.capacity;
    r.hostMemoryPerNode = hostPerGpuMax * cl.gpusPerNode;
    r.nvmePerNode = nvmePerGpuMax * cl.gpusPerNode;
    if (s.training.accounting == Accounting::DeepSpeed && shard == Sharding::Zero3) {
        r.hostMemoryPerNode = deepspeedZero3HostPerNode(c.total / (tp * pp), sh.unitParams, cl.gpusPerNode, cl.nodes,
            s.offload.optimizer != OffloadTarget::None, s.offload.parameters != OffloadTarget::None);
    }

    // ---- Pipeline (Narayanan et al. SC'21 §2.2): one micro-batch crosses every stage, the rest queue behind the
    // slowest.
    const StageInfo& S = r.stages[slow];
    const double tSlow = S.forwardTime + S.backwardTime;
    double bubble = sumStage - tSlow;
    switch (par.schedule) {
    case PpSchedule::Interleaved: bubble /= v; break; // Narayanan §2.2: (p−1)/v
    case PpSchedule::ZeroBubble:
        // ZB-H1: (p−1)(t_f + t_b − 2·t_w) (sail-sg/zero-bubble-pipeline-parallelism and deepseek-ai/DualPipe READMEs)
        bubble *= std::max(0.0, tSlow - 2.0 * S.weightGradTime) / tSlow;
        break;
    default: break;
    }
    if (pp == 1)
        bubble = 0;

    // ---- Step-time parts on the slowest stage.
    const StageShape slowShape = stageShape(s, sh, slow);
    const double mm = static_cast<double>(m);
    const double recomputePerMb = slowShape.denseLayers * denseL.recompute + slowShape.moeLayers * moeL.recompute;
    const double commPerMb = slowShape.denseLayers * (denseL.commFwd + denseL.commBwd)
        + slowShape.moeLayers * (moeL.commFwd + moeL.commBwd) + stageDp[2 * slow] + stageDp[2 * slow + 1];
    StepTime& step = r.step;
    step = {};
    step.recompute = mm * recomputePerMb;
    step.exposedCommunication = mm * commPerMb;
    step.compute = mm * tSlow - step.recompute - step.exposedCommunication;
    step.pipelineBubble = bubble;

    // Record the per-layer collectives for the slowest stage (counts over the step).
    const double layersSlow = slowShape.layers;
    const double moeSlow = slowShape.moeLayers;
    const bool tpCross = tpG.nodes > 1;
    if (tp > 1) {
        const double recomputeCalls = full ? 1.0 : 0.0;
        if (sp) {
            const double ag = mm * layersSlow * (2 + 4 + 2 * recomputeCalls);
            const double rs = mm * layersSlow * (2 + 2 + 2 * recomputeCalls);
            addCollective(r, Group::Tp, CollectiveOp::AllGather, tp, ag, tpMsg, tpAG, tpAG.time * ag, tpCross,
                "sequence-parallel all-gather of layer inputs", true);
            addCollective(r, Group::Tp, CollectiveOp::ReduceScatter, tp, rs, tpMsg, tpRS, tpRS.time * rs, tpCross,
                "sequence-parallel reduce-scatter of layer outputs", true);
        } else {
            const double ar = mm * layersSlow * (4 + 2 * recomputeCalls);
            addCollective(r, Group::Tp, CollectiveOp::AllReduce, tp, ar, tpMsg, tpAR, tpAR.time * ar, tpCross,
                "tensor-parallel all-reduce of attention and MLP outputs", true);
        }
    }
    if (cp > 1) {
        const double calls = mm * layersSlow * 3.0 * (cp - 1);
        addCollective(r, Group::Cp, CollectiveOp::SendRecv, cp, calls, cpChunk, cpCost,
            mm * layersSlow * (cpFwdExposed + cpBwdExposed), cpG.nodes > 1, "context-parallel ring exchange of K/V chunks", true);
    }
    if (ep > 1 && moeSlow > 0) {
        const double calls = mm * moeSlow * 4.0;
        addCollective(r, Group::Ep, CollectiveOp::AllToAll, ep, calls, epMsg, epCost, epCost.time * calls,
            epG.nodes > 1, "expert-parallel all-to-all dispatch and combine", true);
    }
    double ppExposed = 0;
    if (pp > 1) {
        // Stage boundary p2p: activations forward, gradients backward, β·s·b·h/t (scatter/gather), × v interleaved.
        const double msg = beta * T * h / tp;
        const CollectiveCost p2p = collectiveTime(CollectiveOp::SendRecv, msg, ppPair, cl, s.nccl);
        const double calls = 2.0 * mm * v;
        // Only the fill and drain hops are on the critical path (docs/model.md §pipeline-parallel).
        const double exposed = 2.0 * (pp * v - 1) * p2p.time;
        addCollective(r, Group::Pp, CollectiveOp::SendRecv, 2, calls, msg, p2p, exposed, ppPair.nodes > 1,
            "pipeline send/recv of activations and gradients");
        ppExposed = std::min(exposed, p2p.time * calls);
        step.exposedCommunication += ppExposed;
    }

    // Data-parallel collectives of the slowest stage.
    const StageShape& ds = slowShape;
    const double psiDense = ds.dense, psiExpert = ds.expert;
    const double lastBwd = S.backwardTime;
    double dpTail = 0;
    auto dpGroupCollectives = [&](double psi, const GroupPlacement& g, bool expert) {
        if (psi <= 0 || g.size <= 1)
            return;
        const bool cross = g.nodes > 1;
        switch (shard) {
        case Sharding::Ddp: {
            // DDP all-reduces 25 MiB buckets during the last micro-batch's backward (no_sync before it).
            const double total = psi * B.reduce;
            const double bucket = std::min(total, kDdpBucketBytes);
            const Bucketed ar = bucketed(CollectiveOp::AllReduce, total, bucket, g, cl, s.nccl);
            const double exposed = std::max(ar.perCall.time, ar.perCall.time * ar.calls - lastBwd);
            dpTail += exposed;
            addCollective(r, Group::Dp, CollectiveOp::AllReduce, g.size, ar.calls, bucket, ar.perCall, exposed, cross,
                expert ? "expert gradient all-reduce (DDP buckets)" : "gradient all-reduce (DDP buckets)", false, total);
            break;
        }
        case Sharding::Zero1:
        case Sharding::Zero2: {
            // DeepSpeed reduce_bucket_size / allgather_bucket_size: 5e8 elements (deepspeed/runtime/zero/config.py)
            const double bucketElems = std::min(psi, kDsReduceBucket), agElems = std::min(psi, kDsAllgatherBucket);
            const Bucketed rs = bucketed(CollectiveOp::ReduceScatter, psi * B.reduce, bucketElems * B.reduce, g, cl, s.nccl);
            const double repeats = shard == Sharding::Zero2 ? mm : 1.0; // ZeRO-2 reduces every micro-batch
            double rsExposed;
            if (shard == Sharding::Zero1) {
                rsExposed = std::max(rs.perCall.time, rs.perCall.time * rs.calls - lastBwd); // behind the last backward
                dpTail += rsExposed;
            } else {
                rsExposed = stageDp[2 * slow + 1] * mm; // already in the per-micro-batch times
            }
            addCollective(r, Group::Dp, CollectiveOp::ReduceScatter, g.size, rs.calls * repeats, bucketElems * B.reduce,
                rs.perCall, rsExposed, cross, expert ? "expert gradient reduce-scatter" : "gradient reduce-scatter",
                shard == Sharding::Zero2, repeats * psi * B.reduce);
            // Updated parameters all-gathered after the optimizer step: exposed (DeepSpeed stage_1_and_2.py).
            const Bucketed ag = bucketed(CollectiveOp::AllGather, psi * B.w, agElems * B.w, g, cl, s.nccl);
            dpTail += ag.perCall.time * ag.calls;
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
            const double units = ds.layers;
            const double unit = psi / std::max(1.0, units);
            const CollectiveCost ag = collectiveTime(CollectiveOp::AllGather, B.w * unit, sg, cl, s.nccl);
            const CollectiveCost rs = collectiveTime(CollectiveOp::ReduceScatter, B.reduce * unit, sg, cl, s.nccl);
            const double agCalls = mm * units * (shard == Sharding::FsdpGradOp ? 1.0 : 2.0);
            const double rsCalls = mm * units;
            const double exposedShare = expert ? 0.0 : 1.0; // the stage-time exposure is counted once
            addCollective(r, Group::Dp, CollectiveOp::AllGather, sg.size, agCalls, B.w * unit, ag,
                exposedShare * mm * stageDp[2 * slow] + exposedShare * mm * stageDp[2 * slow + 1] * 0.5, sg.nodes > 1,
                expert ? "expert parameter all-gather (ZeRO-3/FSDP units)" : "parameter all-gather (ZeRO-3/FSDP units)",
                true);
            addCollective(r, Group::Dp, CollectiveOp::ReduceScatter, sg.size, rsCalls, B.reduce * unit, rs,
                exposedShare * mm * stageDp[2 * slow + 1] * 0.5, sg.nodes > 1,
                expert ? "expert gradient reduce-scatter (units)" : "gradient reduce-scatter (ZeRO-3/FSDP units)",
                true);
            if (hybrid && replicaG.size > 1) {
                // HSDP: the gradient shard is all-reduced across replicas once per step
                // (torch/distributed/fsdp/api.py, HYBRID_SHARD).
                const double msg = B.reduce * psi / sg.size;
                const CollectiveCost ar = collectiveTime(CollectiveOp::AllReduce, msg, replicaG, cl, s.nccl);
                const double exposed = std::max(0.0, ar.time - lastBwd);
                dpTail += exposed;
                addCollective(r, Group::Dp, CollectiveOp::AllReduce, replicaG.size, 1, msg, ar, exposed,
                    replicaG.nodes > 1, "gradient-shard all-reduce across replicas (HSDP)");
            }
            break;
        }
        }
    };
    dpGroupCollectives(psiDense, dpG, false);
    if (s.model.isMoe())
        dpGroupCollectives(psiExpert, edpG, true);
    step.exposedCommunication += dpTail;

    // ---- Optimizer step and offload (ZeRO-Offload, Ren et al. ATC'21; ZeRO-Infinity §4; docs/model.md
    // §offload-time).
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool offParam = s.offload.parameters != OffloadTarget::None;
    const bool shardOpt = shard != Sharding::Ddp;
    double nOpt = shardOpt ? double(dp) * cp : 1.0;
    if (hybrid)
        nOpt = shardG.size;
    const double psiOpt = psiDense / nOpt + psiExpert / (shardOpt ? std::max(1.0, nOpt / ep) : 1.0);
    const double pcie = cl.gpu.hostLinkBandwidth * kPcieEfficiency;
    std::string offloadText, optimizerText; // the offload parts and the optimizer step, for their terms
    if (!offOpt) {
        // read grads, master and moments; write master, moments and the half-precision weights
        const double bytes = psiOpt * (B.gr + B.grOpt + 2.0 * (B.mw + B.os) + B.w);
        step.optimizer = bytes / hbm;
        if (terms)
            optimizerText = substitute("{}*({}+{}+2*({}+{})+{})/{}", { psiOpt, B.gr, B.grOpt, B.mw, B.os, B.w, hbm });
    } else {
        const double d2h = psiOpt * B.gr / pcie;
        const double cpuAdam = psiOpt * cl.gpusPerNode / cl.cpuAdamParamsPerSecond;
        const double h2d = psiOpt * B.w / pcie;
        double t = std::max(0.0, d2h - lastBwd) + cpuAdam + h2d;
        if (terms)
            offloadText = substitute("{}+{}+{}", { std::max(0.0, d2h - lastBwd), cpuAdam, h2d });
        if (s.offload.optimizer == OffloadTarget::Nvme) {
            const double states = 2.0 * (B.mw + B.os) * psiOpt * cl.gpusPerNode / cl.nvmeBandwidthPerNode; // read + write
            t += states;
            if (terms)
                offloadText += substitute("+{}", { states });
        }
        step.offload += t;
    }
    if (offParam) {
        // Each micro-batch fetches the parameter shard from the host for forward and again for backward,
        // overlapped with that micro-batch's compute.
        double bw = pcie;
        if (s.offload.parameters == OffloadTarget::Nvme)
            bw = std::min(pcie, cl.nvmeBandwidthPerNode / cl.gpusPerNode);
        const double fetch = 2.0 * B.w * (psiDense / nOpt + psiExpert / std::max(1.0, nOpt / ep)) / bw;
        step.offload += mm * std::max(0.0, fetch - tSlow);
        if (terms)
            offloadText += substitute(offloadText.empty() ? "{}*{}" : "+{}*{}", { mm, std::max(0.0, fetch - tSlow) });
    }

    // ---- Totals.
    const double total = step.total();
    const double tokens = static_cast<double>(s.training.globalBatch) * seq;
    Throughput& tp_ = r.throughput;
    tp_ = {};
    if (total > 0) {
        tp_.tokensPerSecond = tokens / total;
        tp_.tokensPerSecondPerGpu = tp_.tokensPerSecond / gpus;
        tp_.modelTflopsPerGpu = r.flopsPerToken * tp_.tokensPerSecondPerGpu / 1e12;
        const double hwFactor = (step.compute + step.recompute) > 0 ? (step.compute + step.recompute) / step.compute : 1.0;
        tp_.hardwareTflopsPerGpu = tp_.modelTflopsPerGpu * hwFactor;
        tp_.mfu = r.flopsPerToken * tp_.tokensPerSecond / (gpus * peak.mfuPeak);
        if (cl.gpu.hourlyPriceUsd > 0)
            tp_.costPerStepUsd = cl.gpu.hourlyPriceUsd * gpus * total / 3600.0;
    }

    if (terms) {
        // Memory of the peak stage, as stageMemory derives it, + NCCL's buffers in the communication term.
        stageMemory(s, sh, stageShape(s, sh, r.peakStage), r.peakStage, layout, m, nullptr, nullptr, terms);
        for (Term& t : *terms)
            if (t.key == "memory.communication_buffers") {
                t.value = r.memory.communicationBuffers;
                t.formula += " + B_nccl (NCCL channel buffers of every communicator)";
                t.expression += substitute("+{}", { nccl });
                t.inputs.push_back({ "B_nccl", nccl, "B", "channels × peers × 3 protocols × NCCL_BUFFSIZE per communicator" });
                t.source += "; NCCL user guide, NCCL_BUFFSIZE (4 MiB per protocol buffer)";
            }
        StepTerms st;
        st.m = mm;
        st.slow = slowShape;
        st.dense = denseL;
        st.moe = moeL;
        st.stageDpPerMb = stageDp[2 * slow] + stageDp[2 * slow + 1];
        st.commPerMb = commPerMb;
        st.ppExposed = ppExposed;
        st.dpTail = dpTail;
        st.sumStage = sumStage;
        st.tSlow = tSlow;
        st.weightGrad = S.weightGradTime;
        st.v = v;
        st.offloadText = offloadText;
        st.optimizerText = optimizerText;
        st.attnLinear = attnLinear;
        st.denseLinear = denseLinear;
        st.moeLinear = moeLinear;
        st.attnCore = attnCore;
        st.headLinear = headLinear;
        st.peak = peak;
        addStepTerms(s, sh, r, st, kElementwiseTraffic, *terms);
    }

    // ---- min_gpus: the fewest GPUs (same tp, pp, cp, ep, micro-batch and global batch) at which it fits.
    r.minGpus = 0;
    if (computeMinGpus) {
        // dp beyond the validated GPU limit (1e7 GPUs) is never tried, so every rank product stays in int.
        const int64_t dpMax = std::min<int64_t>(s.training.globalBatch / s.training.microBatch,
            static_cast<int64_t>(1e7) / (static_cast<int64_t>(tp) * pp * cp));
        const int step_ = ep > 1 ? ep / std::gcd(ep, cp) : 1;
        const PeakCandidates cand = peakCandidates(s, sh);
        // NCCL buffers change little with dp (only the dp-group placement): bisect with this layout's buffers,
        // then settle the answer with the exact buffers of the candidate degrees.
        auto fitsAt = [&](int64_t d, double buffers) {
            const int64_t mb = std::max<int64_t>(1, s.training.globalBatch / (s.training.microBatch * d));
            return candidatesPeakMemory(s, sh, cand, shardDegrees(s, static_cast<int>(d)), mb) + buffers <= r.capacity;
        };
        auto fitsExact = [&](int64_t k) {
            return fitsAt(k * step_, ncclBufferBytes(s, makeLayout(s, static_cast<int>(k * step_))));
        };
        // Memory falls as dp grows, so bisect; the evaluated layout itself bounds the range from one side.
        int64_t lo = 1, hi = dpMax / step_;
        const int64_t top = hi;
        const int64_t here = dp / step_;
        if (r.fits && here >= 1 && dp % step_ == 0)
            hi = here;
        else if (here >= 1 && here < hi)
            lo = here + 1;
        if (hi >= lo && fitsExact(hi)) {
            while (lo < hi) {
                const int64_t mid = (lo + hi) / 2;
                if (fitsAt(mid * step_, nccl))
                    hi = mid;
                else
                    lo = mid + 1;
            }
            while (lo < top && !fitsExact(lo))
                ++lo;
            while (lo > 1 && fitsExact(lo - 1))
                --lo;
            // GPU counts beyond the validated limit (1e7) are reported as "none up to the limit" (0).
            const double gpusNeeded = double(lo) * step_ * tp * pp * cp;
            r.minGpus = gpusNeeded <= 1e7 ? static_cast<int>(gpusNeeded) : 0;
        }
    }
}

ModelSize modelSize(const ModelSpec& model)
{
    const auto c = detail::countParameters(model);
    return { c.total, c.active };
}

namespace {
// Advice that is not an error: the layout is valid but probably not what the user wants.
void addWarnings(const Scenario& s, Result& r)
{
    const auto& p = s.parallelism;
    if (p.sequenceParallel && p.tp == 1)
        r.warnings.push_back({ "parallelism.sequence_parallel", "sequence parallelism has no effect with tp = 1" });
    if (p.tp > s.model.kvHeads)
        r.warnings.push_back({ "parallelism.tp", "tp exceeds kv_heads: KV heads are replicated across TP ranks" });
    for (auto& w : placementWarnings(s))
        r.warnings.push_back(std::move(w));
    if (p.schedule == PpSchedule::Interleaved && p.pp == 1)
        r.warnings.push_back({ "parallelism.pp_schedule", "a pipeline schedule has no effect with pp = 1" });
    if (s.model.layers % p.pp != 0)
        r.warnings.push_back({ "parallelism.pp", "layers do not divide evenly over pipeline stages; the last stages get one more" });
    // A GPU ships with one scale-up fabric (the catalog's scale_up_link): another one is a scenario that cannot be built,
    // e.g. a B200 with NVLink 4, usually left over from a GPU change.
    const auto& c = s.cluster;
    if (!c.gpu.scaleUpLink.empty() && !c.intraNode.id.empty() && c.intraNode.id != c.gpu.scaleUpLink)
        r.warnings.push_back({ "cluster.intra_node",
            c.gpu.name + " comes with " + c.gpu.scaleUpLink + ", not " + c.intraNode.id });
}
} // namespace

namespace {
Result validateAndEvaluate(const Scenario& s, bool withTerms)
{
    Result r;
    r.issues = validate(s);
    if (!r.issues.empty()) {
        r.valid = false;
        return r;
    }
    evaluateInto(s, r, true, withTerms ? &r.terms : nullptr);
    addWarnings(s, r);
    return r;
}
} // namespace

Result evaluate(const Scenario& s) { return validateAndEvaluate(s, false); }

Result explain(const Scenario& s) { return validateAndEvaluate(s, true); }

} // namespace shardscope::core
