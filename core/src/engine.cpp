// SPDX-License-Identifier: GPL-3.0-or-later
// Shape of a layout and the per-GPU memory model (formulas.md §1 and §2).
#include "engine.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core::detail {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
// CUDA context, cuBLAS/cuDNN workspaces and kernel images loaded at the first CUDA call: 0.5–2 GB
// (stas00 ml-engineering, training/performance); we take 1 GiB.
constexpr double kCudaContextBytes = 1.0 * kGiB;
// Allocator slack: Megatron's theoretical_memory_usage multiplies activations by 1.05 for
// "optimizer and misc temporaries" (formulas.md §2.4); we apply it to all transient memory.
constexpr double kAllocatorSlack = 0.05;
// DeepSpeed defaults (formulas.md §1.4): reduce/allgather buckets 5e8 elements, ZeRO-3 prefetch bucket 5e7.
constexpr double kDsReduceBucket = 5e8;
constexpr double kDsAllgatherBucket = 5e8;
constexpr double kDsPrefetchBucket = 5e7;
// DeepSpeed estimators' additional_buffer_factor (formulas.md §1.4).
constexpr double kDsBufferFactor = 1.5;
// PyTorch DDP bucket_cap_mb = 25 (torch/lib/c10d/reducer.hpp kDefaultBucketBytesCap, formulas.md §1.7).
constexpr double kDdpBucketBytes = 25 * kMiB;
// NCCL_BUFFSIZE default 4 MiB per protocol buffer; ≈ channels × peers × 3 protocols × buffsize per
// communicator (NCCL env.rst; formulas.md §1.7).
constexpr double kNcclBuffSize = 4 * kMiB;
constexpr double kNcclProtocols = 3;

double optimizerStateBytes(Optimizer o, bool halfStates)
{
    switch (o) {
    case Optimizer::AdamW: return halfStates ? 4 : 8;   // two fp32 moments; bf16 moments in pure bf16 (formulas.md §1.2)
    case Optimizer::AdamW8bit: return 2;                // bitsandbytes 8-bit moments (formulas.md §1.2, Dettmers et al.)
    case Optimizer::SgdMomentum: return halfStates ? 2 : 4; // one momentum buffer (formulas.md §1.2)
    case Optimizer::Adafactor: return 0;                // factored second moment: O(rows + cols), negligible (Shazeer & Stern 2018)
    }
    return 8;
}

bool shardsParams(Sharding s)
{
    return s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpHybrid;
}
bool shardsGrads(Sharding s) { return s != Sharding::Ddp && s != Sharding::Zero1; }
bool shardsOptimizer(Sharding s) { return s != Sharding::Ddp; }

} // namespace

StateBytes stateBytes(const Training& t)
{
    StateBytes b;
    const bool ds = t.accounting == Accounting::DeepSpeed;
    const bool mg = t.accounting == Accounting::Megatron;
    switch (t.precision) {
    case Precision::Fp32:
        // fp32 weights and grads, no master copy (formulas.md §1.2 "fp32 training")
        b = { 4, 4, 0, 0, optimizerStateBytes(t.optimizer, false), 0, 4, 4 };
        break;
    case Precision::Bf16:
        // pure bf16 with bf16 optimizer states (AnyPrecisionAdamW; formulas.md §1.2)
        b = { 2, 2, 0, 0, optimizerStateBytes(t.optimizer, true), 0, 2, 2 };
        break;
    case Precision::Bf16Mixed:
    case Precision::Fp16Mixed:
    case Precision::Fp8Mixed:
        // ZeRO paper §3.1: 2 (half params) + 2 (half grads) + 4 (fp32 master) + 8 (Adam moments)
        b = { 2, 2, 0, 4, optimizerStateBytes(t.optimizer, false), 0, 2, 2 };
        if (mg) {
            // Megatron dist_optimizer.md: bf16 params with fp32 main grads (18 B), fp16 adds fp32 main grads to fp16 grads (20 B)
            // bf16: the fp32 grad buffer is not sharded by the distributed optimizer (6 + 12/d);
            // fp16: fp16 grads stay, the fp32 main grads shard with the optimizer (4 + 16/d).
            if (t.precision == Precision::Fp16Mixed) {
                b.gr = 2;
                b.grOpt = 4;
            } else {
                b.gr = 4;
            }
            b.reduce = 4; // accumulate_allreduce_grads_in_fp32
        } else if (ds) {
            // DeepSpeed estimator: 2 fp16 grads + 4 fp32 grads (+4 master +8 moments) (stage_1_and_2.py comment)
            b.grOpt = 4;
        }
        if (t.precision == Precision::Fp8Mixed)
            b.fp8Cache = 2; // FP8 weight copy + transposed copy for the backward GEMM (formulas.md §1.2, TE style)
        break;
    }
    return b;
}

