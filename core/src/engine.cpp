// SPDX-License-Identifier: GPL-3.0-or-later
// Shape of a layout and the per-GPU memory model (ZeRO paper §5; Korthikanti et al. 2022 §4; docs/model.md §memory).
#include "engine.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace shardscope::core::detail {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
// DeepSpeed estimators' additional_buffer_factor (deepspeed/runtime/zero/stage3.py, stage_1_and_2.py).
constexpr double kDsBufferFactor = 1.5;
// FSDP BACKWARD_PRE (torch/distributed/fsdp/api.py): the current unit's parameters, the prefetched next unit's and
// the current unit's unsharded gradients are live at once.
constexpr double kFsdpGatheredUnits = 3;
// Layers reloaded ahead of their backward under activation offload: Transformer Engine pytorch/cpu_offload.py,
// AsyncDoubleBufferGroupOffloadHandler num_prefetch_group = 1.
constexpr double kOffloadPrefetchLayers = 1;
// torchtitan's FSDP2 reduce dtype, float32 (torchtitan/config_manager.py, --training.mixed_precision_reduce).
constexpr double kFsdpReduceBytes = 4;
// NCCL_BUFFSIZE default 4 MiB per protocol buffer; ≈ channels × peers × 3 protocols × buffsize per
// communicator (NCCL user guide, environment variables: NCCL_BUFFSIZE).
constexpr double kNcclBuffSize = 4 * kMiB;
constexpr double kNcclProtocols = 3;
/// MXFP8 scale bytes per element: one 8-bit E8M0 scale per block of 32 elements (OCP Microscaling Formats (MX)
/// Specification v1.0, §5.3 Table 1: MXFP8 block size 32, scale E8M0).
constexpr double kMxScaleBytesPerElement = 1.0 / 32;
// Adam keeps two moments per parameter, exp_avg and exp_avg_sq (Kingma & Ba 2015, Algorithm 1).
constexpr double kAdamMoments = 2;
// A 16-bit master weight: the fp32 value's low 16 bits beside the bf16 weight, or an fp16 copy (2 B).
constexpr double kHalfMasterBytes = 2;

double optimizerStateBytes(Optimizer o, bool halfStates)
{
    switch (o) {
    case Optimizer::AdamW: return halfStates ? 4 : 8; // two fp32 moments; bf16 ones in pure bf16 (ZeRO §3.1)
    case Optimizer::AdamW8bit: return 2; // bitsandbytes 8-bit moments (Dettmers et al., ICLR'22)
    case Optimizer::SgdMomentum: return halfStates ? 2 : 4; // one momentum buffer
    case Optimizer::Adafactor: return 0; // factored second moment: O(rows + cols), negligible (Shazeer & Stern 2018)
    }
    return 8;
}

// SHARD_GRAD_OP shards the parameters too, outside forward and backward ("parameters are sharded outside
// computation", torch/distributed/fsdp/api.py ShardingStrategy): their unsharded copy is the gathered term.
bool shardsParams(Sharding s)
{
    return s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpHybrid || s == Sharding::FsdpGradOp;
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
    case Precision::Mxfp8:
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
        // FP8 primary weights (Megatron --fp8-param-gather; Transformer Engine fp8_model_init, its Float8Tensor keeps
        // the FP8 data and its transpose): the FP8 copies replace the bf16 weight instead of sitting beside it.
        if (isFp8(t.precision) && !pytorchStack(t.framework) && !t.fp8ParamGather)
            b.fp8Cache = 2 + (t.precision == Precision::Mxfp8 ? 2 * kMxScaleBytesPerElement : 0.0);
        // training.grad_reduce_dtype bf16: Megatron's --grad-reduce-in-bf16 gives the grad buffer the parameters'
        // dtype (megatron/core/distributed/distributed_data_parallel_config.py, grad_reduce_in_fp32 = False;
        // param_and_grad_buffer.py); DeepSpeed keeps its fp16/bf16 gradients and fp32 partition (2 + 4 above).
        if (t.gradReduce == GradReduce::Bf16) {
            if (!ds)
                b.gr = 2;
            b.reduce = 2;
        }
        // fp32: the grad buffer accumulates and reduces in fp32 (Megatron accumulate_allreduce_grads_in_fp32;
        // DeepSpeed communication_data_type fp32, deepspeed/runtime/engine.py); Megatron fp16 keeps its fp16 grads
        // with fp32 main grads at the step (above).
        if (t.gradReduce == GradReduce::Fp32) {
            if (!ds && !(mg && t.precision == Precision::Fp16Mixed))
                b.gr = 4;
            b.reduce = 4;
        }
        // training.master_weights: the fp32 master weight as the 16 bits the bf16 weight lacks (Megatron-Core
        // store_param_remainders, megatron/core/optimizer/distrib_optimizer.py: an int16 master_param; NeMo's
        // distributed_fused_adam on bf16, nlp/models/language_modeling/megatron_base_model.py), or fp16 main params
        // (Megatron --main-params-dtype fp16): 2 B instead of 4.
        if (t.masterWeights != MasterWeights::Fp32)
            b.mw = kHalfMasterBytes;
        // training.moments_dtype: Adam's two moments in a 2-byte or 1-byte dtype (Megatron --exp-avg-dtype and
        // --exp-avg-sq-dtype, Transformer Engine FusedAdam exp_avg_dtype / exp_avg_sq_dtype).
        if (t.momentsDtype != MomentsDtype::Fp32 && t.optimizer == Optimizer::AdamW)
            b.os = kAdamMoments * (t.momentsDtype == MomentsDtype::Fp8 ? 1 : 2);
        break;
    }
    return b;
}

int stageLayers(const Scenario& s, const Shape& shape, int i)
{
    if (shape.chunks.empty())
        return layersOnStage(s.model.layers, shape.pp, i);
    int n = 0;
    for (size_t j = size_t(i); j < shape.chunks.size(); j += size_t(shape.pp))
        n += shape.chunks[j].layers;
    return n;
}

