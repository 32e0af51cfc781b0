// SPDX-License-Identifier: GPL-3.0-or-later
// The A→B waterfall: a table of settings (path, equality, copy, text) walked in order; invalid intermediate
// scenarios merge with the next setting. Figures come from evaluateInto() after validate().
#include "shardscope/core/waterfall.h"

#include "shardscope/core/evaluate.h"
#include "shardscope/core/enum_names.h"
#include "evaluate_into.h"

#include <cstdio>
#include <functional>

namespace shardscope::core {

namespace {

std::string number(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
}
std::string number(int64_t v) { return std::to_string(v); }
std::string number(int v) { return std::to_string(v); }
std::string boolean(bool v) { return v ? "true" : "false"; }
std::string ref(const std::string& id, const std::string& name) { return id.empty() ? name : id; }

struct Setting {
    const char* path;
    std::function<bool(const Scenario&, const Scenario&)> equal;
    std::function<void(Scenario&, const Scenario&)> copy;
    std::function<std::string(const Scenario&)> text;
};

// One row per scalar member: equality, copy and text all address the same member.
#define SS_SETTING(PATH, MEMBER, TEXT)                                                                                 \
    Setting                                                                                                            \
    {                                                                                                                  \
        PATH, [](const Scenario& a, const Scenario& b) { return a.MEMBER == b.MEMBER; },                               \
            [](Scenario& into, const Scenario& from) { into.MEMBER = from.MEMBER; },                                   \
            [](const Scenario& s) { return TEXT(s.MEMBER); }                                                           \
    }

std::string enumText(Sharding v) { return toString(v); }
std::string enumText(Precision v) { return toString(v); }
std::string enumText(Optimizer v) { return toString(v); }
std::string enumText(GradReduce v) { return toString(v); }
std::string enumText(MasterWeights v) { return toString(v); }
std::string enumText(MomentsDtype v) { return toString(v); }
std::string enumText(Recompute v) { return toString(v); }
std::string enumText(Accounting v) { return toString(v); }
std::string enumText(PpSchedule v) { return toString(v); }
std::string enumText(OffloadTarget v) { return toString(v); }
std::string enumText(NcclAlgo v) { return toString(v); }
std::string enumText(NcclProto v) { return toString(v); }
std::string enumText(MoeOverlap v) { return toString(v); }
std::string enumText(CpCommType v) { return toString(v); }
std::string modelText(const ModelSpec& m) { return ref(m.id, m.name); }
std::string gpuText(const GpuSpec& g) { return ref(g.id, g.name); }
std::string linkText(const LinkSpec& l) { return ref(l.id, l.name); }
std::string intText(int v) { return number(v); }
std::string int64Text(int64_t v) { return number(v); }
std::string doubleText(double v) { return number(v); }
std::string expertTpText(int v) { return v > 0 ? number(v) : "tp"; } // 0: the tp (parallelism.expert_tp absent)
std::string modulesText(const std::optional<RecomputeModules>& m)
{
    if (!m)
        return "core_attn (default)";
    std::string out;
    for (const std::string& n : recomputeModuleNames(*m))
        out += (out.empty() ? "" : " ") + n;
    return out.empty() ? "none" : out;
}
std::string layoutText(const std::string& v) { return v.empty() ? "even" : v; } // parallelism.pipeline_layout

const std::vector<Setting>& settings()
{
    static const std::vector<Setting> table = {
        SS_SETTING("model", model, modelText),
        SS_SETTING("cluster.gpu", cluster.gpu, gpuText),
        SS_SETTING("cluster.nodes", cluster.nodes, intText),
        SS_SETTING("cluster.gpus_per_node", cluster.gpusPerNode, intText),
        SS_SETTING("cluster.intra_node", cluster.intraNode, linkText),
        SS_SETTING("cluster.inter_node", cluster.interNode, linkText),
        SS_SETTING("cluster.nics_per_node", cluster.nicsPerNode, intText),
        SS_SETTING("cluster.nvme_bandwidth_per_node", cluster.nvmeBandwidthPerNode, doubleText),
        SS_SETTING("cluster.cpu_adam_params_per_second", cluster.cpuAdamParamsPerSecond, doubleText),
        SS_SETTING("cluster.misc_bytes", cluster.miscBytes, doubleText),
        SS_SETTING("cluster.memory_headroom", cluster.memoryHeadroom, doubleText),
        SS_SETTING("training.seq_len", training.seqLen, int64Text),
        SS_SETTING("training.global_batch", training.globalBatch, int64Text),
        SS_SETTING("training.micro_batch", training.microBatch, int64Text),
        SS_SETTING("training.precision", training.precision, enumText),
        SS_SETTING("training.optimizer", training.optimizer, enumText),
        SS_SETTING("training.recompute", training.recompute, enumText),
        SS_SETTING("training.flash_attention", training.flashAttention, boolean),
        SS_SETTING("training.dropout", training.dropout, boolean),
        SS_SETTING("training.accounting", training.accounting, enumText),
        SS_SETTING("training.grad_reduce_dtype", training.gradReduce, enumText),
        SS_SETTING("training.master_weights", training.masterWeights, enumText),
        SS_SETTING("training.moments_dtype", training.momentsDtype, enumText),
        SS_SETTING("training.fp8_param_gather", training.fp8ParamGather, boolean),
        SS_SETTING("training.recompute_modules", training.recomputeModules, modulesText),
        // The framework selects the profile its behaviour comes from: the two change together.
        Setting { "training.framework",
            [](const Scenario& a, const Scenario& b) {
                return a.training.framework == b.training.framework && a.profile.name == b.profile.name;
            },
            [](Scenario& into, const Scenario& from) {
                into.training.framework = from.training.framework;
                into.profile = from.profile;
            },
            [](const Scenario& s) { return std::string(toString(s.training.framework)); } },
        SS_SETTING("parallelism.sharding", parallelism.sharding, enumText),
        SS_SETTING("parallelism.tp", parallelism.tp, intText),
        SS_SETTING("parallelism.pp", parallelism.pp, intText),
        SS_SETTING("parallelism.cp", parallelism.cp, intText),
        SS_SETTING("parallelism.cp_comm_type", parallelism.cpCommType, enumText),
        SS_SETTING("parallelism.ep", parallelism.ep, intText),
        SS_SETTING("parallelism.expert_tp", parallelism.expertTp, expertTpText),
        SS_SETTING("parallelism.sequence_parallel", parallelism.sequenceParallel, boolean),
        SS_SETTING("parallelism.tp_comm_overlap", parallelism.tpCommOverlap, boolean),
        SS_SETTING("parallelism.overlap_grad_reduce", parallelism.overlapGradReduce, boolean),
        SS_SETTING("parallelism.overlap_param_gather", parallelism.overlapParamGather, boolean),
        SS_SETTING("parallelism.pp_schedule", parallelism.schedule, enumText),
        SS_SETTING("parallelism.virtual_stages", parallelism.virtualStages, intText),
        SS_SETTING("parallelism.pipeline_layout", parallelism.pipelineLayout, layoutText),
        SS_SETTING("parallelism.shard_group", parallelism.shardGroup, intText),
        SS_SETTING("parallelism.moe_overlap", parallelism.moeOverlap, enumText),
        SS_SETTING("offload.optimizer", offload.optimizer, enumText),
        SS_SETTING("offload.parameters", offload.parameters, enumText),
        SS_SETTING("offload.activation_layers", offload.activationLayers, intText),
        SS_SETTING("nccl.algo", nccl.algo, enumText),
        SS_SETTING("nccl.proto", nccl.proto, enumText),
        SS_SETTING("nccl.min_channels", nccl.minChannels, intText),
        SS_SETTING("nccl.gdr", nccl.gdr, boolean),
    };
    return table;
}
#undef SS_SETTING

const Setting* find(std::string_view path)
{
    for (const Setting& s : settings())
        if (path == s.path)
            return &s;
    return nullptr;
}

std::string firstIssue(const std::vector<Issue>& issues)
{
    const Issue& i = issues.front();
    return i.field.empty() ? i.message : i.field + ": " + i.message;
}

} // namespace

const std::vector<std::string>& waterfallSettings()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const Setting& s : settings())
            n.emplace_back(s.path);
        return n;
    }();
    return names;
}

