// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario files (shardscope.scenario/1) and result JSON (shardscope.result/1); examples in resources/scenarios/.
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/profile_json.h"

#include "assumed_hidden.h"
#include "json_fields.h"
#include "shardscope/core/scenario_name.h"

#include <cstdint>
#include <cstdio>

namespace shardscope::core {

using detail::FieldReader;
using detail::json;

namespace {
constexpr const char* kScenarioSchema = "shardscope.scenario/1";

// The scenario document's `calibration.checksum`: "fnv1a64:" and 16 hex digits of the profile's document
// (profileJson). FNV-1a 64 (Fowler, Noll, Vo; IETF draft-eastlake-fnv section 2): offset basis, then prime.
std::string profileChecksum(const FrameworkProfile& p)
{
    std::uint64_t h = 14695981039346656037ULL;
    for (const unsigned char c : profileJson(p)) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string("fnv1a64:") + hex;
}

// A profile other than the catalog's for the scenario's framework (calibrate's output, or --profile) travels with
// the scenario as `calibration`, so Save keeps it and Open restores it.
bool hasOwnProfile(const Scenario& s, const Catalog& catalog)
{
    const FrameworkProfile* stock = catalog.profile(toString(s.training.framework));
    return !stock || !(*stock == s.profile);
}

void readCalibration(FieldReader& r, const json& c, Scenario& s)
{
    r.unknownKeys(c, "calibration", { "name", "runs", "checksum", "profile" });
    std::string name, checksum;
    int runs = 0;
    r.string(c, "name", "calibration", name);
    r.integer(c, "runs", "calibration", runs);
    r.string(c, "checksum", "calibration", checksum);
    auto it = c.find("profile");
    if (it == c.end() || !it->is_object()) {
        r.error("calibration.profile", "is required: the applied profile's values as a shardscope.profile/1 object");
        return;
    }
    const ProfileParse parsed = parseProfile(it->dump());
    for (const std::string& e : parsed.errors)
        r.error("calibration.profile", e);
    if (!parsed.ok())
        return;
    if (parsed.profile.framework != s.training.framework) {
        r.error("calibration.profile.framework",
            std::string("'") + toString(parsed.profile.framework) + "' differs from training.framework '"
                + toString(s.training.framework) + "': a profile applies to its own framework");
        return;
    }
    if (!checksum.empty() && checksum != profileChecksum(parsed.profile))
        r.warning("calibration.checksum",
            "does not match the profile's values (edited by hand?): the values are "
            "used as written");
    s.profile = parsed.profile;
}

// Catalog reference: a string id, or an object that overrides an entry (with "id") or defines one (without).
template <class T, class Lookup, class Read> void readRef(FieldReader& r, const json& parent, const char* key,
    const std::string& path, T& out, Lookup lookup, Read read, const char* what)
{
    auto it = parent.find(key);
    if (it == parent.end())
        return;
    const std::string field = FieldReader::join(path, key);
    if (it->is_string()) {
        const std::string id = it->get<std::string>();
        if (const T* found = lookup(id))
            out = *found;
        else
            r.error(field, "unknown " + std::string(what) + " id '" + id + "'");
        return;
    }
    if (!it->is_object()) {
        r.error(field, std::string("must be a catalog id or an object, not ") + it->type_name());
        return;
    }
    std::string id;
    if (it->contains("id") && r.string(*it, "id", field, id)) {
        const T* found = lookup(id);
        if (!found) {
            r.error(field + ".id", "unknown " + std::string(what) + " id '" + id + "'");
            return;
        }
        out = *found;
        read(r, *it, field, out, false);
    } else {
        T fresh;
        read(r, *it, field, fresh, true);
        out = fresh;
    }
}

const json* objectAt(FieldReader& r, const json& root, const char* key)
{
    auto it = root.find(key);
    if (it == root.end())
        return nullptr;
    if (!it->is_object()) {
        r.error(key, std::string("must be an object, not ") + it->type_name());
        return nullptr;
    }
    return &*it;
}

} // namespace

Scenario defaultScenario(const Catalog& catalog)
{
    Scenario s;
    if (const auto* m = catalog.model("llama3-70b"))
        s.model = *m;
    if (const auto* g = catalog.gpu("h100-sxm5-80gb"))
        s.cluster.gpu = *g;
    if (const auto* l = catalog.link("nvlink4"))
        s.cluster.intraNode = *l;
    if (const auto* l = catalog.link("ib-ndr400"))
        s.cluster.interNode = *l;
    if (const auto* p = catalog.profile("megatron"))
        s.profile = *p;
    s.cluster.nodes = 4;
    s.cluster.gpusPerNode = 8;
    return s;
}

ScenarioParse parseScenario(std::string_view text, const Catalog& catalog)
{
    ScenarioParse out;
    out.scenario = defaultScenario(catalog);
    Scenario& s = out.scenario;
    json root;
    std::string err, field;
    if (!detail::parseJsonText(text, root, err, &field)) {
        out.errors.push_back({ field, err });
        return out;
    }
    FieldReader r(out.errors, &out.warnings);
    if (!root.is_object()) {
        r.error("", std::string("a scenario must be a JSON object, not ") + root.type_name());
        return out;
    }
    r.unknownKeys(root, "",
        { "schema", "name", "model", "cluster", "training", "parallelism", "offload", "nccl", "pins", "calibration" });
    if (const auto pins = root.find("pins"); pins != root.end()) {
        if (!pins->is_array())
            r.warning("pins", std::string("must be an array of scenarios, not ") + pins->type_name() + "; ignored");
        else if (pins->size() > kMaxPins)
            r.warning("pins",
                "holds " + std::to_string(pins->size()) + " scenarios; at most " + std::to_string(kMaxPins)
                    + " are read: the first " + std::to_string(kMaxPins) + " are kept, the other "
                    + std::to_string(pins->size() - kMaxPins) + " ignored");
    }
    std::string schema;
    if (!root.contains("schema"))
        r.error("schema", std::string("is required and must be \"") + kScenarioSchema + "\"");
    else if (r.string(root, "schema", "", schema) && schema != kScenarioSchema)
        r.error("schema", "'" + schema + "' is not supported; expected \"" + kScenarioSchema + "\"");
    r.string(root, "name", "", s.name);

    if (const json* m = objectAt(r, root, "model")) {
        std::string preset;
        if (m->contains("preset") && r.string(*m, "preset", "model", preset)) {
            if (const auto* found = catalog.model(preset)) {
                s.model = *found;
                detail::readModel(r, *m, "model", s.model, false);
            } else {
                r.error("model.preset", "unknown model id '" + preset + "'");
            }
        } else {
            ModelSpec fresh;
            detail::readModel(r, *m, "model", fresh, true);
            s.model = fresh;
        }
    }
    if (const json* c = objectAt(r, root, "cluster")) {
        auto& cl = s.cluster;
        r.unknownKeys(*c, "cluster",
            { "gpu", "nodes", "gpus_per_node", "intra_node", "inter_node", "nics_per_node", "nvme_bandwidth_per_node",
                "cpu_adam_params_per_second", "misc_bytes", "memory_headroom" });
        readRef(
            r, *c, "gpu", "cluster", cl.gpu, [&](const std::string& id) { return catalog.gpu(id); }, detail::readGpu,
            "GPU");
        readRef(
            r, *c, "intra_node", "cluster", cl.intraNode, [&](const std::string& id) { return catalog.link(id); },
            detail::readLink, "interconnect");
        readRef(
            r, *c, "inter_node", "cluster", cl.interNode, [&](const std::string& id) { return catalog.link(id); },
            detail::readLink, "interconnect");
        r.integer(*c, "nodes", "cluster", cl.nodes);
        r.integer(*c, "gpus_per_node", "cluster", cl.gpusPerNode);
        r.integer(*c, "nics_per_node", "cluster", cl.nicsPerNode);
        r.number(*c, "nvme_bandwidth_per_node", "cluster", cl.nvmeBandwidthPerNode);
        r.number(*c, "cpu_adam_params_per_second", "cluster", cl.cpuAdamParamsPerSecond);
        r.number(*c, "misc_bytes", "cluster", cl.miscBytes);
        r.number(*c, "memory_headroom", "cluster", cl.memoryHeadroom);
    }
    if (const json* t = objectAt(r, root, "training")) {
        auto& tr = s.training;
        r.unknownKeys(*t, "training",
            { "seq_len", "global_batch", "micro_batch", "precision", "optimizer", "recompute", "flash_attention",
                "dropout", "accounting", "grad_reduce_dtype", "master_weights", "moments_dtype", "fp8_param_gather",
                "recompute_modules", "framework" });
        r.integer64(*t, "seq_len", "training", tr.seqLen);
        r.integer64(*t, "global_batch", "training", tr.globalBatch);
        r.integer64(*t, "micro_batch", "training", tr.microBatch);
        r.enumeration(*t, "precision", "training", tr.precision,
            { { "fp32", Precision::Fp32 }, { "bf16-mixed", Precision::Bf16Mixed },
                { "fp16-mixed", Precision::Fp16Mixed }, { "bf16", Precision::Bf16 },
                { "fp8-mixed", Precision::Fp8Mixed }, { "mxfp8", Precision::Mxfp8 } });
        r.enumeration(*t, "optimizer", "training", tr.optimizer,
            { { "adamw", Optimizer::AdamW }, { "adamw-8bit", Optimizer::AdamW8bit },
                { "sgd-momentum", Optimizer::SgdMomentum }, { "adafactor", Optimizer::Adafactor } });
        r.enumeration(*t, "recompute", "training", tr.recompute,
            { { "none", Recompute::None }, { "selective", Recompute::Selective }, { "full", Recompute::Full },
                { "selective-op", Recompute::SelectiveOp } });
        r.boolean(*t, "flash_attention", "training", tr.flashAttention);
        r.boolean(*t, "dropout", "training", tr.dropout);
        r.enumeration(*t, "accounting", "training", tr.accounting,
            { { "zero-paper", Accounting::ZeroPaper }, { "megatron", Accounting::Megatron },
                { "deepspeed", Accounting::DeepSpeed } });
        r.enumeration(*t, "grad_reduce_dtype", "training", tr.gradReduce,
            { { "fp32", GradReduce::Fp32 }, { "bf16", GradReduce::Bf16 } });
        r.enumeration(*t, "master_weights", "training", tr.masterWeights,
            { { "fp32", MasterWeights::Fp32 }, { "fp32-remainder", MasterWeights::Fp32Remainder },
                { "fp16", MasterWeights::Fp16 } });
        r.enumeration(*t, "moments_dtype", "training", tr.momentsDtype,
            { { "fp32", MomentsDtype::Fp32 }, { "bf16", MomentsDtype::Bf16 }, { "fp16", MomentsDtype::Fp16 },
                { "fp8", MomentsDtype::Fp8 } });
        r.boolean(*t, "fp8_param_gather", "training", tr.fp8ParamGather);
        if (const auto it = t->find("recompute_modules"); it != t->end()) {
            if (!it->is_array()) {
                r.error("training.recompute_modules",
                    std::string("must be a list of module names (") + kRecomputeModuleNames + "), not "
                        + it->type_name());
            } else {
                RecomputeModules mods;
                for (const json& name : *it) {
                    if (!name.is_string() || !setRecomputeModule(mods, name.get<std::string>())) {
                        r.error("training.recompute_modules",
                            name.dump()
                                + " is not a module Megatron recomputes; "
                                  "allowed: "
                                + kRecomputeModuleNames);
                        break;
                    }
                }
                tr.recomputeModules = mods;
            }
        }
        Framework framework = tr.framework;
        if (r.enumeration(*t, "framework", "training", framework,
                { { "megatron", Framework::Megatron }, { "deepspeed", Framework::DeepSpeed },
                    { "pytorch", Framework::PyTorch }, { "pytorch-compile", Framework::PyTorchCompile } })
            && !applyFramework(s, framework, catalog))
            r.error("training.framework",
                std::string("no profile '") + toString(framework) + "' in the catalog (resources/profiles/)");
    }
    if (const json* p = objectAt(r, root, "parallelism")) {
        auto& pa = s.parallelism;
        r.unknownKeys(*p, "parallelism",
            { "sharding", "tp", "pp", "cp", "ep", "sequence_parallel", "pp_schedule", "virtual_stages", "shard_group",
                "moe_overlap", "tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather", "expert_tp",
                "pipeline_layout", "cp_comm_type" });
        r.enumeration(*p, "sharding", "parallelism", pa.sharding,
            { { "ddp", Sharding::Ddp }, { "zero1", Sharding::Zero1 }, { "zero2", Sharding::Zero2 },
                { "zero3", Sharding::Zero3 }, { "fsdp-full", Sharding::FsdpFull },
                { "fsdp-grad-op", Sharding::FsdpGradOp }, { "fsdp-hybrid", Sharding::FsdpHybrid } });
        r.integer(*p, "tp", "parallelism", pa.tp);
        r.integer(*p, "pp", "parallelism", pa.pp);
        r.integer(*p, "cp", "parallelism", pa.cp);
        r.enumeration(*p, "cp_comm_type", "parallelism", pa.cpCommType,
            { { "p2p", CpCommType::P2p }, { "a2a", CpCommType::A2a }, { "allgather", CpCommType::AllGather } });
        r.integer(*p, "ep", "parallelism", pa.ep);
        if (r.integer(*p, "expert_tp", "parallelism", pa.expertTp) && pa.expertTp < 1)
            r.error("parallelism.expert_tp",
                "expert_tp (" + std::to_string(pa.expertTp) + ") must be at least 1; leave it out for the default, tp");
        r.boolean(*p, "sequence_parallel", "parallelism", pa.sequenceParallel);
        r.enumeration(*p, "pp_schedule", "parallelism", pa.schedule,
            { { "gpipe", PpSchedule::GPipe }, { "1f1b", PpSchedule::OneFOneB },
                { "interleaved", PpSchedule::Interleaved }, { "zero-bubble", PpSchedule::ZeroBubble } });
        r.integer(*p, "virtual_stages", "parallelism", pa.virtualStages);
        r.integer(*p, "shard_group", "parallelism", pa.shardGroup);
        r.enumeration(*p, "moe_overlap", "parallelism", pa.moeOverlap,
            { { "none", MoeOverlap::None }, { "ep-overlap", MoeOverlap::EpOverlap },
                { "dualpipe", MoeOverlap::DualPipe } });
        r.boolean(*p, "tp_comm_overlap", "parallelism", pa.tpCommOverlap);
        r.boolean(*p, "overlap_grad_reduce", "parallelism", pa.overlapGradReduce);
        r.boolean(*p, "overlap_param_gather", "parallelism", pa.overlapParamGather);
        r.string(*p, "pipeline_layout", "parallelism", pa.pipelineLayout);
    }
    if (const json* o = objectAt(r, root, "offload")) {
        r.unknownKeys(*o, "offload", { "optimizer", "parameters", "activation_layers" });
        std::initializer_list<std::pair<std::string_view, OffloadTarget>> names
            = { { "none", OffloadTarget::None }, { "cpu", OffloadTarget::Cpu }, { "nvme", OffloadTarget::Nvme } };
        r.enumeration(*o, "optimizer", "offload", s.offload.optimizer, names);
        r.enumeration(*o, "parameters", "offload", s.offload.parameters, names);
        r.integer(*o, "activation_layers", "offload", s.offload.activationLayers);
    }
    if (const json* n = objectAt(r, root, "nccl")) {
        r.unknownKeys(*n, "nccl", { "algo", "proto", "min_channels", "gdr" });
        r.enumeration(*n, "algo", "nccl", s.nccl.algo,
            { { "auto", NcclAlgo::Auto }, { "ring", NcclAlgo::Ring }, { "tree", NcclAlgo::Tree } });
        r.enumeration(*n, "proto", "nccl", s.nccl.proto,
            { { "auto", NcclProto::Auto }, { "simple", NcclProto::Simple }, { "ll", NcclProto::LL },
                { "ll128", NcclProto::LL128 } });
        r.integer(*n, "min_channels", "nccl", s.nccl.minChannels);
        r.boolean(*n, "gdr", "nccl", s.nccl.gdr);
    }
    if (const json* c = objectAt(r, root, "calibration"))
        readCalibration(r, *c, s); // after training: its framework decides which profile is stock
    if (s.name == generatedName(s))
        s.name.clear(); // a name made from the content keeps following it (scenario_name.h)
    capIssues(out.errors);
    capIssues(out.warnings);
    return out;
}

namespace {
// The fields of `now` that differ from `base` (both JSON objects); "id"/"source" never repeat.
json diffObject(const json& base, const json& now)
{
    json d = json::object();
    for (auto it = now.begin(); it != now.end(); ++it) {
        if (it.key() == "id" || it.key() == "source")
            continue;
        auto b = base.find(it.key());
        if (b == base.end() || *b != it.value())
            d[it.key()] = it.value();
    }
    for (auto it = base.begin(); it != base.end(); ++it)
        if (!now.contains(it.key()))
            d[it.key()] = nullptr; // removed (e.g. "moe": null turns a preset's experts off)
    return d;
}

template <class T, class Lookup, class ToJson> json refToJson(const T& value, Lookup lookup, ToJson toJson)
{
    const T* entry = value.id.empty() ? nullptr : lookup(value.id);
    if (entry && *entry == value)
        return value.id;
    if (entry) {
        json d = diffObject(toJson(*entry), toJson(value));
        d["id"] = value.id;
        return d;
    }
    json full = toJson(value);
    if (value.id.empty())
        full.erase("id"); // a custom entry: every field given, no catalog id
    return full;
}
/// The GPU as a catalog id or the fields that differ from it. A memory_bytes of its own is read as dropping the
/// catalog's driver figure (json_fields.cpp, readGpu), so it is always written with the driver figure it goes with.
json gpuRef(const GpuSpec& g, const Catalog& catalog)
{
    json j = refToJson(
        g, [&](const std::string& id) { return catalog.gpu(id); }, detail::gpuToJson);
    if (j.is_object() && j.contains("memory_bytes"))
        j["reported_memory_bytes"] = g.reportedMemoryBytes;
    return j;
}
} // namespace

std::string scenarioToJson(const Scenario& s, const Catalog& catalog, int indent)
{
    json j;
    j["schema"] = kScenarioSchema;
    j["name"] = s.name; // "" = named from the content (scenario_name.h)
    const ModelSpec* preset = s.model.id.empty() ? nullptr : catalog.model(s.model.id);
    if (preset) {
        json m = diffObject(detail::modelToJson(*preset), detail::modelToJson(s.model));
        m["preset"] = s.model.id;
        j["model"] = m;
    } else {
        j["model"] = detail::modelToJson(s.model);
    }
    const auto& c = s.cluster;
    j["cluster"] = { { "gpu", gpuRef(c.gpu, catalog) }, { "nodes", c.nodes }, { "gpus_per_node", c.gpusPerNode },
        { "intra_node",
            refToJson(
                c.intraNode, [&](const std::string& id) { return catalog.link(id); }, detail::linkToJson) },
        { "inter_node",
            refToJson(
                c.interNode, [&](const std::string& id) { return catalog.link(id); }, detail::linkToJson) },
        { "nics_per_node", c.nicsPerNode }, { "nvme_bandwidth_per_node", c.nvmeBandwidthPerNode },
        { "cpu_adam_params_per_second", c.cpuAdamParamsPerSecond }, { "misc_bytes", c.miscBytes },
        { "memory_headroom", c.memoryHeadroom } };
    const auto& t = s.training;
    j["training"] = { { "seq_len", t.seqLen }, { "global_batch", t.globalBatch }, { "micro_batch", t.microBatch },
        { "precision", toString(t.precision) }, { "optimizer", toString(t.optimizer) },
        { "recompute", toString(t.recompute) }, { "flash_attention", t.flashAttention }, { "dropout", t.dropout },
        { "accounting", toString(t.accounting) }, { "framework", toString(t.framework) } };
    // Written only when set, so files of earlier versions (and the framework's default) read back unchanged.
    if (t.gradReduce != GradReduce::Framework)
        j["training"]["grad_reduce_dtype"] = toString(t.gradReduce);
    if (t.masterWeights != MasterWeights::Fp32)
        j["training"]["master_weights"] = toString(t.masterWeights);
    if (t.momentsDtype != MomentsDtype::Fp32)
        j["training"]["moments_dtype"] = toString(t.momentsDtype);
    if (t.fp8ParamGather)
        j["training"]["fp8_param_gather"] = true;
    if (t.recomputeModules)
        j["training"]["recompute_modules"] = recomputeModuleNames(*t.recomputeModules);
    const auto& p = s.parallelism;
    j["parallelism"] = { { "sharding", toString(p.sharding) }, { "tp", p.tp }, { "pp", p.pp }, { "cp", p.cp },
        { "ep", p.ep }, { "sequence_parallel", p.sequenceParallel }, { "pp_schedule", toString(p.schedule) },
        { "virtual_stages", p.virtualStages }, { "shard_group", p.shardGroup },
        { "moe_overlap", toString(p.moeOverlap) } };
    if (p.cpCommType != CpCommType::P2p) // written only when set: older files read back alike
        j["parallelism"]["cp_comm_type"] = toString(p.cpCommType);
    if (p.tpCommOverlap)
        j["parallelism"]["tp_comm_overlap"] = true;
    if (!p.overlapGradReduce)
        j["parallelism"]["overlap_grad_reduce"] = false;
    if (p.overlapParamGather)
        j["parallelism"]["overlap_param_gather"] = true;
    if (p.expertTp > 0)
        j["parallelism"]["expert_tp"] = p.expertTp;
    if (!p.pipelineLayout.empty())
        j["parallelism"]["pipeline_layout"] = p.pipelineLayout;
    j["offload"] = { { "optimizer", toString(s.offload.optimizer) }, { "parameters", toString(s.offload.parameters) } };
    if (s.offload.activationLayers != 0)
        j["offload"]["activation_layers"] = s.offload.activationLayers;
    j["nccl"] = { { "algo", toString(s.nccl.algo) }, { "proto", toString(s.nccl.proto) },
        { "min_channels", s.nccl.minChannels }, { "gdr", s.nccl.gdr } };
    if (hasOwnProfile(s, catalog))
        j["calibration"] = { { "name", s.profile.name }, { "runs", s.profile.fit.runs },
            { "checksum", profileChecksum(s.profile) }, { "profile", json::parse(profileJson(s.profile)) } };
    return j.dump(indent) + "\n";
}

std::string catalogToJson(const Catalog& catalog, const std::string& which, int indent)
{
    json j;
    if (which == "gpus") {
        j = { { "schema", "shardscope.catalog.gpus/1" }, { "gpus", json::array() } };
        for (const auto& g : catalog.gpus)
            j["gpus"].push_back(detail::gpuToJson(g));
    } else if (which == "interconnects") {
        j = { { "schema", "shardscope.catalog.links/1" }, { "links", json::array() } };
        for (const auto& l : catalog.links)
            j["links"].push_back(detail::linkToJson(l));
    } else {
        j = { { "schema", "shardscope.catalog.models/1" }, { "models", json::array() } };
        for (const auto& m : catalog.models) {
            json e = detail::modelToJson(m);
            e["id"] = m.id;
            e["params_published"] = m.paramsPublished;
            e["source"] = m.source;
            j["models"].push_back(e);
        }
    }
    return j.dump(indent) + "\n";
}

namespace {
json issuesToJson(const std::vector<Issue>& v)
{
    json a = json::array();
    for (const auto& i : v)
        a.push_back({ { "field", i.field }, { "message", i.message } });
    return a;
}
json memoryToJson(const MemoryBreakdown& m)
{
    return { { "parameters", m.parameters }, { "gradients", m.gradients }, { "optimizer_states", m.optimizerStates },
        { "activations", m.activations }, { "gathered_parameters", m.gatheredParameters },
        { "communication_buffers", m.communicationBuffers }, { "framework_overhead", m.frameworkOverhead },
        { "total", m.total() }, { "reserved_peak", m.reservedPeak }, { "allocated_peak", m.allocatedPeak } };
}
} // namespace

std::string resultToJson(const Result& r, int indent)
{
    json j;
    j["schema"] = "shardscope.result/1";
    j["valid"] = r.valid;
    j["issues"] = issuesToJson(r.issues);
    j["warnings"] = issuesToJson(r.warnings);
    if (!r.valid)
        return j.dump(indent) + "\n";
    j["model"] = { { "parameters", r.parameters }, { "active_parameters", r.activeParameters },
        { "flops_per_token", r.flopsPerToken } };
    j["layout"] = { { "gpus", r.gpus }, { "dp", r.dp }, { "tp", r.tp }, { "pp", r.pp }, { "cp", r.cp }, { "ep", r.ep },
        { "micro_batches", r.microBatches }, { "grad_accumulation", r.gradAccumulation } };
    json mem = memoryToJson(r.memory);
    mem["capacity"] = r.capacity;
    mem["usable"] = r.usable;
    mem["fits"] = r.fits;
    mem["verdict"] = toString(r.verdict);
    mem["total_range"] = json::array({ r.memoryRange.lo, r.memoryRange.hi });
    mem["peak_stage"] = r.peakStage;
    j["memory_per_gpu"] = mem;
    json stages = json::array();
    for (const auto& s : r.stages) {
        json st = { { "stage", s.stage }, { "memory_total", s.memory.total() }, { "layers", s.layers },
            { "embedding", s.embedding }, { "head", s.head }, { "in_flight_micro_batches", s.inFlight },
            { "forward_time", s.forwardTime }, { "backward_time", s.backwardTime },
            { "memory", memoryToJson(s.memory) } };
        stages.push_back(st);
    }
    j["pipeline_stages"] = stages;
    j["host_memory_per_node"] = r.hostMemoryPerNode;
    j["nvme_per_node"] = r.nvmePerNode;
    json coll = json::array();
    for (const auto& c : r.collectives)
        coll.push_back({ { "group", toString(c.group) }, { "op", toString(c.op) }, { "group_size", c.groupSize },
            { "count", c.count }, { "message_bytes", c.messageBytes }, { "bytes", c.bytes }, { "time", c.time },
            { "latency_time", c.latencyTime }, { "exposed_time", c.exposedTime }, { "algo", toString(c.algo) },
            { "proto", toString(c.proto) }, { "crosses_nodes", c.crossesNodes }, { "purpose", c.purpose } });
    j["communication_per_gpu"] = { { "total_bytes", r.totalCommBytes },
        { "by_group",
            { { "dp", r.bytesByGroup[0] }, { "tp", r.bytesByGroup[1] }, { "pp", r.bytesByGroup[2] },
                { "cp", r.bytesByGroup[3] }, { "ep", r.bytesByGroup[4] } } },
        { "collectives", coll } };
    j["communication"] = { { "assumed_hidden_seconds", detail::assumedHidden<detail::Fast>(r.collectives).value() } };
    j["step_time"] = { { "compute", r.step.compute }, { "recompute", r.step.recompute },
        { "exposed_communication", r.step.exposedCommunication }, { "pipeline_bubble", r.step.pipelineBubble },
        { "offload", r.step.offload }, { "optimizer", r.step.optimizer }, { "total", r.step.total() },
        { "total_range", json::array({ r.stepTimeRange.lo, r.stepTimeRange.hi }) } };
    j["throughput"] = { { "tokens_per_second", r.throughput.tokensPerSecond },
        { "tokens_per_second_per_gpu", r.throughput.tokensPerSecondPerGpu },
        { "tokens_per_second_per_gpu_range", json::array({ r.tokensPerGpuRange.lo, r.tokensPerGpuRange.hi }) },
        { "model_tflops_per_gpu", r.throughput.modelTflopsPerGpu },
        { "hardware_tflops_per_gpu", r.throughput.hardwareTflopsPerGpu }, { "mfu", r.throughput.mfu },
        { "cost_per_step_usd", r.throughput.costPerStepUsd } };
    j["uncertainty"] = { { "band", r.uncertainty.band }, { "kind", r.uncertainty.kind },
        { "basis_kind", r.uncertainty.basisKind }, { "basis", r.uncertainty.basis },
        { "sources", r.uncertainty.sources.list() }, { "coverage", r.uncertainty.coverage },
        { "memory_coverage", r.uncertainty.memoryCoverage }, { "throughput_runs", r.uncertainty.throughputRuns },
        { "memory_runs", r.uncertainty.memoryRuns },
        { "throughput_ratio", json::array({ r.uncertainty.throughputRatio.lo, r.uncertainty.throughputRatio.hi }) },
        { "memory_ratio", json::array({ r.uncertainty.memoryRatio.lo, r.uncertainty.memoryRatio.hi }) },
        { "assumed_hidden_share", r.uncertainty.assumedHiddenShare },
        { "hidden_share_evidence", r.uncertainty.hiddenShareEvidence } };
    j["min_gpus"] = r.minGpus;
    if (!r.terms.empty()) {
        json terms = json::array();
        for (const Term& t : r.terms) {
            json inputs = json::array();
            for (const TermInput& in : t.inputs)
                inputs.push_back(
                    { { "name", in.name }, { "value", in.value }, { "unit", in.unit }, { "meaning", in.meaning } });
            terms.push_back({ { "key", t.key }, { "group", toString(t.group) }, { "label", t.label },
                { "value", t.value }, { "unit", t.unit }, { "formula", t.formula }, { "expression", t.expression },
                { "inputs", inputs }, { "source", t.source }, { "anchor", t.anchor } });
        }
        j["terms"] = terms;
    }
    return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace shardscope::core