/// One layer's stored activation bytes per micro-batch, computed once for the value (makeShape, Fast) and for the
/// activations term (Expr): Korthikanti et al. 2022 Eq. 2 and Table 2, generalised to GQA, SwiGLU, FlashAttention,
/// SP, CP and FP8 saved inputs (docs/model.md §activations). Needs sh.counts, sh.bytes and sh.linearInputBytes.
template <class X> LayerActivationOf<X> layerActivation(const Scenario& s, const Shape& sh)
{
    const ModelSpec& m = s.model;
    const Parallelism& par = s.parallelism;
    const double g = std::max(1, m.kvHeads);
    const bool sp = par.sequenceParallel && par.tp > 1;
    const X T = X::named("T",
        X::input("s", double(s.training.seqLen), "tokens", "sequence length")
            / X::input("c", double(par.cp), "", "context-parallel degree (splits the sequence)")
            * X::input("b", double(s.training.microBatch), "sequences", "micro-batch"),
        "tokens", "tokens per micro-batch on one CP rank");
    const X h = X::input("h", double(m.hidden), "", "hidden size");
    const X a = X::input("a", double(m.heads), "", "attention heads");
    const X q = X::input("q", sh.counts.qSize, "", "query width (heads × head dim)");
    // GQA with fewer KV heads than TP ranks: each rank keeps a whole (replicated) KV head.
    const X kv = X::input("kv", sh.counts.kvSize * std::max<double>(g, par.tp) / g, "",
        "key/value width a TP rank keeps (GQA: kv heads × head dim, whole heads per rank)");
    const X f = X::input("f", double(m.ffnHidden), "", "MLP hidden size");
    // gated: gate, up, product; plain: activation input, fc2 input
    const X k
        = X::input("k", m.mlp == Mlp::SwiGlu ? 3.0 : 2.0, "", "stored MLP matrices (3 for SwiGLU: gate, up, product)");
    const X beta = X::input("β", sh.bytes.act, "B", "bytes per activation element");
    const X beta8 = X::input("β8", sh.linearInputBytes, "B",
        "bytes per saved linear-layer input element (1: Transformer Engine keeps the FP8 cast; else β)");
    // dropout masks: 1 byte per element (Korthikanti §4.1)
    const X delta
        = X::input("δ", s.training.dropout ? 1.0 : 0.0, "B", "dropout mask bytes per element (0 without dropout)");
    const X t = X::input("t", double(par.tp), "", "tensor-parallel degree");
    const X r = X::input(
        "r", sp ? double(par.tp) : 1.0, "", "sequence-parallel divisor of the replicated parts (t with SP, else 1)");
    const X one = X::constant(1), two = X::constant(2);
    // FlashAttention keeps the fp32 log-sum-exp, 4 bytes per head per token (Dao et al. 2022 §3.1).
    const X lse = X::constant(4);
    LayerActivationOf<X> out;
    // Replicated across TP ranks unless sequence parallel: two norm inputs (β), the QKV and fc1 inputs (β8), two
    // dropout masks (δ).
    const X replicated = T * h * (two * beta + two * beta8 + two * delta);
    // Split across TP ranks: Q, K, V and the out-projection input; the MLP's matrices, the last one fc2's input (β8).
    const X mlp = ((k - one) * beta + beta8) * f;
    out.denseMlp = T * mlp;
    // Core attention: eager keeps the softmax output (β·a·T·s) and with dropout its mask and output (Korthikanti
    // 5as²b); FlashAttention only the log-sum-exp.
    out.core = s.training.flashAttention
        ? lse * a * T
        : (beta + delta * (one + beta)) * a * T * X::input("s", double(s.training.seqLen), "tokens", "sequence length");
    out.full = replicated / r + T * ((beta + beta8) * q + two * beta * kv + mlp) / t + out.core / t;
    out.input = beta * T * h / r;
    switch (s.training.recompute) {
    case Recompute::None:
        out.stored = out.full;
        out.note = "";
        break;
    case Recompute::Selective: {
        const RecomputeModules mods = s.training.effectiveRecomputeModules();
        if (mods == RecomputeModules { .coreAttn = true }) { // Megatron's default: core attention (Table 2)
            out.stored = out.full - out.core / t;
            out.note = "selective: core attention recomputed";
            break;
        }
        // training.recompute_modules (megatron/core/transformer/transformer_config.py, recompute_modules): each named
        // module's saved activations are dropped. core_attn: the core-attention part; layernorm (output-discarding,
        // transformer_layer.py recompute_input_layernorm / recompute_pre_mlp_layernorm): the two norms' outputs, which
        // the QKV and fc1 linears saved (β8 each); mlp (checkpointed, transformer_layer.py recompute_mlp): a dense
        // MLP's inside, its input kept. moe, moe_act and shared_experts act on the MoE block (makeShape).
        out.stored = out.full;
        if (mods.coreAttn)
            out.stored = out.stored - out.core / t;
        if (mods.layernorm)
            out.stored = out.stored - two * beta8 * T * h / r;
        if (mods.mlp)
            out.stored = out.stored - out.denseMlp / t;
        out.note = "selective: the training.recompute_modules parts recomputed";
        break;
    }
    case Recompute::Full:
        out.stored = out.input;
        out.note = "full recompute: only the layer input is kept";
        break;
    case Recompute::SelectiveOp: {
        // torchtitan's op-level selective checkpointing (torchtitan/models/llama3/infra/parallelize.py, _save_list and
        // _get_custom_policy): the layer's input is kept; of the outputs of aten.mm every other one is saved (the 1st,
        // 3rd, ... in forward order wq, wk, wv, wo, w1, w3, w2: wq, wv, w1 and, gated, w2), and the attention kernel's
        // output with its fp32 log-sum-exp; everything else is recomputed in backward.
        X a0 = out.input + beta * T * (q + kv + f) / t;
        if (m.mlp == Mlp::SwiGlu)
            a0 = a0 + beta * T * h; // the 7th mm of a gated MLP: its local output
        out.stored = a0 + (beta * T * q + lse * a * T) / t;
        out.note = "op-level selective: layer input, every other matmul output, attention output and log-sum-exp kept";
        break;
    }
    }
    return out;
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
    sh.etp = m.isMoe() ? par.effectiveExpertTp() : par.tp;
    sh.v = par.schedule == PpSchedule::Interleaved ? std::max(1, par.virtualStages) : 1;
    if (!par.pipelineLayout.empty())
        sh.chunks = parsePipelineLayout(par.pipelineLayout).chunks;
    sh.maxStageLayers = 0;
    if (sh.chunks.empty()) // the even split: the last stages take one more when pp does not divide the layers
        sh.maxStageLayers = layersOnStage(m.layers, sh.pp, sh.pp - 1);
    else
        for (int i = 0; i < sh.pp; ++i)
            sh.maxStageLayers = std::max(sh.maxStageLayers, stageLayers(s, sh, i));

    const double t = par.tp;
    const double beta = sh.bytes.act;
    const double delta = s.training.dropout ? 1.0 : 0.0; // dropout masks: 1 byte per element (Korthikanti §4.1)
    const double seqLocal = static_cast<double>(s.training.seqLen) / par.cp;
    const double b = static_cast<double>(s.training.microBatch);
    const double T = seqLocal * b;
    sh.tokensPerMicroBatch = T;
    const double h = static_cast<double>(m.hidden);
    const bool sp = par.sequenceParallel && par.tp > 1;
    // Transformer Engine under FP8 saves each linear layer's input for its backward as the FP8 cast it fed the GEMM,
    // 1 byte (transformer_engine/pytorch/module/linear.py, layernorm_linear.py, layernorm_mlp.py: saved inputmat /
    // ln_out / fc2 input are the quantized tensors); torchao's Float8Linear (PyTorch stacks) saves the bf16 input
    // (torchao/float8/float8_linear.py).
    // MXFP8 saves the cast with its E8M0 block scales, 1 + 1/32 bytes (mxfp8_tensor.py, columnwise data + scale_inv).
    const double beta8 = isFp8(s.training.precision) && !pytorchStack(s.training.framework)
        ? 1.0 + (s.training.precision == Precision::Mxfp8 ? kMxScaleBytesPerElement : 0.0)
        : beta;
    sh.linearInputBytes = beta8;
    // Under FP8 a GEMM reads the weight's FP8 cast, 1 byte (+ 1/32 of E8M0 scales with MXFP8): Transformer Engine's
    // cached cast (transformer_engine/pytorch/module/grouped_linear.py: cast on a step's first micro-batch) and
    // torchao's per-forward cast (torchao/float8/float8_linear.py) alike; else the compute-precision weight, w bytes.
    sh.gemmWeightBytes = isFp8(s.training.precision)
        ? 1.0 + (s.training.precision == Precision::Mxfp8 ? kMxScaleBytesPerElement : 0.0)
        : sh.bytes.w;
    const double mlpMats = m.mlp == Mlp::SwiGlu ? 3.0 : 2.0; // gated: gate, up, product; plain: act in, fc2 in
    const double repDiv = sp ? t : 1.0;
    const bool full = s.training.recompute == Recompute::Full;

    // Per-layer stored activations, bytes per micro-batch (layerActivation).
    const LayerActivationOf<Fast> layer = layerActivation<Fast>(s, sh);
    const double denseMlpSplit = layer.denseMlp.value();
    sh.layerActivationFull = layer.full.value();
    sh.layerInput = layer.input.value();
    sh.layerActivation = layer.stored.value();
    sh.layerCore = layer.core.value() / t;

    if (m.isMoe()) {
        // MoE MLP: each token is copied to top-k experts (× capacity factor): expert input + intermediates,
        // plus shared experts and fp32 router logits (DERIVED from Korthikanti §4; docs/model.md §activations).
        const double fe = static_cast<double>(m.moe.expertFfnHidden);
        const double copies = m.moe.topK * m.moe.capacityFactor;
        const double mlpBytes = (mlpMats - 1) * beta + beta8; // per MLP-hidden element, fc2's input at β8
        // Per GPU the routed experts see T·k·cf/t token copies whatever expert_tp is: expert_tp·ep·expert_dp = t·dp·cp
        // GPUs share the stage's tokens, and an expert-TP group gathers its members' (megatron/core/transformer/moe/
        // token_dispatcher.py, MoEAlltoAllTokenDispatcher). The h-wide dispatched input is counted once per copy on a
        // GPU (exact with expert_tp = 1).
        const double routed = T * copies * (beta8 * h + mlpBytes * fe);
        const double shared = m.moe.sharedExperts * mlpBytes * T * fe;
        const double moeSplit = routed + shared;
        const double router = 4.0 * T * m.moe.experts / repDiv;
        sh.moeLayerExtraFull = (moeSplit - denseMlpSplit) / t + router;
        sh.moeLayerExtra = full ? 0.0 : sh.moeLayerExtraFull;
        const RecomputeModules mods = s.training.effectiveRecomputeModules();
        if (s.training.recompute == Recompute::Selective
            && (mods.moe || mods.moeAct || mods.sharedExperts || mods.mlp)) {
            // training.recompute_modules on the MoE block (megatron/core/transformer/moe/moe_layer.py,
            // moe_layer_recompute and shared_experts_recompute; experts.py, moe_act: the activation's output, fc2's
            // input, discarded): moe drops all of it, router logits included; moe_act the routed experts' fc2 inputs;
            // shared_experts the shared experts' inside. mlp drops a dense MLP's, which an MoE layer does not have.
            const double kept = mods.moe
                ? 0.0
                : (routed - (mods.moeAct ? T * copies * beta8 * fe : 0.0) + (mods.sharedExperts ? 0.0 : shared)) / t
                    + router;
            sh.moeLayerExtra = kept - (mods.mlp ? 0.0 : denseMlpSplit / t);
        }
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
    const double expertLayer = c.moeLayers > 0 ? c.routedExperts / (sh.ep * double(sh.etp)) + c.sharedExperts / t : 0.0;
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
    st.layers = stageLayers(s, shape, i);
    if (shape.chunks.empty()) {
        const int first = firstLayerOnStage(s.model.layers, pp, i);
        // Leading dense layers of an MoE model (DeepSeek-V3: first 3) land on the first stages.
        st.denseLayers = std::clamp(c.denseLayers - first, 0, st.layers);
        st.embedding = i == 0;
        st.head = i == pp - 1;
    } else {
        // A layout numbers layers in virtual-stage order (get_layer_offset in pipeline_parallel_layer_layout.py): the
        // leading dense layers are the first ones of that order, wherever their chunks run.
        int first = 0; // layers in the virtual stages before chunk j
        for (size_t j = 0; j < shape.chunks.size(); ++j) {
            const PipelineChunk& ch = shape.chunks[j];
            if (int(j % size_t(pp)) == i) {
                st.denseLayers += std::clamp(c.denseLayers - first, 0, ch.layers);
                st.embedding = st.embedding || ch.embedding;
                st.head = st.head || ch.loss;
            }
            first += ch.layers;
        }
    }
    st.moeLayers = st.layers - st.denseLayers;
    const double t = shape.tp;
    // Megatron-LM theoretical_memory_usage.py: TP-sharded blocks, replicated norms, routed experts ÷ (etp·ep), etp
    // being parallelism.expert_tp: --expert-tensor-parallel-size defaults to the TP size (megatron/training/
    // arguments.py, validate_args; megatron/core/parallel_state.py, initialize_model_parallel); shared experts ÷ tp;
    // the first stage holds the embedding, the last the output layer (a copy of the tied embedding when pp > 1).
    double tpSharded = st.layers * c.attention + st.denseLayers * c.denseMlp + st.moeLayers * c.sharedExperts;
    double replicated = st.layers * (c.layerNorms + c.attentionNorms) + st.moeLayers * c.router;
    if (st.embedding) {
        tpSharded += c.embedding;
        replicated += c.positions;
    }
    if (st.head) {
        tpSharded += c.head > 0 ? c.head : (pp > 1 && !st.embedding ? c.embedding : 0.0);
        replicated += c.finalNorm;
    }
    // Transformer Engine casts only the transformer layers' linear weights to FP8 (its Linear/LayerNormLinear/
    // GroupedLinear modules); the embedding and the output layer stay bf16 (megatron/core/models/gpt/gpt_model.py:
    // VocabParallelEmbedding and tensor_parallel.ColumnParallelLinear, not TE modules).
    st.denseLinear = (st.layers * c.attention + st.denseLayers * c.denseMlp + st.moeLayers * c.sharedExperts) / t;
    st.dense = tpSharded / t + replicated;
    st.expert = st.moeLayers * c.routedExperts / (shape.ep * double(shape.etp));
    return st;
}

namespace {
/// One stage's memory as figures of type X (Fast: the value; Expr: with its formula), and the choices it made.
template <class X> struct StageMemoryOf {
    X parameters, gradients, optimizerStates, activations, gathered, buckets, overhead;
    double host = 0, nvme = 0, slack = 0;
    double stepGrads = 0; ///< fp32 main gradients that exist only at the optimizer step (Megatron fp16)
    double backwardTransient = 0; ///< activations and gathered units (with slack) of the forward/backward peak
    double otherPhase = 0; ///< the last stage: activations and gathered units of the phase that is not the peak
    bool lossPhase = false; ///< the loss (end of forward) holds the peak, else a layer's backward
    bool stepPhase = false; ///< the optimizer step holds the peak (no activations then)
    bool workingSet = false; ///< a layer's backward with full recompute: the re-materialised layer counts
    bool cachedLogits = false; ///< the bf16 logits' block the allocator keeps reserved at the loss peak
};

} // namespace

template <class X>
StageStatesOf<X> stageStatesOf(const Scenario& s, const Shape& sh, const StageShape& st, const ShardDegrees& l)
{
    StageStatesOf<X> mem;
    const auto& B = sh.bytes;
    const Sharding shard = s.parallelism.sharding;
    const bool ds = s.training.accounting == Accounting::DeepSpeed;
    const X zero = X::constant(0);
    // Sharding degree: the dense data-parallel group folds in CP (Megatron-LM distributed optimizer);
    // experts shard over the expert data-parallel group t·dp·cp/(expert_tp·ep) (Megatron-Core's expert grid,
    // parallel_state.py); fsdp-hybrid shards inside its group only.
    const X psiD = X::input("Ψ_d", st.dense, "parameters", "dense parameters of this pipeline stage on one TP rank");
    const X nD = X::input("N_d", l.shardGroup, "", "GPUs sharding them (dp·cp, or the hybrid shard group)");
    const X psiE = X::input(
        "Ψ_e", st.expert, "parameters", "routed-expert parameters of this stage on one GPU: ÷ (ep·expert_tp)");
    const X nE = X::input("N_e", shard == Sharding::FsdpHybrid ? std::min(l.expertDp, l.shardGroup) : l.expertDp, "",
        "GPUs sharding the experts (expert data-parallel: t·dp·cp/(expert_tp·ep), or the shard group)");
    const X perGpu = psiD / nD + psiE / nE, whole = psiD + psiE;
    auto sharded = [&](bool on, const X& bytesPerParam) { return bytesPerParam * (on ? perGpu : whole); };
    const double psi = st.dense + st.expert;
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool offParam = s.offload.parameters != OffloadTarget::None;
    const bool sp = shardsParams(shard), sg = shardsGrads(shard), so = shardsOptimizer(shard);
    const bool megatron = s.training.accounting == Accounting::Megatron;

    // Model states (ZeRO paper §5): each component divided by the degree that shards it.
    const X w = X::input("w", B.w, "B/parameter", "weight bytes");
    const X g = X::input("g", B.gr, "B/parameter", "gradient bytes per parameter");
    const X g32 = X::input("g32", B.grOpt, "B/parameter", "fp32 gradient partition sharded with the optimizer");
    mem.parameters = offParam ? zero : sharded(sp, w);
    if (!offParam && B.fp8Cache > 0) {
        // The FP8 weight and transpose copies (w8) of the layers' linear weights Ψ_8 (not the embedding or output layer).
        const X psi8 = X::input("Ψ_8", st.denseLinear, "parameters",
            "linear weights of this stage's transformer layers on one TP rank (cast to FP8)");
        const X w8 = X::input("w8", B.fp8Cache, "B/parameter",
            s.training.precision == Precision::Mxfp8
                ? "MXFP8 weight + transposed copy, each with one E8M0 scale byte per 32 elements (Transformer Engine "
                  "MXFP8Tensor rowwise and columnwise data and scale_inv)"
                : "FP8 weight + transposed copy (Transformer Engine cache)");
        mem.parameters = mem.parameters + w8 * (sp ? psi8 / nD + psiE / nE : psi8 + psiE);
    }
    const X gradients = mem.gradients = sharded(sg, g);
    const X grad32 = mem.grad32 = sharded(so, g32);
    mem.shardedGrads = sharded(true, g);
    const X optimizer = sharded(
        so, X::input("m + o", B.mw + B.os, "B/parameter", "master weights + optimizer moments per parameter"));
    // Megatron's fp16 optimizer makes its fp32 main gradients at the step (main_param.grad = main_grad.float(),
    // megatron/core/optimizer/optimizer.py _copy_model_grads_to_main_grads; the distributed optimizer's shard the
    // same, distrib_optimizer.py) and drops them at the next step's zero_grad(set_to_none=True): they never coexist
    // with activations. The optimizer step is a third phase, with the model states and those gradients only.
    mem.stepGrads = megatron && s.training.precision == Precision::Fp16Mixed && !offOpt ? grad32.value() : 0.0;
    if (offOpt) {
        // ZeRO-Offload (Ren et al. §4): gradients, master weights and optimizer states live on the host;
        // only the half-precision parameters stay on the GPU.
        const double moved = gradients.value() + grad32.value() + optimizer.value();
        (s.offload.optimizer == OffloadTarget::Cpu ? mem.host : mem.nvme) += moved;
        mem.optimizerStates = zero;
    } else {
        mem.optimizerStates = optimizer;
    }
    if (offParam)
        (s.offload.parameters == OffloadTarget::Cpu ? mem.host : mem.nvme) += sharded(true, w).value();

    // Transient gathered parameters and unsharded gradients (torch/distributed/fsdp/api.py;
    // deepspeed/runtime/zero/stage3.py), in each of the two phases that can hold the peak: the loss (end of a
    // forward) and a layer's backward.
    const X U
        = X::input("U", sh.unitParams, "parameters", "largest ZeRO-3/FSDP unit on one GPU (a layer, or the FSDP root)");
    const bool ptStack = pytorchStack(s.training.framework);
    // FSDP reduce-scatters in the reduce dtype: torchtitan's mixed_precision_reduce defaults to float32
    // (torchtitan/config_manager.py), unless training.grad_reduce_dtype sets it (MixedPrecisionPolicy.reduce_dtype); FSDP2 up-casts the unsharded gradients into it (torch/distributed/fsdp/
    // _fully_shard/_fsdp_collectives.py, foreach_reduce: reduce_scatter_input in reduce_dtype).
    const X rFsdp
        = X::input("r", ptStack && s.training.gradReduce == GradReduce::Framework ? kFsdpReduceBytes : B.reduce,
            "B/parameter", "bytes of FSDP's reduce-scatter input (reduce dtype)");
    // The FSDP root on this stage (its embedding and output layer, per TP rank) and the output layer's weight, whose
    // gradient (the tied embedding's when tied) is made at the start of backward.
    const auto& cnt = sh.counts;
    const double outputWeight = cnt.head > 0 ? cnt.head : cnt.embedding;
    const bool ownOutput = st.head && (cnt.head > 0 || !st.embedding); // tied, one stage: the embedding is the output
    const X root = X::input("R", ((st.embedding ? cnt.embedding : 0.0) + (ownOutput ? outputWeight : 0.0)) / sh.tp,
        "parameters", "the FSDP root on this stage: embedding and output layer, ÷t");
    const X head = X::input("H", st.head ? outputWeight / sh.tp : 0.0, "parameters",
        "the output layer's weight, ÷t (its gradient lives all backward)");
    X& gatheredLoss = mem.gatheredLoss;
    X& gatheredBwd = mem.gatheredBwd;
    gatheredLoss = gatheredBwd = zero;
    switch (shard) {
    case Sharding::Zero3:
        if (ds) // 2 B fp16 params + 2 B fp16 grads of the largest layer
            gatheredBwd = X::constant(4) * U;
        else // current unit + stage3_prefetch_bucket_size elements prefetched + the unit's unsharded grads
            gatheredBwd = w * U
                + w * min(U, X::input("P", kDsPrefetchBucket, "parameters", "stage3_prefetch_bucket_size")) + g * U;
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
            gatheredBwd = (w + rFsdp) * whole;
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
            const X Ul
                = X::input("U_l", sh.layerUnitParams, "parameters", "one transformer layer on one GPU (an FSDP unit)");
            gatheredBwd = w * (root + head) + X::constant(kFsdpGatheredUnits) * w * Ul + rFsdp * Ul;
            gatheredLoss = w * (root + Ul);
        }
        break;
    case Sharding::FsdpGradOp:
        // SHARD_GRAD_OP: every unit stays unsharded from its forward to the end of backward, + one unit's grads
        gatheredBwd = w * whole + w * U;
        gatheredLoss = gatheredBwd;
        break;
    default: break;
    }

    // Communication buffers: framework buckets (evaluate adds NCCL's channel buffers).
    // Megatron-Core's DDP and distributed optimizer reduce their contiguous grad buffer in place
    // (megatron/core/distributed/param_and_grad_buffer.py): no bucket copies, with Megatron's accounting or on the
    // Megatron framework unless DeepSpeed's accounting is asked for.
    const bool inPlaceGrads = megatron || (s.training.framework == Framework::Megatron && !ds);
    const X psiX = X::input("Ψ", psi, "parameters", "this stage's parameters on one TP rank");
    const X rBucket = X::input("r", B.reduce, "B", "bytes per gradient element in the data-parallel reduction");
    const X reduceBucket = X::input("B_r", kDsReduceBucket, "elements", "DeepSpeed reduce_bucket_size");
    mem.buckets = zero;
    switch (shard) {
    case Sharding::Ddp:
        // PyTorch DDP copies gradients into buckets (gradient_as_bucket_view=False by default,
        // torch/nn/parallel/distributed.py). A single data-parallel rank (dp·cp = 1) runs without DDP: no buckets.
        if (!inPlaceGrads && l.dpcp > 1)
            mem.buckets = rBucket * psiX; // every gradient, however many buckets
        break;
    case Sharding::Zero1:
    case Sharding::Zero2:
        // DeepSpeed reduce_bucket_size and allgather_bucket_size (5e8 elements each); the reduce bucket is double
        // with overlap_comm (deepspeed/runtime/zero/stage_1_and_2.py), which parallelism.overlap_grad_reduce says
        // for ZeRO-1 (ZeRO-2 reduces inside the backward, overlapped).
        if (!inPlaceGrads)
            mem.buckets
                = X::constant(
                      s.parallelism.overlapGradReduce || !s.parallelism.reducesGradientsOncePerStep() ? 2.0 : 1.0)
                    * min(reduceBucket, psiX) * rBucket
                + min(X::input("B_ag", kDsAllgatherBucket, "elements", "DeepSpeed allgather_bucket_size"), psiX) * w;
        break;
    case Sharding::Zero3:
        mem.buckets = X::constant(2) * min(reduceBucket, psiX) * rBucket; // overlap_comm is on by default at stage 3
        break;
    default: break;
    }

    return mem;
}

