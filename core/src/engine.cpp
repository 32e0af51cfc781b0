// SPDX-License-Identifier: GPL-3.0-or-later
// Shape of a layout and the per-GPU memory model (ZeRO paper §5; Korthikanti et al. 2022 §4; docs/model.md §memory).
#include "engine.h"

#include "term_builder.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core::detail {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
// CUDA context, cuBLAS/cuDNN workspaces and kernel images loaded at the first CUDA call: 0.5–2 GB
// (stas00 ml-engineering, training/performance); we take 1 GiB.
constexpr double kCudaContextBytes = 1.0 * kGiB;
// DeepSpeed estimators' additional_buffer_factor (deepspeed/runtime/zero/stage3.py, stage_1_and_2.py).
constexpr double kDsBufferFactor = 1.5;
// FSDP BACKWARD_PRE (torch/distributed/fsdp/api.py): the current unit's parameters, the prefetched next unit's and
// the current unit's unsharded gradients are live at once.
constexpr double kFsdpGatheredUnits = 3;
// torchtitan's FSDP2 reduce dtype, float32 (torchtitan/config_manager.py, --training.mixed_precision_reduce).
constexpr double kFsdpReduceBytes = 4;
// NCCL_BUFFSIZE default 4 MiB per protocol buffer; ≈ channels × peers × 3 protocols × buffsize per
// communicator (NCCL user guide, environment variables: NCCL_BUFFSIZE).
constexpr double kNcclBuffSize = 4 * kMiB;
constexpr double kNcclProtocols = 3;

double optimizerStateBytes(Optimizer o, bool halfStates)
{
    switch (o) {
    case Optimizer::AdamW: return halfStates ? 4 : 8;   // two fp32 moments; bf16 ones in pure bf16 (ZeRO §3.1)
    case Optimizer::AdamW8bit: return 2;                // bitsandbytes 8-bit moments (Dettmers et al., ICLR'22)
    case Optimizer::SgdMomentum: return halfStates ? 2 : 4; // one momentum buffer
    case Optimizer::Adafactor: return 0;                // factored second moment: O(rows + cols), negligible (Shazeer & Stern 2018)
    }
    return 8;
}

bool shardsParams(Sharding s)
{
    return s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpHybrid;
}
bool shardsGrads(Sharding s) { return s != Sharding::Ddp && s != Sharding::Zero1; }
/// PyTorch-native stacks (torchtitan, llm-foundry): FSDP2/FSDP, torch.distributed.pipelining, torchao Float8.
bool pytorchStack(Framework f) { return f == Framework::PyTorch || f == Framework::PyTorchCompile; }
bool shardsOptimizer(Sharding s) { return s != Sharding::Ddp; }

} // namespace

