// SPDX-License-Identifier: GPL-3.0-or-later
// torchtitan TOML job file → scenario (issue 14). Sections, keys and defaults as in pytorch/torchtitan
// torchtitan/config/job_config.py @ 000204a4 (Model name "llama3" / flavor / converters, Training local_batch_size 8,
// global_batch_size -1 (= local × data parallel), seq_len 2048, enable_cpu_offload, mixed_precision_param
// "bfloat16", mixed_precision_reduce "float32", compile False; Parallelism data_parallel_replicate_degree 1, data_parallel_shard_degree -1 ("leftover
// ranks"), fsdp_reshard_after_forward "default", tensor/pipeline/context/expert_parallel_degree 1,
// pipeline_parallel_schedule "1F1B", pipeline_parallel_layers_per_stage, pipeline_parallel_microbatch_size 1,
// expert_tensor_parallel_degree 1 (1 or tp), expert_parallel_comm_backend "standard" (| "deepep");
// ActivationCheckpoint mode "selective", selective_ac_option "2"; Float8; Optimizer name "AdamW"), and the newer
// [compile] enable / [quantize.linear.float8] spellings. The mesh and FSDP over dp_shard × cp follow
// torchtitan/distributed/parallel_dims.py; flavors are torchtitan/models/llama3/__init__.py (8B, 70B, 405B: the
// Llama 3.1 architectures) and torchtitan/models/deepseek_v3/__init__.py (671B).
#include "checked_int.h"
#include "import_common.h"
#include "shardscope/core/scenario_json.h"
#include "toml_reader.h"

#include <cctype>
#include <map>
#include <set>