namespace {
template <class X> StageMemoryOf<X> stageMemoryOf(const Scenario& s, const Shape& sh, const StageShape& st,
    double inFlightMb, int64_t m, const StageStatesOf<X>& states)
{
    StageMemoryOf<X> mem;
    const auto& B = sh.bytes;
    const Sharding shard = s.parallelism.sharding;
    const bool ds = s.training.accounting == Accounting::DeepSpeed;
    const X zero = X::constant(0);
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool ptStack = pytorchStack(s.training.framework);
    mem.parameters = states.parameters;
    mem.optimizerStates = states.optimizerStates;
    mem.buckets = states.buckets;
    mem.host = states.host;
    mem.nvme = states.nvme;
    mem.stepGrads = states.stepGrads;
    const X& gradients = states.gradients;
    const X& grad32 = states.grad32;
    const X& gatheredLoss = states.gatheredLoss;
    const X& gatheredBwd = states.gatheredBwd;

    // Activations (Korthikanti et al. §4): in-flight micro-batches × stored bytes per layer, + embedding and output
    // stages.
    const X n = X::input(
        "n", inFlightMb, "micro-batches", "micro-batches in flight on this stage at its peak (pipeline schedule)");
    const bool gpipe = s.parallelism.schedule == PpSchedule::GPipe;
    // GPipe keeps every micro-batch's output layer until the backward, the other schedules one.
    const X headMb = X::input("m", static_cast<double>(m), "micro-batches",
        "micro-batches per step (GPipe keeps every "
        "one's output layer)");
    auto perHead = [&](const X& x) { return gpipe ? x * headMb : x; };
    X A = X::constant(sh.layerActivation);
    if constexpr (std::is_same_v<X, Expr>)
        A = X::named("A", layerActivation<Expr>(s, sh).stored, "B", "stored bytes of one layer, one micro-batch");
    const X layersX = X::input("L", double(st.layers), "layers", "transformer layers on this stage");
    X stored = n
        * (layersX * A
            + X::input("L_moe", double(st.moeLayers), "layers", "MoE layers on this stage")
                * X::input("A_moe", sh.moeLayerExtra, "B",
                    "extra bytes of an MoE layer (top-k copies × capacity factor, router logits)"));
    if (s.offload.activationLayers > 0 && st.layers > 0) {
        // Activation offload (Transformer Engine pytorch/cpu_offload.py, AsyncDoubleBufferGroupOffloadHandler): the
        // saved tensors of N_off layers go to pinned host memory after their forward; the GPU keeps the other layers'
        // and n_pre layers being reloaded ahead of their backward.
        const X off = X::input("N_off", double(s.offload.activationLayers), "layers",
            "layers whose activations are offloaded (offload.activation_layers)");
        mem.host += (stored * off / layersX).value();
        stored = stored
            * (layersX - off
                + X::input("n_pre", kOffloadPrefetchLayers, "layers", "layers reloaded ahead of their backward"))
            / layersX;
    }
    if (st.embedding)
        stored = stored
            + n * X::input("A_emb", sh.embeddingActivation, "B", "token ids (8 B) and embedding dropout mask, ÷t");
    const X gTp = X::input("G_tp", sh.tpGatheredInput, "B",
        "PyTorch TP with sequence parallelism: a column-parallel linear's input saved gathered, "
        "β·T·h·(1 − 1/t) beyond its shard (0 otherwise)");
    if (st.head)
        stored = stored
            + perHead(X::input("A_in", sh.headInputs, "B",
                "final-norm and output-layer inputs, 2·β·T·h/r + "
                "G_tp (PyTorch TP saves the gathered input of the "
                "output layer)"));
    // The peak is the larger of two phases that never coexist (docs/model.md §peak-phase): the loss, at the end of
    // the last forward, with the logits and the loss intermediates; and a layer's backward, with full recompute the
    // re-materialised layer (the loss's buffers are freed before the first layer's backward starts).
    const X loss = st.head ? perHead(X::input("A_loss", sh.lossPeak, "B",
                       "logits and loss intermediates at the loss peak, ℓ·T·V/t (ℓ: framework "
                       "profile logit_bytes, logit_bytes_tp when t > 1)"))
                           : zero;
    mem.workingSet = s.training.recompute == Recompute::Full && st.layers > 0;
    X workingSet = zero;
    if (mem.workingSet) {
        workingSet = X::input("A_full", sh.layerActivationFull, "B",
            "the layer re-materialised for its backward (full recompute): every activation it "
            "stores without recompute");
        if (st.moeLayers > 0)
            workingSet
                = workingSet + X::input("A_moe,full", sh.moeLayerExtraFull, "B", "the same for an MoE layer's extra");
        workingSet = workingSet + X::constant(2) * gTp;
    }
    mem.lossPhase = st.head && loss.value() + gatheredLoss.value() > workingSet.value() + gatheredBwd.value();
    mem.otherPhase = mem.lossPhase ? workingSet.value() + gatheredBwd.value() : loss.value() + gatheredLoss.value();
    mem.activations = mem.lossPhase ? stored + loss : mem.workingSet ? stored + workingSet : stored;
    mem.gathered = mem.lossPhase ? gatheredLoss : gatheredBwd;
    const X slackRate
        = X::input("σ", s.profile.allocatorSlack, "", "allocator slack on transient memory (framework profile)");
    mem.backwardTransient = (1 + slackRate.value()) * (mem.activations.value() + mem.gathered.value());
    mem.stepPhase = mem.stepGrads > mem.backwardTransient;
    // Gradients: the fp32 main gradients of Megatron's fp16 optimizer count only at the step.
    mem.gradients = offOpt                                     ? zero
        : B.grOpt > 0 && (mem.stepGrads == 0 || mem.stepPhase) ? gradients + grad32
                                                               : gradients;
    // DeepSpeed's ZeRO-3 estimator keeps only fp16 params + fp32 (params, grads, moments) = 18Ψ/N;
    // the fp16 grads are transient, inside the 4·largest-layer term (deepspeed/runtime/zero/stage3.py).
    if (ds && shard == Sharding::Zero3 && !offOpt)
        mem.gradients = mem.gradients - states.shardedGrads;
    if (mem.stepPhase) {
        mem.activations = zero;
        mem.gathered = zero;
    }
    // The caching allocator never merges blocks of separate cudaMalloc segments and serves a request from a free block
    // at least its size (c10/cuda/CUDACachingAllocator.cpp): a PyTorch loss that up-casts (more than the logits and one
    // gradient of their dtype per logit, ℓ > 2β) frees the bf16 logits' block before its fp32 gradients ask for blocks
    // twice that size, so it stays reserved, unused, at the loss peak.
    mem.cachedLogits = mem.lossPhase && !mem.stepPhase && ptStack && sh.logitBytes > 2 * B.act;
    X slack = slackRate
        * (X::input("activations", mem.activations.value(), "B", "the activations term")
            + X::input("gathered", mem.gathered.value(), "B", "the gathered parameters term")
            + X::input("buckets", mem.buckets.value(), "B", "the framework's buckets"));
    if (mem.cachedLogits)
        slack = slack
            + perHead(X::input("β", B.act, "B", "bytes per activation element")
                * X::input("T·V/t", sh.localLogits, "logits", "logits of one micro-batch on one TP rank"));
    mem.slack = slack.value();
    // The CUDA context is not here: the process holds it before the framework allocates, so it comes off the GPU's
    // memory instead (usable_memory.h).
    mem.overhead = slack
        + X::input("M_fw", s.profile.memoryOverheadBytes, "B", "framework memory besides the model (profile)")
        + X::input("misc", s.cluster.miscBytes, "B", "the scenario's reserve (cluster.misc_bytes)");
    return mem;
}
} // namespace

