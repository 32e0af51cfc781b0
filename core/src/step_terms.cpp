// SPDX-License-Identifier: GPL-3.0-or-later
// Terms for the model size, step time, throughput and communication (docs/model.md), assembled from the expressions
// the stages computed their figures with (X = Expr, expr.h), so each evaluates to the figure the views show.
#include "step_terms.h"

#include "assumed_hidden.h"
#include "model_counts.h"
#include "throughput_stage.h"

#include <string>
#include <utility>

namespace shardscope::core::detail {

namespace {

constexpr const char* kNarayanan = "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters "
                                   "Using Megatron-LM (SC'21)";

/// A term outside the breakdown key table (model, throughput, communication): its identity, then the expression's
/// value, formula, substituted expression and inputs.
Term termFrom(std::string key, TermGroup group, std::string label, std::string unit, const Expr& e, std::string source,
    std::string anchor)
{
    Term t;
    t.key = std::move(key);
    t.group = group;
    t.label = std::move(label);
    t.value = e.value();
    t.unit = std::move(unit);
    t.formula = e.formula;
    t.expression = e.expression;
    t.inputs = e.inputs;
    t.source = std::move(source);
    t.anchor = std::move(anchor);
    return t;
}

} // namespace

void addStepTerms(const Scenario& s, const Shape& sh, const Result& r, const StepTerms& st, std::vector<Term>& out)
{
    // ---- Model.
    out.push_back(termFrom("model.parameters", TermGroup::Model, "Parameters", "parameters",
        parameterCount<Expr>(s.model, sh.counts),
        "Megatron-LM megatron/training/theoretical_memory_usage.py "
        "(compute_weight_and_optimizer_memory)",
        "parameter-count"));
    {
        Term t = termFrom("model.flops_per_token", TermGroup::Model, "Model FLOPs per token", "FLOP",
            flopsPerToken<Expr>(s, sh.counts),
            std::string("Megatron-LM megatron/training/training.py (num_floating_point_operations); ") + kNarayanan
                + " §5.1",
            "flops");
        t.formula += " (3 GEMMs per matmul weight: forward, dgrad, wgrad; causal attention)";
        out.push_back(std::move(t));
    }

    // ---- Step time (the slowest pipeline stage sets it).
    {
        Term t = termOf("step_time.compute", st.times.compute,
            st.contention <= 0 ? std::string()
                : s.parallelism.moeOverlap == MoeOverlap::DualPipe
                ? "(c_ov: DualPipe keeps 20 of 132 SMs for communication: the layers' compute × 20/112, "
                  "DeepSeek-V3 report §3.2.2)"
                : "(c_ov: compute slowed by the ZeRO-3/FSDP collectives it overlaps: overlap_slowdown × "
                  "hidden time)");
        t.source = std::string(kNarayanan)
            + " §3.3, §5.1 (FLOPs); Shah et al., FlashAttention-3 (2024) Figs. 5 and 6 "
              "(H100 forward and backward rates of FlashAttention-2/3 and cuDNN), Dao, FlashAttention-2 (2023) "
              "Figs. 4 and 7 (forward + backward; A100 split by the H100's forward/backward ratio); "
              "TransformerEngine gemm_profiling.rst (FP8 speed-up); "
              "GPU datasheets and measured matmul rates (catalog); framework profile (host time)";
        out.push_back(std::move(t));
    }
    {
        const char* note = "";
        switch (s.training.recompute) {
        case Recompute::Full: note = "(full: every layer's forward again, its collectives included)"; break;
        case Recompute::Selective:
            note = !(s.training.effectiveRecomputeModules() == RecomputeModules { .coreAttn = true })
                ? "(selective: the training.recompute_modules' forward re-run)"
                : s.training.flashAttention
                ? "(FlashAttention's backward already recomputes the attention scores: counted in compute)"
                : "(selective: core attention re-run)";
            break;
        case Recompute::SelectiveOp:
            note = "(op-level selective: the matmuls whose outputs were not saved and the element-wise kernels re-run)";
            break;
        case Recompute::None: note = "(no activation recomputation)"; break;
        }
        Term t = termOf("step_time.recompute", st.times.recompute, note);
        t.source = "Korthikanti et al. (MLSys'23) §5 (selective and full recomputation)";
        if (s.training.recompute == Recompute::Selective && s.training.recomputeModules)
            t.source += "; megatron/core/transformer/transformer_config.py (recompute_modules)";
        out.push_back(std::move(t));
    }
    {
        Term t = termOf("step_time.exposed_communication", st.times.exposedCommunication,
            "(per micro-batch TP/CP/EP and ZeRO-3/FSDP exposure, pipeline fill/drain send/recv, "
            "data-parallel collectives after the last backward)");
        t.source = "NCCL src/graph/tuning.cc (collective times); PyTorch DDP and FSDP, DeepSpeed ZeRO overlap "
                   "(torch/nn/parallel/distributed.py, torch/distributed/fsdp, deepspeed/runtime/zero)";
        out.push_back(std::move(t));
    }
    {
        const char* note = s.parallelism.pp == 1 ? "(no pipeline)"
            : s.parallelism.schedule == PpSchedule::Interleaved
            ? "(every stage but the slowest is idle once per step, ÷ virtual stages)"
            : s.parallelism.schedule == PpSchedule::ZeroBubble
            ? "(ZB-H1 fills the bubble with weight-gradient work)"
            : "(1F1B/GPipe: (p − 1) stage times when stages are equal)";
        Term t = termOf(
            "step_time.pipeline_bubble", pipelineBubble<Expr>(s, st.v, st.sumStage, st.tSlow, st.weightGrad), note);
        t.source = std::string(kNarayanan) + " §2.2; Qi et al., Zero Bubble Pipeline Parallelism (ICLR'24) (ZB-H1)";
        out.push_back(std::move(t));
    }
    const OptimizerTimeOf<Expr> opt = optimizerTime<Expr>(s, sh, *st.layout, *st.slowStage, st.tSlow);
    {
        const bool any = s.offload.optimizer != OffloadTarget::None || s.offload.parameters != OffloadTarget::None;
        const bool activations = s.offload.activationLayers > 0;
        const std::string zeroOffload = "the transfers the step waits for: gradients to the host beyond the last "
                                        "backward, the CPU Adam step, weights back, states from NVMe, each "
                                        "micro-batch's parameter fetch beyond its compute";
        const std::string activationOffload
            = "each micro-batch's activation copies to the host beyond its forward, and back beyond its backward";
        const std::string zeroSource
            = "Ren et al., ZeRO-Offload (USENIX ATC'21) §4; Rajbhandari et al., ZeRO-Infinity (SC'21) §5";
        const std::string activationSource = "Transformer Engine transformer_engine/pytorch/cpu_offload.py "
                                             "(AsyncDoubleBufferGroupOffloadHandler), Megatron-Core "
                                             "--cpu-offloading-num-layers";
        const auto both = [&](const std::string& zero, const std::string& act, const std::string& neither) {
            return any && activations ? zero + "; " + act : any ? zero : activations ? act : neither;
        };
        Term t = termOf(
            "step_time.offload", opt.offload, "(" + both(zeroOffload, activationOffload, "nothing offloaded") + ")");
        t.source = both(zeroSource, activationSource, zeroSource);
        out.push_back(std::move(t));
    }
    {
        Term t = termOf("step_time.optimizer", opt.optimizer,
            s.offload.optimizer != OffloadTarget::None ? "(the optimizer runs on the CPU: see Offload)"
                                                       : "(memory-bound: read and write states)");
        t.source = s.training.framework == Framework::Megatron && s.offload.optimizer == OffloadTarget::None
            ? "Ren et al., ZeRO-Offload (USENIX ATC'21) §4.1 (the Adam step is memory-bound); Megatron-LM "
              "megatron/core/distributed/param_and_grad_buffer.py (reset, check_grads, start_grad_sync), "
              "megatron/core/optimizer/clip_grads.py (get_grad_norm_fp32), "
              "megatron/core/optimizer/distrib_optimizer.py "
              "(_copy_main_params_to_model_params)"
            : "Ren et al., ZeRO-Offload (USENIX ATC'21) §4.1 (the Adam step is memory-bound)";
        out.push_back(std::move(t));
    }

    // ---- Throughput.
    const double total = r.step.total();
    if (total > 0) {
        const ThroughputOf<Expr> tp
            = throughputFigures<Expr>(s, r.step, r.flopsPerToken, st.compute.peak.mfuPeak, r.gpus);
        out.push_back(termFrom("throughput.tokens_per_second", TermGroup::Throughput, "Tokens per second", "tokens/s",
            tp.tokensPerSecond, kNarayanan, "throughput"));
        out.push_back(termFrom("throughput.tokens_per_second_per_gpu", TermGroup::Throughput,
            "Tokens per second per GPU", "tokens/s", tp.tokensPerSecondPerGpu, kNarayanan, "throughput"));
        out.push_back(termFrom("throughput.model_tflops_per_gpu", TermGroup::Throughput, "Model TFLOP/s per GPU",
            "TFLOP/s", tp.modelTflopsPerGpu, std::string(kNarayanan) + " §5.1", "throughput"));
        out.push_back(termFrom("throughput.mfu", TermGroup::Throughput, "MFU", "", tp.mfu,
            "Chowdhery et al., PaLM (2022) Appendix B (model FLOPs utilisation)", "throughput"));
        out.push_back(termFrom("throughput.hardware_tflops_per_gpu", TermGroup::Throughput, "Hardware TFLOP/s per GPU",
            "TFLOP/s", tp.hardwareTflopsPerGpu,
            "Korthikanti et al., Reducing Activation Recomputation (MLSys'23) §6 (hardware FLOPs count the recompute)",
            "throughput"));
        if (s.cluster.gpu.hourlyPriceUsd > 0)
            out.push_back(termFrom("throughput.cost_per_step_usd", TermGroup::Throughput, "Cost per step", "USD",
                tp.costPerStepUsd, "GPU catalog hourly_price_usd (indicative rental price)", "throughput"));
    }

    // ---- Communication: one term per collective, bytes this GPU sends over the step.
    for (size_t i = 0; i < r.collectives.size(); ++i) {
        const Collective& col = r.collectives[i];
        Term t = termFrom(
            std::string("communication.") + toString(col.group) + "." + toString(col.op) + "." + std::to_string(i),
            TermGroup::Communication, col.purpose, "B", st.collectiveBytes[i],
            "NVIDIA nccl-tests doc/PERFORMANCE.md (bus bandwidth factors); NVIDIA/nccl "
            "src/graph/tuning.cc (latency and bandwidth per algorithm)",
            "communication-volume");
        if (col.op == CollectiveOp::AllReduce)
            t.formula += " (ring all-reduce sends each byte twice, less its own share)";
        else if (col.op == CollectiveOp::SendRecv)
            t.formula += " (every byte sent once)";
        // the collective's time beside its bytes (not part of the formula)
        t.inputs.push_back({ "t", col.time, "s",
            std::string("time of all calls, NCCL ") + toString(col.algo) + "/" + toString(col.proto)
                + ": calls × (latency + S / bandwidth)" });
        t.inputs.push_back(
            { "t_lat", col.latencyTime, "s", "of which latency, once per call (ring: grows with n − 1 steps)" });
        t.inputs.push_back({ "t_exposed", col.exposedTime, "s", "of which the step waits for" });
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