int layersOnStage(int layers, int pp, int i)
{
    const int base = layers / pp;
    const int extra = layers % pp;
    return base + (i >= pp - extra ? 1 : 0);
}

Shape makeShape(const Scenario& s)
{
    Shape sh;
    const ModelSpec& m = s.model;
    const Parallelism& par = s.parallelism;
    sh.counts = countParameters(m);
    sh.bytes = stateBytes(s.training);
    sh.tp = par.tp;
    sh.pp = par.pp;
    sh.cp = par.cp;
    sh.ep = m.isMoe() ? par.ep : 1;
    sh.v = par.schedule == PpSchedule::Interleaved ? std::max(1, par.virtualStages) : 1;

    const double t = par.tp;
    const double beta = sh.bytes.act;
    const double delta = s.training.dropout ? 1.0 : 0.0; // dropout masks: 1 byte per element (Korthikanti §4.1)
    const double seqLocal = static_cast<double>(s.training.seqLen) / par.cp;
    const double b = static_cast<double>(s.training.microBatch);
    const double T = seqLocal * b;
    sh.tokensPerMicroBatch = T;
    const double h = static_cast<double>(m.hidden);
    const double q = sh.counts.qSize;
    // GQA with fewer KV heads than TP ranks: each rank keeps a whole (replicated) KV head (formulas.md §2.5).
    const double g = std::max(1, m.kvHeads);
    const double kvPerRankShare = sh.counts.kvSize * std::max(g, t) / g;
    const double a = m.heads;
    const double f = static_cast<double>(m.ffnHidden);
    const bool sp = par.sequenceParallel && par.tp > 1;

    // Generalised Korthikanti et al. 2022 per-layer activations (formulas.md §2.1, §2.5), bytes per micro-batch.
    // Replicated across TP ranks unless sequence parallel: two norm inputs, QKV input, fc1 input, dropout masks.
    const double replicated = 2 * beta * T * h + beta * T * h + delta * T * h + beta * T * h + delta * T * h;
    // Split across TP ranks: Q, K, V, out-projection input.
    const double attnSplit = beta * T * q + 2 * beta * T * kvPerRankShare + beta * T * q;
    const double mlpMats = m.mlp == Mlp::SwiGlu ? 3.0 : 2.0; // gated: gate, up, product; plain: act in, fc2 in
    const double denseMlpSplit = mlpMats * beta * T * f;
    // Core attention: eager keeps softmax output (β·as²b) and with dropout its mask and output (Korthikanti 5as²b);
    // FlashAttention keeps only the fp32 log-sum-exp, 4 bytes per head per token (formulas.md §2.5).
    const double core = s.training.flashAttention
        ? 4.0 * a * T
        : (beta * a * T * s.training.seqLen + delta * (1 + beta) * a * T * s.training.seqLen);
    const double repDiv = sp ? t : 1.0;
    const bool selective = s.training.recompute == Recompute::Selective;
    const bool full = s.training.recompute == Recompute::Full;

    sh.layerActivationFull = replicated / repDiv + (attnSplit + denseMlpSplit + core) / t;
    sh.layerInput = beta * T * h / repDiv;
    if (full)
        sh.layerActivation = sh.layerInput;
    else if (selective)
        sh.layerActivation = sh.layerActivationFull - core / t; // selective recompute drops core attention (Table 2)
    else
        sh.layerActivation = sh.layerActivationFull;

    if (m.isMoe()) {
        // MoE MLP: each token is copied to top-k experts (× capacity factor): expert input + intermediates,
        // plus shared experts and fp32 router logits (DERIVED from formulas.md §2.5 and §4.6).
        const double fe = static_cast<double>(m.moe.expertFfnHidden);
        const double copies = m.moe.topK * m.moe.capacityFactor;
        const double moeSplit = T * copies * (beta * h + mlpMats * beta * fe) + m.moe.sharedExperts * mlpMats * beta * T * fe;
        const double router = 4.0 * T * m.moe.experts / repDiv;
        sh.moeLayerExtraFull = (moeSplit - denseMlpSplit) / t + router;
        sh.moeLayerExtra = full ? 0.0 : sh.moeLayerExtraFull;
    }
    // Embedding stage: int64 token ids (8sb) and the embedding dropout mask (sbh), ÷t (Korthikanti §4.3; Megatron code).
    sh.embeddingActivation = (8.0 * T + delta * T * h) / t;
    // Output stage: final-norm input and LM-head input (2·β·sbh) and the logits + loss peak: bf16 logits up-cast to
    // fp32, 6 bytes per logit (stas00 via formulas.md §2.3), vocabulary-parallel over TP.
    sh.headActivation = 2 * beta * T * h / repDiv + 6.0 * T * static_cast<double>(m.vocab) / t;

    // ZeRO-3/FSDP gather unit: one transformer layer (or DeepSpeed's largest module), or the FSDP root's embeddings.
    const auto& c = sh.counts;
    const double expertLayer = c.moeLayers > 0 ? c.routedExperts / (sh.ep * t) + c.sharedExperts / t : 0.0;
    const double denseLayer = c.denseLayers > 0 ? c.denseMlp / t : 0.0;
    sh.layerUnitParams = (c.attention + c.attentionNorms) / t + c.layerNorms + std::max(expertLayer, denseLayer);
    const double root = (c.embedding + c.head) / t;
    switch (par.sharding) {
    case Sharding::FsdpFull:
    case Sharding::FsdpHybrid:
    case Sharding::FsdpGradOp: sh.unitParams = std::max(sh.layerUnitParams, root); break;
    default: sh.unitParams = c.largestModule / t; break;
    }
    return sh;
}