MemoryBreakdown stageMemory(const Scenario& s, const Shape& sh, const StageShape& st, int stageIndex,
    const ShardDegrees& l, int64_t m, double* hostPerGpu, double* nvmePerGpu)
{
    return stageMemory(
        s, sh, st, inFlight(s, stageIndex, m), m, stageStatesOf<Fast>(s, sh, st, l), hostPerGpu, nvmePerGpu);
}

MemoryBreakdown stageMemory(const Scenario& s, const Shape& sh, const StageShape& st, double inFlightMb, int64_t m,
    const StageStates& states, double* hostPerGpu, double* nvmePerGpu)
{
    const StageMemoryOf<Fast> f = stageMemoryOf<Fast>(s, sh, st, inFlightMb, m, states);
    MemoryBreakdown mem;
    mem.parameters = f.parameters.value();
    mem.gradients = f.gradients.value();
    mem.optimizerStates = f.optimizerStates.value();
    mem.activations = f.activations.value();
    mem.gatheredParameters = f.gathered.value();
    mem.communicationBuffers = f.buckets.value();
    mem.frameworkOverhead = f.overhead.value();
    mem.reservedPeak = mem.total() - s.cluster.miscBytes;
    mem.allocatedPeak = mem.reservedPeak - f.slack;
    if (hostPerGpu)
        *hostPerGpu = f.host;
    if (nvmePerGpu)
        *nvmePerGpu = f.nvme;
    return mem;
}