StateBytes stateBytes(const Training& t)
{
    StateBytes b;
    const bool ds = t.accounting == Accounting::DeepSpeed;
    const bool mg = t.accounting == Accounting::Megatron;
    switch (t.precision) {
    case Precision::Fp32:
        // fp32 weights and grads, no master copy (stas00 ml-engineering training/performance/README.md)
        b = { 4, 4, 0, 0, optimizerStateBytes(t.optimizer, false), 0, 4, 4 };
        break;
    case Precision::Bf16:
        // pure bf16 with bf16 optimizer states (AnyPrecisionAdamW; stas00 ml-engineering training/performance)
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
        // FP8 weight copy + transposed copy for the backward GEMM, kept between steps (Transformer Engine's Linear
        // caches them). torchao's Float8Linear (PyTorch stacks) casts the weight again in every forward and keeps the
        // cast only inside the layer until its backward (torchao/float8/float8_linear.py): no resident copy.
        if (t.precision == Precision::Fp8Mixed && !pytorchStack(t.framework))
            b.fp8Cache = 2;
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

double selectiveOpActivation(const Scenario& s, const Shape& sh, double T)
{
    // torchtitan's op-level selective checkpointing (torchtitan/models/llama3/infra/parallelize.py, _save_list and
    // _get_custom_policy): the layer's input is kept; of the outputs of aten.mm every other one is saved (the 1st,
    // 3rd, ... in forward order wq, wk, wv, wo, w1, w3, w2: wq, wv, w1 and, gated, w2), and the attention kernel's
    // output with its fp32 log-sum-exp; everything else is recomputed in backward.
    const ModelSpec& m = s.model;
    const double t = s.parallelism.tp, beta = sh.bytes.act;
    const double r = s.parallelism.sequenceParallel && s.parallelism.tp > 1 ? t : 1.0;
    const double h = static_cast<double>(m.hidden), q = sh.counts.qSize;
    const double g = std::max(1, m.kvHeads);
    const double kv = sh.counts.kvSize * std::max(g, t) / g;
    const double f = static_cast<double>(m.ffnHidden);
    const double w2 = m.mlp == Mlp::SwiGlu ? beta * T * h : 0.0; // the 7th mm of a gated MLP: its local output
    return beta * T * h / r + beta * T * (q + kv + f) / t + w2 + (beta * T * q + 4.0 * m.heads * T) / t;
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
    // GQA with fewer KV heads than TP ranks: each rank keeps a whole (replicated) KV head
    // (docs/model.md §activations).
    const double g = std::max(1, m.kvHeads);
    const double kvPerRankShare = sh.counts.kvSize * std::max(g, t) / g;
    const double a = m.heads;
    const double f = static_cast<double>(m.ffnHidden);
    const bool sp = par.sequenceParallel && par.tp > 1;

    // Generalised Korthikanti et al. 2022 per-layer activations (§4, Table 2; docs/model.md §activations),
    // bytes per micro-batch.
    // Transformer Engine under FP8 saves each linear layer's input for its backward as the FP8 cast it fed the GEMM,
    // 1 byte (transformer_engine/pytorch/module/linear.py, layernorm_linear.py, layernorm_mlp.py: saved inputmat /
    // ln_out / fc2 input are the quantized tensors); torchao's Float8Linear (PyTorch stacks) saves the bf16 input
    // (torchao/float8/float8_linear.py).
    const double beta8 = s.training.precision == Precision::Fp8Mixed && !pytorchStack(s.training.framework) ? 1.0 : beta;
    sh.linearInputBytes = beta8;
    // Replicated across TP ranks unless sequence parallel: two norm inputs, QKV input, fc1 input, dropout masks.
    const double replicated = 2 * beta * T * h + beta8 * T * h + delta * T * h + beta8 * T * h + delta * T * h;
    // Split across TP ranks: Q, K, V, out-projection input.
    const double attnSplit = beta * T * q + 2 * beta * T * kvPerRankShare + beta8 * T * q;
    const double mlpMats = m.mlp == Mlp::SwiGlu ? 3.0 : 2.0; // gated: gate, up, product; plain: act in, fc2 in
    const double denseMlpSplit = ((mlpMats - 1) * beta + beta8) * T * f; // the last one is fc2's input
    // Core attention: eager keeps softmax output (β·as²b) and with dropout its mask and output (Korthikanti 5as²b);
    // FlashAttention keeps only the fp32 log-sum-exp, 4 bytes per head per token (Dao et al. 2022 §3).
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
    else if (s.training.recompute == Recompute::SelectiveOp)
        sh.layerActivation = selectiveOpActivation(s, sh, T);
    else
        sh.layerActivation = sh.layerActivationFull;

    if (m.isMoe()) {
        // MoE MLP: each token is copied to top-k experts (× capacity factor): expert input + intermediates,
        // plus shared experts and fp32 router logits (DERIVED from Korthikanti §4; docs/model.md §activations).
        const double fe = static_cast<double>(m.moe.expertFfnHidden);
        const double copies = m.moe.topK * m.moe.capacityFactor;
        const double mlpBytes = (mlpMats - 1) * beta + beta8; // per MLP-hidden element, fc2's input at β8
        const double moeSplit = T * copies * (beta8 * h + mlpBytes * fe) + m.moe.sharedExperts * mlpBytes * T * fe;
        const double router = 4.0 * T * m.moe.experts / repDiv;
        sh.moeLayerExtraFull = (moeSplit - denseMlpSplit) / t + router;
        sh.moeLayerExtra = full ? 0.0 : sh.moeLayerExtraFull;
    }
    // Embedding stage: int64 token ids (8sb) and the embedding dropout mask (sbh), ÷t (Korthikanti §4.3; Megatron code).
    sh.embeddingActivation = (8.0 * T + delta * T * h) / t;
    // Output stage: final-norm input and LM-head input (2·β·sbh, stored) and the logits + loss peak, vocabulary-
    // parallel over TP: the framework's bytes per (local) logit (profile logit_bytes, logit_bytes_tp when t > 1:
    // Megatron's fused cross-entropy 6; PyTorch's cross_entropy 12, its loss_parallel 16).
    // PyTorch's tensor parallelism (torch/distributed/tensor/parallel/style.py, ColwiseParallel: the input is
    // redistributed from Shard(1) to Replicate) gathers the sequence-sharded input of each column-parallel linear, and
    // the matmul saves that gathered tensor for its backward: at full size, not ÷t, for the output layer and, in a
    // layer computed with autograd saving (no recompute, or the re-materialised layer), the QKV and MLP inputs.
    const bool torchSp = sp && pytorchStack(s.training.framework);
    sh.tpGatheredInput = torchSp ? beta * T * h * (1.0 - 1.0 / t) : 0.0;
    sh.headInputs = 2 * beta * T * h / repDiv + sh.tpGatheredInput;
    sh.localLogits = T * static_cast<double>(m.vocab) / t;
    sh.logitBytes = par.tp > 1 ? s.profile.logitBytesTp : s.profile.logitBytes;
    sh.lossPeak = sh.logitBytes * sh.localLogits;

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
    // Megatron-LM theoretical_memory_usage.py: TP-sharded blocks, replicated norms, experts ÷ (etp·ep), with etp = tp:
    // --expert-tensor-parallel-size defaults to the TP size (megatron/training/arguments.py, validate_args;
    // megatron/core/parallel_state.py, initialize_model_parallel), so experts split over TP unless a run sets it;
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

LayerActivationText layerActivationText(const Scenario& s, const Shape& sh)
{
    // The same quantities as makeShape, written out: T = s·b/c tokens per micro-batch on a CP rank, r = t with
    // sequence parallelism (else 1), kv = the KV width a TP rank keeps (whole heads when t > kv heads).
    const ModelSpec& m = s.model;
    const Parallelism& par = s.parallelism;
    const double beta = sh.bytes.act, delta = s.training.dropout ? 1.0 : 0.0, t = par.tp;
    const double g = std::max(1, m.kvHeads);
    const double kv = sh.counts.kvSize * std::max(g, t) / g;
    const double r = par.sequenceParallel && par.tp > 1 ? t : 1.0;
    const double k = m.mlp == Mlp::SwiGlu ? 3.0 : 2.0;
    const double seq = static_cast<double>(s.training.seqLen), b = static_cast<double>(s.training.microBatch);
    const std::string T = detail::substitute("({}/{}*{})", { seq, double(par.cp), b });
    const std::string core = s.training.flashAttention
        ? detail::substitute("4*{}*", { double(m.heads) }) + T
        : detail::substitute("({}+{}*(1+{}))*{}*", { beta, delta, beta, double(m.heads) }) + T + "*" + exprNumber(seq);
    const double b8 = sh.linearInputBytes;
    const std::string full = T
        + detail::substitute("*{}*(2*{}+2*{}+2*{})/{}", { double(m.hidden), beta, b8, delta, r }) + "+" + T
        + detail::substitute("*({}*{}+{}*{}+2*{}*{}+(({}-1)*{}+{})*{})/{}", { beta, sh.counts.qSize, b8,
                                 sh.counts.qSize, beta, kv, k, beta, b8, double(m.ffnHidden), t })
        + "+" + core + "/" + exprNumber(t);
    LayerActivationText out;
    const char* stored = "A_full = T·h·(2β + 2β8 + 2δ)/r + T·((β + β8)·q + 2β·kv + ((k − 1)·β + β8)·f)/t + A_core/t, "
                         "T = s·b/c, β8 = bytes of a saved linear input (1 with Transformer Engine FP8, else β), "
                         "A_core = 4·a·T (FlashAttention: fp32 log-sum-exp) or (β + δ(1+β))·a·T·s (eager)";
    switch (s.training.recompute) {
    case Recompute::None:
        out = { std::string(stored), full };
        break;
    case Recompute::Selective:
        out = { std::string("A = A_full − A_core/t (selective: core attention recomputed); ") + stored,
                "(" + full + ")-(" + core + ")/" + exprNumber(t) };
        break;
    case Recompute::Full:
        out = { "A = β·T·h/r (full recompute: only the layer input is kept), T = s·b/c",
                detail::substitute("{}*", { beta }) + T + detail::substitute("*{}/{}", { double(m.hidden), r }) };
        break;
    case Recompute::SelectiveOp: {
        const bool gated = m.mlp == Mlp::SwiGlu;
        out = { std::string("A = β·T·h/r + β·T·(q + kv + f)/t") + (gated ? " + β·T·h" : "")
                    + " + (β·T·q + 4·a·T)/t (op-level selective: layer input, every other matmul output, attention "
                      "output and log-sum-exp kept), T = s·b/c",
                detail::substitute("{}*", { beta }) + T + detail::substitute("*{}/{}+{}*", { double(m.hidden), r, beta })
                    + T + detail::substitute("*({}+{}+{})/{}", { sh.counts.qSize, kv, double(m.ffnHidden), t })
                    + (gated ? detail::substitute("+{}*", { beta }) + T + "*" + exprNumber(double(m.hidden)) : "")
                    + detail::substitute("+({}*", { beta }) + T + detail::substitute("*{}+4*{}*", { sh.counts.qSize,
                    double(m.heads) }) + T + ")/" + exprNumber(t) };
        break;
    }
    }
    return out;
}

namespace {
/// What stageMemory decided, for its terms.
struct MemoryChoices {
    double nDense, nExpert, inflight, buckets;
    double fsdpReduce;                 ///< bytes per element of FSDP's reduce-scatter input
    double root, head;                 ///< FSDP root parameters on this stage, the output layer's weight (per TP rank)
    double headMb;                     ///< micro-batches whose head the last stage holds (m with GPipe, else 1)
    double loss, workingSet;           ///< the two phases' transient activations
    double gatheredLoss, gatheredBwd;  ///< the two phases' gathered parameters and unsharded gradients
    double cachedLogits;               ///< the bf16 logits' block the allocator keeps reserved at the loss peak
    double stepGrads;                  ///< fp32 main gradients that exist only at the optimizer step (Megatron fp16)
    double backwardTransient;          ///< activations and gathered units (with slack) of the forward/backward peak
    bool shardParams, shardGrads, shardOptimizer, offOpt, offParam, deepspeed;
    bool lossPhase;                    ///< the loss (end of forward) holds the peak, else a layer's backward
    bool stepPhase;                    ///< the optimizer step holds the peak (no activations then)
    bool pytorch;                      ///< a PyTorch-native stack (FSDP2, torch.distributed.pipelining)
    int64_t m;
};

/// Ψ_d/N_d + Ψ_e/N_e (or Ψ_d + Ψ_e when unsharded) with bytes per parameter in front.
std::string shardedText(double bytesPerParam, bool on, const StageShape& st, const MemoryChoices& c)
{
    return on ? substitute("{}*({}/{}+{}/{})", { bytesPerParam, st.dense, c.nDense, st.expert, c.nExpert })
              : substitute("{}*({}+{})", { bytesPerParam, st.dense, st.expert });
}

void addMemoryTerms(const Scenario& s, const Shape& sh, const StageShape& st, const MemoryBreakdown& mem,
                    const MemoryChoices& c, std::vector<Term>& out)
{
    const auto& B = sh.bytes;
    const std::string zeroSource = "Rajbhandari et al., ZeRO (SC'20) §3.1, §5.1, Table 1";
    const std::vector<TermInput> psi = {
        { "Ψ_d", st.dense, "parameters", "dense parameters of this pipeline stage on one TP rank" },
        { "N_d", c.nDense, "", "GPUs sharding them (dp·cp, or the hybrid shard group)" },
        { "Ψ_e", st.expert, "parameters", "routed-expert parameters of this stage on one TP·EP rank" },
        { "N_e", c.nExpert, "", "GPUs sharding the experts (dp·cp/ep, or the shard group)" },
    };
    auto withBytes = [&](const char* name, double bytes, const char* meaning) {
        std::vector<TermInput> in = psi;
        in.insert(in.begin(), { name, bytes, "B/parameter", meaning });
        return in;
    };

    // Parameters.
    {
        Term t = makeTerm("memory.parameters", TermGroup::Memory, "Parameters", mem.parameters, "B");
        if (c.offParam) {
            t.formula = "0 (parameters offloaded to the host)";
            t.expression = "0";
        } else {
            t.formula = c.shardParams ? "(w + w8)·(Ψ_d/N_d + Ψ_e/N_e)" : "(w + w8)·(Ψ_d + Ψ_e)";
            t.expression = shardedText(B.w + B.fp8Cache, c.shardParams, st, c);
        }
        t.inputs = withBytes("w + w8", B.w + B.fp8Cache, "weight bytes (+ FP8 weight and transpose copies)");
        t.source = zeroSource + "; NVIDIA Transformer Engine FP8 weight caches";
        t.anchor = "model-states";
        out.push_back(std::move(t));
    }
    // Gradients.
    {
        Term t = makeTerm("memory.gradients", TermGroup::Memory, "Gradients", mem.gradients, "B");
        if (c.offOpt) {
            t.formula = "0 (gradients reduced into host memory: ZeRO-Offload)";
            t.expression = "0";
        } else {
            const bool g32 = B.grOpt > 0 && (c.stepGrads == 0 || c.stepPhase);
            const std::string g32Text = c.shardOptimizer ? "g32·(Ψ_d/N_d + Ψ_e/N_e)" : "g32·(Ψ_d + Ψ_e)";
            t.formula = std::string(c.shardGrads ? "g·(Ψ_d/N_d + Ψ_e/N_e)" : "g·(Ψ_d + Ψ_e)") + (g32 ? " + " + g32Text : "");
            if (c.stepGrads > 0)
                t.formula += c.stepPhase
                    ? " (peak phase: the optimizer step, where the fp32 main gradients exist; activations are freed)"
                    : " (the fp32 main gradients, " + g32Text + " = " + exprNumber(c.stepGrads)
                        + " B, exist only at the optimizer step, when the activations are freed: below this peak's "
                        + exprNumber(c.backwardTransient) + " B of activations and gathered units)";
            t.expression = shardedText(B.gr, c.shardGrads, st, c);
            if (g32)
                t.expression += "+" + shardedText(B.grOpt, c.shardOptimizer, st, c);
            if (c.deepspeed && s.parallelism.sharding == Sharding::Zero3) {
                t.formula += " − g·(Ψ_d/N_d + Ψ_e/N_e) (DeepSpeed's estimator counts fp16 grads as transient)";
                t.expression += "-" + shardedText(B.gr, true, st, c);
            }
        }
        t.inputs = withBytes("g", B.gr, "gradient bytes per parameter");
        if (B.grOpt > 0)
            t.inputs.push_back({ "g32", B.grOpt, "B/parameter", "fp32 gradient partition sharded with the optimizer" });
        t.source = zeroSource + "; Megatron-LM docs/source/api-guide/dist_optimizer.md"
            + (c.stepGrads > 0 ? "; megatron/core/optimizer/optimizer.py (_copy_model_grads_to_main_grads, zero_grad)" : "");
        t.anchor = "model-states";
        out.push_back(std::move(t));
    }
    // Optimizer states.
    {
        Term t = makeTerm("memory.optimizer_states", TermGroup::Memory, "Optimizer states", mem.optimizerStates, "B");
        if (c.offOpt) {
            t.formula = "0 (master weights and moments on the host or NVMe)";
            t.expression = "0";
        } else {
            t.formula = c.shardOptimizer ? "(m + o)·(Ψ_d/N_d + Ψ_e/N_e)" : "(m + o)·(Ψ_d + Ψ_e)";
            t.expression = shardedText(B.mw + B.os, c.shardOptimizer, st, c);
        }
        t.inputs = withBytes("m + o", B.mw + B.os, "fp32 master weights + optimizer moments per parameter");
        t.source = zeroSource;
        t.anchor = "model-states";
        out.push_back(std::move(t));
    }
    // Activations.
    {
        const LayerActivationText layer = layerActivationText(s, sh);
        Term t = makeTerm("memory.activations", TermGroup::Memory, "Activations", mem.activations, "B");
        const bool gpipe = s.parallelism.schedule == PpSchedule::GPipe;
        const bool full = s.training.recompute == Recompute::Full && st.layers > 0;
        const std::string other = !st.head ? ""
            : c.lossPhase ? substitute(" (a layer's backward: {} B of working set and gathered parameters)",
                                       { c.workingSet + c.gatheredBwd })
                          : substitute(" (the loss: {} B of logits and gathered parameters)", { c.loss + c.gatheredLoss });
        const std::string phase = c.lossPhase
            ? "; peak phase: the loss, at the end of the last forward" + other
            : std::string("; peak phase: a layer's backward") + (full ? ", with its re-materialised layer" : "") + other;
        t.formula = "n·(L·A + L_moe·A_moe)" + std::string(st.embedding ? " + n·A_emb" : "")
            + (st.head ? (gpipe ? " + m·A_in" : " + A_in") : "")
            + (c.lossPhase ? (gpipe ? " + m·A_loss" : " + A_loss") : (full ? " + A_full + A_moe,full + 2·G_tp" : ""))
            + phase + "; " + layer.formula;
        std::string e = substitute("{}*({}*(", { c.inflight, double(st.layers) }) + layer.expression
            + substitute(")+{}*{})", { double(st.moeLayers), sh.moeLayerExtra });
        if (st.embedding)
            e += substitute("+{}*{}", { c.inflight, sh.embeddingActivation });
        if (st.head)
            e += substitute("+{}*{}", { sh.headInputs, c.headMb });
        if (c.lossPhase)
            e += substitute("+{}*{}", { sh.lossPeak, c.headMb });
        else if (full)
            e += substitute("+{}+{}+2*{}", { sh.layerActivationFull, st.moeLayers > 0 ? sh.moeLayerExtraFull : 0.0,
                                             sh.tpGatheredInput });
        t.expression = e;
        const auto& par = s.parallelism;
        t.inputs = {
            { "n", c.inflight, "micro-batches", "micro-batches in flight on this stage at its peak (pipeline schedule)" },
            { "L", double(st.layers), "layers", "transformer layers on this stage" },
            { "s", double(s.training.seqLen), "tokens", "sequence length" },
            { "b", double(s.training.microBatch), "sequences", "micro-batch" },
            { "c", double(par.cp), "", "context-parallel degree (splits the sequence)" },
            { "t", double(par.tp), "", "tensor-parallel degree" },
            { "r", par.sequenceParallel && par.tp > 1 ? double(par.tp) : 1.0, "",
              "sequence-parallel divisor of the replicated parts (t with SP, else 1)" },
            { "h", double(s.model.hidden), "", "hidden size" },
            { "a", double(s.model.heads), "", "attention heads" },
            { "q", sh.counts.qSize, "", "query width (heads × head dim)" },
            { "kv", sh.counts.kvSize * std::max<double>(std::max(1, s.model.kvHeads), par.tp) / std::max(1, s.model.kvHeads),
              "", "key/value width a TP rank keeps (GQA: kv heads × head dim, whole heads per rank)" },
            { "f", double(s.model.ffnHidden), "", "MLP hidden size" },
            { "k", s.model.mlp == Mlp::SwiGlu ? 3.0 : 2.0, "", "stored MLP matrices (3 for SwiGLU: gate, up, product)" },
            { "β", sh.bytes.act, "B", "bytes per activation element" },
            { "β8", sh.linearInputBytes, "B",
              "bytes per saved linear-layer input element (1: Transformer Engine keeps the FP8 cast; else β)" },
            { "δ", s.training.dropout ? 1.0 : 0.0, "B", "dropout mask bytes per element (0 without dropout)" },
            { "A_moe", sh.moeLayerExtra, "B", "extra bytes of an MoE layer (top-k copies × capacity factor, router logits)" },
            { "L_moe", double(st.moeLayers), "layers", "MoE layers on this stage" },
        };
        if (st.embedding)
            t.inputs.push_back({ "A_emb", sh.embeddingActivation, "B", "token ids (8 B) and embedding dropout mask, ÷t" });
        if (st.head)
            t.inputs.push_back({ "A_in", sh.headInputs, "B",
                                 "final-norm and output-layer inputs, 2·β·T·h/r + G_tp (PyTorch TP saves the gathered "
                                 "input of the output layer)" });
        if (st.head || full)
            t.inputs.push_back({ "G_tp", sh.tpGatheredInput, "B",
                                 "PyTorch TP with sequence parallelism: a column-parallel linear's input saved gathered, "
                                 "β·T·h·(1 − 1/t) beyond its shard (0 otherwise)" });
        if (c.lossPhase)
            t.inputs.push_back({ "A_loss", sh.lossPeak, "B",
                                 "logits and loss intermediates at the loss peak, ℓ·T·V/t with ℓ = "
                                     + exprNumber(sh.logitBytes)
                                     + " B per local logit (framework profile: logit_bytes, logit_bytes_tp when t > 1)" });
        else if (full)
            t.inputs.push_back({ "A_full", sh.layerActivationFull, "B",
                                 "the layer re-materialised for its backward (full recompute): every activation it "
                                 "stores without recompute" });
        t.source = "Korthikanti et al., Reducing Activation Recomputation in Large Transformer Models (MLSys'23) "
                   "Eq. 2 and Table 2, generalised; Dao et al., FlashAttention (NeurIPS'22) §3.1; Narayanan et al. "
                   "(SC'21) §2.2 (micro-batches in flight); megatron/core/tensor_parallel/cross_entropy.py, "
                   "torch/distributed/tensor/parallel/loss.py (loss peak); torch/utils/checkpoint.py (re-materialised "
                   "layer)";
        if (c.stepPhase) {
            t.formula = "0 (peak phase: the optimizer step, after backward has freed them; with the gathered units "
                        "they peak at " + exprNumber(c.backwardTransient) + " B with slack, less than the fp32 main "
                        "gradients made at the step)";
            t.expression = "0";
        }
        t.anchor = "activations";
        out.push_back(std::move(t));
    }
    // Gathered parameters.
    {
        Term t = makeTerm("memory.gathered_parameters", TermGroup::Memory, "Gathered parameters", mem.gatheredParameters, "B");
        const double U = sh.unitParams;
        t.inputs = { { "U", U, "parameters", "largest ZeRO-3/FSDP unit on one GPU (a layer, or the FSDP root)" },
                     { "w", B.w, "B/parameter", "weight bytes" }, { "g", B.gr, "B/parameter", "gradient bytes" } };
        switch (s.parallelism.sharding) {
        case Sharding::Zero3:
            if (c.deepspeed) {
                t.formula = "4·U (DeepSpeed estimator: fp16 parameters and gradients of the largest layer)";
                t.expression = substitute("4*{}", { U });
            } else {
                t.formula = "w·U + w·min(U, P) + g·U (current unit, prefetch bucket, unsharded gradients)";
                t.expression = substitute("{}*{}+{}*{}+{}*{}", { B.w, U, B.w, std::min(U, kDsPrefetchBucket), B.gr, U });
                t.inputs.push_back({ "P", kDsPrefetchBucket, "parameters", "stage3_prefetch_bucket_size" });
            }
            t.source = "deepspeed/runtime/zero/stage3.py; deepspeed/runtime/zero/config.py";
            break;
        case Sharding::FsdpFull:
        case Sharding::FsdpHybrid:
            if (c.pytorch && s.parallelism.pp > 1) {
                t.inputs.push_back({ "r", c.fsdpReduce, "B/parameter", "bytes of FSDP's reduce-scatter input (reduce dtype)" });
                t.formula = "(w + r)·(Ψ_d + Ψ_e) (pipeline stages stay unsharded all step, with their gradients "
                            "accumulated unsharded in the reduce dtype until the last micro-batch)";
                t.expression = substitute("({}+{})*({}+{})", { B.w, c.fsdpReduce, st.dense, st.expert });
                t.inputs.push_back({ "Ψ_d + Ψ_e", st.dense + st.expert, "parameters", "this stage's parameters on one TP rank" });
                t.source = "torchtitan/parallelisms/parallelize_llama.py (apply_fsdp: reshard_after_forward=False with "
                           "PP); torch/distributed/pipelining/stage.py (backward_maybe_with_nosync); "
                           "torch/distributed/fsdp/_fully_shard/_fsdp_param.py (to_accumulated_grad_if_needed)";
            } else {
                const double Ul = sh.layerUnitParams;
                t.inputs = { { "U_l", Ul, "parameters", "one transformer layer on one GPU (an FSDP unit)" },
                             { "R", c.root, "parameters", "the FSDP root on this stage: embedding and output layer, ÷t" },
                             { "H", c.head, "parameters", "the output layer's weight, ÷t (its gradient lives all backward)" },
                             { "w", B.w, "B/parameter", "weight bytes" },
                             { "r", c.fsdpReduce, "B/parameter", "bytes of FSDP's reduce-scatter input (reduce dtype)" } };
                if (c.lossPhase) {
                    t.formula = "w·(R + U_l) (at the loss: the root, not resharded after forward, and the last block)";
                    t.expression = substitute("{}*({}+{})", { B.w, c.root, Ul });
                } else {
                    t.formula = "w·(R + H) + 3·w·U_l + r·U_l (in backward: the root and the output layer's gradient; "
                                "the layer being differentiated, the prefetched one, its unsharded gradients; the "
                                "previous layer's reduce-scatter input in the reduce dtype)";
                    t.expression = substitute("{}*({}+{})+3*{}*{}+{}*{}", { B.w, c.root, c.head, B.w, Ul, c.fsdpReduce, Ul });
                }
                t.source = "torch/distributed/fsdp/_fully_shard/_fully_shard.py (the root is not resharded after "
                           "forward); _fsdp_param_group.py (post_backward: reduce_scatter_state held until the next "
                           "unit's); _fsdp_collectives.py (foreach_reduce: reduce_scatter_input in reduce_dtype); "
                           "torchtitan/parallelisms/parallelize_llama.py (apply_fsdp)";
            }
            break;
        case Sharding::FsdpGradOp:
            t.formula = "w·(Ψ_d + Ψ_e) + w·U (SHARD_GRAD_OP keeps every unit gathered until backward)";
            t.expression = substitute("{}*({}+{})+{}*{}", { B.w, st.dense, st.expert, B.w, U });
            t.source = "torch/distributed/fsdp/api.py (ShardingStrategy.SHARD_GRAD_OP)";
            break;
        default:
            t.formula = "0 (parameters are not sharded)";
            t.expression = "0";
            t.source = zeroSource;
            break;
        }
        if (c.stepPhase) {
            t.formula = "0 (peak phase: the optimizer step, no unit gathered)";
            t.expression = "0";
        }
        t.anchor = "gathered-parameters";
        out.push_back(std::move(t));
    }
    // Communication buffers (the framework's buckets here; evaluate adds NCCL's buffers to this term).
    {
        Term t = makeTerm("memory.communication_buffers", TermGroup::Memory, "Communication buffers", mem.communicationBuffers, "B");
        t.formula = "B_buckets (framework gradient/parameter buckets)";
        t.expression = exprNumber(c.buckets);
        t.inputs = { { "B_buckets", c.buckets, "B",
                       "DDP buckets (r·Ψ: every gradient), DeepSpeed 2 reduce + 1 all-gather buckets, or 0" } };
        t.source = "torch/nn/parallel/distributed.py (bucket_cap_mb = 25); deepspeed/runtime/zero/config.py "
                   "(reduce_bucket_size, allgather_bucket_size = 5e8)";
        t.anchor = "communication-buffers";
        out.push_back(std::move(t));
    }
    // Framework overhead.
    {
        Term t = makeTerm("memory.framework_overhead", TermGroup::Memory, "Framework overhead", mem.frameworkOverhead, "B");
        t.formula = std::string("C_cuda + σ·(activations + gathered + buckets)")
            + (c.cachedLogits > 0 ? " + β·T·V/t (the bf16 logits' block, cached but too small for the loss's fp32 "
                                    "gradients)"
                                  : "")
            + " + M_fw + misc";
        t.expression = substitute("{}+{}*({}+{}+{})", { kCudaContextBytes, s.profile.allocatorSlack, mem.activations,
                                                        mem.gatheredParameters, mem.communicationBuffers });
        if (c.cachedLogits > 0)
            t.expression += substitute("+{}*{}*{}", { sh.bytes.act, sh.localLogits, c.headMb });
        t.expression += substitute("+{}+{}", { s.profile.memoryOverheadBytes, s.cluster.miscBytes });
        t.inputs = { { "C_cuda", kCudaContextBytes, "B", "CUDA context, cuBLAS/cuDNN workspaces, kernel images" },
                     { "σ", s.profile.allocatorSlack, "", "allocator slack on transient memory (framework profile)" },
                     { "M_fw", s.profile.memoryOverheadBytes, "B", "framework memory besides the model (profile)" },
                     { "misc", s.cluster.miscBytes, "B", "the scenario's reserve (cluster.misc_bytes)" } };
        if (c.cachedLogits > 0)
            t.inputs.push_back({ "T·V/t", sh.localLogits, "logits", "logits of one micro-batch on one TP rank" });
        t.source = "Megatron-LM megatron/training/theoretical_memory_usage.py (1.05 × activations); "
                   "PyTorch CUDA semantics (context and caching allocator); c10/cuda/CUDACachingAllocator.cpp "
                   "(segments never merge; a request takes a free block at least its size)";
        t.anchor = "framework-overhead";
        out.push_back(std::move(t));
    }
}
} // namespace

MemoryBreakdown stageMemory(const Scenario& s, const Shape& sh, const StageShape& st, int stageIndex, const ShardDegrees& l,
                            int64_t m, double* hostPerGpu, double* nvmePerGpu, std::vector<Term>* terms)
{
    MemoryBreakdown mem;
    const auto& B = sh.bytes;
    const Sharding shard = s.parallelism.sharding;
    const bool ds = s.training.accounting == Accounting::DeepSpeed;
    // Sharding degree: the dense data-parallel group folds in CP (Megatron-LM distributed optimizer);
    // experts shard over the expert data-parallel group dp·cp/ep; fsdp-hybrid shards inside its group only.
    const double nDense = l.shardGroup;
    const double nExpert = std::min(l.expertDp, l.shardGroup);
    auto sharded = [&](bool on, double bytesPerParam) {
        return bytesPerParam * (on ? st.dense / nDense + st.expert / nExpert : st.dense + st.expert);
    };
    const double psi = st.dense + st.expert;
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool offParam = s.offload.parameters != OffloadTarget::None;
    const bool sp = shardsParams(shard), sg = shardsGrads(shard), so = shardsOptimizer(shard);

    // Model states (ZeRO paper §5): each component divided by the degree that shards it.
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
        // the fp16 grads are transient, inside the 4·largest-layer term (deepspeed/runtime/zero/stage3.py).
        if (!offOpt)
            mem.gradients -= sharded(true, B.gr);
    }

    // Transient gathered parameters and unsharded gradients (torch/distributed/fsdp/api.py;
    // deepspeed/runtime/zero/stage3.py), in each of the two phases that can hold the peak: the loss (end of a
    // forward) and a layer's backward.
    const double U = sh.unitParams;
    const bool ptStack = pytorchStack(s.training.framework);
    // FSDP reduce-scatters in the reduce dtype: torchtitan's mixed_precision_reduce is float32, its only choice
    // (torchtitan/config_manager.py); FSDP2 up-casts the unsharded gradients into it (torch/distributed/fsdp/
    // _fully_shard/_fsdp_collectives.py, foreach_reduce: reduce_scatter_input in reduce_dtype).
    const double rFsdp = ptStack ? kFsdpReduceBytes : B.reduce;
    // The FSDP root on this stage (its embedding and output layer, per TP rank) and the output layer's weight, whose
    // gradient (the tied embedding's when tied) is made at the start of backward.
    const auto& cnt = sh.counts;
    const double outputWeight = cnt.head > 0 ? cnt.head : cnt.embedding;
    const bool ownOutput = st.head && (cnt.head > 0 || !st.embedding); // tied, one stage: the embedding is the output
    const double root = ((st.embedding ? cnt.embedding : 0.0) + (ownOutput ? outputWeight : 0.0)) / sh.tp;
    const double head = st.head ? outputWeight / sh.tp : 0.0;
    double gatheredLoss = 0, gatheredBwd = 0;
    switch (shard) {
    case Sharding::Zero3:
        if (ds)
            gatheredBwd = 4.0 * U; // 2 B fp16 params + 2 B fp16 grads of the largest layer
        else // current unit + stage3_prefetch_bucket_size elements prefetched + the unit's unsharded grads
            gatheredBwd = B.w * U + B.w * std::min(U, kDsPrefetchBucket) + B.gr * U;
        gatheredLoss = gatheredBwd;
        break;
    case Sharding::FsdpFull:
    case Sharding::FsdpHybrid:
        if (ptStack && s.parallelism.pp > 1) {
            // torchtitan with PP: reshard_after_forward=False (torchtitan/parallelisms/parallelize_llama.py,
            // apply_fsdp), and torch.distributed.pipelining keeps gradient sync off until the last micro-batch
            // (torch/distributed/pipelining/stage.py, backward_maybe_with_nosync): FSDP2 accumulates the unsharded
            // gradients in the reduce dtype (_fsdp_param.py, to_accumulated_grad_if_needed). The whole stage stays
            // unsharded, with its fp32 gradients, for the whole step.
            gatheredBwd = (B.w + rFsdp) * psi;
            gatheredLoss = gatheredBwd;
        } else {
            // Units: each layer (U_l), and the root (embedding and output layer, R), which FSDP does not reshard after
            // forward (FSDP2 fully_shard: "the root FSDP state has its value specially set to False",
            // _fully_shard.py; FSDP1 _runtime_utils.py _post_forward_reshard: not for the root) and which reduces
            // its gradients last, so the output layer's gradient (H) is held through the whole backward.
            // Backward: + the layer being differentiated, the prefetched next one, its unsharded gradients, and the
            // previous layer's reduce-scatter input, held until this layer's post_backward (_fsdp_param_group.py,
            // post_backward: comm_ctx.reduce_scatter_state). End of forward: + the last block, which torchtitan keeps
            // unsharded (apply_fsdp: reshard_after_forward=False for it).
            const double Ul = sh.layerUnitParams;
            gatheredBwd = B.w * (root + head) + kFsdpGatheredUnits * B.w * Ul + rFsdp * Ul;
            gatheredLoss = B.w * (root + Ul);
        }
        break;
    case Sharding::FsdpGradOp:
        // SHARD_GRAD_OP: every unit stays unsharded from its forward to the end of backward, + one unit's grads
        gatheredBwd = B.w * psi + B.w * U;
        gatheredLoss = gatheredBwd;
        break;
    default: break;
    }

    // Communication buffers: framework buckets + NCCL channel buffers.
    double buckets = 0;
    const bool megatron = s.training.accounting == Accounting::Megatron;
    // Megatron-Core's DDP and distributed optimizer reduce their contiguous grad buffer in place
    // (megatron/core/distributed/param_and_grad_buffer.py): no bucket copies, with Megatron's accounting or on the
    // Megatron framework unless DeepSpeed's accounting is asked for.
    const bool inPlaceGrads = megatron || (s.training.framework == Framework::Megatron && !ds);
    switch (shard) {
    case Sharding::Ddp:
        // PyTorch DDP copies gradients into buckets (gradient_as_bucket_view=False by default,
        // torch/nn/parallel/distributed.py). A single data-parallel rank (dp·cp = 1) runs without DDP: no buckets.
        buckets = inPlaceGrads || l.dpcp <= 1 ? 0.0 : B.reduce * psi; // every gradient, however many buckets
        break;
    case Sharding::Zero1:
    case Sharding::Zero2:
        // DeepSpeed reduce_bucket_size and allgather_bucket_size (5e8 elements each); the reduce bucket is double
        // with overlap_comm, which the time model assumes (deepspeed/runtime/zero/config.py).
        if (!inPlaceGrads)
            buckets = 2 * std::min(kDsReduceBucket, psi) * B.reduce + std::min(kDsAllgatherBucket, psi) * B.w;
        break;
    case Sharding::Zero3:
        buckets = 2 * std::min(kDsReduceBucket, psi) * B.reduce; // overlap_comm is on by default at stage 3
        break;
    default: break;
    }
    mem.communicationBuffers = buckets;

    // Activations (Korthikanti et al. §4): in-flight micro-batches × stored bytes per layer, + embedding and output
    // stages.
    const double inflight = inFlight(s, stageIndex, m);
    const double headMb = s.parallelism.schedule == PpSchedule::GPipe ? static_cast<double>(m) : 1.0;
    double stored = inflight * (st.layers * sh.layerActivation + st.moeLayers * sh.moeLayerExtra);
    if (st.embedding)
        stored += inflight * sh.embeddingActivation;
    if (st.head)
        stored += sh.headInputs * headMb;
    // The peak is the larger of two phases that never coexist (docs/model.md §peak-phase): the loss, at the end of
    // the last forward, with the logits and the loss intermediates; and a layer's backward, with full recompute the
    // re-materialised layer (the loss's buffers are freed before the first layer's backward starts).
    const double loss = st.head ? sh.lossPeak * headMb : 0.0;
    const double workingSet = s.training.recompute == Recompute::Full && st.layers > 0
        ? sh.layerActivationFull + (st.moeLayers > 0 ? sh.moeLayerExtraFull : 0.0) + 2 * sh.tpGatheredInput
        : 0.0;
    const bool lossPhase = st.head && loss + gatheredLoss > workingSet + gatheredBwd;
    mem.activations = stored + (lossPhase ? loss : workingSet);
    mem.gatheredParameters = lossPhase ? gatheredLoss : gatheredBwd;
    // Megatron's fp16 optimizer makes its fp32 main gradients at the step (main_param.grad = main_grad.float(),
    // megatron/core/optimizer/optimizer.py _copy_model_grads_to_main_grads; the distributed optimizer's shard the
    // same, distrib_optimizer.py) and drops them at the next step's zero_grad(set_to_none=True): they never coexist
    // with activations. The optimizer step is a third phase, with the model states and those gradients only.
    const double stepGrads = megatron && s.training.precision == Precision::Fp16Mixed && !offOpt ? sharded(so, B.grOpt) : 0.0;
    mem.gradients -= stepGrads;
    const double backwardTransient = (1 + s.profile.allocatorSlack) * (mem.activations + mem.gatheredParameters);
    const bool stepPhase = stepGrads > backwardTransient;
    if (stepPhase) {
        mem.gradients += stepGrads;
        mem.activations = 0;
        mem.gatheredParameters = 0;
    }
    // The caching allocator never merges blocks of separate cudaMalloc segments and serves a request from a free block
    // at least its size (c10/cuda/CUDACachingAllocator.cpp): a PyTorch loss that up-casts (more than the logits and one
    // gradient of their dtype per logit, ℓ > 2β) frees the bf16 logits' block before its fp32 gradients ask for blocks
    // twice that size, so it stays reserved, unused, at the loss peak.
    const double cachedLogits = lossPhase && !stepPhase && ptStack && sh.logitBytes > 2 * B.act ? B.act * sh.localLogits * headMb : 0.0;

    const double slack = s.profile.allocatorSlack * (mem.activations + mem.gatheredParameters + mem.communicationBuffers)
        + cachedLogits;
    mem.frameworkOverhead = kCudaContextBytes + slack + s.profile.memoryOverheadBytes + s.cluster.miscBytes;
    mem.reservedPeak = mem.total() - kCudaContextBytes - s.cluster.miscBytes;
    mem.allocatedPeak = mem.reservedPeak - slack;
    if (hostPerGpu)
        *hostPerGpu = host;
    if (nvmePerGpu)
        *nvmePerGpu = nvme;
    if (terms)
        addMemoryTerms(s, sh, st, mem,
                       { nDense, nExpert, inflight, buckets, rFsdp, root, head, headMb, loss, workingSet, gatheredLoss,
                         gatheredBwd, cachedLogits, stepGrads, backwardTransient,
                         sp, sg, so, offOpt, offParam, ds, lossPhase, stepPhase, ptStack, m },
                       *terms);
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

bool candidatesFit(const Scenario& s, const Shape& shape, const PeakCandidates& c, const ShardDegrees& l, int64_t m,
                   double budget)
{
    for (int k = 0; k < c.count; ++k)
        if (stageMemory(s, shape, c.shape[k], c.index[k], l, m, nullptr, nullptr).total() > budget)
            return false;
    return true;
}

/// NCCL buffer bytes of one communicator (see kNcclBuffSize).
double ncclCommunicatorBytes(int channels, int peers) { return channels * peers * kNcclProtocols * kNcclBuffSize; }

double ncclPointToPointBytes(int peers) { return 2.0 * peers * kNcclBuffSize; }

/// DeepSpeed ZeRO-3 estimator host memory per node (deepspeed/runtime/zero/stage3.py, zero_init = True).
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