StageShape stageShape(const Scenario& s, const Shape& shape, int i)
{
    StageShape st;
    const auto& c = shape.counts;
    const int pp = shape.pp;
    st.layers = layersOnStage(s.model.layers, pp, i);
    const int extra = s.model.layers % pp;
    const int first = i * (s.model.layers / pp) + std::max(0, i - (pp - extra)); // layers on stages before i
    // Leading dense layers of an MoE model (DeepSeek-V3: first 3) land on the first stages.
    st.denseLayers = std::clamp(c.denseLayers - first, 0, st.layers);
    st.moeLayers = st.layers - st.denseLayers;
    st.embedding = i == 0;
    st.head = i == pp - 1;
    const double t = shape.tp;
    // Megatron theoretical_memory_usage.py (formulas.md §1.6): TP-sharded blocks, replicated norms, experts ÷ (etp·ep);
    // the first stage holds the embedding, the last the output layer (a copy of the tied embedding when pp > 1).
    double tpSharded = st.layers * c.attention + st.denseLayers * c.denseMlp + st.moeLayers * c.sharedExperts;
    double replicated = st.layers * (c.layerNorms + c.attentionNorms) + st.moeLayers * c.router;
    if (st.embedding) {
        tpSharded += c.embedding;
        replicated += c.positions;
    }
    if (st.head) {
        tpSharded += c.head > 0 ? c.head : (pp > 1 ? c.embedding : 0.0);
        replicated += c.finalNorm;
    }
    st.dense = tpSharded / t + replicated;
    st.expert = st.moeLayers * c.routedExperts / (shape.ep * t);
    return st;
}

double inFlight(const Scenario& s, int i, int64_t m)
{
    const int p = s.parallelism.pp;
    const double mb = static_cast<double>(m);
    switch (s.parallelism.schedule) {
    case PpSchedule::GPipe: return mb; // all forwards before any backward (GPipe §2.3)
    case PpSchedule::Interleaved: {
        // Megatron schedules.py: warm-up (p − r − 1)·2 + (v − 1)·p chunk-micro-batches, +1 in flight, each 1/v of the stage.
        const int v = std::max(1, s.parallelism.virtualStages);
        const double chunks = std::min<double>((p - i - 1) * 2.0 + (v - 1.0) * p + 1.0, mb * v);
        return chunks / v;
    }
    case PpSchedule::OneFOneB:
    case PpSchedule::ZeroBubble: // ZB-H1 keeps 1F1B's activation memory (zero-bubble README)
        break;
    }
    return std::min<double>(p - i, mb); // 1F1B: stage r holds p − r micro-batches (Narayanan §2.2)
}

