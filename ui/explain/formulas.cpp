// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/formulas.h"

#include <QCoreApplication>
#include <QHash>

#include <algorithm>

namespace shardscope::ui {

namespace {
#define T(x) QT_TRANSLATE_NOOP("Formulas", x)
struct Entry {
    const char* key;
    Explanation e;
};

// Figures that are not core terms. Symbols as in docs/model.md §conventions.
const Entry kEntries[] = {
    { "memory.capacity",
        { T("GPU memory"),
            T("Memory of one GPU as its driver reports it (nvidia-smi / rocm-smi total); the datasheet's "
              "when the catalog has no driver figure."),
            T("reported_memory_bytes (else memory_bytes) of the GPU entry"),
            T("GPU catalog (source field of each entry)") } },
    { "memory.usable",
        { T("Usable memory"),
            T("What \"fits\" compares the memory total against, in every view (its formula is the core's term "
              "memory.usable once a scenario is evaluated)."),
            T(""), T("docs/model.md §usable-memory") } },
    { "memory.excess",
        { T("Excess"), T("How far the most loaded GPU is over its usable memory: the layout does not fit."),
            T("excess = total − usable"), T("") } },
    { "comm.hidden",
        { T("Hidden"), T("Communication time overlapped with compute (off the critical path)."),
            T("hidden = time − exposed"), T("docs/model.md §exposed-communication") } },
    { "comm.exposed",
        { T("Exposed"), T("Communication time the step waits for."),
            T("exposed = Σ stalls of the compute stream on this collective"),
            T("docs/model.md §exposed-communication") } },
    { "memory.total",
        { T("Memory per GPU"),
            T("Device memory in use at the peak on the most loaded GPU: the sum of the memory terms."), T(""),
            T("") } },
    { "step_time.total",
        { T("Step time"), T("Wall time of one optimizer step (all micro-batches): the sum of the step-time terms."),
            T(""), T("") } },
    { "kpi.fits",
        { T("Fits"),
            T("Whether the most loaded GPU's memory total stays within its usable memory (the "
              "GPU's memory as the driver reports it, less the CUDA context and the headroom)."),
            T("total ≤ usable"), T("docs/model.md §usable-memory") } },
    { "kpi.min_gpus",
        { T("Minimum GPUs"), T("Fewest GPUs on which this model fits with this strategy family and settings."),
            T("smallest GPU count for which total ≤ capacity (searched by the core)"), T("") } },
    { "kpi.cost",
        { T("Cost per step"),
            T("GPU rental cost of one optimizer step (its formula is the core's term throughput.cost_per_step_usd "
              "when the GPU has a price)."),
            T(""), T("Catalog hourly_price_usd (indicative)") } },
    { "chart.memory",
        { T("Memory per GPU"),
            T("What occupies the most loaded GPU (one bar per pipeline stage when PP > 1), against the GPU's memory."),
            T("ZeRO model states + Korthikanti activations + transient and fixed terms"),
            T("ZeRO paper; Korthikanti et al. 2022") } },
    { "chart.strategy",
        { T("Sharding strategies"),
            T("The same scenario under each ZeRO stage and with CPU offload: what sharding buys in memory and costs in "
              "time."),
            T("DDP 16Ψ, ZeRO-1 4Ψ + 12Ψ/N_d, ZeRO-2 2Ψ + 14Ψ/N_d, ZeRO-3 16Ψ/N_d (+ activations, unchanged)"),
            T("ZeRO paper §5, Figure 1") } },
    { "chart.comm",
        { T("Communication per GPU per step"),
            T("Bytes each GPU sends per optimizer step, by group and collective, and the time they take, hidden or "
              "exposed."),
            T("nccl-tests convention: ring all-reduce sends 2(n−1)/n of the buffer"),
            T("nccl-tests PERFORMANCE.md") } },
    { "chart.time",
        { T("Step time"), T("Where the time of one optimizer step goes, for this scenario and under each strategy."),
            T("T = T_pipe + exposed DP comm + optimizer + exposed offload"),
            T("Narayanan et al. SC'21 §2.2 (pipeline); docs/model.md §step-time") } },
    { "chart.search",
        { T("Layout search"),
            T("Every layout of this model on these GPUs that fits, as step time against memory per GPU; "
              "the Pareto front joins the layouts no other layout beats in both."),
            T("each point is evaluate() of one combination of sharding, t, p, c, e, schedule, b, recompute and "
              "offload"),
            T("") } },
    { "chart.sweep",
        { T("Sweep"),
            T("One scenario value varied along the x axis, everything else fixed, one curve per strategy; "
              "hollow markers and dashed lines do not fit in GPU memory."),
            T("each point is evaluate() of the scenario with the strategy and the axis value applied"), T("") } },
    { "chart.sizing",
        { T("Cluster sizing"),
            T("The fewest GPUs (whole nodes) on which each strategy fits, per GPU type, and the time and "
              "cost of training the token budget on them."),
            T("train time = tokens ÷ tokens/s; cost = GPUs × hours × hourly price"),
            T("Catalog hourly_price_usd (indicative)") } },
    { "chart.timeline",
        { T("Step timeline"),
            T("One optimizer step per pipeline stage: forward, backward and weight-gradient blocks by micro-batch, "
              "communication (exposed part saturated), the step's tail, and memory in use over time."),
            T("schedule simulated from the per-stage times of the result; its end is the step time"),
            T("Megatron-LM schedules.py (1F1B, interleaved); Qi et al. 2023, zero bubble (ZB-H1)") } },
    { "chart.rank_map",
        { T("Rank map"),
            T("Each GPU's rank and the TP, CP, DP, PP and EP groups it belongs to; groups that span nodes use "
              "the inter-node network."),
            T("rank order: TP fastest, then CP, DP, PP"), T("Megatron-LM parallel_state.py (RankGenerator)") } },
};
#undef T

template <class Breakdown> std::vector<TermFigure> fromBreakdown(const Breakdown& b, core::TermGroup group)
{
    std::vector<TermFigure> out;
    for (const core::TermKey& k : core::termKeys(group))
        out.push_back({ QString::fromUtf8(k.key.data(), qsizetype(k.key.size())),
            QString::fromUtf8(k.label.data(), qsizetype(k.label.size())), core::breakdownValue(b, k.key), nullptr });
    return out;
}
} // namespace

const Explanation* explanation(const QString& key)
{
    static const QHash<QString, const Explanation*> table = [] {
        QHash<QString, const Explanation*> t;
        for (const Entry& entry : kEntries)
            t.insert(QString::fromLatin1(entry.key), &entry.e);
        return t;
    }();
    return table.value(key, nullptr);
}

QString explanationTitle(const QString& key)
{
    if (const Explanation* e = explanation(key))
        return QCoreApplication::translate("Formulas", e->title);
    if (const core::TermKey* k = core::findTermKey(key.toStdString()))
        return QString::fromUtf8(k->label.data(), qsizetype(k->label.size()));
    return key;
}

double figureValue(const std::vector<TermFigure>& figures, const QString& key, size_t index)
{
    if (index < figures.size() && figures[index].key == key)
        return figures[index].value;
    for (const TermFigure& f : figures)
        if (f.key == key)
            return f.value;
    return 0;
}

const core::Term* findTerm(const std::vector<core::Term>& terms, std::string_view key)
{
    const auto it = std::find_if(terms.begin(), terms.end(), [key](const core::Term& t) { return t.key == key; });
    return it == terms.end() ? nullptr : &*it;
}

double termValue(const core::Result& result, std::string_view key, double fallback)
{
    const core::Term* t = findTerm(result.terms, key);
    return t ? t->value : fallback;
}

std::vector<TermFigure> termFigures(const core::Result& result, core::TermGroup group)
{
    if (!result.valid)
        return {};
    if (result.terms.empty()) {
        if (group == core::TermGroup::Memory)
            return fromBreakdown(result.memory, group);
        if (group == core::TermGroup::StepTime)
            return fromBreakdown(result.step, group);
        return {};
    }
    std::vector<TermFigure> out;
    for (const core::Term* t : core::termsOf(result.terms, group))
        out.push_back({ QString::fromStdString(t->key), QString::fromStdString(t->label), t->value, t });
    return out;
}

std::vector<TermFigure> memoryFigures(const core::MemoryBreakdown& memory)
{
    return fromBreakdown(memory, core::TermGroup::Memory);
}

std::vector<TermFigure> stepFigures(const core::StepTime& step)
{
    return fromBreakdown(step, core::TermGroup::StepTime);
}

} // namespace shardscope::ui