void stageMemoryTerms(const Scenario& s, const Shape& sh, const StageShape& st, int stageIndex, const ShardDegrees& l,
    int64_t m, double nccl, std::vector<Term>& out)
{
    const StageMemoryOf<Expr> e
        = stageMemoryOf<Expr>(s, sh, st, inFlight(s, stageIndex, m), m, stageStatesOf<Expr>(s, sh, st, l));
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const std::string zeroSource = "Rajbhandari et al., ZeRO (SC'20) §3.1, §5.1, Table 1";
    const std::string stepPhase = "(peak phase: the optimizer step, where the fp32 main gradients exist; activations "
                                  "are freed)";

    Term t = termOf("memory.parameters", e.parameters,
        s.offload.parameters != OffloadTarget::None ? "(parameters offloaded to the host)" : "");
    t.source = zeroSource + "; NVIDIA Transformer Engine FP8 weight caches";
    out.push_back(std::move(t));

    std::string note;
    if (offOpt)
        note = "(gradients reduced into host memory: ZeRO-Offload)";
    else if (e.stepGrads > 0)
        note = e.stepPhase ? stepPhase
                           : "(the fp32 main gradients, " + exprNumber(e.stepGrads)
                + " B, exist only at the optimizer "
                  "step, when the activations are freed: below this peak's "
                + exprNumber(e.backwardTransient) + " B of activations and gathered units)";
    else if (s.training.accounting == Accounting::DeepSpeed && s.parallelism.sharding == Sharding::Zero3)
        note = "(DeepSpeed's estimator counts fp16 grads as transient)";
    t = termOf("memory.gradients", e.gradients, note);
    t.source = zeroSource + "; Megatron-LM docs/source/api-guide/dist_optimizer.md"
        + (e.stepGrads > 0 ? "; megatron/core/optimizer/optimizer.py (_copy_model_grads_to_main_grads, zero_grad)"
                           : "");
    out.push_back(std::move(t));

    t = termOf(
        "memory.optimizer_states", e.optimizerStates, offOpt ? "(master weights and moments on the host or NVMe)" : "");
    t.source = zeroSource;
    out.push_back(std::move(t));

    const LayerActivationOf<Expr> layer = layerActivation<Expr>(s, sh);
    const bool full = e.workingSet && !e.lossPhase;
    const std::string other = !st.head ? ""
        : e.lossPhase
        ? " (a layer's backward: " + exprNumber(e.otherPhase) + " B of working set and gathered parameters)"
        : " (the loss: " + exprNumber(e.otherPhase) + " B of logits and gathered parameters)";
    if (e.stepPhase)
        note = "(peak phase: the optimizer step, after backward has freed them; with the gathered units they peak at "
            + exprNumber(e.backwardTransient) + " B with slack, less than the fp32 main gradients made at the step)";
    else
        note = std::string(e.lossPhase ? "; peak phase: the loss, at the end of the last forward"
                       : full          ? "; peak phase: a layer's backward, with its re-materialised layer"
                                       : "; peak phase: a layer's backward")
            + other + "; A = " + layer.stored.formula + (*layer.note ? std::string(" (") + layer.note + ")" : "");
    t = termOf("memory.activations", e.activations, note);
    if (!e.stepPhase)
        t.formula = e.activations.formula + note; // the phase follows the formula after a semicolon
    t.source = "Korthikanti et al., Reducing Activation Recomputation in Large Transformer Models (MLSys'23) "
               "Eq. 2 and Table 2, generalised; Dao et al., FlashAttention (NeurIPS'22) §3.1; Narayanan et al. "
               "(SC'21) §2.2 (micro-batches in flight); megatron/core/tensor_parallel/cross_entropy.py, "
               "torch/distributed/tensor/parallel/loss.py (loss peak); torch/utils/checkpoint.py (re-materialised "
               "layer)";
    out.push_back(std::move(t));

    switch (s.parallelism.sharding) {
    case Sharding::Zero3:
        note = s.training.accounting == Accounting::DeepSpeed
            ? "(DeepSpeed estimator: fp16 parameters and gradients of the largest layer)"
            : "(current unit, prefetch bucket, unsharded gradients)";
        break;
    case Sharding::FsdpFull:
    case Sharding::FsdpHybrid:
        note = pytorchStack(s.training.framework) && s.parallelism.pp > 1
            ? "(pipeline stages stay unsharded all step, with their gradients accumulated unsharded in the reduce "
              "dtype "
              "until the last micro-batch)"
            : e.lossPhase
            ? "(at the loss: the root, not resharded after forward, and the last block)"
            : "(in backward: the root and the output layer's gradient; the layer being differentiated, the "
              "prefetched one, its unsharded gradients; the previous layer's reduce-scatter input in the "
              "reduce dtype)";
        break;
    case Sharding::FsdpGradOp: note = "(SHARD_GRAD_OP keeps every unit gathered until backward)"; break;
    default: note = "(parameters are not sharded)"; break;
    }
    if (e.stepPhase)
        note = "(peak phase: the optimizer step, no unit gathered)";
    t = termOf("memory.gathered_parameters", e.gathered, note);
    switch (s.parallelism.sharding) {
    case Sharding::Zero3: t.source = "deepspeed/runtime/zero/stage3.py; deepspeed/runtime/zero/config.py"; break;
    case Sharding::FsdpFull:
    case Sharding::FsdpHybrid:
        t.source = pytorchStack(s.training.framework) && s.parallelism.pp > 1
            ? "torchtitan/parallelisms/parallelize_llama.py (apply_fsdp: reshard_after_forward=False with PP); "
              "torch/distributed/pipelining/stage.py (backward_maybe_with_nosync); "
              "torch/distributed/fsdp/_fully_shard/_fsdp_param.py (to_accumulated_grad_if_needed)"
            : "torch/distributed/fsdp/_fully_shard/_fully_shard.py (the root is not resharded after forward); "
              "_fsdp_param_group.py (post_backward: reduce_scatter_state held until the next unit's); "
              "_fsdp_collectives.py (foreach_reduce: reduce_scatter_input in reduce_dtype); "
              "torchtitan/parallelisms/parallelize_llama.py (apply_fsdp)";
        break;
    case Sharding::FsdpGradOp: t.source = "torch/distributed/fsdp/api.py (ShardingStrategy.SHARD_GRAD_OP)"; break;
    default: t.source = zeroSource; break;
    }
    out.push_back(std::move(t));

    // NCCL buffers of every communicator, beside the framework's buckets.
    const Expr ncclBuffers = Expr::input("B_nccl", nccl, "B",
        "NCCL channel buffers of every communicator: channels × "
        "peers × 3 protocols × NCCL_BUFFSIZE per communicator");
    const bool buckets = e.buckets.formula != "0";
    t = termOf("memory.communication_buffers", buckets ? e.buckets + ncclBuffers : ncclBuffers,
        buckets ? "(the framework's gradient/parameter buckets + NCCL's channel buffers)"
                : "(NCCL's channel buffers; no framework buckets here)");
    t.source = "torch/nn/parallel/distributed.py (bucket_cap_mb = 25); deepspeed/runtime/zero/config.py "
               "(reduce_bucket_size, allgather_bucket_size = 5e8); NCCL user guide, NCCL_BUFFSIZE (4 MiB per protocol "
               "buffer)";
    out.push_back(std::move(t));

    t = termOf("memory.framework_overhead", e.overhead,
        e.cachedLogits ? "(β·T·V/t·m: the bf16 logits' block, cached but too small for the loss's fp32 gradients)"
                       : "");
    t.source = "Megatron-LM megatron/training/theoretical_memory_usage.py (1.05 × activations); "
               "PyTorch CUDA semantics (caching allocator); c10/cuda/CUDACachingAllocator.cpp "
               "(segments never merge; a request takes a free block at least its size)";
    out.push_back(std::move(t));
}

