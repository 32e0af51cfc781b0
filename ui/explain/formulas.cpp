// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/formulas.h"

#include <QCoreApplication>
#include <QHash>

namespace shardscope::ui {

namespace {
#define T(x) QT_TRANSLATE_NOOP("Formulas", x)
struct Entry {
    const char* key;
    Explanation e;
};

// Ψ parameters, N_d data-parallel (sharding) degree, t TP, p PP, c CP, e EP, s sequence, b micro-batch,
// h hidden, a heads, L layers, V vocabulary, m micro-batches per step, n group size, S message bytes.
const Entry kEntries[] = {
    // memory per GPU
    {"memory.parameters",
     {T("Parameters"), T("Compute-precision weights resident on this GPU (plus FP8 weight caches)."),
      T("w bytes/param × Ψ / (t·p·e_experts) ÷ N_d if parameters are sharded (ZeRO-3, FSDP full); w = 2 for bf16/fp16"),
      T("ZeRO paper §3.1 and §5 (Rajbhandari et al., SC'20); Megatron theoretical_memory_usage.py")}},
    {"memory.gradients",
     {T("Gradients"), T("Persistent gradient buffers kept between backward and the optimizer step."),
      T("g bytes/param × Ψ_local ÷ N_d if gradients are sharded (ZeRO-2/3); g = 2 (ZeRO paper) or 4 (Megatron fp32 main grads)"),
      T("ZeRO paper §5, Figure 1; Megatron dist_optimizer.md")}},
    {"memory.optimizer_states",
     {T("Optimizer states"), T("FP32 master weights plus the optimizer moments (Adam: momentum and variance)."),
      T("K × Ψ_local / N_d for ZeRO-1/2/3, K × Ψ_local for DDP; Adam states: 12 bytes/param (4 master + 4 + 4)"),
      T("ZeRO paper §3.1 (K = 12) and §5.1 (P_os)")}},
    {"memory.activations",
     {T("Activations"), T("Tensors stored in the forward pass for backward, for the micro-batches in flight."),
      T("per layer s·b·h·(34 + 5·a·s/h) bytes, with TP+SP: s·b·h·34/t; selective recompute drops 5·a·s²·b; "
        "full recompute 2·s·b·h; × layers × micro-batches in flight (1F1B: p on stage 0); + embedding and logits"),
      T("Korthikanti et al. 2022, Table 2 and §4 (MLSys'23)")}},
    {"memory.gathered_parameters",
     {T("Gathered parameters"), T("Transient full copies of sharded layers (ZeRO-3/FSDP all-gather units, with prefetch) "
                                  "and unsharded gradients being reduced."),
      T("≈ (2 units in flight) × w × Ψ_unit, Ψ_unit = one transformer layer's parameters / t"),
      T("FSDP notes (implicit prefetch); DeepSpeed stage3_max_live_parameters / prefetch bucket")}},
    {"memory.communication_buffers",
     {T("Communication buffers"), T("DDP/DeepSpeed gradient buckets and NCCL channel buffers."),
      T("bucket bytes (DDP 25 MiB cap, ×2 without gradient_as_bucket_view) + channels × peers × NCCL_BUFFSIZE (4 MiB)"),
      T("torch/lib/c10d/reducer.hpp; NCCL env.rst (NCCL_BUFFSIZE)")}},
    {"memory.framework_overhead",
     {T("Framework overhead"), T("CUDA context, allocator slack and the user's reserve."),
      T("constant CUDA context + fragmentation allowance + cluster reserve"),
      T("stas00 ml-engineering training/performance (CUDA context); Megatron-LM theoretical_memory_usage.py "
        "(×1.05 temporaries); EleutherAI cookbook calc/calc_transformer_mem.py (misc overhead); "
        "docs/model.md §framework-overhead")}},
    {"memory.capacity",
     {T("GPU memory"), T("Memory of one GPU as the catalog (datasheet) gives it."), T("memory_bytes of the GPU entry"),
      T("Vendor datasheet (catalog source field)")}},
    {"memory.excess",
     {T("Excess"), T("How far the most loaded GPU is over its memory: the layout does not fit."),
      T("excess = total − capacity"), T("")}},
    {"memory.total",
     {T("Total per GPU"), T("Sum of every memory item on this GPU."),
      T("parameters + gradients + optimizer states + activations + gathered + buffers + overhead"), T("")}},
    // step time
    {"time.compute",
     {T("Compute"), T("Time of the model FLOPs (forward and backward) on this GPU, incl. memory-bound element-wise work."),
      T("FLOPs/token × tokens per GPU per step / (peak × achievable fraction); FLOPs/token ≈ 6Ψ_active + attention term"),
      T("Narayanan et al. SC'21 §3; Megatron num_floating_point_operations; MAMF (stas00 ml-engineering)")}},
    {"time.recompute",
     {T("Recompute"), T("Forward work repeated in backward because activations were not stored."),
      T("full: 1 extra forward (4× instead of 3×); selective: core attention forward only"),
      T("Korthikanti et al. 2022 §5; MosaicML llm-foundry HFU notes")}},
    {"time.exposed_communication",
     {T("Exposed communication"), T("Communication not hidden behind compute (on the critical path)."),
      T("Σ max(0, end_j − deadline_j) over each group's comm stream; TP without overlap is fully exposed"),
      T("PyTorch torch/nn/parallel/distributed.py (DDP buckets); torch/distributed/fsdp/api.py (prefetch); Megatron-LM "
        "parallelism guide (overlap flags); docs/model.md §exposed-communication")}},
    {"time.pipeline_bubble",
     {T("Pipeline bubble"), T("Idle time at pipeline warm-up and cool-down."),
      T("1F1B/GPipe: (p−1)·(t_f + t_b); interleaved: (p−1)·(t_f + t_b)/v; zero-bubble: ≈ (p−1)·(t_f + t_b − 2·t_w)"),
      T("Narayanan et al. SC'21 §2; zero-bubble and DualPipe READMEs")}},
    {"time.offload",
     {T("Offload"), T("Exposed host/NVMe transfers and the CPU optimizer step."),
      T("D2H grads w_g·Ψ/N / B_pcie + CPU Adam Ψ_node / R_cpuadam + H2D params w·Ψ/N / B_pcie (+ 2·w·Ψ/N per micro-batch for parameter offload)"),
      T("ZeRO-Offload (Ren et al., ATC'21) Table 4; ZeRO-Infinity §4")}},
    {"time.optimizer",
     {T("Optimizer step"), T("The GPU optimizer update, memory-bound."),
      T("≈ 32 bytes × Ψ / N_opt / HBM bandwidth (read p, m, v, g; write p, m, v, half copy)"),
      T("Bytes an element-wise optimizer update reads and writes (ZeRO-Infinity §4); docs/model.md §optimizer-step")}},
    {"time.total",
     {T("Step time"), T("Wall time of one optimizer step (all micro-batches)."),
      T("T = T_pipe + exposed DP comm + optimizer + exposed offload; T_pipe = (m + (p−1)/v)·(t_f + t_b)"),
      T("Narayanan et al. SC'21 §2.2 (pipeline); docs/model.md §step-time")}},
    // communication
    {"comm.all_reduce",
     {T("All-reduce"), T("Sum of a buffer across the group, result on every rank."),
      T("bytes sent per rank = 2(n−1)/n · S (ring); time ≈ 2(n−1)·α + 2(n−1)/n · S / busbw"),
      T("nccl-tests PERFORMANCE.md; Thakur, Rabenseifner & Gropp 2005")}},
    {"comm.reduce_scatter",
     {T("Reduce-scatter"), T("Sum across the group, each rank keeps 1/n of the result."),
      T("bytes sent per rank = (n−1)/n · S; time ≈ (n−1)·α + (n−1)/n · S / busbw"),
      T("nccl-tests PERFORMANCE.md; Thakur et al. 2005")}},
    {"comm.all_gather",
     {T("All-gather"), T("Every rank receives the concatenation of all ranks' shards."),
      T("bytes sent per rank = (n−1)/n · S; time ≈ (n−1)·α + (n−1)/n · S / busbw"),
      T("nccl-tests PERFORMANCE.md; Thakur et al. 2005")}},
    {"comm.all_to_all",
     {T("All-to-all"), T("Each rank sends a distinct part of its buffer to every other rank (MoE dispatch and combine)."),
      T("bytes per rank per MoE layer = β·h·T·k·(e−1)/e per direction; 4 per layer per micro-batch (fwd+bwd)"),
      T("Lepikhin et al. 2020 (GShard); Fedus et al. 2022 (Switch Transformers); docs/model.md §expert-parallel")}},
    {"comm.send_recv",
     {T("Send/receive"), T("Point-to-point transfer of activations and their gradients between pipeline stages."),
      T("per micro-batch per boundary β·s·b·h / t each way; per step m × 2 × β·s·b·h/t (× v interleaved)"),
      T("Narayanan et al. SC'21 §3 and §4 (scatter/gather)")}},
    {"comm.dp",
     {T("Data parallel"), T("Gradient reduction and parameter gathering across data-parallel replicas."),
      T("DDP 2·φ·r·Ψ; ZeRO-1 φ·r·Ψ + φ·w·Ψ; ZeRO-2 A·φ·r·Ψ + φ·w·Ψ; ZeRO-3 A·(2·φ·w·Ψ + φ·r·Ψ); φ = (N−1)/N"),
      T("ZeRO paper §7; PyTorch torch/distributed/fsdp/api.py docstrings; docs/model.md §data-parallel")}},
    {"comm.tp",
     {T("Tensor parallel"), T("Megatron all-reduces (or all-gather/reduce-scatter with SP) inside every layer."),
      T("per layer per micro-batch 8(t−1)/t · β·s·b·h (no SP) or 10(t−1)/t · β·s·b·h (SP with wgrad re-gather)"),
      T("Shoeybi et al. 2019 §3; Korthikanti et al. 2022; Megatron layers.py")}},
    {"comm.pp", {T("Pipeline parallel"), T("Activations forward and gradients backward between neighbouring stages."),
                 T("m × 2 × β·s·b·h / t per step per interior stage"), T("Narayanan et al. SC'21")}},
    {"comm.cp",
     {T("Context parallel"), T("Ring exchange of key/value chunks for attention over a sharded sequence."),
      T("KV chunk = 2·β·(s/c)·b·g·d_h; forward (c−1) chunks, backward 2·(c−1) per layer"),
      T("Megatron-LM docs/user-guide/features/context_parallel.md; docs/model.md §context-parallel")}},
    {"comm.ep", {T("Expert parallel"), T("All-to-all dispatch and combine of tokens to the experts."),
                 T("4 × β·h·T·k·(e−1)/e per MoE layer per micro-batch"),
                 T("GShard; Switch Transformers; DeepSeek-V3 report §3.3; docs/model.md §expert-parallel")}},
    {"comm.hidden", {T("Hidden"), T("Communication time overlapped with compute (off the critical path)."),
                     T("hidden = time − exposed"), T("docs/model.md §exposed-communication")}},
    {"comm.exposed", {T("Exposed"), T("Communication time the step waits for."),
                      T("exposed = Σ stalls of the compute stream on this collective"),
                      T("docs/model.md §exposed-communication")}},
    // headline figures
    {"kpi.step_time", {T("Step time"), T("Wall time of one optimizer step on the most loaded GPU."),
                       T("compute + recompute + exposed comm + bubble + offload + optimizer"),
                       T("docs/model.md §step-time")}},
    {"kpi.tokens_per_second",
     {T("Tokens per second"), T("Training throughput of the whole cluster."),
      T("global batch × sequence length / step time"), T("")}},
    {"kpi.mfu",
     {T("MFU"), T("Model FLOPs utilisation: useful model FLOPs over the GPUs' dense peak (recompute not counted)."),
      T("MFU = FLOPs/token × tokens/s / (GPUs × dense peak); FP8 peak for fp8-mixed"),
      T("PaLM (Chowdhery et al. 2022) Appendix B")}},
    {"kpi.fits", {T("Fits"), T("Whether the most loaded GPU's memory total stays within its capacity."),
                  T("total ≤ capacity"), T("")}},
    {"kpi.min_gpus",
     {T("Minimum GPUs"), T("Fewest GPUs on which this model fits with this strategy family and settings."),
      T("smallest GPU count for which total ≤ capacity (searched by the core)"), T("")}},
    {"kpi.cost", {T("Cost per step"), T("GPU rental cost of one optimizer step."),
                  T("GPUs × hourly price × step time / 3600"), T("Catalog hourly_price_usd (indicative)")}},
    {"kpi.memory", {T("Memory per GPU"), T("Total memory of the most loaded GPU against its capacity."),
                    T("Σ memory items of the peak pipeline stage"), T("")}},
    // charts
    {"chart.memory",
     {T("Memory per GPU"), T("What occupies the most loaded GPU (one bar per pipeline stage when PP > 1), against the GPU's memory."),
      T("ZeRO model states + Korthikanti activations + transient and fixed terms"), T("ZeRO paper; Korthikanti et al. 2022")}},
    {"chart.strategy",
     {T("Sharding strategies"), T("The same scenario under each ZeRO stage and with CPU offload: what sharding buys in memory and costs in time."),
      T("DDP 16Ψ, ZeRO-1 4Ψ + 12Ψ/N_d, ZeRO-2 2Ψ + 14Ψ/N_d, ZeRO-3 16Ψ/N_d (+ activations, unchanged)"),
      T("ZeRO paper §5, Figure 1")}},
    {"chart.comm",
     {T("Communication per GPU per step"), T("Bytes each GPU sends per optimizer step, by group and collective, and the time they take, hidden or exposed."),
      T("nccl-tests convention: ring all-reduce sends 2(n−1)/n of the buffer"), T("nccl-tests PERFORMANCE.md")}},
    {"chart.time",
     {T("Step time"), T("Where the time of one optimizer step goes, for this scenario and under each strategy."),
      T("T = T_pipe + exposed DP comm + optimizer + exposed offload"),
      T("Narayanan et al. SC'21 §2.2 (pipeline); docs/model.md §step-time")}},
    // analysis tabs (issue 4)
    {"chart.search",
     {T("Layout search"), T("Every layout of this model on these GPUs that fits, as step time against memory per GPU; "
                            "the Pareto front joins the layouts no other layout beats in both."),
      T("each point is evaluate() of one combination of sharding, t, p, c, e, schedule, b, recompute and offload"),
      T("")}},
    {"chart.sweep",
     {T("Sweep"), T("One scenario value varied along the x axis, everything else fixed, one curve per strategy; "
                    "hollow markers and dashed lines do not fit in GPU memory."),
      T("each point is evaluate() of the scenario with the strategy and the axis value applied"), T("")}},
    {"chart.sizing",
     {T("Cluster sizing"), T("The fewest GPUs (whole nodes) on which each strategy fits, per GPU type, and the time and "
                             "cost of training the token budget on them."),
      T("train time = tokens ÷ tokens/s; cost = GPUs × hours × hourly price"), T("Catalog hourly_price_usd (indicative)")}},
    {"chart.timeline",
     {T("Step timeline"), T("One optimizer step per pipeline stage: forward, backward and weight-gradient blocks by micro-batch, "
                            "communication (exposed part saturated), the step's tail, and memory in use over time."),
      T("schedule simulated from the per-stage times of the result; its end is the step time"),
      T("Megatron-LM schedules.py (1F1B, interleaved); Qi et al. 2023, zero bubble (ZB-H1)")}},
    {"chart.rank_map",
     {T("Rank map"), T("Each GPU's rank and the TP, CP, DP, PP and EP groups it belongs to; groups that span nodes use "
                       "the inter-node network."),
      T("rank order: TP fastest, then CP, DP, PP"), T("Megatron-LM parallel_state.py (RankGenerator)")}},
};
#undef T
} // namespace

const Explanation* explanation(const QString& key)
{
    static const QHash<QString, const Explanation*> table = [] {
        QHash<QString, const Explanation*> t;
        for (const Entry& entry : kEntries)
            t.insert(QString::fromLatin1(entry.key), &entry.e);
        return t;
    }();
    if (const auto it = table.constFind(key); it != table.cend())
        return it.value();
    // "comm.dp.all_gather" -> "comm.all_gather"
    const QStringList parts = key.split(QLatin1Char('.'));
    if (parts.size() == 3 && parts.front() == QLatin1String("comm"))
        return table.value(QStringLiteral("comm.") + parts.back(), nullptr);
    return nullptr;
}

QString explanationTitle(const QString& key)
{
    const Explanation* e = explanation(key);
    return e ? QCoreApplication::translate("Formulas", e->title) : key;
}

} // namespace shardscope::ui
