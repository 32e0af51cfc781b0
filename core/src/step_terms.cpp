// SPDX-License-Identifier: GPL-3.0-or-later
// Terms for the model size, step time, throughput and communication (docs/model.md). Each expression uses the
// very numbers evaluateInto combined, so it evaluates to the figure the views show.
#include "step_terms.h"

#include "assumed_hidden.h"
#include "model_counts.h"
#include "throughput_stage.h"
#include "term_builder.h"

#include <algorithm>

namespace shardscope::core::detail {

namespace {

constexpr const char* kNarayanan = "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters "
                                   "Using Megatron-LM (SC'21)";

/// Forward or backward compute time of one layer for one micro-batch: GEMMs at the sustained matmul rate, core
/// attention at the attention rate, element-wise HBM traffic at the memory bandwidth.
std::string layerComputeText(bool backward, bool moe, const Scenario& s, const Shape& sh, const StepTerms& st,
                             double elementwise)
{
    const double mlp = moe ? st.compute.moeLinear : st.compute.denseLinear;
    const double act = sh.layerActivationFull + (moe ? sh.moeLayerExtraFull : 0.0);
    const double hbm = s.cluster.gpu.memoryBandwidth;
    const LayerCompute& c = st.compute;
    // GEMM time: in an MoE layer the routed experts' grouped GEMMs run at R_grp, the rest at R_lin
    const std::string gemm = moe ? substitute("(({}+{}-{})/{}+{}/{})", { c.attnLinear, mlp, c.moeRouted, c.peak.linear,
                                                                         c.moeRouted, c.peak.grouped })
                                 : substitute("({}+{})/{}", { c.attnLinear, mlp, c.peak.linear });
    if (!backward)
        return "(" + gemm
            + substitute("+{}/{}+{}*{}/{}+{})", { c.attnCore, c.peak.attention, elementwise, act, hbm, c.hostFwd });
    // backward: dgrad + wgrad GEMMs (2×), attention backward (2× eager, 2.5× FlashAttention with its recomputed scores)
    // at the kernel's backward rate
    return "(2*" + (moe ? gemm : "(" + gemm + ")")
        + substitute("+{}*{}/{}+{}*{}/{})", { c.coreBwdFactor, c.attnCore, c.peak.attentionBwd, elementwise, act, hbm,
                                               c.hostBwd });
}

/// What R_attn (forward) or R_attn,b (backward) is: the fused kernel's measured rate, and the profile's kernel it
/// stands in for when that one does not run on this GPU.
std::string attentionRateText(const Scenario& s, const StepTerms& st, bool backward)
{
    const bool fused = s.training.flashAttention && s.training.precision != Precision::Fp32;
    if (!fused)
        return backward ? "sustained rate of the attention products backward (the GEMM rate; BF16 even with FP8)"
                        : "sustained rate of the attention products (the GEMM rate; BF16 even with FP8)";
    std::string text = std::string(displayName(st.compute.kernel)) + "'s measured " + (backward ? "backward" : "forward")
        + " rate at this head dimension and block length, causal (BF16), × attention_efficiency";
    const bool ampere = s.cluster.gpu.arch == "ampere" || s.cluster.gpu.arch == "ada" || s.cluster.gpu.arch == "volta";
    if (ampere)
        text += "; A100's published forward + backward rate split by FlashAttention-2's forward/backward ratio on H100";
    else if (backward)
        text += "; causal backward = non-causal × FlashAttention-2's causal/non-causal forward + backward ratio";
    if (st.compute.kernel != s.profile.attentionKernel)
        text += std::string("; the profile's ") + displayName(s.profile.attentionKernel) + " does not run on "
            + s.cluster.gpu.arch + " GPUs: " + displayName(st.compute.kernel) + " instead";
    return text;
}

/// A term outside the breakdown key table (model, throughput, communication): its identity, then the expression's
/// value, formula, substituted expression and inputs.
Term termFrom(std::string key, TermGroup group, std::string label, std::string unit, const Expr& e, std::string source,
              std::string anchor)
{
    Term t = makeTerm(std::move(key), group, std::move(label), e.value(), std::move(unit));
    t.formula = e.formula;
    t.expression = e.expression;
    t.inputs = e.inputs;
    t.source = std::move(source);
    t.anchor = std::move(anchor);
    return t;
}

std::vector<TermInput> layerInputs(const Scenario& s, const Shape& sh, const StepTerms& st, double elementwise)
{
    return {
        { "m", st.m, "micro-batches", "micro-batches per step (gradient accumulation)" },
        { "L_d", double(st.slow.denseLayers), "layers", "dense layers on the slowest stage" },
        { "L_moe", double(st.slow.moeLayers), "layers", "MoE layers on the slowest stage" },
        { "F_attn", st.compute.attnLinear, "FLOP", "attention projections of one layer, one micro-batch: 2·T·P_attn/t" },
        { "F_mlp", st.compute.denseLinear, "FLOP", "dense MLP of one layer: 2·T·P_mlp/t" },
        { "F_moe", st.compute.moeLinear, "FLOP", "MoE MLP of one layer: 2·T·(cf·P_routed,active + P_shared + P_router)/t" },
        { "F_core", st.compute.attnCore, "FLOP", "attention scores and values: 2·T·s·q/t causal with FlashAttention, 4·T·s·q/t eager" },
        { "R_lin", st.compute.peak.linear, "FLOP/s", "sustained GEMM rate: peak × measured matmul fraction × GEMM realisation" },
        { "F_routed", st.compute.moeRouted, "FLOP", "of F_moe, the routed experts' grouped GEMMs: 2·T·cf·P_routed,active/t" },
        { "R_grp", st.compute.peak.grouped, "FLOP/s",
            "grouped-GEMM rate of the routed experts: R_lin × the grouped-GEMM fraction (SimuMax's measured B200 "
            "group_matmul over matmul efficiency, configs/system/b200_bf16_ceperm.json)" },
        { "R_attn", st.compute.peak.attention, "FLOP/s", attentionRateText(s, st, false) },
        { "R_attn,b", st.compute.peak.attentionBwd, "FLOP/s", attentionRateText(s, st, true) },
        { "h_f", st.compute.hostFwd, "s", "host time per layer in forward (framework profile: a third of the layer's)" },
        { "h_b", st.compute.hostBwd, "s", "host time per layer in backward (two thirds)" },
        { "k_e", elementwise, "", "element-wise HBM traffic per stored activation byte (fitted)" },
        { "A_full", sh.layerActivationFull, "B", "activation bytes of one layer, one micro-batch, no recompute" },
        { "H", s.cluster.gpu.memoryBandwidth, "B/s", "HBM bandwidth (datasheet)" },
    };
}

} // namespace

void addStepTerms(const Scenario& s, const Shape& sh, const Result& r, const StepTerms& st, std::vector<Term>& out)
{
    const double elementwise = s.profile.elementwiseTraffic;
    const double V = static_cast<double>(s.model.vocab);

    // ---- Model.
    out.push_back(termFrom("model.parameters", TermGroup::Model, "Parameters", "parameters",
                           parameterCount<Expr>(s.model, sh.counts),
                           "Megatron-LM megatron/training/theoretical_memory_usage.py "
                           "(compute_weight_and_optimizer_memory)",
                           "parameter-count"));
    {
        Term t = termFrom("model.flops_per_token", TermGroup::Model, "Model FLOPs per token", "FLOP",
                          flopsPerToken<Expr>(s, sh.counts),
                          std::string("Megatron-LM megatron/training/training.py (num_floating_point_operations); ")
                              + kNarayanan + " §5.1",
                          "flops");
        t.formula += " (3 GEMMs per matmul weight: forward, dgrad, wgrad; causal attention)";
        out.push_back(std::move(t));
    }

    // ---- Step time (the slowest pipeline stage sets it).
    const std::string fd = layerComputeText(false, false, s, sh, st, elementwise);
    const std::string bd = layerComputeText(true, false, s, sh, st, elementwise);
    const std::string fm = layerComputeText(false, true, s, sh, st, elementwise);
    const std::string bm = layerComputeText(true, true, s, sh, st, elementwise);
    {
        Term t = makeTerm("step_time.compute", TermGroup::StepTime, "Compute", r.step.compute, "s");
        t.formula = "m·(L_d·(t_f + t_b) + L_moe·(t_f,moe + t_b,moe) + head), t_f = (F_attn + F_mlp)/R_lin + F_core/R_attn "
                    "+ k_e·A_full/H + h_f, t_b = 2·(F_attn + F_mlp)/R_lin + (2, or 2.5 with FlashAttention)·F_core/R_attn,b "
                    "+ k_e·A_full/H + h_b; in MoE layers the routed experts' F_routed run at R_grp: "
                    "(F_attn + F_moe − F_routed)/R_lin + F_routed/R_grp";
        std::string e = substitute("{}*({}*(", { st.m, double(st.slow.denseLayers) }) + fd + "+" + bd
            + substitute(")+{}*(", { double(st.slow.moeLayers) }) + fm + "+" + bm + ")";
        if (st.slow.head) {
            // output layer: logits GEMM forward + 2× backward, softmax/cross-entropy element-wise traffic both ways
            const double T = sh.tokensPerMicroBatch;
            e += substitute("+3*{}/{}+2*{}*6*{}*{}/{}/{}",
                            { st.compute.headLinear, st.compute.peak.linear, elementwise, T, V, double(s.parallelism.tp),
                              s.cluster.gpu.memoryBandwidth });
            t.formula += "; head = 3·F_head/R_lin + 2·k_e·6·T·V/t/H";
        }
        t.expression = e + ")";
        if (st.contention > 0) {
            t.expression += substitute("+{}*{}", { st.m, st.contention });
            t.formula += s.parallelism.moeOverlap == MoeOverlap::DualPipe
                ? "; + m·c_ov (DualPipe keeps 20 of 132 SMs for communication: the layers' compute × 20/112, "
                  "DeepSeek-V3 report §3.2.2)"
                : "; + m·c_ov (compute slowed by the ZeRO-3/FSDP collectives it overlaps: overlap_slowdown × "
                  "hidden time)";
        }
        t.inputs = layerInputs(s, sh, st, elementwise);
        if (st.slow.head)
            t.inputs.push_back({ "F_head", st.compute.headLinear, "FLOP", "output-layer GEMM forward: 2·T·V·h/t" });
        t.source = std::string(kNarayanan) + " §3.3, §5.1 (FLOPs); Shah et al., FlashAttention-3 (2024) Figs. 5 and 6 "
                   "(H100 forward and backward rates of FlashAttention-2/3 and cuDNN), Dao, FlashAttention-2 (2023) "
                   "Figs. 4 and 7 (forward + backward; A100 split by the H100's forward/backward ratio); TransformerEngine gemm_profiling.rst (FP8 speed-up); "
                   "GPU datasheets and measured matmul rates (catalog); framework profile (host time)";
        t.anchor = "compute-time";
        out.push_back(std::move(t));
    }
    {
        Term t = makeTerm("step_time.recompute", TermGroup::StepTime, "Recompute", r.step.recompute, "s");
        switch (s.training.recompute) {
        case Recompute::Full: t.formula = "m·(L_d·r + L_moe·r_moe), r = t_f + the forward's exposed collectives"; break;
        case Recompute::Selective:
            t.formula = s.training.flashAttention
                ? "0 (FlashAttention's backward already recomputes the attention scores: counted in compute)"
                : "m·(L_d·r + L_moe·r), r = F_core/R_attn + k_e·(A_full − A)/H (core attention re-run)";
            break;
        case Recompute::SelectiveOp:
            t.formula = "m·(L_d·r + L_moe·r), r = 2·T·h·(kv + q + f)/t/R_lin + k_e·(A_full − A)/H (the matmuls "
                        "whose outputs were not saved and the element-wise kernels re-run)";
            break;
        case Recompute::None: t.formula = "0 (no activation recomputation)"; break;
        }
        t.expression = substitute("{}*({}*{}+{}*{})", { st.m, double(st.slow.denseLayers), st.dense.recompute,
                                                        double(st.slow.moeLayers), st.moe.recompute });
        t.inputs = { { "m", st.m, "micro-batches", "" },
                     { "r", st.dense.recompute, "s", "recompute time of one dense layer, one micro-batch" },
                     { "r_moe", st.moe.recompute, "s", "recompute time of one MoE layer" } };
        t.source = "Korthikanti et al. (MLSys'23) §5 (selective and full recomputation)";
        t.anchor = "recompute";
        out.push_back(std::move(t));
    }
    {
        Term t = makeTerm("step_time.exposed_communication", TermGroup::StepTime, "Exposed communication",
                          r.step.exposedCommunication, "s");
        t.formula = "m·C_mb + C_pp + C_dp (per micro-batch TP/CP/EP and ZeRO-3/FSDP exposure, pipeline fill/drain "
                    "send/recv, data-parallel collectives after the last backward)";
        t.expression = substitute("{}*{}+{}+{}", { st.m, st.commPerMb, st.ppExposed, st.dpTail });
        t.inputs = { { "m", st.m, "micro-batches", "" },
                     { "C_mb", st.commPerMb, "s", "exposed communication per micro-batch on the slowest stage" },
                     { "C_dp,mb", st.stageDpPerMb, "s", "of which ZeRO-3/FSDP/ZeRO-2 collectives not hidden by compute" },
                     { "C_cp,mb", st.cpPerMb, "s",
                         "of which context-parallel ring steps: L·(c − 1)·(max(0, t_kv − t_attn,f/c) + "
                         "max(0, 2·t_kv − t_attn,b/c))" },
                     { "C_ep,mb", st.epPerMb, "s",
                         "of which expert all-to-all: 4 per MoE layer, less the compute of another micro-batch it "
                         "overlaps (parallelism.moe_overlap)" },
                     { "C_pp", st.ppExposed, "s", "pipeline send/recv on the fill and drain path: 2·(p·v − 1) hops" },
                     { "C_dp", st.dpTail, "s", "gradient reduction / parameter all-gather left after the last backward" } };
        t.source = "NCCL src/graph/tuning.cc (collective times); PyTorch DDP and FSDP, DeepSpeed ZeRO overlap "
                   "(torch/nn/parallel/distributed.py, torch/distributed/fsdp, deepspeed/runtime/zero)";
        t.anchor = "communication-time";
        out.push_back(std::move(t));
    }
    {
        const char* note = s.parallelism.pp == 1 ? "(no pipeline)"
            : s.parallelism.schedule == PpSchedule::Interleaved
            ? "(every stage but the slowest is idle once per step, ÷ virtual stages)"
            : s.parallelism.schedule == PpSchedule::ZeroBubble ? "(ZB-H1 fills the bubble with weight-gradient work)"
                                                               : "(1F1B/GPipe: (p − 1) stage times when stages are equal)";
        Term t = termOf("step_time.pipeline_bubble", pipelineBubble<Expr>(s, st.v, st.sumStage, st.tSlow, st.weightGrad),
                        note);
        t.source = std::string(kNarayanan) + " §2.2; Qi et al., Zero Bubble Pipeline Parallelism (ICLR'24) (ZB-H1)";
        out.push_back(std::move(t));
    }
    const OptimizerTimeOf<Expr> opt = optimizerTime<Expr>(s, sh, *st.layout, *st.slowStage, st.tSlow);
    {
        const bool any = s.offload.optimizer != OffloadTarget::None || s.offload.parameters != OffloadTarget::None;
        Term t = termOf("step_time.offload", opt.offload,
                        any ? "(the transfers the step waits for: gradients to the host beyond the last backward, "
                              "the CPU Adam step, weights back, states from NVMe, each micro-batch's parameter fetch "
                              "beyond its compute)"
                            : "(nothing offloaded)");
        t.source = "Ren et al., ZeRO-Offload (USENIX ATC'21) §4; Rajbhandari et al., ZeRO-Infinity (SC'21) §5";
        out.push_back(std::move(t));
    }
    {
        Term t = termOf("step_time.optimizer", opt.optimizer,
                        s.offload.optimizer != OffloadTarget::None ? "(the optimizer runs on the CPU: see Offload)"
                                                                   : "(memory-bound: read and write states)");
        t.source = "Ren et al., ZeRO-Offload (USENIX ATC'21) §4.1 (the Adam step is memory-bound)";
        out.push_back(std::move(t));
    }

    // ---- Throughput.
    const double total = r.step.total();
    if (total > 0) {
        const ThroughputOf<Expr> tp = throughputFigures<Expr>(s, total, r.flopsPerToken, st.compute.peak.mfuPeak, r.gpus);
        out.push_back(termFrom("throughput.tokens_per_second", TermGroup::Throughput, "Tokens per second", "tokens/s",
                               tp.tokensPerSecond, kNarayanan, "throughput"));
        out.push_back(termFrom("throughput.tokens_per_second_per_gpu", TermGroup::Throughput, "Tokens per second per GPU",
                               "tokens/s", tp.tokensPerSecondPerGpu, kNarayanan, "throughput"));
        out.push_back(termFrom("throughput.model_tflops_per_gpu", TermGroup::Throughput, "Model TFLOP/s per GPU", "TFLOP/s",
                               tp.modelTflopsPerGpu, std::string(kNarayanan) + " §5.1", "throughput"));
        out.push_back(termFrom("throughput.mfu", TermGroup::Throughput, "MFU", "", tp.mfu,
                               "Chowdhery et al., PaLM (2022) Appendix B (model FLOPs utilisation)", "throughput"));
    }

    // ---- Communication: one term per collective, bytes this GPU sends over the step.
    for (size_t i = 0; i < r.collectives.size(); ++i) {
        const Collective& col = r.collectives[i];
        const double n = col.groupSize;
        Term t = makeTerm(std::string("communication.") + toString(col.group) + "." + toString(col.op) + "."
                              + std::to_string(i),
                          TermGroup::Communication, col.purpose, col.bytes, "B");
        double factor = 1;
        switch (col.op) {
        case CollectiveOp::AllReduce:
            t.formula = "2·(n − 1)/n · S_total (ring all-reduce sends each byte twice, less its own share)";
            factor = 2 * (n - 1) / n;
            t.expression = substitute("2*({}-1)/{}*{}", { n, n, col.bytes / factor });
            break;
        case CollectiveOp::ReduceScatter:
        case CollectiveOp::AllGather:
        case CollectiveOp::AllToAll:
            t.formula = "(n − 1)/n · S_total";
            factor = (n - 1) / n;
            t.expression = substitute("({}-1)/{}*{}", { n, n, col.bytes / factor });
            break;
        case CollectiveOp::SendRecv:
            t.formula = "S_total (every byte sent once)";
            t.expression = exprNumber(col.bytes);
            break;
        }
        t.inputs = { { "n", n, "GPUs", "group size" },
                     { "S", col.messageBytes, "B", "message of one call (nccl-tests convention)" },
                     { "calls", double(col.count), "", "calls per step (one per bucket, unit or layer)" },
                     { "S_total", col.bytes / factor, "B", "all calls' messages over the step" },
                     { "t", col.time, "s", std::string("time of all calls, NCCL ") + toString(col.algo) + "/"
                                                + toString(col.proto) + ": calls × (latency + S / bandwidth)" },
                     { "t_lat", col.latencyTime, "s", "of which latency, once per call (ring: grows with n − 1 steps)" },
                     { "t_exposed", col.exposedTime, "s", "of which the step waits for" } };
        t.source = "NVIDIA nccl-tests doc/PERFORMANCE.md (bus bandwidth factors); NVIDIA/nccl src/graph/tuning.cc "
                   "(latency and bandwidth per algorithm)";
        t.anchor = "communication-volume";
        out.push_back(std::move(t));
    }
    {
        const Expr hidden = assumedHidden<Expr>(r.collectives);
        Term t = termOf("communication.assumed_hidden_seconds", hidden,
                        "(Σ over the collectives: time − exposed time; counted free, behind compute)");
        t.group = TermGroup::Throughput; // seconds, beside the step's figures (the Communication group is bytes)
        t.label = "Communication assumed hidden";
        t.unit = "s";
        t.anchor = "exposed-communication";
        t.source = "Rajbhandari et al., ZeRO (SC'20) §7 and Zhao et al., PyTorch FSDP (VLDB'23) §3.3 (prefetch and "
                   "overlap); Li et al., PyTorch Distributed (VLDB'20) §3.2.3 (bucketed all-reduce behind backward)";
        out.push_back(std::move(t));
    }
}

} // namespace shardscope::core::detail