namespace {
template <class ShapeOf> PeakCandidates peakCandidatesOf(const Scenario& s, const Shape& shape, ShapeOf shapeOf)
{
    PeakCandidates c;
    const int pp = s.parallelism.pp;
    if (!shape.chunks.empty()) { // a layout may put its most layers on any stage: candidatesFit tries each
        c.everyStage = true;
        return c;
    }
    const int layers = s.model.layers;
    const int extra = layers % pp;
    const int base = layers / pp; // layersOnStage: the last `extra` stages hold one more
    // The stage holding layer D, the first after the leading dense layers (the stages before it hold only dense
    // layers, those after it none), and the next stage unless that one starts with layer D (it is then the first stage
    // without dense layers).
    const int d = shape.counts.denseLayers;
    const int firstMoe = d >= layers ? pp
        : d < (pp - extra) * base    ? d / base
                                     : pp - extra + (d - (pp - extra) * base) / (base + 1);
    const bool startsThere = firstMoe < pp && firstLayerOnStage(layers, pp, firstMoe) == d;
    for (int i : { 0, 1, firstMoe, startsThere ? firstMoe : firstMoe + 1, extra == 0 ? pp - 1 : pp - extra, pp - 1 }) {
        if (i < 0 || i >= pp || std::find(c.index, c.index + c.count, i) != c.index + c.count)
            continue;
        c.index[c.count] = i;
        c.shape[c.count] = shapeOf(i);
        ++c.count;
    }
    return c;
}
} // namespace

