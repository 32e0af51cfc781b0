// SPDX-License-Identifier: GPL-3.0-or-later
// The timing stage: layer, stage, pipeline and optimizer times (docs/model.md §step-time).
#include "timing_stage.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core::detail {

namespace {
// CPU↔GPU copies run at NCCL's 75% of raw PCIe (NVIDIA/nccl src/graph/topo.cc).
constexpr double kPcieEfficiency = 0.75;
// DualPipe keeps 20 of the H800's 132 SMs for its all-to-all and pipeline transfers (DeepSeek-V3 report §3.2.2).
constexpr double kDualPipeCommSms = 20;
constexpr double kH800Sms = 132; // H800 SXM5 = H100 SXM5's 132 SMs (NVIDIA H100 Tensor Core GPU Architecture, Table 2)
} // namespace

LayerTimes layerTimes(const Scenario& s, const Shape& sh, const LayerCompute& c, const LayerComm& comm, bool moe,
                      double microBatches)
{
    const bool full = s.training.recompute == Recompute::Full;
    const bool selective = s.training.recompute == Recompute::Selective;
    const bool ep = sh.ep > 1;
    LayerTimes L;
    const double linear = c.attnLinear + (moe ? c.moeLinear : c.denseLinear);
    const double routed = moe ? c.moeRouted : 0.0;
    // forward GEMM time: the routed experts' grouped GEMMs at their own rate, the rest at the dense GEMM rate
    const double gemm = (linear - routed) / c.peak.linear + (routed > 0 ? routed / c.peak.grouped : 0.0);
    const double elem = c.elemLayer + (moe ? c.elemMoeExtra : 0.0);
    L.fwd = gemm + c.coreTime + elem + c.hostFwd;
    // backward: 2× forward GEMMs (dgrad + wgrad); attention 2× forward FLOPs eager, 2.5× with FlashAttention, at the
    // kernel's backward rate
    L.bwd = 2.0 * gemm + c.coreBwdTime + elem + c.hostBwd;
    L.wgrad = gemm;
    if (moe && ep) {
        // Dispatch + combine, forward and again backward (GShard). Overlapped (Megatron-Core
        // --overlap-moe-expert-parallel-comm, megatron/core/pipeline_parallel/combined_1f1b.py; DeepSeek-V3 report
        // §3.2.1 DualPipe): a micro-batch's forward all-to-alls run during another's backward compute of the layer
        // and its backward all-to-alls during another's forward, exposed only beyond it; the first forward and the
        // last backward of a step have no partner: (m − 1)/m of the micro-batches are paired.
        const double a2a = 2 * comm.epCost.time;
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
    L.tpFwd = comm.tpFwd;
    L.tpBwd = comm.tpBwd;
    if (s.parallelism.tpCommOverlap && sh.tp > 1) {
        L.tpFwd = std::max(comm.tpFwd / sh.tp, comm.tpFwd - gemm);
        L.tpBwd = std::max(comm.tpBwd / sh.tp, comm.tpBwd - 2.0 * gemm);
    }
    L.commFwd = L.tpFwd + comm.cpFwdExposed + L.epFwd;
    L.commBwd = L.tpBwd + comm.cpBwdExposed + L.epBwd;
    if (full)
        L.recompute = L.fwd + L.commFwd; // the whole forward again, its collectives included
    else if (selective && !s.training.flashAttention)
        // selective: re-run core attention forward (its GEMMs and its softmax/dropout traffic) (Korthikanti §5)
        L.recompute = c.coreTime
            + s.profile.elementwiseTraffic * (sh.layerActivationFull - sh.layerActivation) / s.cluster.gpu.memoryBandwidth;
    else if (s.training.recompute == Recompute::SelectiveOp)
        // op-level selective: the unsaved matmuls (wk, wo and w3 or w2: one K/V, one q×h and one f-wide projection)
        // and the element-wise kernels of forward run again (torchtitan parallelize.py _save_list)
        L.recompute = c.recomputeLinear / c.peak.linear
            + s.profile.elementwiseTraffic * (sh.layerActivationFull - sh.layerActivation) / s.cluster.gpu.memoryBandwidth;
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
        fwd += c.headLinear / c.peak.linear + c.headElem;
        bwd += 2 * c.headLinear / c.peak.linear + c.headElem;
        wgrad += c.headLinear / c.peak.linear;
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
                   slow - X::constant(2) * X::input("t_w", slowWeightGrad, "s", "weight-gradient time of the slowest stage"))
               / slow);
        break;
    default: break;
    }
    return bubble;
}
template Fast pipelineBubble<Fast>(const Scenario&, int, double, double, double);
template Expr pipelineBubble<Expr>(const Scenario&, int, double, double, double);

template <class X>
OptimizerTimeOf<X> optimizerTime(const Scenario& s, const Shape& sh, const Layout& layout, const SlowStage& slow,
                                 double tSlow)
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
    const X psiOpt = X::input("Ψ_opt",
        psiDense / nOpt + psiExpert / (shardOpt ? std::max(1.0, nOpt / layout.ep) : 1.0), "parameters",
        "parameters whose optimizer state this GPU updates (the slowest stage's, sharded like the optimizer)");
    const X hbm = X::input("H", cl.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)");
    const X w = X::input("w", B.w, "B/parameter", "weight bytes");
    const X pcie = X::input("P", cl.gpu.hostLinkBandwidth * kPcieEfficiency, "B/s",
                            "host link bandwidth × 0.75 (NCCL's PCIe efficiency)");
    const X gpusPerNode = X::input("G", double(cl.gpusPerNode), "GPUs", "GPUs per node (they share the host)");
    const X two = X::constant(2), zero = X::constant(0);
    OptimizerTimeOf<X> o{ zero, zero };
    if (!offOpt) {
        // The GPU optimizer step is memory-bound: read grads, master and moments; write master, moments and the
        // half-precision weights (docs/model.md §optimizer-step).
        o.optimizer = psiOpt
            * (X::input("g", B.gr, "B/parameter", "gradient bytes") + X::input("g32", B.grOpt, "B/parameter", "fp32 gradient bytes")
               + two * X::input("m + o", B.mw + B.os, "B/parameter", "master weights + optimizer moments") + w)
            / hbm;
    } else {
        const X d2h = psiOpt * X::input("g", B.gr, "B/parameter", "gradient bytes") / pcie;
        const X cpuAdam = psiOpt * gpusPerNode
            / X::input("R_adam", cl.cpuAdamParamsPerSecond, "parameters/s", "CPU Adam rate per node (cluster)");
        o.offload = max(zero, d2h - X::input("t_b", slow.lastBackward, "s", "the last backward, which the copy overlaps"))
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
               + X::input("Ψ_e/N_e", psiExpert / std::max(1.0, nOpt / layout.ep), "parameters", "expert parameter shard"))
            / bw;
        const X fetchExposed = X::input("m", slow.m, "micro-batches", "micro-batches per step")
            * max(zero, fetch - X::input("t_stage", tSlow, "s", "one micro-batch on the slowest stage"));
        o.offload = offOpt ? o.offload + fetchExposed : fetchExposed;
    }
    return o;
}
template OptimizerTimeOf<Fast> optimizerTime<Fast>(const Scenario&, const Shape&, const Layout&, const SlowStage&, double);
template OptimizerTimeOf<Expr> optimizerTime<Expr>(const Scenario&, const Shape&, const Layout&, const SlowStage&, double);

} // namespace shardscope::core::detail
