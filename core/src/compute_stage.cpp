// SPDX-License-Identifier: GPL-3.0-or-later
// The compute stage: FLOPs per layer and the rates they run at (docs/model.md §compute-time).
#include "compute_stage.h"

#include "attention_rate.h"
#include "expr.h"

namespace shardscope::core::detail {

namespace {
// Grouped GEMMs of the routed experts (Megatron --moe-grouped-gemm, TE GroupedLinear) run at this fraction of the
// dense GEMM rate: SimuMax's measured B200 kernel efficiencies for DeepSeek-V2/V3 expert shapes, group_matmul 0.302
// over matmul 0.488 of peak (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json).
constexpr double kGroupedGemmFraction = 0.302 / 0.488;
} // namespace

Peak peakFor(const Scenario& s)
{
    const GpuSpec& g = s.cluster.gpu;
    const double eff = g.achievableMatmulFraction * s.profile.gemmEfficiency; // measured MAMF / peak (catalog)
    Peak p;
    switch (s.training.precision) {
    case Precision::Fp32:
        // fp32 GEMMs run on TF32 tensor cores at half the BF16 rate (A100/H100 datasheets)
        p.linear = p.attention = p.attentionBwd = g.bf16DenseFlops * 0.5 * eff;
        p.mfuPeak = g.bf16DenseFlops * 0.5;
        break;
    case Precision::Fp8Mixed:
        // FP8 linear layers: the framework's measured FP8/BF16 speed-up on Hopper (quantization, amax and transposed
        // copies included), scaled by the GPU's own FP8/BF16 peak ratio over Hopper's 2 (datasheets).
        p.linear = g.bf16DenseFlops * eff * s.profile.fp8GemmSpeedup * (g.fp8DenseFlops / (2.0 * g.bf16DenseFlops));
        p.attention = p.attentionBwd = g.bf16DenseFlops * eff;
        p.mfuPeak = g.fp8DenseFlops;
        break;
    default:
        p.linear = p.attention = p.attentionBwd = g.bf16DenseFlops * eff;
        p.mfuPeak = g.bf16DenseFlops;
        break;
    }
    p.grouped = p.linear * kGroupedGemmFraction;
    return p;
}

template <class X> X flopsPerToken(const Scenario& s, const ModelCounts& c)
{
    // Model FLOPs per token (Megatron-LM training.py num_floating_point_operations): 6 per matmul parameter
    // (forward + two backward GEMMs), the output layer V·h always, causal attention 6·s·q per layer.
    const double V = static_cast<double>(s.model.vocab), h = static_cast<double>(s.model.hidden);
    const double norms = s.model.layers * (c.layerNorms + c.attentionNorms) + c.finalNorm;
    const X matmulParams = X::input("P_mm", c.active - c.embedding - c.head - c.positions - norms + V * h, "parameters",
                                    "active matmul weights + the V·h output GEMM");
    return X::constant(6) * matmulParams
        + X::constant(6) * X::input("L", double(s.model.layers), "layers", "")
        * X::input("s", static_cast<double>(s.training.seqLen), "tokens", "sequence length")
        * X::input("q", c.qSize, "", "heads × head dim");
}
template Fast flopsPerToken<Fast>(const Scenario&, const ModelCounts&);
template Expr flopsPerToken<Expr>(const Scenario&, const ModelCounts&);

LayerCompute computeStage(const Scenario& s, const Shape& sh)
{
    const ModelCounts& c = sh.counts;
    const double tp = sh.tp;
    const double T = sh.tokensPerMicroBatch;
    const double V = static_cast<double>(s.model.vocab), h = static_cast<double>(s.model.hidden);
    const double seq = static_cast<double>(s.training.seqLen);
    LayerCompute lc;
    lc.peak = peakFor(s);

    lc.flopsPerToken = flopsPerToken<Fast>(s, c).value();

    // Linear GEMMs: 2 FLOPs per weight per token forward, twice that backward (dgrad + wgrad) (Kaplan et al. 2020,
    // Table 1).
    lc.attnLinear = 2.0 * T * c.attention / tp;
    lc.denseLinear = 2.0 * T * c.denseMlp / tp;
    const double cf = s.model.isMoe() ? s.model.moe.capacityFactor : 1.0;
    // MoE: top-k routed experts per token, padded to the capacity factor, + shared experts + router
    // (Megatron-LM num_floating_point_operations)
    lc.moeLinear = s.model.isMoe() ? 2.0 * T * (cf * c.routedActive + c.sharedExperts + c.router) / tp : 0.0;
    // Independent of expert_tp: a GPU runs T·k·cf·expert_tp/t token copies through 1/expert_tp of each expert
    // (megatron/core/transformer/moe/experts.py, TEGroupedMLP over the expert-TP group).
    lc.moeRouted = s.model.isMoe() ? 2.0 * T * cf * c.routedActive / tp : 0.0;
    lc.moeShared = s.model.isMoe() ? 2.0 * T * c.sharedExperts / tp : 0.0;
    // Attention scores and values: 4·s·q FLOPs per token forward; FlashAttention skips the masked half,
    // eager attention computes the full square (Megatron-LM num_floating_point_operations; MosaicML llm-foundry
    // scripts/train/benchmarking/README.md).
    lc.attnCore = (s.training.flashAttention ? 2.0 : 4.0) * T * seq * c.qSize / tp;
    if (s.training.flashAttention && s.training.precision != Precision::Fp32) {
        // The profile's fused kernel (FlashAttention-2/3, cuDNN) at its measured forward and backward rates for this
        // head dimension and block length (a context-parallel rank runs s/c × s/c blocks); backward = 2.5 × forward
        // FLOPs, the scores recomputed (Dao 2023 §3.1 and its benchmark's FLOP count).
        const AttentionRates r = attentionRates(s.cluster.gpu, s.profile.attentionKernel,
            static_cast<double>(s.model.effectiveHeadDim()), true, seq / sh.cp);
        lc.peak.attention = s.profile.attentionEfficiency * r.forward;
        lc.peak.attentionBwd = s.profile.attentionEfficiency * r.backward;
        lc.coreBwdFactor = 2.5;
        lc.kernel = r.kernel;
    }
    // Recomputed attention (full recompute) runs forward again: at the forward rate.
    lc.coreTime = lc.attnCore / lc.peak.attention;
    lc.coreBwdTime = lc.coreBwdFactor * lc.attnCore / lc.peak.attentionBwd;
    // Host work per layer the GPU waits for (framework profile): a third in forward, two thirds in backward, as the
    // kernels are launched (backward launches about twice forward's).
    lc.hostFwd = s.profile.hostOverheadPerLayer / 3.0;
    lc.hostBwd = s.profile.hostOverheadPerLayer * 2.0 / 3.0;

    // Op-level selective recompute re-runs wk, wo and one f-wide MLP projection: 2·T·h·(kv + q + f)/t FLOPs
    // (torchtitan parallelize.py: every other aten.mm output is saved).
    if (s.training.recompute == Recompute::SelectiveOp)
        lc.recomputeLinear = 2.0 * T * h * (c.kvSize + c.qSize + static_cast<double>(s.model.ffnHidden)) / tp;

    // Output layer (last stage): logits GEMM 2·T·V·h/tp forward, twice backward (its element-wise kernels: timing
    // stage).
    lc.headLinear = 2.0 * T * V * h / tp;
    return lc;
}

} // namespace shardscope::core::detail