PeakCandidates peakCandidates(const Scenario& s, const Shape& shape)
{
    return peakCandidatesOf(s, shape, [&](int i) { return stageShape(s, shape, i); });
}

PeakCandidates peakCandidates(const Scenario& s, const Shape& shape, std::span<const StageShape> stageShapes)
{
    return peakCandidatesOf(s, shape, [&](int i) { return stageShapes[size_t(i)]; });
}

bool candidatesFit(
    const Scenario& s, const Shape& shape, const PeakCandidates& c, const ShardDegrees& l, int64_t m, double budget)
{
    for (int k = 0; k < c.count; ++k)
        if (stageMemory(s, shape, c.shape[k], c.index[k], l, m, nullptr, nullptr).total() > budget)
            return false;
    if (c.everyStage)
        for (int i = 0; i < shape.pp; ++i)
            if (stageMemory(s, shape, stageShape(s, shape, i), i, l, m, nullptr, nullptr).total() > budget)
                return false;
    return true;
}

/// NCCL buffer bytes of one communicator (see kNcclBuffSize).
double ncclCommunicatorBytes(int channels, int peers) { return channels * peers * kNcclProtocols * kNcclBuffSize; }

double ncclPointToPointBytes(int peers) { return 2.0 * peers * kNcclBuffSize; }

/// DeepSpeed ZeRO-3 estimator host memory per node (deepspeed/runtime/zero/stage3.py, zero_init = True).
double deepspeedZero3HostPerNode(
    double psi, double largestLayer, int gpusPerNode, int nodes, bool offOpt, bool offParam)
{
    const double gpusFactor = 1.0 / nodes;
    if (offOpt && offParam)
        return psi * 18 * gpusFactor * kDsBufferFactor;
    if (offOpt)
        return psi * 16 * gpusFactor * kDsBufferFactor;
    return largestLayer * 4 * gpusPerNode * kDsBufferFactor;
}

} // namespace shardscope::core::detail
