// SPDX-License-Identifier: GPL-3.0-or-later
// The compute stage: FLOPs per layer and the rates they run at (docs/model.md §compute-time).
#include "compute_stage.h"

#include "attention_rate.h"
#include "expr.h"

#include <cmath>
#include <string>
#include <type_traits>

namespace shardscope::core::detail {

Peak peakFor(const Scenario& s)
{
    const GpuSpec& g = s.cluster.gpu;
    const double eff = g.achievableMatmulFraction * s.profile.gemmEfficiency; // measured MAMF / peak (catalog)
    Peak p;
    switch (s.training.precision) {
    case Precision::Fp32:
        // fp32 GEMMs run on TF32 tensor cores at half the BF16 rate (A100/H100 datasheets)
        p.linear = p.attention = p.attentionBwd = p.head = g.bf16DenseFlops * 0.5 * eff;
        p.mfuPeak = g.bf16DenseFlops * 0.5;
        break;
    case Precision::Fp8Mixed:
    case Precision::Mxfp8: // MXFP8: the same FP8 tensor-core peak (B200 datasheet: one dense FP8 figure for both)
        // FP8 linear layers: the framework's measured FP8/BF16 speed-up on Hopper (quantization, amax and transposed
        // copies included), scaled by the GPU's own FP8/BF16 peak ratio over Hopper's 2 (datasheets).
        p.linear = g.bf16DenseFlops * eff * s.profile.fp8GemmSpeedup * (g.fp8DenseFlops / (2.0 * g.bf16DenseFlops));
        // The output layer stays BF16: Megatron-Core's output_layer is a ColumnParallelLinear outside Transformer
        // Engine's fp8_autocast, which wraps the TransformerBlock (megatron/core/models/gpt/gpt_model.py,
        // transformer_block.py); torchtitan's float8 recipes leave it out (filter_fqns = ["output"]).
        p.attention = p.attentionBwd = p.head = g.bf16DenseFlops * eff;
        p.mfuPeak = g.fp8DenseFlops;
        break;
    default:
        p.linear = p.attention = p.attentionBwd = p.head = g.bf16DenseFlops * eff;
        p.mfuPeak = g.bf16DenseFlops;
        break;
    }
    return p;
}

namespace {
// Blackwell fused attention reaches W/(W + W½) of the H100's measured fraction of peak with W query tiles of 128 rows
// per call: a few tiles per SM leave the last wave and the causal critical path uncovered. W½ fitted (least squares in
// log) on SimuMax's 13 cuDNN causal BF16 measurements at head dim 128 on B200, forward and backward (MooreThreads/SimuMax
// configs/system/b200_bf16_ceperm.json, sdp_fwd / sdp_bwd; tests/tools/simumax_attention_tiles.py); the backward
// kernel spreads over key tiles as well and fills the GPU sooner.
constexpr double kAttentionHalfTilesFwd = 532;
constexpr double kAttentionHalfTilesBwd = 152;
// MLA's fused attention (q/k head 192 = 128 + 64 rotary, v head 128) on Blackwell runs at ρ_MLA of the head-dim-128
// rate × occupancy above: the factor that minimises the squared log error over SimuMax's six B200 MLA measurements
// (128, 64, 32, 16 heads at s = 4096; 64 heads at 32K and 128K; configs/system/b200_bf16_ceperm.json sdp_fwd / sdp_bwd,
// tests/tools/simumax_attention_tiles.py). The backward's is the larger drop (0.65–0.84 across the six).
constexpr double kMlaAttentionFwd = 0.933;
constexpr double kMlaAttentionBwd = 0.724;
constexpr double kAttentionTileRows = 128; // cuDNN / FlashAttention query tile (SimuMax's W counts 128-row tiles)

/// What R_attn (forward) or R_attn,b (backward) is: the fused kernel's measured rate, and the profile's kernel it
/// stands in for when that one does not run on this GPU (term text only).
std::string attentionRateText(const Scenario& s, const LayerCompute& c, bool backward)
{
    const bool fused = s.training.flashAttention && s.training.precision != Precision::Fp32;
    if (!fused)
        return backward ? "sustained rate of the attention products backward (the GEMM rate; BF16 even with FP8)"
                        : "sustained rate of the attention products (the GEMM rate; BF16 even with FP8)";
    std::string text = std::string(displayName(c.kernel)) + "'s measured " + (backward ? "backward" : "forward")
        + " rate at this head dimension and block length, causal (BF16), × attention_efficiency";
    const bool ampere = s.cluster.gpu.arch == "ampere" || s.cluster.gpu.arch == "ada" || s.cluster.gpu.arch == "volta";
    if (ampere)
        text += "; A100's published forward + backward rate split by FlashAttention-2's forward/backward ratio on H100";
    else if (backward)
        text += "; causal backward = non-causal × FlashAttention-2's causal/non-causal forward + backward ratio";
    if (c.kernel != s.profile.attentionKernel)
        text += std::string("; the profile's ") + displayName(s.profile.attentionKernel) + " does not run on "
            + s.cluster.gpu.arch + " GPUs: " + displayName(c.kernel) + " instead";
    return text;
}

} // namespace

template <class X> X attentionRate(const Scenario& s, const LayerCompute& c, bool backward)
{
    const char* symbol = backward ? "R_attn,b" : "R_attn";
    // the fused kernel's measured rate, or without one the GEMM rate (peakFor)
    const double base = c.attnKernelFwd > 0 ? (backward ? c.attnKernelBwd : c.attnKernelFwd)
                                            : (backward ? c.peak.attentionBwd : c.peak.attention);
    const bool occupancy = c.attnTiles > 0;
    const char* baseSymbol = !occupancy ? symbol : backward ? "R_k,b" : "R_k";
    X rate = X::constant(0), w = X::constant(0);
    if constexpr (std::is_same_v<X, Expr>) { // what the rates are: text for the terms only
        rate = X::input(baseSymbol, base, "FLOP/s", attentionRateText(s, c, backward));
        w = X::input("W", c.attnTiles, "tiles",
            "query tiles one attention call runs: b·(a/t, /c all-to-all)·⌈s_q/" + exprNumber(kAttentionTileRows)
                + "⌉, s_q = s/c (ring) or s");
    } else {
        rate = X::input(baseSymbol, base);
        w = X::input("W", c.attnTiles);
    }
    if (!occupancy)
        return rate;
    if (s.model.isMla()) { // measured on Blackwell, where occupancy applies
        const X mla = backward ? X::input("ρ_MLA,b", kMlaAttentionBwd, "",
                          "MLA's kernel (q/k head 192, v head 128) over the head-dim-128 rate, backward "
                          "(fitted, SimuMax B200)")
                               : X::input("ρ_MLA", kMlaAttentionFwd, "",
                                   "MLA's kernel (q/k head 192, v head 128) over the head-dim-128 rate, forward "
                                   "(fitted, SimuMax B200)");
        rate = X::named(backward ? "R_k,MLA,b" : "R_k,MLA", rate * mla, "FLOP/s", "the kernel's rate at MLA's shape");
    }
    const X half = backward
        ? X::input("W½,b", kAttentionHalfTilesBwd, "tiles", "tiles at half the rate, backward (fitted, SimuMax B200)")
        : X::input("W½", kAttentionHalfTilesFwd, "tiles", "tiles at half the rate, forward (fitted, SimuMax B200)");
    return X::named(
        symbol, rate * (w / (w + half)), "FLOP/s", "the kernel's rate × its tile occupancy on Blackwell, W/(W + W½)");
}
template Fast attentionRate<Fast>(const Scenario&, const LayerCompute&, bool);
template Expr attentionRate<Expr>(const Scenario&, const LayerCompute&, bool);

bool slidingWindowActive(const Scenario& s)
{
    const ModelSpec& m = s.model;
    return m.slidingWindow > 0 && m.slidingWindow < s.training.seqLen && m.slidingWindowPattern != 1;
}

template <class X> X attentionWindowShare(const Scenario& s)
{
    // Query i (1-based) of a causal layer attends to i keys; through a window of w keys to min(i, w) (Mistral 7B,
    // Jiang et al. 2023 §2; FlashAttention-2's window_size = (w − 1, 0) masks the same pairs, and its kernel skips
    // the blocks wholly outside the window). Summed over s queries: full s(s+1)/2, windowed w·s − w(w−1)/2 (w < s).
    // Every n-th layer attends globally (model.sliding_window_pattern; Gemma 3 n = 6, GPT-OSS n = 2).
    const ModelSpec& m = s.model;
    const double layers = m.layers;
    const double global = m.slidingWindowPattern > 0 ? std::floor(layers / m.slidingWindowPattern) : 0.0;
    const X L = X::input("L", layers, "layers", "");
    const X Lg = X::input("L_g", global, "layers", "global layers: every n-th (model.sliding_window_pattern)");
    const X w = X::input("w", double(m.slidingWindow), "tokens", "sliding window (model.sliding_window)");
    const X sq = X::input("s", double(s.training.seqLen), "tokens", "sequence length");
    const X one = X::constant(1), two = X::constant(2);
    const X rho = X::named("ρ", (w * sq - w * (w - one) / two) / (sq * (sq + one) / two), "",
        "a windowed layer's share of the causal score pairs");
    return X::named("κ", (Lg + (L - Lg) * rho) / L, "", "an average layer's share of full causal attention");
}
template Fast attentionWindowShare<Fast>(const Scenario&);
template Expr attentionWindowShare<Expr>(const Scenario&);

template <class X> X coreFlops(const Scenario& s, const LayerCompute& c)
{
    const char* what = "attention scores and values: 2·T·s·q/t causal with FlashAttention, 4·T·s·q/t eager";
    if (!slidingWindowActive(s))
        return X::input("F_core", c.attnCore, "FLOP", what);
    return X::named("F_core", X::input("F_core,full", c.attnCoreFull, "FLOP", what) * attentionWindowShare<X>(s),
        "FLOP", "attention of an average layer through the sliding window");
}
template Fast coreFlops<Fast>(const Scenario&, const LayerCompute&);
template Expr coreFlops<Expr>(const Scenario&, const LayerCompute&);

template <class X> X flopsPerToken(const Scenario& s, const ModelCounts& c)
{
    // Model FLOPs per token (Megatron-LM training.py num_floating_point_operations): 6 per matmul parameter
    // (forward + two backward GEMMs), the output layer V·h always, causal attention 6·s·q per layer (MLA: q =
    // a·(d_qk + d_v)/2, the same function's "core attn" term).
    const double V = static_cast<double>(s.model.vocab), h = static_cast<double>(s.model.hidden);
    const double norms = s.model.layers * (c.layerNorms + c.attentionNorms) + c.finalNorm;
    const X matmulParams = X::input("P_mm", c.active - c.embedding - c.head - c.positions - norms + V * h, "parameters",
        "active matmul weights + the V·h output GEMM");
    const X attention = X::constant(6) * X::input("L", double(s.model.layers), "layers", "")
        * X::input("s", static_cast<double>(s.training.seqLen), "tokens", "sequence length")
        * X::input("q", c.scoreWidth, "",
            s.model.isMla() ? "heads × (q/k head dim + v head dim)/2 (MLA)" : "heads × head dim");
    if (slidingWindowActive(s)) // the pairs the window leaves (κ, attentionWindowShare)
        return X::constant(6) * matmulParams + attention * attentionWindowShare<X>(s);
    return X::constant(6) * matmulParams + attention;
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
    if (s.model.isMoe()) {
        // What the routed experts' grouped GEMMs move through HBM (timing stage, routedGemms): a GPU holds E/e experts,
        // each sharded over t_e, and runs T·k·cf·t_e/t token copies through them (megatron/core/transformer/moe/
        // experts.py TEGroupedMLP). It permutes its sequence-parallel share, T/t tokens, before the dispatch; the
        // expert-TP group gathers the dispatched copies after it (token_dispatcher.py MoEAlltoAllTokenDispatcher).
        const double etp = sh.etp;
        lc.moeRoutedTokens = T / tp;
        lc.moeCopies = T * s.model.moe.topK * cf * etp / tp;
        lc.moeLocalExperts = static_cast<double>(s.model.moe.experts) / sh.ep;
        lc.moeLocalWeights = c.routedExperts / (sh.ep * etp);
        lc.moeExpertWidth = static_cast<double>(s.model.moe.expertFfnHidden) / etp;
        lc.moeWeightBytes = sh.gemmWeightBytes;
        // The dispatched copies' h-wide input the MoE layer's extra activation bytes count (engine.cpp, per copy on
        // a GPU, T·k·cf/t): their traffic is the permutation's, counted on its own (timing stage, permuteTime).
        lc.moeDispatched = T * s.model.moe.topK * cf * sh.linearInputBytes * h / tp;
    }
    // Attention scores and values: 4·s·q FLOPs per token forward (q = c.scoreWidth: MLA's scores run over the q/k
    // head, its values over the narrower v head); FlashAttention skips the masked half,
    // eager attention computes the full square (Megatron-LM num_floating_point_operations; MosaicML llm-foundry
    // scripts/train/benchmarking/README.md).
    lc.attnCoreFull = (s.training.flashAttention ? 2.0 : 4.0) * T * seq * c.scoreWidth / tp;
    lc.attnCore = slidingWindowActive(s) ? coreFlops<Fast>(s, lc).value() : lc.attnCoreFull;
    if (s.training.flashAttention && s.training.precision != Precision::Fp32) {
        // The profile's fused kernel (FlashAttention-2/3, cuDNN) at its measured forward and backward rates for this
        // head dimension and block length (a ring or all-gather context-parallel rank runs blocks of s/c queries; an
        // all-to-all one the whole sequence on 1/c of the heads); backward = 2.5 × forward FLOPs, the scores
        // recomputed (Dao 2023 §3.1 and its benchmark's FLOP count).
        const double block = s.parallelism.cpCommType == CpCommType::A2a ? seq : seq / sh.cp;
        const AttentionRates r = attentionRates(
            s.cluster.gpu, s.profile.attentionKernel, static_cast<double>(s.model.effectiveHeadDim()), true, block);
        lc.attnKernelFwd = s.profile.attentionEfficiency * r.forward;
        lc.attnKernelBwd = s.profile.attentionEfficiency * r.backward;
        lc.coreBwdFactor = 2.5;
        lc.kernel = r.kernel;
        // Tile occupancy, measured on Blackwell only (kAttentionHalfTilesFwd): one call runs the micro-batch's
        // sequences × the GPU's heads (all-to-all: a/(t·c)) × ⌈s_q/128⌉ query tiles.
        if (s.cluster.gpu.arch == "blackwell") {
            const double heads
                = static_cast<double>(s.model.heads) / tp / (s.parallelism.cpCommType == CpCommType::A2a ? sh.cp : 1.0);
            lc.attnTiles = static_cast<double>(s.training.microBatch) * heads * std::ceil(block / kAttentionTileRows);
        }
        lc.peak.attention = attentionRate<Fast>(s, lc, false).value();
        lc.peak.attentionBwd = attentionRate<Fast>(s, lc, true).value();
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