namespace shardscope::core::detail {

namespace {

/// torchtitan model flavors that are catalog presets.
const std::map<std::string, std::map<std::string, std::string>>& flavors()
{
    static const std::map<std::string, std::map<std::string, std::string>> f = {
        { "llama3", { { "8B", "llama3.1-8b" }, { "70B", "llama3.1-70b" }, { "405B", "llama3.1-405b" } } },
        { "deepseek_v3", { { "671B", "deepseek-v3" } } },
    };
    return f;
}

std::string supportedFlavors()
{
    std::string s;
    for (const auto& [name, list] : flavors())
        for (const auto& [flavor, preset] : list)
            s += (s.empty() ? "" : ", ") + name + " " + flavor;
    return s;
}

/// Reads of one TOML table's keys, named "section.key"; keys nobody reads are reported as unknown.
class Section
{
public:
    Section(const TomlValue* table, std::string name, ImportContext& cx)
        : m_t(table)
        , m_name(std::move(name))
        , m_cx(cx)
    { }
    std::string field(const char* key) const { return m_name + "." + key; }
    const TomlValue* get(const char* key, TomlValue::Kind kind)
    {
        m_used.insert(key);
        const TomlValue* v = m_t ? m_t->find(key) : nullptr;
        if (v && v->kind != kind && !(kind == TomlValue::Kind::Float && v->kind == TomlValue::Kind::Integer)) {
            m_cx.error(field(key),
                std::string("must be ") + TomlValue::kindName(kind) + ", not " + v->kindName() + " (line "
                    + std::to_string(v->line) + ")");
            return nullptr;
        }
        return v;
    }
    bool integer(const char* key, int64_t& out, int64_t lo, int64_t hi = 10'000'000'000LL)
    {
        const TomlValue* v = get(key, TomlValue::Kind::Integer);
        if (!v)
            return false;
        if (v->integer < lo || v->integer > hi) {
            m_cx.error(field(key),
                "must be from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not "
                    + std::to_string(v->integer));
            return false;
        }
        out = v->integer;
        return true;
    }
    bool flag(const char* key, bool& out)
    {
        const TomlValue* v = get(key, TomlValue::Kind::Boolean);
        if (v)
            out = v->boolean;
        return v != nullptr;
    }
    bool text(const char* key, std::string& out)
    {
        const TomlValue* v = get(key, TomlValue::Kind::String);
        if (v)
            out = v->string;
        return v != nullptr;
    }
    /// A list of strings, or one comma-separated string (torchtitan accepts both on the command line).
    std::vector<std::string> strings(const char* key)
    {
        m_used.insert(key);
        std::vector<std::string> out;
        const TomlValue* v = m_t ? m_t->find(key) : nullptr;
        if (!v)
            return out;
        if (v->kind == TomlValue::Kind::String) {
            std::string item;
            for (char c : v->string + ",") {
                if (c == ',') {
                    if (!item.empty())
                        out.push_back(item);
                    item.clear();
                } else if (c != ' ') {
                    item += c;
                }
            }
        } else if (v->kind == TomlValue::Kind::Array) {
            for (const TomlValue& e : v->array)
                if (e.kind == TomlValue::Kind::String)
                    out.push_back(e.string);
                else
                    m_cx.error(field(key), "must be a list of strings");
        } else {
            m_cx.error(field(key), std::string("must be a list of strings, not ") + v->kindName());
        }
        return out;
    }
    void known(std::initializer_list<const char*> keys)
    {
        for (const char* k : keys)
            m_used.insert(k);
    }
    void reportUnknown()
    {
        if (!m_t)
            return;
        std::vector<std::string> unknown;
        for (const auto& [k, v] : m_t->table)
            if (!m_used.count(k))
                unknown.push_back(k);
        if (!unknown.empty())
            m_cx.warning(m_name, "unknown keys, ignored: " + cappedList(unknown));
    }

private:
    const TomlValue* m_t;
    std::string m_name;
    ImportContext& m_cx;
    std::set<std::string> m_used;
};

} // namespace

void importTorchTitan(std::string_view text, ImportContext& cx)
{
    const TomlParse parsed = parseToml(text);
    if (!parsed.ok()) {
        cx.error("", parsed.error);
        return;
    }
    const TomlValue& root = parsed.root;
    auto table = [&](const char* name) -> const TomlValue* {
        const TomlValue* t = root.find(name);
        if (t && t->kind != TomlValue::Kind::Table) {
            cx.error(name, std::string("must be a table, not ") + t->kindName());
            return nullptr;
        }
        return t;
    };
    // Sections that change nothing ShardScope models.
    static const std::set<std::string> quiet = { "job", "profiling", "metrics", "checkpoint", "comm", "lr_scheduler",
        "memory_estimation", "fault_tolerance", "experimental", "validation", "mx", "debug" };
    static const std::set<std::string> read
        = { "model", "training", "parallelism", "activation_checkpoint", "compile", "float8", "quantize", "optimizer" };
    std::vector<std::string> unknownSections;
    for (const auto& [name, v] : root.table)
        if (!quiet.count(name) && !read.count(name))
            unknownSections.push_back(name);
    if (!unknownSections.empty())
        cx.warning("(file)", "unknown sections or keys, ignored: " + cappedList(unknownSections));

    Scenario& s = cx.s();

    // ---- [model]: a flavor that is a catalog preset.
    Section model(table("model"), "model", cx);
    model.known({ "tokenizer_path", "hf_assets_path", "print_after_conversion" });
    std::string name = "llama3", flavor;
    const bool hasName = model.text("name", name);
    const bool hasFlavor = model.text("flavor", flavor);
    if (hasName || hasFlavor) {
        std::string presetId;
        if (const auto family = flavors().find(name); family != flavors().end())
            if (const auto it = family->second.find(flavor); it != family->second.end())
                presetId = it->second;
        if (presetId.empty()) {
            cx.error(flavors().count(name) ? "model.flavor" : "model.name",
                "'" + name + " " + flavor
                    + "' is not a "
                      "catalog preset; supported: "
                    + supportedFlavors()
                    + " (for another model, import its "
                      "config.json with --from hf-config)");
        } else if (const ModelSpec* m = cx.catalog.model(presetId)) {
            const double capacity = s.model.moe.capacityFactor;
            s.model = *m;
            s.model.moe.capacityFactor = capacity;
            for (const auto& f : importFieldNames())
                if (f.rfind("model.", 0) == 0)
                    cx.set(f);
        } else {
            cx.error("model.flavor", "the catalog has no model '" + presetId + "'");
        }
    }
    const std::vector<std::string> converters = model.strings("converters");
    model.reportUnknown();

    // ---- [parallelism]
    Section par(table("parallelism"), "parallelism", cx);
    par.known({ "disable_loss_parallel", "enable_async_tensor_parallel", "pipeline_parallel_split_points",
        "pipeline_parallel_schedule_csv", "enable_compiled_autograd", "module_fqns_per_model_part",
        "pipeline_parallel_first_stage_less_layers", "pipeline_parallel_last_stage_less_layers" });
    int64_t replicate = 1, shard = -1, tp = 1, pp = 1, cp = 1, ep = 1, lps = 0, ppMicro = 1;
    par.integer("data_parallel_replicate_degree", replicate, 1);
    const bool shardGiven = par.integer("data_parallel_shard_degree", shard, -1);
    if (shard == 0) {
        cx.error("parallelism.data_parallel_shard_degree", "must be -1 (the leftover ranks) or at least 1, not 0");
        return;
    }
    par.integer("tensor_parallel_degree", tp, 1, 1'000'000);
    par.integer("pipeline_parallel_degree", pp, 1, 1'000'000);
    par.integer("context_parallel_degree", cp, 1, 1'000'000);
    // context_parallel_rotate_method (job_config.py, default "allgather"): how torch's ring attention moves the KV
    // shards, one all-gather or all-to-all permutes to the next rank (torch/distributed/tensor/experimental/
    // _attention.py, _AllGatherRotater / _AllToAllRotater).
    std::string rotate = "allgather";
    par.text("context_parallel_rotate_method", rotate);
    if (rotate != "allgather" && rotate != "alltoall")
        cx.error("parallelism.context_parallel_rotate_method", "'" + rotate + "' is not one of: allgather, alltoall");
    par.integer("expert_parallel_degree", ep, 1, 1'000'000);
    // expert_tensor_parallel_degree (default 1: torchtitan's routed experts use no TP unless asked; 1 or tp) and
    // expert_parallel_comm_backend ("standard" all-to-all or "deepep"), both only with ep > 1 (job_config.py)
    int64_t etp = 1;
    par.integer("expert_tensor_parallel_degree", etp, 1, 1'000'000);
    std::string backend = "standard";
    par.text("expert_parallel_comm_backend", backend);
    par.integer("pipeline_parallel_layers_per_stage", lps, 1);
    par.integer("pipeline_parallel_microbatch_size", ppMicro, 1);
    std::string reshard = "default", schedule = "1F1B";
    par.text("fsdp_reshard_after_forward", reshard);
    par.text("pipeline_parallel_schedule", schedule);
    par.reportUnknown();

    auto& p = s.parallelism;
    p.tp = static_cast<int>(tp);
    p.pp = static_cast<int>(pp);
    p.cp = static_cast<int>(cp);
    p.cpCommType = rotate == "alltoall" ? CpCommType::P2p : CpCommType::AllGather;
    cx.set("parallelism.cp_comm_type");
    p.ep = static_cast<int>(ep);
    p.expertTp = 0;
    if (s.model.isMoe() && ep > 1) {
        if (etp != 1 && etp != tp)
            cx.error("parallelism.expert_tensor_parallel_degree",
                "torchtitan supports 1 or the tensor_parallel_degree (" + std::to_string(tp) + "), not "
                    + std::to_string(etp));
        else if (etp != tp)
            p.expertTp = static_cast<int>(etp);
        if (backend != "standard" && backend != "deepep")
            cx.error("parallelism.expert_parallel_comm_backend", "'" + backend + "' is not one of: standard, deepep");
        s.model.moe.dispatcher = backend == "deepep" ? MoeDispatcher::DeepEp : MoeDispatcher::AllToAll;
        cx.set("parallelism.expert_tp");
        cx.set("model.moe.dispatcher");
    }
    // dp_shard -1: the ranks left after replicate × cp × tp × pp (parallel_dims.py _validate).
    // Each degree is bounded, their product need not be: checked against kMaxIntCount GPUs before any division.
    int64_t others = 0, gpus = 0;
    const bool fits = boundedProduct(replicate, tp, kMaxIntCount, others)
        && boundedProduct(others, pp, kMaxIntCount, others) && boundedProduct(others, cp, kMaxIntCount, others)
        && (!shardGiven || shard < 1 || boundedProduct(shard, others, kMaxIntCount, gpus));
    if (!fits) {
        cx.error(
            shardGiven && shard > 0 ? "parallelism.data_parallel_shard_degree" : "parallelism.tensor_parallel_degree",
            "the product of the parallel degrees (data_parallel_replicate x data_parallel_shard x context x tensor x "
            "pipeline) must be at most "
                + std::to_string(kMaxIntCount) + " GPUs");
        return;
    }
    if (shardGiven && shard > 0) {
        if (cx.options.gpus != 0 && gpus != cx.options.gpus) {
            cx.error("parallelism.data_parallel_shard_degree",
                "replicate " + std::to_string(replicate) + " x shard " + std::to_string(shard) + " x cp "
                    + std::to_string(cp) + " x tp " + std::to_string(tp) + " x pp " + std::to_string(pp) + " = "
                    + std::to_string(gpus) + " GPUs, but --gpus is " + std::to_string(cx.options.gpus));
            return;
        }
        if (cx.options.gpus == 0 && gpus != s.cluster.gpus()) {
            std::string message;
            if (gpus > 10'000'000 || !setGpuCount(s.cluster, static_cast<int>(gpus), message)) {
                cx.error("parallelism.data_parallel_shard_degree", message.empty() ? "too many GPUs" : message);
                return;
            }
            cx.set("cluster.nodes");
            cx.set("cluster.gpus_per_node");
        }
    } else {
        if (s.cluster.gpus() % others != 0) {
            cx.error("parallelism.data_parallel_shard_degree",
                "-1 takes the ranks left by replicate x cp x tp x pp (" + std::to_string(others)
                    + "), which must divide the " + std::to_string(s.cluster.gpus())
                    + " GPUs; pass --gpus with the run's GPU count");
            return;
        }
        shard = s.cluster.gpus() / others;
    }
    // Sharding: FSDP over dp_shard × cp; HSDP when dp_replicate > 1 as well; DDP with dp_replicate only.
    if (shard * cp > 1) {
        if (replicate > 1) {
            p.sharding = Sharding::FsdpHybrid;
            p.shardGroup = static_cast<int>(shard * cp);
            cx.set("parallelism.shard_group");
        } else {
            p.sharding = reshard == "never" ? Sharding::FsdpGradOp : Sharding::FsdpFull;
        }
    } else {
        p.sharding = Sharding::Ddp;
    }
    if (reshard != "default" && reshard != "always" && reshard != "never")
        cx.error("parallelism.fsdp_reshard_after_forward", "'" + reshard + "' is not one of: default, always, never");
    p.virtualStages = 1;
    p.schedule = PpSchedule::OneFOneB;
    if (pp > 1) {
        // torch/distributed/pipelining/schedules.py names.
        if (schedule == "1F1B")
            p.schedule = PpSchedule::OneFOneB;
        else if (schedule == "GPipe")
            p.schedule = PpSchedule::GPipe;
        else if (schedule == "Interleaved1F1B" || schedule == "LoopedBFS")
            p.schedule = PpSchedule::Interleaved;
        else if (schedule == "InterleavedZeroBubble" || schedule == "ZBVZeroBubble" || schedule == "DualPipeV")
            p.schedule = PpSchedule::ZeroBubble;
        else
            cx.error("parallelism.pipeline_parallel_schedule",
                "'" + schedule
                    + "' is not one of: 1F1B, GPipe, "
                      "Interleaved1F1B, LoopedBFS, InterleavedZeroBubble, ZBVZeroBubble, DualPipeV");
        if (schedule == "LoopedBFS" || schedule == "DualPipeV")
            cx.warning("parallelism.pipeline_parallel_schedule", schedule + " is modelled as " + toString(p.schedule));
        const bool looped = schedule != "1F1B" && schedule != "GPipe";
        const int64_t layers = s.model.layers;
        if (lps > 0 && layers % (pp * lps) == 0)
            p.virtualStages = static_cast<int>(layers / (pp * lps));
        else if (looped)
            p.virtualStages = 2; // torchtitan's looped schedules default to 2 stages per rank (pipeline_parallel.py)
        if (p.schedule == PpSchedule::Interleaved && p.virtualStages == 1)
            p.schedule = PpSchedule::OneFOneB;
    }
    for (const char* f :
        { "parallelism.sharding", "parallelism.tp", "parallelism.pp", "parallelism.cp", "parallelism.ep",
            "parallelism.pp_schedule", "parallelism.virtual_stages", "parallelism.sequence_parallel" })
        cx.set(f);
    p.sequenceParallel = tp > 1; // torchtitan's TP plan shards the norms' activations (SequenceParallel) always

    // ---- [training]
    Section tr(table("training"), "training", cx);
    tr.known({ "dataset", "dataset_path", "max_norm", "steps", "gc_freq", "gc_debug", "seed", "deterministic",
        "warmup_steps", "data_parallel_degree", "tensor_parallel_degree", "enable_float8_linear" });
    int64_t local = 8, global = -1, seq = 2048;
    if (!tr.integer("local_batch_size", local, 1))
        tr.integer("batch_size", local, 1); // the older name
    tr.integer("global_batch_size", global, -1);
    if (tr.integer("seq_len", seq, 1)) {
        s.training.seqLen = seq;
        cx.set("training.seq_len");
    }
    const int64_t dp = replicate * shard;
    s.training.microBatch = pp > 1 ? ppMicro : local;
    s.training.globalBatch = global;
    if (global < 1 && !boundedProduct(local, dp, kMaxWhole, s.training.globalBatch)) {
        cx.error("training.local_batch_size",
            "local_batch_size x data-parallel ranks must be at most " + std::to_string(kMaxWhole));
        return;
    }
    cx.set("training.micro_batch");
    cx.set("training.global_batch");
    bool offload = false;
    if (tr.flag("enable_cpu_offload", offload)) {
        // FSDP2 CPUOffloadPolicy: parameters, gradients and optimizer states on the host.
        s.offload.parameters = offload ? OffloadTarget::Cpu : OffloadTarget::None;
        s.offload.optimizer = s.offload.parameters;
    } else {
        s.offload = {};
    }
    cx.set("offload.optimizer");
    cx.set("offload.parameters");
    std::string param = "bfloat16", dtype = "float32";
    tr.text("mixed_precision_param", param);
    if (param != "bfloat16" && param != "float32")
        cx.error("training.mixed_precision_param", "'" + param + "' is not one of: bfloat16, float32");
    // training.dtype "bfloat16": parameters, gradients and optimizer states all in bf16, no fp32 master copy
    // (torchtitan/config/configs.py TrainingConfig.dtype @ b5bcd76c; trainer.py sets it as the default dtype).
    tr.text("dtype", dtype);
    if (dtype != "bfloat16" && dtype != "float32")
        cx.error("training.dtype", "'" + dtype + "' is not one of: bfloat16, float32");
    s.training.precision = dtype == "bfloat16" ? Precision::Bf16
        : param == "float32"                   ? Precision::Fp32
                                               : Precision::Bf16Mixed;
    std::string reduce = "float32";
    const bool hasReduce = tr.text("mixed_precision_reduce", reduce);
    bool compile = false;
    tr.flag("compile", compile);
    tr.reportUnknown();

    Section comp(table("compile"), "compile", cx);
    comp.known({ "components", "backend" });
    bool enable = false;
    if (comp.flag("enable", enable))
        compile = compile || enable;
    comp.reportUnknown();
    cx.framework(compile ? Framework::PyTorchCompile : Framework::PyTorch, "compile");

    // ---- Float8: model.converters names the float8 converter (torchtitan/components/quantization/float8.py).
    bool fp8 = false;
    for (const auto& c : converters) {
        if (c == "float8" || c == "quantize.linear.float8" || c == "quantize.grouped_mm.float8")
            fp8 = true;
        else if (c.find("mx") != std::string::npos)
            cx.warning("model.converters", "'" + c + "' (MX formats) is not modelled; counted as bf16");
        else
            cx.warning("model.converters", "unknown converter '" + c + "', ignored");
    }
    Section f8(table("float8"), "float8", cx);
    f8.known({ "enable_fsdp_float8_all_gather", "precompute_float8_dynamic_scale_for_fsdp",
        "force_recompute_fp8_weight_in_bwd", "recipe_name", "filter_fqns", "emulate", "moe_fqns_prototype" });
    f8.reportUnknown();
    if (fp8) {
        if (dtype == "bfloat16")
            cx.warning(
                "training.dtype", "bfloat16 with a float8 converter: modelled as fp8-mixed (fp32 master weights)");
        else if (param != "bfloat16")
            cx.warning("model.converters", "float8 with mixed_precision_param float32: modelled as fp8-mixed");
        s.training.precision = Precision::Fp8Mixed;
    }
    cx.set("training.precision");
    // mixed_precision_reduce: FSDP2's MixedPrecisionPolicy.reduce_dtype (torchtitan/config/job_config.py, default
    // float32); only a mixed precision has one.
    if (hasReduce) {
        if (reduce != "bfloat16" && reduce != "float32")
            cx.error("training.mixed_precision_reduce", "'" + reduce + "' is not one of: bfloat16, float32");
        else if (s.training.precision == Precision::Bf16Mixed || isFp8(s.training.precision))
            s.training.gradReduce = reduce == "bfloat16" ? GradReduce::Bf16 : GradReduce::Fp32;
        else if (s.training.precision == Precision::Fp32 && reduce == "bfloat16")
            cx.warning("training.mixed_precision_reduce", "bfloat16 with float32 parameters is not modelled; ignored");
        // training.dtype bfloat16 (precision bf16): gradients are bf16 already, the reduce dtype is not modelled.
    }
    cx.set("training.grad_reduce_dtype");

    // ---- [activation_checkpoint]: none | full | selective ("op" = op-level policy; an integer n = every n-th layer).
    Section ac(table("activation_checkpoint"), "activation_checkpoint", cx);
    ac.known({ "per_op_sac_force_recompute_mm_shapes_by_fqns", "early_stop", "memory_budget",
        "visualize_memory_budget_pareto" });
    std::string mode = "selective", option = "2";
    ac.text("mode", mode);
    ac.text("selective_ac_option", option);
    ac.reportUnknown();
    if (mode == "none") {
        s.training.recompute = Recompute::None;
    } else if (mode == "full") {
        s.training.recompute = Recompute::Full;
    } else if (mode == "selective") {
        if (option == "op") {
            s.training.recompute = Recompute::SelectiveOp;
        } else {
            bool digits = !option.empty() && option.size() < 7;
            for (char c : option)
                digits = digits && std::isdigit(static_cast<unsigned char>(c));
            const int n = digits ? std::stoi(option) : 0;
            if (n < 1) {
                cx.error("activation_checkpoint.selective_ac_option",
                    "'" + option
                        + "' is not one of: op, or a whole "
                          "number n >= 1 (every n-th layer)");
            } else if (n == 1) {
                s.training.recompute = Recompute::Full; // every layer checkpointed
            } else {
                // Every n-th layer checkpointed keeps (1 - 1/n) of the layers' activations: nearest to none; a
                // fraction of the memory is over-counted (never under-counted).
                s.training.recompute = Recompute::None;
                cx.warning("activation_checkpoint.selective_ac_option",
                    "'" + option + "' checkpoints every " + option
                        + "-th layer; ShardScope models whole-model policies: modelled as none (memory "
                          "over-counted by up to 1/"
                        + option + " of the activations, recompute time left out)");
            }
        }
    } else {
        cx.error("activation_checkpoint.mode", "'" + mode + "' is not one of: none, full, selective");
    }
    cx.set("training.recompute");

    Section opt(table("optimizer"), "optimizer", cx);
    opt.known({ "lr", "beta1", "beta2", "eps", "weight_decay", "implementation", "early_step_in_backward" });
    std::string optimizer;
    if (opt.text("name", optimizer)) {
        if (optimizer == "AdamW" || optimizer == "Adam") {
            s.training.optimizer = Optimizer::AdamW;
            cx.set("training.optimizer");
        } else {
            cx.warning("optimizer.name",
                "'" + optimizer
                    + "' is not modelled (AdamW, Adam): the base scenario's optimizer "
                      "is kept");
        }
    }
    opt.reportUnknown();
    if (table("quantize") && !fp8)
        cx.warning("quantize", "quantization settings without a float8 converter in model.converters, ignored");
}

} // namespace shardscope::core::detail
