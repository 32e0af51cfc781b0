// SPDX-License-Identifier: GPL-3.0-or-later
// The timing stage: layer, stage, pipeline and optimizer times (docs/model.md §step-time).
#include "timing_stage.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace shardscope::core::detail {

namespace {
// CPU↔GPU copies run at NCCL's 75% of raw PCIe (NVIDIA/nccl src/graph/topo.cc).
constexpr double kPcieEfficiency = 0.75;
// DualPipe keeps 20 of the H800's 132 SMs for its all-to-all and pipeline transfers (DeepSeek-V3 report §3.2.2).
constexpr double kDualPipeCommSms = 20;
constexpr double kH800Sms = 132; // H800 SXM5 = H100 SXM5's 132 SMs (NVIDIA H100 Tensor Core GPU Architecture, Table 2)
// Megatron's token permute/unpermute kernels move their bytes at this fraction of HBM bandwidth, forward and backward:
// SimuMax's measurement on B200 (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json, bandwidth.permute_fwd
// and permute_bwd; simu_tools/efficency_test/test_ce_permute_efficiency.py times Transformer Engine's
// moe_permute_with_probs + moe_unpermute against the same (2·T + 6·C)·h·2 bytes as permuteTime counts, over
// 8,000 GiB/s less 30 us per launch).
constexpr double kPermuteBandwidthFwd = 0.5008;
constexpr double kPermuteBandwidthBwd = 0.5108;
// Megatron keeps the optimizer's main gradients in fp32 whatever the gradient buffer's dtype (megatron/core/optimizer/
// distrib_optimizer.py: shard_main_param.grad = shard_model_grad.float(); optimizer.py Float16OptimizerWithFloat16Params).
constexpr double kMegatronMainGradBytes = 4;

/// R_attn / R_attn,b: with its formula and inputs for the terms (attentionRate), as the compute stage's value on the
/// fast path (computeStage stores attentionRate<Fast> in peak).
template <class X> X attnRate(const Scenario& s, const LayerCompute& c, bool backward)
{
    if constexpr (std::is_same_v<X, Expr>)
        return attentionRate<Expr>(s, c, backward);
    else
        return X::input({}, backward ? c.peak.attentionBwd : c.peak.attention);
}

template <class X> struct LayerComputeOf {
    X fwd, bwd;
    X gemm; ///< the GEMMs forward
    X gemmBwd; ///< the GEMMs backward: data gradients + weight gradients
    X wgrad; ///< of gemmBwd, the weight-gradient GEMMs
};

/// The routed experts' grouped GEMMs of one MoE layer on one GPU, one micro-batch: forward, data gradient and weight
/// gradient (docs/model.md §compute, routed experts).
template <class X> struct RoutedGemmsOf {
    X fwd, dgrad, wgrad;
};

/// Each grouped GEMM's math at the GEMM rate plus its HBM traffic at the memory bandwidth: the expert weights (the
/// weight gradient accumulated, read and written, in the gradient buffer's dtype) and the token copies in and out.
/// The sum, not the roofline's max: checked against SimuMax's measured B200 group_matmul efficiencies
/// (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json, 108 shapes of 128–9832 tokens per expert: mean
/// |time error| 12% with the sum, 32% with the max; tests/tools/simumax_grouped_gemm.py), whose weight streaming at a
/// few hundred tokens per expert is not hidden behind the math.
template <class X> RoutedGemmsOf<X> routedGemms(const Scenario& s, const Shape& sh, const LayerCompute& c)
{
    const X rLin = X::input(
        "R_lin", c.peak.linear, "FLOP/s", "sustained GEMM rate: peak × measured matmul fraction × GEMM realisation");
    const X hbm = X::input("H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    const X math = X::input("F_routed", c.moeRouted, "FLOP",
                       "of F_moe, the routed experts' grouped GEMMs: 2·T·cf·P_routed,active/t")
        / rLin;
    const X weights = X::input("W_e", c.moeLocalWeights, "weights",
        "routed-expert weights on a GPU: (E/e) experts × P_expert/t_e (experts.py TEGroupedMLP)");
    const X copies = X::input("C", c.moeCopies, "tokens", "token copies a GPU's experts run: T·k·cf·t_e/t");
    const X h = X::input("h", static_cast<double>(s.model.hidden), "", "hidden size");
    const X fe = X::input("f_e/t_e", c.moeExpertWidth, "", "an expert's intermediate width on a GPU");
    // fc1 writes the gate and up projections with SwiGLU (2·f_e wide), one f_e-wide output otherwise; fc2 reads f_e
    // (megatron/core/transformer/moe/experts.py: linear_fc1 output 2·ffn_hidden with gated_linear_unit)
    const X up = X::constant(s.model.mlp == Mlp::SwiGlu ? 2 : 1) * fe;
    const X wBytes = X::input("w_g", c.moeWeightBytes, "B",
        "bytes per weight a GEMM reads: the FP8 cast (1, MXFP8 1 + 1/32) under FP8, else the weight dtype");
    // GEMM inputs at β₈ (their FP8 cast under Transformer Engine FP8), outputs at β.
    const X b8 = X::input("β₈", sh.linearInputBytes, "B", "bytes per GEMM input element (1 under TE FP8, else β)");
    const X b = X::input("β", sh.bytes.act, "B", "bytes per activation element");
    const X two = X::constant(2);
    // forward: fc1 reads x (h) and writes up, fc2 reads its input (f_e) and writes h
    const X bytesFwd = wBytes * weights + copies * (b8 * (h + fe) + b * (up + h));
    // data gradient: fc2 reads dy (h) and writes f_e, fc1 reads d(up) and writes h
    const X bytesDgrad = wBytes * weights + copies * (b8 * (h + up) + b * (fe + h));
    // weight gradient: both GEMMs read their input and their output's gradient; the gradient accumulates into the
    // gradient buffer, read and written (Megatron gradient_accumulation_fusion, TE GroupedLinear
    // fuse_wgrad_accumulation; fp32 main grads unless training.grad_reduce_dtype is bf16)
    const X bytesWgrad = two * X::input("g", sh.bytes.gr, "B", "bytes per element of the gradient buffer") * weights
        + copies * b8 * (two * h + up + fe);
    return {
        X::named("t_grp,f", math + X::named("B_grp,f", bytesFwd, "B", "the grouped GEMMs' HBM bytes forward") / hbm,
            "s", "routed experts' grouped GEMMs forward"),
        X::named("t_grp,d", math + X::named("B_grp,d", bytesDgrad, "B", "their HBM bytes for the data gradient") / hbm,
            "s", "routed experts' data-gradient GEMMs"),
        X::named("t_grp,w",
            math + X::named("B_grp,w", bytesWgrad, "B", "their HBM bytes for the weight gradient") / hbm, "s",
            "routed experts' weight-gradient GEMMs"),
    };
}

/// HBM time of an MoE layer's token permutation, forward or backward (the inverse kernels): permute a GPU's T_r tokens
/// into k·cf·T_r expert-ordered copies before the dispatch and unpermute them after the combine (read T_r·h and the
/// copies, write the other), and with more than one local expert sort the C copies it received (after the expert-TP
/// gather) by expert and unsort them (read and write C·h each) (megatron/core/transformer/moe/token_dispatcher.py
/// MoEAlltoAllTokenDispatcher: permute, sort_chunks_by_idxs when num_local_experts > 1, unpermute; moe_utils.py
/// permute/unpermute), at β bytes per element, at the permute kernels' measured fraction of HBM bandwidth.
template <class X> X permuteTime(const Scenario& s, const Shape& sh, const LayerCompute& c, bool backward)
{
    const X tokens = X::input("T_r", c.moeRoutedTokens, "tokens", "tokens a GPU permutes: its sequence share T/t");
    const X perm = X::constant(2)
        * (tokens
            + X::input("k", double(s.model.moe.topK), "", "experts per token (top-k)")
                * X::input("cf", s.model.moe.capacityFactor, "", "capacity factor") * tokens);
    const X passes = c.moeLocalExperts > 1
        ? perm + X::constant(4) * X::input("C", c.moeCopies, "tokens", "token copies a GPU's experts run: T·k·cf·t_e/t")
        : perm;
    const X bytes = X::named("B_perm",
        X::input("β", sh.bytes.act, "B", "bytes per activation element")
            * X::input("h", static_cast<double>(s.model.hidden), "", "hidden size") * passes,
        "B", "token permutation's HBM bytes, each direction");
    const X efficiency = backward ? X::input("η_perm,b", kPermuteBandwidthBwd, "",
                             "permute kernels' measured fraction of HBM bandwidth backward (SimuMax, B200)")
                                  : X::input("η_perm,f", kPermuteBandwidthFwd, "",
                                      "permute kernels' measured fraction of HBM bandwidth forward (SimuMax, B200)");
    return bytes / (efficiency * X::input("H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)"));
}

/// One layer's compute for one micro-batch, forward and backward: GEMMs at the sustained matmul rate, core attention
/// at the attention rate, element-wise HBM traffic at the memory bandwidth, host time (docs/model.md §compute-time).
template <class X> LayerComputeOf<X> layerCompute(const Scenario& s, const Shape& sh, const LayerCompute& c, bool moe)
{
    const X rLin = X::input(
        "R_lin", c.peak.linear, "FLOP/s", "sustained GEMM rate: peak × measured matmul fraction × GEMM realisation");
    const X linear
        = X::input("F_attn", c.attnLinear, "FLOP", "attention projections of one layer, one micro-batch: 2·T·P_attn/t")
        + (moe ? X::input(
               "F_moe", c.moeLinear, "FLOP", "MoE MLP of one layer: 2·T·(cf·P_routed,active + P_shared + P_router)/t")
               : X::input("F_mlp", c.denseLinear, "FLOP", "dense MLP of one layer: 2·T·P_mlp/t"));
    LayerComputeOf<X> t;
    const X core = coreFlops<X>(s, c);
    const X ke = X::input(
        "k_e", s.profile.elementwiseTraffic, "", "element-wise HBM traffic per stored activation byte (fitted)");
    const X hbm = X::input("H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    // Element-wise kernels move k_e × the layer's stored-activation bytes (no recompute) through HBM, forward and
    // again backward (profile elementwise_traffic).
    X elem = ke
        * X::input(
            "A_full", sh.layerActivationFull, "B", "activation bytes of one layer, one micro-batch, no recompute")
        / hbm;
    X elemBwd = elem;
    if (moe && c.moeRouted > 0) {
        // In an MoE layer the routed experts' grouped GEMMs at their own time (routedGemms), the rest at the dense
        // GEMM rate; the MoE layer's extra bytes at k_e but its dispatched copies, which the permutation moves instead.
        const X routed = X::input(
            "F_routed", c.moeRouted, "FLOP", "of F_moe, the routed experts' grouped GEMMs: 2·T·cf·P_routed,active/t");
        const X rest = (linear - routed) / rLin;
        RoutedGemmsOf<X> grp = routedGemms<X>(s, sh, c);
        t.gemm = rest + grp.fwd;
        t.wgrad = rest + std::move(grp.wgrad);
        t.gemmBwd = rest + std::move(grp.dgrad) + t.wgrad; // the data gradients, then the weight gradients
        const X extra = ke
            * (X::input("A_moe", sh.moeLayerExtraFull, "B", "extra activation bytes of an MoE layer")
                - X::input("A_disp", c.moeDispatched, "B", "of A_moe, the dispatched copies' input: T·k·cf·β₈·h/t"))
            / hbm;
        elemBwd = elem + extra + permuteTime<X>(s, sh, c, true);
        elem = elem + extra + permuteTime<X>(s, sh, c, false);
    } else {
        t.gemm = linear / rLin;
        t.wgrad = t.gemm;
        t.gemmBwd = X::constant(2) * t.gemm;
        if (moe) {
            elem = elem
                + ke * X::input("A_moe", sh.moeLayerExtraFull, "B", "extra activation bytes of an MoE layer") / hbm;
            elemBwd = elem;
        }
    }
    t.fwd = t.gemm + core / attnRate<X>(s, c, false) + elem
        + X::input("h_f", c.hostFwd, "s", "host time per layer in forward (framework profile: a third of the layer's)");
    // backward: data- and weight-gradient GEMMs (each the forward's FLOPs); attention 2× forward FLOPs eager, 2.5×
    // with FlashAttention (its scores recomputed, Dao 2023 §3.1), at the kernel's backward rate
    t.bwd = t.gemmBwd + X::constant(c.coreBwdFactor) * core / attnRate<X>(s, c, true) + elemBwd
        + X::input("h_b", c.hostBwd, "s", "host time per layer in backward (two thirds)");
    return t;
}

/// The output layer (last stage) for one micro-batch: logits GEMM 2·T·V·h/t forward, twice backward; softmax and
/// cross-entropy element-wise over the logits' bytes (k_e·6·T·V/t through HBM), forward and again backward.
template <class X> LayerComputeOf<X> headCompute(const Scenario& s, const Shape& sh, const LayerCompute& c)
{
    const X fHead = X::input("F_head", c.headLinear, "FLOP", "output-layer GEMM forward: 2·T·V·h/t");
    const X rHead = isFp8(s.training.precision)
        ? X::input("R_head", c.peak.head, "FLOP/s",
            "the output layer's GEMM rate: BF16 under FP8 (BF16 peak × measured matmul fraction × GEMM realisation)")
        : X::input("R_lin", c.peak.linear, "FLOP/s",
            "sustained GEMM rate: peak × measured matmul fraction × GEMM realisation");
    const X elem = X::input("k_e", s.profile.elementwiseTraffic, "",
                       "element-wise HBM traffic per stored activation byte (fitted)")
        * X::constant(6) * X::input("T", sh.tokensPerMicroBatch, "tokens", "tokens per micro-batch, s·b/c")
        * X::input("V", static_cast<double>(s.model.vocab), "tokens", "vocabulary")
        / X::input("t", double(sh.tp), "", "tensor-parallel size")
        / X::input("H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    return { fHead / rHead + elem, X::constant(2) * fHead / rHead + elem, fHead / rHead, X::constant(2) * fHead / rHead,
        fHead / rHead };
}

/// What t_cp,f and t_cp,b hold for each parallelism.cp_comm_type (communication_stage.cpp, layerCommunication).
inline const char* cpExposedText(CpCommType type)
{
    switch (type) {
    case CpCommType::A2a:
        return "context-parallel all-to-alls of one layer, exposed: Q, K, V and O forward; dO, dQ, dK, dV backward";
    case CpCommType::AllGather:
        return "context-parallel all-gathers of one layer, exposed: K and V forward; K and V again, dK and dV "
               "reduce-scattered, backward";
    case CpCommType::P2p: break;
    }
    return "exposed context-parallel ring steps of one layer: (c − 1)·max(0, t_kv − t_attn/c), 2·t_kv backward";
}

/// One layer's exposed TP (after tp_comm_overlap), context-parallel ring (beyond its attention) and, in an MoE
/// layer, expert all-to-all time (after moe_overlap), forward or backward: the parts layerTimes computed.
template <class X> X layerExposedComm(const LayerTimes& L, const LayerComm& comm, bool moe, bool backward)
{
    X tpCp = X::input(backward ? (moe ? "t_tp,b,moe" : "t_tp,b") : (moe ? "t_tp,f,moe" : "t_tp,f"),
                 backward ? L.tpBwd : L.tpFwd, "s", "exposed TP collectives of one layer")
        + X::input(backward ? "t_cp,b" : "t_cp,f", backward ? comm.cpBwdExposed : comm.cpFwdExposed, "s",
            cpExposedText(comm.cpType));
    if (!moe) // a dense layer has no all-to-all
        return tpCp;
    return tpCp
        + X::input(backward ? "t_ep,b" : "t_ep,f", backward ? L.epBwd : L.epFwd, "s",
            "expert all-to-all of one MoE layer: dispatch + combine, less the compute of another "
            "micro-batch it overlaps (parallelism.moe_overlap)");
}

/// Selective recompute of training.recompute_modules other than Megatron's default (core_attn alone): each named
/// module's forward runs again in backward (megatron/core/transformer/transformer_config.py, recompute_modules).
template <class X> X moduleRecompute(const Scenario& s, const Shape& sh, const LayerCompute& c, bool moe, double epFwd)
{
    const RecomputeModules mods = s.training.effectiveRecomputeModules();
    const X rLin = X::input(
        "R_lin", c.peak.linear, "FLOP/s", "sustained GEMM rate: peak × measured matmul fraction × GEMM realisation");
    // The element-wise kernels whose outputs were dropped run again (norms, activations, softmax); core attention
    // inside FlashAttention costs nothing beyond its kernel, as with the default (below).
    X dropped = X::input("A_full", sh.layerActivationFull, "B",
                    "activation bytes of one layer, one micro-batch, no recompute")
        - X::input("A", sh.layerActivation, "B", "activation bytes of one layer kept with these recompute_modules");
    if (mods.coreAttn && s.training.flashAttention)
        dropped
            = dropped - X::input("A_core", sh.layerCore, "B", "core attention's bytes (FlashAttention's log-sum-exp)");
    if (moe)
        dropped = dropped
            + X::input("A_moe,full", sh.moeLayerExtraFull, "B", "an MoE layer's extra bytes, no recompute")
            - X::input("A_moe", sh.moeLayerExtra, "B", "an MoE layer's extra bytes kept with these recompute_modules");
    if (moe && mods.moe) // the dispatched copies come from the permutation again (below)
        dropped = dropped
            - X::input("A_disp", c.moeDispatched, "B", "of A_moe, the dispatched copies' input: T·k·cf·β₈·h/t");
    X t = X::input(
              "k_e", s.profile.elementwiseTraffic, "", "element-wise HBM traffic per stored activation byte (fitted)")
        * dropped / X::input("H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    if (mods.coreAttn && !s.training.flashAttention) // core_attn: the scores and values again (Korthikanti §5)
        t = t
            + X::input("F_core", c.attnCore, "FLOP", "attention scores and values: 4·T·s·q/t eager")
                / attnRate<X>(s, c, false);
    if (mods.mlp && !moe) // mlp: a dense MLP's GEMMs again
        t = t + X::input("F_mlp", c.denseLinear, "FLOP", "dense MLP of one layer: 2·T·P_mlp/t") / rLin;
    if (moe && mods.moe) {
        // moe: the MoE block's forward again, the router, shared and routed GEMMs, the token permutation and its
        // dispatch and combine (megatron/core/transformer/moe/moe_layer.py: the whole forward runs under the
        // checkpoint)
        const X routed
            = X::input("F_routed", c.moeRouted, "FLOP", "the routed experts' grouped GEMMs: 2·T·cf·P_routed,active/t");
        t = t
            + (X::input("F_moe", c.moeLinear, "FLOP",
                   "MoE MLP of one layer: 2·T·(cf·P_routed,active + P_shared + P_router)/t")
                  - routed)
                / rLin
            + routedGemms<X>(s, sh, c).fwd + permuteTime<X>(s, sh, c, false)
            + X::input("t_ep,f", epFwd, "s", "the layer's exposed forward all-to-alls (dispatch + combine)");
    } else if (moe
        && mods.sharedExperts) { // shared_experts: their GEMMs again (moe_layer.py, shared_experts_recompute)
        t = t + X::input("F_shared", c.moeShared, "FLOP", "shared experts of one layer: 2·T·P_shared ÷ t") / rLin;
    }
    return t;
}

/// One layer's recompute time for one micro-batch, given its forward compute and exposed forward collectives.
template <class X> X layerRecompute(
    const Scenario& s, const Shape& sh, const LayerCompute& c, const X& fwd, const X& commFwd, bool moe, double epFwd)
{
    if (s.training.recompute == Recompute::Selective
        && !(s.training.effectiveRecomputeModules() == RecomputeModules { .coreAttn = true }))
        return moduleRecompute<X>(s, sh, c, moe, epFwd);
    const bool selective = s.training.recompute == Recompute::Selective && !s.training.flashAttention;
    if (s.training.recompute == Recompute::Full) // the whole forward again, its collectives included
        return X::named(moe ? "t_f,moe" : "t_f", fwd, "s", "forward compute of one layer")
            + X::named(moe ? "c_f,moe" : "c_f", commFwd, "s", "exposed forward collectives of one layer");
    if (!selective && s.training.recompute != Recompute::SelectiveOp)
        return X::constant(0);
    // The element-wise kernels of forward whose outputs were not saved run again.
    const X elem = X::input("k_e", s.profile.elementwiseTraffic, "",
                       "element-wise HBM traffic per stored activation byte (fitted)")
        * (X::input(
               "A_full", sh.layerActivationFull, "B", "activation bytes of one layer, one micro-batch, no recompute")
            - X::input("A", sh.layerActivation, "B", "activation bytes of one layer kept with this recompute"))
        / X::input("H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    if (selective) // selective: re-run core attention forward (its GEMMs and its softmax/dropout traffic) (Korthikanti §5)
        return coreFlops<X>(s, c) / attnRate<X>(s, c, false) + elem;
    // op-level selective: the unsaved matmuls (wk, wo and w3 or w2: one K/V, one q×h and one f-wide projection)
    // run again (torchtitan parallelize.py _save_list)
    return X::input("F_rc", c.recomputeLinear, "FLOP", "the matmuls whose outputs were not saved: 2·T·h·(kv + q + f)/t")
        / X::input(
            "R_lin", c.peak.linear, "FLOP/s", "sustained GEMM rate: peak × measured matmul fraction × GEMM realisation")
        + elem;
}
} // namespace

LayerTimes layerTimes(
    const Scenario& s, const Shape& sh, const LayerCompute& c, const LayerComm& comm, bool moe, double microBatches)
{
    const bool ep = sh.ep > 1;
    LayerTimes L;
    const LayerComputeOf<Fast> compute = layerCompute<Fast>(s, sh, c, moe);
    const double gemm = compute.gemm.value();
    L.fwd = compute.fwd.value();
    L.bwd = compute.bwd.value();
    L.wgrad = compute.wgrad.value();
    if (moe && ep) {
        // Dispatch + combine, forward and again backward (GShard). Overlapped (Megatron-Core
        // --overlap-moe-expert-parallel-comm, megatron/core/pipeline_parallel/combined_1f1b.py; DeepSeek-V3 report
        // §3.2.1 DualPipe): a micro-batch's forward all-to-alls run during another's backward compute of the layer
        // and its backward all-to-alls during another's forward, exposed only beyond it; the first forward and the
        // last backward of a step have no partner: (m − 1)/m of the micro-batches are paired.
        const double a2a = comm.epCost.time + comm.epCombine.time;
        L.epFwd = L.epBwd = a2a;
        if (s.parallelism.moeOverlap != MoeOverlap::None) {
            const double paired = microBatches > 1 ? (microBatches - 1) / microBatches : 0.0;
            L.epFwd = (1 - paired) * a2a + paired * std::max(0.0, a2a - L.bwd);
            L.epBwd = (1 - paired) * a2a + paired * std::max(0.0, a2a - L.fwd);
        }
    }
    // TP communication overlap (Megatron --tp-comm-overlap, Transformer Engine userbuffers): each sequence-parallel
    // all-gather / reduce-scatter runs as t ring steps, each step's transfer behind the GEMM on the chunk already
    // there (transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp, split_overlap_ag / split_overlap_rs):
    // exposed is what the layer's GEMMs (forward; dgrad + wgrad backward) do not cover, never less than one step, 1/t.
    const double tpFwd = moe ? comm.tpFwdMoe : comm.tpFwd, tpBwd = moe ? comm.tpBwdMoe : comm.tpBwd;
    L.tpFwd = tpFwd;
    L.tpBwd = tpBwd;
    if (s.parallelism.tpCommOverlap && sh.tp > 1) {
        L.tpFwd = std::max(tpFwd / sh.tp, tpFwd - gemm);
        L.tpBwd = std::max(tpBwd / sh.tp, tpBwd - compute.gemmBwd.value());
    }
    const Fast commFwd = layerExposedComm<Fast>(L, comm, moe, false);
    L.commFwd = commFwd.value();
    L.commBwd = layerExposedComm<Fast>(L, comm, moe, true).value();
    L.recompute = layerRecompute<Fast>(s, sh, c, compute.fwd, commFwd, moe, L.epFwd).value();
    return L;
}

StageTime stageTime(const Scenario& s, const Shape& sh, const Layout& layout, const StageShape& st,
    const LayerCompute& c, const LayerComm& comm, const LayerTimes& dense, const LayerTimes& moe)
{
    double fwd = st.denseLayers * (dense.fwd + dense.commFwd) + st.moeLayers * (moe.fwd + moe.commFwd);
    double bwd = st.denseLayers * (dense.bwd + dense.commBwd + dense.recompute)
        + st.moeLayers * (moe.bwd + moe.commBwd + moe.recompute);
    double wgrad = st.denseLayers * dense.wgrad + st.moeLayers * moe.wgrad;
    if (st.head) {
        const LayerComputeOf<Fast> head = headCompute<Fast>(s, sh, c);
        fwd += head.fwd.value();
        bwd += head.bwd.value();
        wgrad += head.gemm.value();
    }
    // ZeRO-3/FSDP: per micro-batch, gather each unit before its forward (prefetched one ahead) and again before
    // its backward, reduce-scatter its gradients after (ZeRO paper §7 two-stream rule, equal units).
    const Sharding shard = s.parallelism.sharding;
    StageTime t;
    if (gathersPerMicroBatch(shard) && st.layers > 0) {
        const double tf = fwd / st.layers, tb = bwd / st.layers;
        t.dpFwd = comm.unitAG.time + st.layers * std::max(0.0, comm.unitAG.time - tf);
        const bool gatherInBwd = shard != Sharding::FsdpGradOp;
        const double bwdComm = (gatherInBwd ? comm.unitAG.time : 0.0) + comm.unitRS.time;
        // the last reduce-scatter call (one unit, or one full gradient bucket) runs after the last layer's backward
        t.dpBwd = st.layers * std::max(0.0, bwdComm - tb) + comm.unitRS.time / comm.unitRSCalls;
        // NCCL kernels take SMs from the compute they overlap: the hidden part slows it by the profile's share.
        const double slow = s.profile.overlapSlowdown;
        fwd += slow * st.layers * std::min(comm.unitAG.time, tf);
        bwd += slow * st.layers * std::min(bwdComm, tb);
        t.contention = slow * st.layers * (std::min(comm.unitAG.time, tf) + std::min(bwdComm, tb));
    } else if (shard == Sharding::Zero2 && st.layers > 0) {
        // ZeRO-2 reduce-scatters gradient buckets during every backward (overlap_comm), the last one exposed.
        const double psi = st.dense + st.expert;
        // the profile's gradient bucket (DeepSpeed reduce_bucket_size 5e8 elements, deepspeed/runtime/zero/config.py)
        const double elems = gradBucketElements(s.profile, layout.dpcpGroup.size, sh.bytes.reduce);
        const Bucketed rs = bucketed(s, CollectiveOp::ReduceScatter, psi * sh.bytes.reduce,
            (elems > 0 ? std::min(psi, elems) : psi) * sh.bytes.reduce, layout.dpcpGroup);
        t.dpBwd = std::max(rs.perCall.time, rs.perCall.time * rs.calls - bwd);
    }
    if (s.parallelism.moeOverlap == MoeOverlap::DualPipe) {
        // The layers' forward and backward compute runs on the SMs DualPipe leaves to it, all step (the same share
        // on other GPUs: an extrapolation); host time is not on the SMs.
        const double k = kDualPipeCommSms / (kH800Sms - kDualPipeCommSms);
        const double cf = k * (st.denseLayers * (dense.fwd - c.hostFwd) + st.moeLayers * (moe.fwd - c.hostFwd));
        const double cb = k * (st.denseLayers * (dense.bwd - c.hostBwd) + st.moeLayers * (moe.bwd - c.hostBwd));
        fwd += cf;
        bwd += cb;
        t.contention += cf + cb;
    }
    t.forward = fwd + t.dpFwd;
    t.backward = bwd + t.dpBwd;
    t.weightGrad = wgrad;
    return t;
}

namespace {
template <class X> struct LayerStepOf {
    X fwd, bwd, commFwd, commBwd, recompute;
};

/// One layer's parts of the step: with Fast, the values layerTimes computed through the templates above; with Expr,
/// the same templates again, writing the text.
template <class X> LayerStepOf<X> layerStep(
    const Scenario& s, const Shape& sh, const LayerCompute& c, const LayerComm& comm, const LayerTimes& L, bool moe)
{
    if constexpr (std::is_same_v<X, Fast>) {
        return { { L.fwd }, { L.bwd }, { L.commFwd }, { L.commBwd }, { L.recompute } };
    } else {
        LayerComputeOf<X> t = layerCompute<X>(s, sh, c, moe);
        X commFwd = layerExposedComm<X>(L, comm, moe, false);
        X recompute = layerRecompute<X>(s, sh, c, t.fwd, commFwd, moe, L.epFwd);
        return { std::move(t.fwd), std::move(t.bwd), std::move(commFwd), layerExposedComm<X>(L, comm, moe, true),
            std::move(recompute) };
    }
}
} // namespace

template <class X> StepTimesOf<X> stepTimes(const Scenario& s, const Shape& sh, const LayerCompute& c,
    const LayerComm& comm, const SlowStage& slow, const LayerTimes& dense, const LayerTimes& moe,
    const StepCollectives& collectives, double contention)
{
    const StageShape& ss = slow.shape;
    const X m = X::input("m", slow.m, "micro-batches", "micro-batches per step (gradient accumulation)");
    const X ld = X::input("L_d", double(ss.denseLayers), "layers", "dense layers on the slowest stage");
    const X lm = X::input("L_moe", double(ss.moeLayers), "layers", "MoE layers on the slowest stage");
    // Only the layer kinds the slowest stage has: a kind it has none of would add 0·(its figure).
    const bool hasDense = ss.denseLayers > 0, hasMoe = ss.moeLayers > 0;
    LayerStepOf<X> d, e;
    if (hasDense)
        d = layerStep<X>(s, sh, c, comm, dense, false);
    if (hasMoe)
        e = layerStep<X>(s, sh, c, comm, moe, true);
    // Σ over those kinds of their count × one layer's figure.
    const auto perLayers = [&](auto&& denseFigure, auto&& moeFigure) -> X {
        if (hasDense && hasMoe)
            return ld * denseFigure() + lm * moeFigure();
        if (hasDense)
            return ld * denseFigure();
        if (hasMoe)
            return lm * moeFigure();
        return X::constant(0);
    };
    StepTimesOf<X> t;

    // Compute: every layer's forward and backward, m times (Narayanan et al. SC'21 §3.3).
    X perMb = perLayers(
        [&] {
            return X::named("t_f", std::move(d.fwd), "s", "forward compute of one dense layer")
                + X::named("t_b", std::move(d.bwd), "s", "backward compute of one dense layer");
        },
        [&] {
            return X::named("t_f,moe", std::move(e.fwd), "s", "forward compute of one MoE layer")
                + X::named("t_b,moe", std::move(e.bwd), "s", "backward compute of one MoE layer");
        });
    if (ss.head) { // the output layer
        LayerComputeOf<X> head = headCompute<X>(s, sh, c);
        perMb = std::move(perMb)
            + (X::named("t_head,f", std::move(head.fwd), "s", "output layer forward")
                + X::named("t_head,b", std::move(head.bwd), "s", "output layer backward"));
    }
    t.compute = m * perMb;
    if (contention > 0) // compute slowed by the collectives it overlaps (stageTime)
        t.compute = std::move(t.compute)
            + m * X::input("c_ov", contention, "s", "compute slowed per micro-batch by overlapped collectives");

    // Recompute: each layer's recompute, m times.
    if (s.training.recompute == Recompute::None
        || (s.training.recompute == Recompute::Selective && s.training.flashAttention
            && s.training.effectiveRecomputeModules() == RecomputeModules { .coreAttn = true }))
        t.recompute = X::constant(0);
    else
        t.recompute = m
            * perLayers(
                [&] {
                    return X::named(
                        "r", std::move(d.recompute), "s", "recompute time of one dense layer, one micro-batch");
                },
                [&] { return X::named("r_moe", std::move(e.recompute), "s", "recompute time of one MoE layer"); });

    // Exposed communication: per micro-batch the layers' TP/CP/EP and the ZeRO-3/FSDP exposure, then the pipeline
    // fill/drain send/recv and the data-parallel collectives after the last backward.
    X perMbComm
        = perLayers(
              [&] {
                  return X::named("c_f", std::move(d.commFwd), "s", "exposed forward collectives of one dense layer")
                      + X::named("c_b", std::move(d.commBwd), "s", "exposed backward collectives of one dense layer");
              },
              [&] {
                  return X::named("c_f,moe", std::move(e.commFwd), "s", "exposed forward collectives of one MoE layer")
                      + X::named("c_b,moe", std::move(e.commBwd), "s", "exposed backward collectives of one MoE layer");
              })
        + X::input(
            "C_dp,f", slow.dpFwd, "s", "ZeRO-3/FSDP collectives of a micro-batch's forward not hidden by compute")
        + X::input("C_dp,b", slow.dpBwd, "s",
            "ZeRO-3/FSDP/ZeRO-2 collectives of a micro-batch's backward not hidden by compute");
    t.exposedCommunication
        = m * X::named("C_mb", std::move(perMbComm), "s", "exposed communication per micro-batch on the slowest stage")
        + X::input(
            "C_pp", collectives.ppExposed, "s", "pipeline send/recv on the fill and drain path: 2·(p·v − 1) hops")
        + X::input(
            "C_dp", collectives.dpTail, "s", "gradient reduction / parameter all-gather left after the last backward");
    return t;
}
template StepTimesOf<Fast> stepTimes<Fast>(const Scenario&, const Shape&, const LayerCompute&, const LayerComm&,
    const SlowStage&, const LayerTimes&, const LayerTimes&, const StepCollectives&, double);
template StepTimesOf<Expr> stepTimes<Expr>(const Scenario&, const Shape&, const LayerCompute&, const LayerComm&,
    const SlowStage&, const LayerTimes&, const LayerTimes&, const StepCollectives&, double);

template <class X> X pipelineBubble(const Scenario& s, int v, double sumStage, double tSlow, double slowWeightGrad)
{
    // One micro-batch crosses every stage, the rest queue behind the slowest (Narayanan et al. SC'21 §2.2).
    if (s.parallelism.pp == 1)
        return X::constant(0);
    const X slow = X::input("t_slow", tSlow, "s", "one micro-batch on the slowest stage");
    X bubble = X::input("Σ_i t_i", sumStage, "s", "one micro-batch through every stage") - slow;
    switch (s.parallelism.schedule) {
    case PpSchedule::Interleaved: // Narayanan §2.2: (p−1)/v
        bubble = bubble / X::input("v", double(v), "", "virtual stages per GPU");
        break;
    case PpSchedule::ZeroBubble:
        // ZB-H1: (p−1)(t_f + t_b − 2·t_w) (sail-sg/zero-bubble-pipeline-parallelism and deepseek-ai/DualPipe READMEs)
        bubble = bubble
            * (max(X::constant(0),
                   slow
                       - X::constant(2)
                           * X::input("t_w", slowWeightGrad, "s", "weight-gradient time of the slowest stage"))
                / slow);
        break;
    default: break;
    }
    return bubble;
}
template Fast pipelineBubble<Fast>(const Scenario&, int, double, double, double);
template Expr pipelineBubble<Expr>(const Scenario&, int, double, double, double);

template <class X> OptimizerTimeOf<X> optimizerTime(
    const Scenario& s, const Shape& sh, const Layout& layout, const SlowStage& slow, double tSlow)
{
    // ZeRO-Offload, Ren et al. ATC'21; ZeRO-Infinity §4; docs/model.md §offload-time.
    const StateBytes& B = sh.bytes;
    const Cluster& cl = s.cluster;
    const Sharding shard = s.parallelism.sharding;
    const double psiDense = slow.shape.dense, psiExpert = slow.shape.expert;
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool offParam = s.offload.parameters != OffloadTarget::None;
    const bool shardOpt = shard != Sharding::Ddp;
    double nOpt = shardOpt ? double(layout.dp) * layout.cp : 1.0;
    if (shard == Sharding::FsdpHybrid)
        nOpt = layout.shardGroupPlacement.size;
    // experts shard over the expert data-parallel group: nOpt·t/(expert_tp·ep) (Megatron-Core's expert grid)
    const double nExpert = shardOpt ? std::max(1.0, nOpt * layout.tp / (double(layout.etp) * layout.ep)) : 1.0;
    const X psiOpt = X::input("Ψ_opt", psiDense / nOpt + psiExpert / nExpert, "parameters",
        "parameters whose optimizer state this GPU updates (the slowest stage's, sharded like the optimizer)");
    const X hbm = X::input("H", cl.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    const X w = X::input("w", B.w, "B/parameter", "weight bytes");
    const X pcie = X::input(
        "P", cl.gpu.hostLinkBandwidth * kPcieEfficiency, "B/s", "host link bandwidth × 0.75 (NCCL's PCIe efficiency)");
    const X gpusPerNode = X::input("G", double(cl.gpusPerNode), "GPUs", "GPUs per node (they share the host)");
    const X two = X::constant(2), zero = X::constant(0);
    OptimizerTimeOf<X> o { zero, zero };
    if (!offOpt && s.training.framework == Framework::Megatron) {
        // Megatron-Core's step, each pass memory-bound (docs/model.md §optimizer-step). Over the whole local gradient
        // buffer: zeroed before the first micro-batch (megatron/core/distributed/param_and_grad_buffer.py reset:
        // grad_data.zero_()), its norm taken for the NaN check (check_grads; --check-for-nan-in-loss-and-grad, on by
        // default) and, in a data-parallel group of more than one, scaled by 1/d before the reduction (start_grad_sync:
        // grad_data *= gradient_scaling_factor). Over the optimizer's shard: the fp32 main gradients' norm for clipping
        // (megatron/core/optimizer/clip_grads.py get_grad_norm_fp32; clip_grad 1.0 by default), Adam on the main
        // parameters, and their copy into the model's weights (distrib_optimizer.py _copy_main_params_to_model_params).
        // ZeRO-2/3 and FSDP shard the gradient buffer itself (Megatron-FSDP, torch FSDP2 under Megatron-Core): its
        // passes run over the shard.
        const bool shardedGrads = shard != Sharding::Ddp && shard != Sharding::Zero1;
        const double dense = shardedGrads ? psiDense / nOpt : psiDense;
        const double expert = shardedGrads ? psiExpert / nExpert : psiExpert;
        const double dReduce = double(layout.dp) * layout.cp;
        const double eReduce = std::max(1.0, dReduce * layout.tp / (double(layout.etp) * layout.ep));
        const X g = X::input("g", B.gr, "B/parameter", "gradient buffer bytes");
        const X gm = X::input("g_m", kMegatronMainGradBytes, "B/parameter", "fp32 main gradient bytes");
        const X psiLocal = X::input("Ψ_local", dense + expert, "parameters",
            shardedGrads ? "parameters of this GPU's gradient buffer: its shard (zero2, zero3, fsdp)"
                         : "parameters of this GPU's gradient buffer (not sharded)");
        const X psiScaled = X::input("Ψ_scaled", (dReduce > 1 ? dense : 0.0) + (eReduce > 1 ? expert : 0.0),
            "parameters", "of Ψ_local, the gradients of a data-parallel group of more than one GPU (scaled by 1/d)");
        const X buffer = X::named("B_buf", two * psiLocal * g + two * psiScaled * g, "B",
            "the gradient buffer's passes: zero (write g), NaN-check norm (read g), 1/d scaling (read and write g)");
        const X shardBytes = X::named("B_opt",
            psiOpt
                * (gm + gm + two * X::input("m + o", B.mw + B.os, "B/parameter", "master weights + optimizer moments")
                    + X::input("m", B.mw, "B/parameter", "master weight bytes") + w),
            "B",
            "the shard's passes: norm (read g_m), Adam (read g_m, read and write m and o), copy to the weights "
            "(read m, write w)");
        o.optimizer = (buffer + shardBytes) / hbm;
    } else if (!offOpt) {
        // The GPU optimizer step is memory-bound: read grads, master and moments; write master, moments and the
        // half-precision weights (docs/model.md §optimizer-step).
        o.optimizer = psiOpt
            * (X::input("g", B.gr, "B/parameter", "gradient bytes")
                + X::input("g32", B.grOpt, "B/parameter", "fp32 gradient bytes")
                + two * X::input("m + o", B.mw + B.os, "B/parameter", "master weights + optimizer moments") + w)
            / hbm;
    } else {
        const X d2h = psiOpt * X::input("g", B.gr, "B/parameter", "gradient bytes") / pcie;
        const X cpuAdam = psiOpt * gpusPerNode
            / X::input("R_adam", cl.cpuAdamParamsPerSecond, "parameters/s", "CPU Adam rate per node (cluster)");
        o.offload
            = max(zero, d2h - X::input("t_b", slow.lastBackward, "s", "the last backward, which the copy overlaps"))
            + cpuAdam + psiOpt * w / pcie;
        if (s.offload.optimizer == OffloadTarget::Nvme) // the states read and written
            o.offload = o.offload
                + two * X::input("m + o", B.mw + B.os, "B/parameter", "master weights + optimizer moments") * psiOpt
                    * gpusPerNode / X::input("B_nvme", cl.nvmeBandwidthPerNode, "B/s", "NVMe bandwidth per node");
    }
    if (offParam) {
        // Each micro-batch fetches the parameter shard from the host for forward and again for backward,
        // overlapped with that micro-batch's compute.
        X bw = pcie;
        if (s.offload.parameters == OffloadTarget::Nvme)
            bw = min(pcie, X::input("B_nvme", cl.nvmeBandwidthPerNode, "B/s", "NVMe bandwidth per node") / gpusPerNode);
        const X fetch = two * w
            * (X::input("Ψ_d/N", psiDense / nOpt, "parameters", "dense parameter shard of this GPU")
                + X::input("Ψ_e/N_e", psiExpert / nExpert, "parameters", "expert parameter shard"))
            / bw;
        const X fetchExposed = X::input("m", slow.m, "micro-batches", "micro-batches per step")
            * max(zero, fetch - X::input("t_stage", tSlow, "s", "one micro-batch on the slowest stage"));
        o.offload = offOpt ? o.offload + fetchExposed : fetchExposed;
    }
    if (s.offload.activationLayers > 0 && slow.shape.layers > 0) {
        // Activation offload (Transformer Engine pytorch/cpu_offload.py, AsyncDoubleBufferGroupOffloadHandler): the
        // offloaded layers' saved tensors go to the host on a side stream during the forward and come back, one layer
        // ahead, during the backward; the offloaded layers are spread evenly over the stage, so each direction is
        // exposed only beyond the compute it runs beside.
        const double layers = slow.shape.layers;
        const X bytes = X::input("N_off", double(s.offload.activationLayers), "layers",
                            "layers whose activations are offloaded (offload.activation_layers)")
            * X::input("a", sh.layerActivation + slow.shape.moeLayers * sh.moeLayerExtra / layers, "B",
                "stored activation bytes of one layer, one micro-batch (the stage's mean over its layers)");
        const X copy = bytes / pcie;
        const X exposed = X::input("m", slow.m, "micro-batches", "micro-batches per step")
            * (max(zero, copy - X::input("t_f", tSlow - slow.lastBackward, "s", "one micro-batch's forward"))
                + max(zero, copy - X::input("t_b", slow.lastBackward, "s", "one micro-batch's backward")));
        o.offload = offOpt || offParam ? o.offload + exposed : exposed;
    }
    return o;
}
template OptimizerTimeOf<Fast> optimizerTime<Fast>(
    const Scenario&, const Shape&, const Layout&, const SlowStage&, double);
template OptimizerTimeOf<Expr> optimizerTime<Expr>(
    const Scenario&, const Shape&, const Layout&, const SlowStage&, double);

} // namespace shardscope::core::detail
