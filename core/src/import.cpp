// SPDX-License-Identifier: GPL-3.0-or-later
// Importing configurations (issue 14): the dispatch, the --gpus/--gpu options, the origin of every field, format
// detection and the steps all sources share. The per-format parsers are import_hf_config.cpp, import_deepspeed.cpp,
// import_megatron_args.cpp and import_torchtitan.cpp.
#include "shardscope/core/import.h"

#include "import_common.h"
#include "json_fields.h"
#include "shardscope/core/scenario_json.h"

#include <algorithm>

namespace shardscope::core {

namespace detail {

void ImportContext::framework(Framework f, const std::string& field)
{
    if (!applyFramework(s(), f, catalog)) {
        error(field, std::string("no framework profile '") + toString(f) + "' in the catalog (resources/profiles/)");
        return;
    }
    set("training.framework");
}

namespace {
// The architecture alone: what makes two models the same network (names, sources and published totals aside).
bool sameArchitecture(const ModelSpec& a, const ModelSpec& b)
{
    return a.layers == b.layers && a.hidden == b.hidden && a.heads == b.heads && a.kvHeads == b.kvHeads
        && a.effectiveHeadDim() == b.effectiveHeadDim() && a.ffnHidden == b.ffnHidden && a.vocab == b.vocab
        && a.mlp == b.mlp && a.norm == b.norm && a.position == b.position && a.tiedEmbeddings == b.tiedEmbeddings
        && a.qkvBias == b.qkvBias && a.linearBias == b.linearBias && a.embeddingNorm == b.embeddingNorm
        && a.moe.experts == b.moe.experts && a.moe.topK == b.moe.topK
        && (!a.isMoe()
            || (a.moe.expertFfnHidden == b.moe.expertFfnHidden && a.moe.sharedExperts == b.moe.sharedExperts
                && a.moe.denseLayers == b.moe.denseLayers))
        && a.mla == b.mla && (a.position != PositionEmbedding::Learned || a.maxSeq == b.maxSeq)
        && a.paramsOverride == b.paramsOverride && a.slidingWindow == b.slidingWindow
        && a.slidingWindowPattern == b.slidingWindowPattern;
}
} // namespace

void adoptPreset(ModelSpec& m, const std::string& name, bool ownName, const ModelSpec& current, const Catalog& catalog)
{
    std::vector<const ModelSpec*> candidates;
    if (const ModelSpec* c = catalog.model(current.id))
        candidates.push_back(c);
    for (const ModelSpec& preset : catalog.models)
        candidates.push_back(&preset);
    for (const ModelSpec* p : candidates)
        if (const ModelSpec& preset = *p; sameArchitecture(preset, m)) {
            const double capacity = m.moe.capacityFactor;
            m = preset;
            m.moe.capacityFactor = capacity;
            if (ownName)
                m.name = name;
            return;
        }
    m.id.clear();
    m.name = name;
    m.source.clear();
    m.paramsPublished = 0;
}

bool setGpuCount(Cluster& c, int gpus, std::string& message)
{
    if (gpus < 1) {
        message = "the GPU count must be at least 1, not " + std::to_string(gpus);
        return false;
    }
    const int perNode = std::max(1, c.gpusPerNode);
    if (gpus < perNode) {
        c.nodes = 1;
        c.gpusPerNode = gpus;
    } else if (gpus % perNode == 0) {
        c.nodes = gpus / perNode;
    } else {
        message = std::to_string(gpus) + " GPUs are not a whole number of nodes of " + std::to_string(perNode)
            + " GPUs (cluster.gpus_per_node of the base scenario)";
        return false;
    }
    return true;
}

bool parseJsonObject(std::string_view text, const char* what, nlohmann::json& root, ImportContext& cx)
{
    std::string err, field;
    if (!parseJsonText(text, root, err, &field)) {
        cx.error(field, err);
        return false;
    }
    if (!root.is_object()) {
        cx.error("", std::string("a ") + what + " must be a JSON object, not " + root.type_name());
        return false;
    }
    return true;
}

std::string oneOf(std::initializer_list<std::string_view> values)
{
    std::string s;
    size_t i = 0;
    for (auto v : values) {
        if (i > 0)
            s += (i + 1 == values.size()) ? " or " : ", ";
        s += v;
        ++i;
    }
    return s;
}

} // namespace detail

bool parseImportSource(std::string_view text, ImportSource& out)
{
    static const std::pair<std::string_view, ImportSource> names[] = { { "hf-config", ImportSource::HfConfig },
        { "deepspeed", ImportSource::DeepSpeed }, { "megatron-args", ImportSource::MegatronArgs },
        { "torchtitan", ImportSource::TorchTitan }, { "scenario", ImportSource::Scenario } };
    for (const auto& [name, value] : names)
        if (name == text) {
            out = value;
            return true;
        }
    return false;
}

const char* toString(ImportSource source)
{
    switch (source) {
    case ImportSource::HfConfig: return "hf-config";
    case ImportSource::DeepSpeed: return "deepspeed";
    case ImportSource::MegatronArgs: return "megatron-args";
    case ImportSource::TorchTitan: return "torchtitan";
    case ImportSource::Scenario: return "scenario";
    }
    return "scenario";
}

const char* importSourceNames() { return "hf-config, deepspeed, megatron-args, torchtitan, scenario"; }

bool detectImportSource(std::string_view fileName, std::string_view text, ImportSource& out)
{
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // a UTF-8 byte-order mark: not part of the text
    const auto endsWith = [&](std::string_view suffix) {
        return fileName.size() >= suffix.size() && fileName.substr(fileName.size() - suffix.size()) == suffix;
    };
    if (endsWith(".toml")) {
        out = ImportSource::TorchTitan;
        return true;
    }
    if (endsWith(".sh") || text.substr(0, 2) == "#!") {
        out = ImportSource::MegatronArgs;
        return true;
    }
    // The first 64 KiB are enough to tell the formats apart (every key named below sits at the top level).
    const std::string_view head = text.substr(0, size_t { 64 } * 1024);
    const auto has = [&](std::string_view needle) { return head.find(needle) != std::string_view::npos; };
    const size_t firstChar = head.find_first_not_of(" \t\r\n");
    const bool json = firstChar != std::string_view::npos && head[firstChar] == '{';
    if (json) {
        if (has("\"shardscope.scenario/1\""))
            out = ImportSource::Scenario;
        else if (has("\"model_type\"") || has("\"architectures\""))
            out = ImportSource::HfConfig;
        else if (has("\"zero_optimization\"") || has("\"train_batch_size\"")
            || has("\"train_micro_batch_size_per_gpu\""))
            out = ImportSource::DeepSpeed;
        else
            return false;
        return true;
    }
    if (has("--num-layers") || has("--tensor-model-parallel-size") || has("--hidden-size")) {
        out = ImportSource::MegatronArgs;
        return true;
    }
    if (has("[parallelism]") || has("[training]") || has("[model]")) {
        out = ImportSource::TorchTitan;
        return true;
    }
    return false;
}

const std::vector<std::string>& importFieldNames()
{
    static const std::vector<std::string> names = { "model.layers", "model.hidden", "model.heads", "model.kv_heads",
        "model.head_dim", "model.ffn_hidden", "model.vocab", "model.max_seq", "model.mlp", "model.norm",
        "model.position_embedding", "model.tied_embeddings", "model.biases", "model.moe", "model.mla",
        "model.sliding_window", "model.sliding_window_pattern", "cluster.gpu", "cluster.nodes", "cluster.gpus_per_node",
        "training.seq_len", "training.global_batch", "training.micro_batch", "training.precision", "training.optimizer",
        "training.recompute", "training.flash_attention", "training.dropout", "training.framework",
        "parallelism.sharding", "parallelism.tp", "parallelism.pp", "parallelism.cp", "parallelism.cp_comm_type",
        "parallelism.ep", "parallelism.sequence_parallel", "parallelism.pp_schedule", "parallelism.virtual_stages",
        "parallelism.pipeline_layout", "parallelism.shard_group", "offload.optimizer", "offload.parameters",
        "offload.activation_layers" };
    return names;
}

ImportResult importConfig(ImportSource source, std::string_view text, const Scenario& base, bool baseIsDefault,
    const ImportOptions& options, const Catalog& catalog)
{
    ImportResult out;
    out.scenario = base;
    detail::ImportContext cx { out, toString(source), catalog, options, {} };
    if (text.size() > kMaxImportBytes) {
        cx.error("",
            "the file is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxImportBytes));
        return out;
    }

    // The command line's GPU count and GPU type first: a source's batch rules (DeepSpeed's train_batch_size)
    // are checked against them.
    if (options.gpus != 0) {
        std::string message;
        if (!detail::setGpuCount(out.scenario.cluster, options.gpus, message))
            cx.error("--gpus", message);
    }
    // --gpu: the GPU, with its own scale-up link and the scale-out link its reference servers ship with (catalog).
    const auto applyGpu = [&](Cluster& c, const GpuSpec& g) {
        c.gpu = g;
        if (const LinkSpec* up = catalog.link(g.scaleUpLink))
            c.intraNode = *up;
        if (const LinkSpec* outLink = catalog.link(g.scaleOutLink))
            c.interNode = *outLink;
    };
    if (!options.gpu.empty()) {
        if (const GpuSpec* g = catalog.gpu(options.gpu)) {
            applyGpu(out.scenario.cluster, *g);
        } else {
            std::string ids;
            for (const GpuSpec& gpu : catalog.gpus)
                ids += (ids.empty() ? "" : ", ") + gpu.id;
            cx.error("--gpu", "unknown GPU id '" + options.gpu + "'; the catalog has: " + ids);
        }
    }
    if (!out.ok())
        return out;

    switch (source) {
    case ImportSource::HfConfig: detail::importHfConfig(text, cx); break;
    case ImportSource::DeepSpeed: detail::importDeepSpeed(text, cx); break;
    case ImportSource::MegatronArgs: detail::importMegatronArgs(text, cx); break;
    case ImportSource::TorchTitan: detail::importTorchTitan(text, cx); break;
    case ImportSource::Scenario: {
        ScenarioParse parsed = parseScenario(text, catalog);
        out.errors = parsed.errors;
        out.warnings = parsed.warnings;
        out.scenario = parsed.scenario;
        if (options.gpus != 0) {
            std::string message;
            if (!detail::setGpuCount(out.scenario.cluster, options.gpus, message))
                cx.error("--gpus", message);
        }
        if (const GpuSpec* g = options.gpu.empty() ? nullptr : catalog.gpu(options.gpu))
            applyGpu(out.scenario.cluster, *g);
        for (const auto& f : importFieldNames())
            cx.set(f); // a scenario file is complete: every absent field is the format's default
        break;
    }
    }

    for (const std::string& field : importFieldNames()) {
        std::string origin = baseIsDefault ? "default" : "base";
        if ((field == "cluster.nodes" || field == "cluster.gpus_per_node") && options.gpus != 0)
            origin = "--gpus"; // the command line wins over a source's own count (a torchrun line)
        else if (field == "cluster.gpu" && !options.gpu.empty())
            origin = "--gpu";
        else if (cx.given.count(field))
            origin = cx.source;
        out.fromWhere.push_back({ field, origin });
    }
    capIssues(out.errors);
    capIssues(out.warnings);
    return out;
}

} // namespace shardscope::core