std::vector<std::string> differingSettings(const Scenario& a, const Scenario& b)
{
    std::vector<std::string> out;
    for (const Setting& s : settings())
        if (!s.equal(a, b))
            out.emplace_back(s.path);
    return out;
}

std::string settingValue(const Scenario& s, std::string_view path)
{
    const Setting* setting = find(path);
    return setting ? setting->text(s) : std::string();
}

bool copySetting(Scenario& into, const Scenario& from, std::string_view path)
{
    const Setting* setting = find(path);
    if (!setting)
        return false;
    setting->copy(into, from);
    return true;
}

Waterfall buildWaterfall(const Scenario& a, const Scenario& b, const SearchOptions& ranking)
{
    Waterfall w;
    if (const auto issues = validate(a); !issues.empty()) {
        w.error = "A is invalid: " + firstIssue(issues);
        return w;
    }
    if (const auto issues = validate(b); !issues.empty()) {
        w.error = "B is invalid: " + firstIssue(issues);
        return w;
    }
    Result r;
    evaluateInto(a, r, false);
    const RankedFigures fa = rankedFigures(a, r, ranking);
    w.memoryA = fa.memory;
    w.stepTimeA = fa.stepTime;
    evaluateInto(b, r, false);
    const RankedFigures fb = rankedFigures(b, r, ranking);
    w.memoryB = fb.memory;
    w.stepTimeB = fb.stepTime;

    Scenario current = a;
    double memory = w.memoryA;
    double time = w.stepTimeA;
    std::vector<std::string> pending;
    const std::vector<std::string> fields = differingSettings(a, b);
    for (size_t i = 0; i < fields.size(); ++i) {
        copySetting(current, b, fields[i]);
        pending.push_back(fields[i]);
        // The last step has all of b's settings, and b is valid: it always closes the walk.
        if (i + 1 < fields.size() && !validate(current).empty())
            continue;
        evaluateInto(current, r, false);
        const RankedFigures f = rankedFigures(current, r, ranking);
        WaterfallStep step;
        step.settings = std::move(pending);
        pending.clear();
        step.scenario = current;
        step.memory = f.memory;
        step.stepTime = f.stepTime;
        step.memoryDelta = step.memory - memory;
        step.stepTimeDelta = step.stepTime - time;
        step.fits = f.memory <= r.usable;
        memory = step.memory;
        time = step.stepTime;
        w.steps.push_back(std::move(step));
    }
    w.ok = true;
    return w;
}

} // namespace shardscope::core
