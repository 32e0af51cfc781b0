// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/sweep.h"

#include "shardscope/core/evaluate.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core {

namespace {
std::string familyKey(const std::string& id)
{
    const auto dash = id.rfind('-');
    std::string key = dash == std::string::npos ? id : id.substr(0, dash);
    // llama3.1 belongs with llama3 (same recipe, longer context); keep qwen2.5 as it is.
    if (const auto dot = key.find('.'); dot != std::string::npos && key.rfind("llama", 0) == 0)
        key = key.substr(0, dot);
    return key;
}
} // namespace

std::vector<const ModelSpec*> modelFamily(const Catalog& catalog, const std::string& modelId)
{
    std::vector<const ModelSpec*> out;
    const std::string key = familyKey(modelId);
    for (const auto& m : catalog.models)
        if (familyKey(m.id) == key)
            out.push_back(&m);
    std::stable_sort(out.begin(), out.end(),
        [](const ModelSpec* a, const ModelSpec* b) { return modelSize(*a).total < modelSize(*b).total; });
    // The same architecture under two ids (llama3-8b and llama3.1-8b) appears once.
    out.erase(std::unique(out.begin(), out.end(),
                  [](const ModelSpec* a, const ModelSpec* b) { return modelSize(*a).total == modelSize(*b).total; }),
        out.end());
    return out;
}

std::vector<double> defaultSweepValues(const Scenario& base, SweepAxis axis)
{
    std::vector<double> v;
    auto powers = [&](double from, double to) {
        for (double x = from; x <= to; x *= 2)
            v.push_back(x);
    };
    switch (axis) {
    case SweepAxis::ModelSize: break; // indices into modelFamily(), filled by the caller
    case SweepAxis::Gpus: powers(base.cluster.gpusPerNode, base.cluster.gpusPerNode * 256.0); break;
    case SweepAxis::Nodes: powers(1, 256); break;
    case SweepAxis::Tp:
        for (int t = 1; t <= base.cluster.gpusPerNode; t *= 2)
            if (tensorParallelIssues(base.model, t).empty())
                v.push_back(t);
        break;
    case SweepAxis::Pp: powers(1, std::min(64, base.model.layers)); break;
    case SweepAxis::MicroBatch: powers(1, 32); break;
    case SweepAxis::SeqLen: powers(1024, 131072); break;
    case SweepAxis::GlobalBatch: powers(64, 8192); break;
    }
    return v;
}

Scenario applyAxis(const Scenario& base, SweepAxis axis, double value, const Catalog& catalog)
{
    Scenario s = base;
    const auto iv = static_cast<int64_t>(std::llround(value));
    switch (axis) {
    case SweepAxis::ModelSize: {
        const auto family = modelFamily(catalog, base.model.id);
        if (iv >= 0 && iv < static_cast<int64_t>(family.size()))
            s.model = *family[static_cast<size_t>(iv)];
        if (s.model.layers != base.model.layers)
            s.parallelism.pipelineLayout.clear(); // the layout names the base model's layers
        break;
    }
    case SweepAxis::Gpus:
        if (iv < s.cluster.gpusPerNode) {
            s.cluster.nodes = 1;
            s.cluster.gpusPerNode = static_cast<int>(iv);
        } else {
            s.cluster.nodes = static_cast<int>(iv / s.cluster.gpusPerNode);
        }
        break;
    case SweepAxis::Nodes: s.cluster.nodes = static_cast<int>(iv); break;
    case SweepAxis::Tp:
        s.parallelism.tp = static_cast<int>(iv);
        s.parallelism.sequenceParallel = iv > 1 && base.parallelism.sequenceParallel;
        break;
    case SweepAxis::Pp:
        s.parallelism.pp = static_cast<int>(iv);
        if (iv != base.parallelism.pp)
            s.parallelism.pipelineLayout.clear(); // a layout belongs to one pp: other points split layers evenly
        break;
    case SweepAxis::MicroBatch: s.training.microBatch = iv; break;
    case SweepAxis::SeqLen: s.training.seqLen = iv; break;
    case SweepAxis::GlobalBatch: s.training.globalBatch = iv; break;
    }
    return s;
}

std::vector<SweepCurve> sweep(const Scenario& base, SweepAxis axis, const std::vector<double>& values,
    const StrategyLadder& strategies, const Catalog& catalog)
{
    std::vector<SweepCurve> curves;
    const auto family
        = axis == SweepAxis::ModelSize ? modelFamily(catalog, base.model.id) : std::vector<const ModelSpec*> {};
    for (const auto& st : strategies) {
        SweepCurve c;
        c.strategy = st;
        const Scenario rung = withStrategy(base, st);
        for (double x : values) {
            const Scenario s = applyAxis(rung, axis, x, catalog);
            const Result r = evaluate(s);
            SweepPoint p;
            p.x = axis == SweepAxis::ModelSize ? r.parameters : x;
            if (axis == SweepAxis::ModelSize) {
                const auto i = static_cast<size_t>(std::llround(x));
                p.label = i < family.size() ? family[i]->name : std::string();
                p.x = i < family.size() ? modelSize(*family[i]).total : 0.0;
            }
            p.valid = r.valid;
            if (!r.valid) {
                p.issue = r.issues.empty() ? std::string() : r.issues.front().field + ": " + r.issues.front().message;
            } else {
                p.fits = r.fits;
                p.memory = r.memory.total();
                p.stepTime = r.step.total();
                p.mfu = r.throughput.mfu;
                p.commBytes = r.totalCommBytes;
                p.tokensPerSecond = r.throughput.tokensPerSecond;
            }
            c.points.push_back(p);
        }
        curves.push_back(std::move(c));
    }
    return curves;
}

std::vector<SizingRow> sizeCluster(const Scenario& base, const std::vector<const GpuSpec*>& gpus,
    const StrategyLadder& strategies, double tokens, double priceOverride)
{
    std::vector<SizingRow> rows;
    for (const GpuSpec* g : gpus) {
        for (const auto& st : strategies) {
            Scenario s = withStrategy(base, st);
            s.cluster.gpu = *g;
            if (isFp8(s.training.precision)
                && (g->fp8DenseFlops <= 0 || (s.training.precision == Precision::Mxfp8 && !hasMxScaling(*g))))
                s.training.precision = Precision::Bf16Mixed; // this GPU has no FP8: compare it in BF16
            SizingRow row;
            row.gpuId = g->id;
            row.gpuName = g->name;
            row.strategy = st.label;
            const int gpn = s.cluster.gpusPerNode;
            // evaluate() bisects the fewest GPUs at which the layout fits; round up to whole nodes on which it is
            // also valid (global batch divisible by micro-batch × dp).
            const Result probe = evaluate(s);
            const int first = probe.minGpus > 0 ? (probe.minGpus + gpn - 1) / gpn : 0;
            for (int nodes = first; first > 0 && nodes < first + 256; ++nodes) {
                s.cluster.nodes = nodes;
                Result r = evaluate(s);
                if (!r.valid || !r.fits)
                    continue;
                row.minGpus = nodes * gpn;
                row.stepTime = r.step.total();
                row.tokensPerSecond = r.throughput.tokensPerSecond;
                row.mfu = r.throughput.mfu;
                row.memory = r.memory.total();
                row.trainSeconds = tokens / r.throughput.tokensPerSecond;
                const double price = priceOverride > 0 ? priceOverride : g->hourlyPriceUsd;
                row.trainCostUsd = price > 0 ? price * row.minGpus * row.trainSeconds / 3600.0 : 0.0;
                break;
            }
            rows.push_back(row);
        }
    }
    return rows;
}

} // namespace shardscope::core