MemoryBreakdown stageMemory(const Scenario& s, const Shape& sh, const StageShape& st, int stageIndex, int dp,
                            int64_t m, double* hostPerGpu, double* nvmePerGpu)
{
    MemoryBreakdown mem;
    const auto& B = sh.bytes;
    const Sharding shard = s.parallelism.sharding;
    const bool ds = s.training.accounting == Accounting::DeepSpeed;
    // Sharding degree: the dense data-parallel group folds in CP (Megatron dist-opt, formulas.md §1.6);
    // experts shard over the expert data-parallel group dp·cp/ep; fsdp-hybrid shards inside its group only.
    double nDense = static_cast<double>(dp) * sh.cp;
    double nExpert = std::max(1.0, nDense / sh.ep);
    if (shard == Sharding::FsdpHybrid) {
        const double group = s.parallelism.shardGroup > 0 ? s.parallelism.shardGroup : s.cluster.gpusPerNode;
        nDense = std::min(nDense, group);
        nExpert = std::min(nExpert, group);
    }
    auto sharded = [&](bool on, double bytesPerParam) {
        return bytesPerParam * (on ? st.dense / nDense + st.expert / nExpert : st.dense + st.expert);
    };
    const double psi = st.dense + st.expert;
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool offParam = s.offload.parameters != OffloadTarget::None;
    const bool sp = shardsParams(shard), sg = shardsGrads(shard), so = shardsOptimizer(shard);

    // Model states (ZeRO paper §5 / formulas.md §1.2): each component divided by the degree that shards it.
    mem.parameters = offParam ? 0.0 : sharded(sp, B.w + B.fp8Cache);
    mem.gradients = sharded(sg, B.gr) + sharded(so, B.grOpt);
    mem.optimizerStates = sharded(so, B.mw + B.os);
    double host = 0, nvme = 0;
    if (offOpt) {
        // ZeRO-Offload (Ren et al. §4): gradients, master weights and optimizer states live on the host;
        // only the half-precision parameters stay on the GPU.
        const double moved = mem.gradients + mem.optimizerStates;
        (s.offload.optimizer == OffloadTarget::Cpu ? host : nvme) += moved;
        mem.gradients = 0;
        mem.optimizerStates = 0;
    }
    if (offParam)
        (s.offload.parameters == OffloadTarget::Cpu ? host : nvme) += sharded(true, B.w);
    if (ds && shard == Sharding::Zero3) {
        // DeepSpeed's ZeRO-3 estimator keeps only fp16 params + fp32 (params, grads, moments) = 18Ψ/N;
        // the fp16 grads are transient, inside the 4·largest-layer term (formulas.md §1.4).
        if (!offOpt)
            mem.gradients -= sharded(true, B.gr);
    }

    // Transient gathered parameters and unsharded gradients (formulas.md §1.3, §1.4).
    const double U = sh.unitParams;
    switch (shard) {
    case Sharding::Zero3:
        if (ds)
            mem.gatheredParameters = 4.0 * U; // 2 B fp16 params + 2 B fp16 grads of the largest layer
        else // current unit + stage3_prefetch_bucket_size elements prefetched + the unit's unsharded grads
            mem.gatheredParameters = B.w * U + B.w * std::min(U, kDsPrefetchBucket) + B.gr * U;
        break;
    case Sharding::FsdpFull:
    case Sharding::FsdpHybrid:
        // BACKWARD_PRE: current unit's params, the prefetched next unit, the current unit's unsharded grads
        mem.gatheredParameters = 3.0 * B.w * U;
        break;
    case Sharding::FsdpGradOp:
        // SHARD_GRAD_OP: every unit stays unsharded from its forward to the end of backward, + one unit's grads
        mem.gatheredParameters = B.w * psi + B.w * U;
        break;
    default: break;
    }

    // Communication buffers: framework buckets + NCCL channel buffers.
    double buckets = 0;
    const bool megatron = s.training.accounting == Accounting::Megatron;
    switch (shard) {
    case Sharding::Ddp:
        // PyTorch DDP copies gradients into buckets (gradient_as_bucket_view=False by default; formulas.md §1.7);
        // Megatron's DDP reduces its contiguous grad buffer in place.
        buckets = megatron ? 0.0 : std::max(B.reduce * psi, kDdpBucketBytes);
        break;
    case Sharding::Zero1:
    case Sharding::Zero2:
        // DeepSpeed reduce_bucket_size and allgather_bucket_size (5e8 elements each); the reduce bucket is double
        // with overlap_comm, which the time model assumes (formulas.md §1.4). Megatron uses its grad buffer.
        if (!megatron)
            buckets = 2 * std::min(kDsReduceBucket, psi) * B.reduce + std::min(kDsAllgatherBucket, psi) * B.w;
        break;
    case Sharding::Zero3:
        buckets = 2 * std::min(kDsReduceBucket, psi) * B.reduce; // overlap_comm is on by default at stage 3
        break;
    default: break;
    }
    mem.communicationBuffers = buckets;

    // Activations (formulas.md §2): in-flight micro-batches × stored bytes per layer, + embedding and output stages.
    const double inflight = inFlight(s, stageIndex, m);
    double act = inflight * (st.layers * sh.layerActivation + st.moeLayers * sh.moeLayerExtra);
    if (st.embedding)
        act += inflight * sh.embeddingActivation;
    if (st.head)
        act += sh.headActivation * (s.parallelism.schedule == PpSchedule::GPipe ? static_cast<double>(m) : 1.0);
    if (s.training.recompute == Recompute::Full && st.layers > 0)
        act += sh.layerActivationFull + (st.moeLayers > 0 ? sh.moeLayerExtraFull : 0.0); // one layer re-materialised
    mem.activations = act;

    mem.frameworkOverhead = kCudaContextBytes
        + kAllocatorSlack * (mem.activations + mem.gatheredParameters + mem.communicationBuffers) + s.cluster.miscBytes;
    if (hostPerGpu)
        *hostPerGpu = host;
    if (nvmePerGpu)
        *nvmePerGpu = nvme;
    return mem;
}

