// SPDX-License-Identifier: GPL-3.0-or-later
// The timing stage: layer, stage, pipeline and optimizer times (docs/model.md §step-time).
#include "timing_stage.h"

#include "term_builder.h"

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
    const double elem = c.elemLayer + (moe ? c.elemMoeExtra : 0.0);
    L.fwd = linear / c.peak.linear + c.coreTime + elem + c.hostFwd;
    // backward: 2× forward GEMMs (dgrad + wgrad); attention 2× forward FLOPs eager, 2.5× with FlashAttention, at the
    // kernel's backward rate
    L.bwd = 2.0 * linear / c.peak.linear + c.coreBwdTime + elem + c.hostBwd;
    L.wgrad = linear / c.peak.linear;
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
    L.commFwd = comm.tpFwd + comm.cpFwdExposed + L.epFwd;
    L.commBwd = comm.tpBwd + comm.cpBwdExposed + L.epBwd;
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

double pipelineBubble(const Scenario& s, const Layout& layout, double sumStage, double tSlow, double slowWeightGrad)
{
    // One micro-batch crosses every stage, the rest queue behind the slowest (Narayanan et al. SC'21 §2.2).
    if (layout.pp == 1)
        return 0;
    double bubble = sumStage - tSlow;
    switch (s.parallelism.schedule) {
    case PpSchedule::Interleaved: bubble /= layout.virtualStages; break; // Narayanan §2.2: (p−1)/v
    case PpSchedule::ZeroBubble:
        // ZB-H1: (p−1)(t_f + t_b − 2·t_w) (sail-sg/zero-bubble-pipeline-parallelism and deepseek-ai/DualPipe READMEs)
        bubble *= std::max(0.0, tSlow - 2.0 * slowWeightGrad) / tSlow;
        break;
    default: break;
    }
    return bubble;
}

OptimizerTime optimizerTime(const Scenario& s, const Shape& sh, const Layout& layout, const SlowStage& slow,
                            double tSlow, bool withText)
{
    // ZeRO-Offload, Ren et al. ATC'21; ZeRO-Infinity §4; docs/model.md §offload-time.
    const StateBytes& B = sh.bytes;
    const Cluster& cl = s.cluster;
    const Sharding shard = s.parallelism.sharding;
    const double hbm = cl.gpu.memoryBandwidth;
    const double psiDense = slow.shape.dense, psiExpert = slow.shape.expert;
    const double lastBwd = slow.lastBackward;
    const bool offOpt = s.offload.optimizer != OffloadTarget::None;
    const bool offParam = s.offload.parameters != OffloadTarget::None;
    const bool shardOpt = shard != Sharding::Ddp;
    double nOpt = shardOpt ? double(layout.dp) * layout.cp : 1.0;
    if (shard == Sharding::FsdpHybrid)
        nOpt = layout.shardGroupPlacement.size;
    const double psiOpt = psiDense / nOpt + psiExpert / (shardOpt ? std::max(1.0, nOpt / layout.ep) : 1.0);
    const double pcie = cl.gpu.hostLinkBandwidth * kPcieEfficiency;
    OptimizerTime o;
    if (!offOpt) {
        // The GPU optimizer step is memory-bound: read grads, master and moments; write master, moments and the
        // half-precision weights (docs/model.md §optimizer-step).
        const double bytes = psiOpt * (B.gr + B.grOpt + 2.0 * (B.mw + B.os) + B.w);
        o.optimizer = bytes / hbm;
        if (withText)
            o.optimizerText = substitute("{}*({}+{}+2*({}+{})+{})/{}", { psiOpt, B.gr, B.grOpt, B.mw, B.os, B.w, hbm });
    } else {
        const double d2h = psiOpt * B.gr / pcie;
        const double cpuAdam = psiOpt * cl.gpusPerNode / cl.cpuAdamParamsPerSecond;
        const double h2d = psiOpt * B.w / pcie;
        double t = std::max(0.0, d2h - lastBwd) + cpuAdam + h2d;
        if (withText)
            o.offloadText = substitute("{}+{}+{}", { std::max(0.0, d2h - lastBwd), cpuAdam, h2d });
        if (s.offload.optimizer == OffloadTarget::Nvme) {
            const double states = 2.0 * (B.mw + B.os) * psiOpt * cl.gpusPerNode / cl.nvmeBandwidthPerNode; // read + write
            t += states;
            if (withText)
                o.offloadText += substitute("+{}", { states });
        }
        o.offload += t;
    }
    if (offParam) {
        // Each micro-batch fetches the parameter shard from the host for forward and again for backward,
        // overlapped with that micro-batch's compute.
        double bw = pcie;
        if (s.offload.parameters == OffloadTarget::Nvme)
            bw = std::min(pcie, cl.nvmeBandwidthPerNode / cl.gpusPerNode);
        const double fetch = 2.0 * B.w * (psiDense / nOpt + psiExpert / std::max(1.0, nOpt / layout.ep)) / bw;
        o.offload += slow.m * std::max(0.0, fetch - tSlow);
        if (withText)
            o.offloadText += substitute(o.offloadText.empty() ? "{}*{}" : "+{}*{}", { slow.m, std::max(0.0, fetch - tSlow) });
    }
    return o;
}

} // namespace shardscope::core::detail
