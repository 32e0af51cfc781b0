// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The compute stage of evaluate(): FLOPs of one transformer layer and of the output layer per micro-batch per GPU,
// the rates they run at, and the model FLOPs per token (docs/model.md §compute-time).

#include "engine.h"

#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

struct Peak {
    double linear = 0; // FLOP/s for the linear layers (FP8 in fp8-mixed)
    double attention = 0; // FLOP/s for attention score/value products forward (BF16 even in fp8-mixed; the fused
        // kernel's measured forward rate with flash_attention)
    double attentionBwd = 0; // the same backward (the kernel's measured backward rate with flash_attention)
    double head = 0; // FLOP/s for the output layer's GEMM (BF16 even in fp8-mixed)
    double mfuPeak = 0; // datasheet dense peak used for MFU (PaLM, Chowdhery et al. 2022, App. B)
};

/// Sustained GEMM rates of a scenario: the GPU's measured matmul fraction × the profile's GEMM efficiency.
Peak peakFor(const Scenario& s);

/// One layer (and the output layer) for one micro-batch on one GPU.
struct LayerCompute {
    Peak peak;
    double attnLinear = 0, denseLinear = 0, moeLinear = 0; ///< linear-layer FLOPs forward
    double moeRouted = 0; ///< of moeLinear, the routed experts' grouped GEMMs (at peak.linear + their HBM bytes)
    double moeCopies = 0; ///< token copies a GPU's routed experts run per micro-batch: T·k·cf·t_e/t
    double moeRoutedTokens = 0; ///< tokens a GPU permutes to its routed experts' order before the dispatch: T/t
    double moeLocalExperts = 0; ///< routed experts on a GPU: E/e
    double moeLocalWeights = 0; ///< routed-expert weights on a GPU: (E/e)·M·h·f_e/t_e
    double moeExpertWidth = 0; ///< an expert's intermediate width on a GPU: f_e/t_e
    double moeWeightBytes = 0; ///< bytes per expert weight a grouped GEMM reads: the FP8 cast, else the weight dtype
    double moeDispatched = 0; ///< of the MoE layer's extra bytes, the dispatched copies' input: T·k·cf·β₈·h/t
    double moeShared = 0; ///< of moeLinear, the shared experts' GEMMs (recompute_modules shared_experts re-runs them)
    double attnCore = 0; ///< attention score and value FLOPs forward (an average layer, sliding window applied)
    double attnCoreFull = 0; ///< the same for a layer of full causal attention
    double coreTime = 0; ///< attnCore at the forward attention rate (also its recompute)
    double coreBwdFactor = 2; ///< attention backward FLOPs / forward: 2 eager; 2.5 FlashAttention (scores recomputed)
    double coreBwdTime = 0; ///< coreBwdFactor × attnCore at the backward attention rate
    AttentionKernel kernel = AttentionKernel::Fa2; ///< the fused kernel measured (with flash_attention)
    double attnKernelFwd = 0, attnKernelBwd = 0; ///< its measured rates × attention_efficiency (0 = no fused kernel)
    double attnTiles = 0; ///< W: 128-row query tiles one fused attention call runs (Blackwell occupancy; 0 = none)
    double hostFwd = 0, hostBwd = 0; ///< host time per layer the GPU waits for (profile), forward and backward
    double recomputeLinear = 0; ///< op-level selective recompute: FLOPs of the matmuls whose outputs are not saved
    double headLinear = 0; ///< output-layer GEMM FLOPs forward
    double flopsPerToken = 0; ///< model FLOPs per token (Megatron-LM's count), for MFU
};
LayerCompute computeStage(const Scenario& s, const Shape& sh);

/// model.sliding_window applies: 0 < w < s and not every layer global (pattern 1).
bool slidingWindowActive(const Scenario& s);

/// κ: the share of a full causal layer's attention score pairs the model's layers compute on average, with
/// model.sliding_window (Mistral 7B §2): κ = (L_g + (L − L_g)·ρ)/L, ρ = (w·s − w(w−1)/2)/(s(s+1)/2).
template <class X> X attentionWindowShare(const Scenario& s);

/// Attention score and value FLOPs of one layer, one micro-batch (F_core): κ × the full causal layer's with a window.
template <class X> X coreFlops(const Scenario& s, const LayerCompute& c);

/// The rate the attention products run at, forward (R_attn) or backward (R_attn,b): the GEMM rate without a fused
/// kernel; the fused kernel's measured rate × attention_efficiency, on Blackwell × its tile occupancy W/(W + W½)
/// (docs/model.md §attention-rate).
template <class X> X attentionRate(const Scenario& s, const LayerCompute& c, bool backward);

/// Model FLOPs per token, Megatron-LM's count (MFU's numerator); X = Fast for computeStage, Expr for the
/// model.flops_per_token term (expr.h).
template <class X> X flopsPerToken(const Scenario& s, const ModelCounts& c);

} // namespace shardscope::core::detail