PeakCandidates peakCandidates(const Scenario& s, const Shape& shape)
{
    PeakCandidates c;
    const int pp = s.parallelism.pp;
    const int extra = s.model.layers % pp;
    for (int i : { 0, 1, extra == 0 ? pp - 1 : pp - extra, pp - 1 }) {
        if (i < 0 || i >= pp || std::find(c.index, c.index + c.count, i) != c.index + c.count)
            continue;
        c.index[c.count] = i;
        c.shape[c.count] = stageShape(s, shape, i);
        ++c.count;
    }
    return c;
}

double candidatesPeakMemory(const Scenario& s, const Shape& shape, const PeakCandidates& c, int dp, int64_t m)
{
    double peak = 0;
    for (int k = 0; k < c.count; ++k)
        peak = std::max(peak, stageMemory(s, shape, c.shape[k], c.index[k], dp, m, nullptr, nullptr).total());
    return peak;
}

/// NCCL buffer bytes of one communicator (see kNcclBuffSize).
double ncclCommunicatorBytes(int channels, int peers) { return channels * peers * kNcclProtocols * kNcclBuffSize; }

double ncclPointToPointBytes(int peers) { return 2.0 * peers * kNcclBuffSize; }

/// DeepSpeed ZeRO-3 estimator host memory per node (formulas.md §1.4, zero_init = True).
double deepspeedZero3HostPerNode(double psi, double largestLayer, int gpusPerNode, int nodes, bool offOpt, bool offParam)
{
    const double gpusFactor = 1.0 / nodes;
    if (offOpt && offParam)
        return psi * 18 * gpusFactor * kDsBufferFactor;
    if (offOpt)
        return psi * 16 * gpusFactor * kDsBufferFactor;
    return largestLayer * 4 * gpusPerNode * kDsBufferFactor;
}

} // namespace shardscope::core::detail
