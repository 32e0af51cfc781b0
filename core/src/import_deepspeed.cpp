// SPDX-License-Identifier: GPL-3.0-or-later
// DeepSpeed config JSON → scenario (issue 14). Keys and defaults as in microsoft/DeepSpeed @ 38327e07, the commit the
// launch configuration was checked against (launch_config.cpp):
// - deepspeed/runtime/constants.py: train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps,
//   bf16 (alias bfloat16) / fp16 "enabled", optimizer "type".
// - deepspeed/runtime/config.py: _set_batch_related_parameters (which two of the three batch figures determine the
//   third) and _batch_assertion (train_batch_size == micro × accumulation × data-parallel world size); the batch
//   check counts only the data-parallel ranks of a sequence_parallel_size/data_parallel_size mesh (config.py:728).
// - deepspeed/runtime/zero/config.py: zero_optimization.stage (0-3), reduce_bucket_size and allgather_bucket_size
//   (default 5e8), stage3_prefetch_bucket_size (alias prefetch_bucket_size, default 5e7), mics_shard_size (MiCS:
//   shard inside groups, replicate across them); zero/offload_config.py: offload_param / offload_optimizer device
//   none | cpu | nvme (parameter offload only at stage 3).
// - deepspeed/runtime/activation_checkpointing/config.py: the activation_checkpointing section (deepspeed.checkpointing).
// "auto" (the Hugging Face Trainer fills it in at launch) counts as absent.
#include "engine.h"
#include "checked_int.h"
#include "import_common.h"
#include "json_fields.h"

#include <cctype>
#include <cmath>
#include <set>

namespace shardscope::core::detail {

namespace {

std::string list(const std::vector<std::string>& v) { return cappedList(v); }

/// Reads of one JSON object's keys, each named by its dotted path; keys not read are reported as unknown.
class DsObject
{
public:
    DsObject(const json& obj, std::string path, ImportContext& cx)
        : m_obj(obj)
        , m_path(std::move(path))
        , m_cx(cx)
    { }
    std::string field(const char* key) const { return m_path.empty() ? key : m_path + "." + key; }
    const json* find(const char* key)
    {
        m_used.insert(key);
        const auto it = m_obj.find(key);
        if (it == m_obj.end() || it->is_null())
            return nullptr;
        if (it->is_string() && it->get<std::string>() == "auto") {
            m_cx.warning(field(key),
                "\"auto\" (filled in by the Hugging Face Trainer at launch): taken from the base "
                "scenario");
            return nullptr;
        }
        return &*it;
    }
    /// A whole number >= lo; false when absent, "auto" or wrong (then an error names the key).
    bool count(const char* key, int64_t& out, int64_t lo = 1, int64_t hi = kMaxWhole)
    {
        const json* v = find(key);
        if (!v)
            return false;
        if (!v->is_number() || !wholeFromDouble(v->get<double>(), lo, hi, out)) {
            m_cx.error(field(key), wholeRule(lo, hi, v->dump()));
            return false;
        }
        return true;
    }
    bool flag(const char* key, bool& out)
    {
        const json* v = find(key);
        if (!v)
            return false;
        if (!v->is_boolean()) {
            m_cx.error(field(key), "must be true or false, not " + v->dump());
            return false;
        }
        out = v->get<bool>();
        return true;
    }
    bool text(const char* key, std::string& out)
    {
        const json* v = find(key);
        if (!v)
            return false;
        if (!v->is_string()) {
            m_cx.error(field(key), std::string("must be a string, not ") + v->type_name());
            return false;
        }
        out = v->get<std::string>();
        return true;
    }
    const json* object(const char* key)
    {
        const json* v = find(key);
        if (v && !v->is_object()) {
            m_cx.error(field(key), std::string("must be an object, not ") + v->type_name());
            return nullptr;
        }
        return v;
    }
    void known(std::initializer_list<const char*> keys)
    {
        for (const char* k : keys)
            m_used.insert(k);
    }
    void reportUnknown()
    {
        std::vector<std::string> unknown;
        for (auto it = m_obj.begin(); it != m_obj.end(); ++it)
            if (!m_used.count(it.key()))
                unknown.push_back(it.key());
        if (!unknown.empty())
            m_cx.warning(m_path.empty() ? "(config)" : m_path, "unknown keys, ignored: " + list(unknown));
    }

private:
    const json& m_obj;
    std::string m_path;
    ImportContext& m_cx;
    std::set<std::string> m_used;
};

/// offload_param / offload_optimizer: device none | cpu | nvme.
bool offloadDevice(DsObject& zero, const char* key, OffloadTarget& out, ImportContext& cx)
{
    const json* o = zero.object(key);
    if (!o)
        return false;
    DsObject off(*o, zero.field(key), cx);
    off.known({ "nvme_path", "buffer_count", "buffer_size", "max_in_cpu", "pin_memory", "pipeline_read",
        "pipeline_write", "pipeline", "fast_init", "ratio" });
    std::string device = "none";
    off.text("device", device);
    off.reportUnknown();
    if (device == "none")
        out = OffloadTarget::None;
    else if (device == "cpu")
        out = OffloadTarget::Cpu;
    else if (device == "nvme")
        out = OffloadTarget::Nvme;
    else {
        cx.error(off.field("device"), "'" + device + "' is not one of: none, cpu, nvme");
        return false;
    }
    return true;
}

/// A bucket size the model does not take as an input: a warning when it differs from the value the memory and time
/// model use (engine.h kDs*).
void bucket(DsObject& zero, const char* key, double modelled, ImportContext& cx)
{
    int64_t v = 0;
    if (zero.count(key, v, 0) && static_cast<double>(v) != modelled)
        cx.warning(zero.field(key),
            std::to_string(v) + " elements: ShardScope models DeepSpeed's default "
                + std::to_string(static_cast<int64_t>(modelled))
                + " (fixed, engine.h), so this run's buffers "
                  "and overlap may differ from the figures");
}

} // namespace

void importDeepSpeed(std::string_view text, ImportContext& cx)
{
    json root;
    if (!parseJsonObject(text, "DeepSpeed config", root, cx))
        return;
    Scenario& s = cx.s();
    DsObject top(root, "", cx);
    top.known({ "gradient_clipping", "scheduler", "steps_per_print", "wall_clock_breakdown",
        "zero_allow_untested_optimizer", "prescale_gradients", "gradient_predivide_factor", "communication_data_type",
        "flops_profiler", "tensorboard", "wandb", "csv_monitor", "comet", "comms_logger", "dump_state",
        "memory_breakdown", "checkpoint", "data_efficiency", "zero_force_ds_cpu_optimizer", "elasticity", "autotuning",
        "aio", "compression_training", "sparse_attention", "curriculum_learning", "gradient_accumulation_dtype",
        "data_types", "disable_allgather", "sparse_gradients", "graph_harvesting", "use_node_local_storage",
        "load_universal_checkpoint", "nebula", "compile", "timers", "eigenvalue", "progressive_layer_drop",
        "seq_parallel_communication_data_type", "train_batch_size", "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps" });

    cx.framework(Framework::DeepSpeed, "(config)");

    // ---- Sequence parallelism (DeepSpeed-Ulysses mesh): cp, and the data-parallel size the batch check uses.
    int64_t sp = 0, meshDp = 0;
    const bool hasSp = top.count("sequence_parallel_size", sp, 1, kMaxIntCount);
    const bool hasMeshDp = top.count("data_parallel_size", meshDp, 1, kMaxIntCount);
    // DeepSpeed-Ulysses exchanges Q, K, V and the output by all-to-all (deepspeed/sequence/layer.py,
    // DistributedAttention): DeepSpeed's only context parallelism.
    s.parallelism.cpCommType = CpCommType::A2a;
    if (hasSp) {
        s.parallelism.cp = static_cast<int>(sp);
        cx.set("parallelism.cp");
        cx.set("parallelism.cp_comm_type");
    }
    // tp x pp x sp (and x data_parallel_size) with overflow checks: each degree is bounded, their product need not be.
    int64_t modelRanks = 0, tpPp = 0;
    if (!boundedProduct(s.parallelism.tp, s.parallelism.pp, kMaxWhole, tpPp)
        || !boundedProduct(tpPp, std::max(1, s.parallelism.cp), kMaxIntCount, modelRanks)) {
        cx.error(hasSp ? "sequence_parallel_size" : "(config)",
            "tp x pp x sequence_parallel_size must be at most " + std::to_string(kMaxIntCount) + " GPUs");
        return;
    }
    if (hasMeshDp) {
        int64_t gpus = 0;
        if (!boundedProduct(meshDp, modelRanks, kMaxIntCount, gpus)) {
            cx.error("data_parallel_size",
                "data_parallel_size x tp x pp x sequence_parallel_size must be at most " + std::to_string(kMaxIntCount)
                    + " GPUs");
            return;
        }
        if (cx.options.gpus != 0 && gpus != cx.options.gpus) {
            cx.error("data_parallel_size",
                std::to_string(meshDp) + " x sequence_parallel_size " + std::to_string(s.parallelism.cp) + " x tp "
                    + std::to_string(s.parallelism.tp) + " x pp " + std::to_string(s.parallelism.pp) + " = "
                    + std::to_string(gpus) + " GPUs, but --gpus is " + std::to_string(cx.options.gpus));
        } else if (cx.options.gpus == 0 && gpus != s.cluster.gpus()) {
            std::string message;
            if (gpus > 10'000'000 || !setGpuCount(s.cluster, static_cast<int>(gpus), message))
                cx.error("data_parallel_size", message.empty() ? "too many GPUs" : message);
            cx.set("cluster.nodes");
            cx.set("cluster.gpus_per_node");
        }
    }
    const int gpus = s.cluster.gpus();
    const int64_t dp = gpus % modelRanks == 0 ? gpus / modelRanks : 0;
    if (dp == 0) {
        cx.error("(config)",
            std::to_string(gpus) + " GPUs are not a multiple of tp x pp x sequence_parallel_size ("
                + std::to_string(modelRanks) + "); pass --gpus or a --base with the run's layout");
        return;
    }

    // ---- Batch: _set_batch_related_parameters, then _batch_assertion (deepspeed/runtime/config.py).
    int64_t train = 0, micro = 0, accum = 0;
    const bool hasTrain = top.count("train_batch_size", train);
    const bool hasMicro = top.count("train_micro_batch_size_per_gpu", micro);
    const bool hasAccum = top.count("gradient_accumulation_steps", accum);
    const std::string world = "data-parallel ranks " + std::to_string(dp) + " (= " + std::to_string(gpus)
        + " GPUs / (tp " + std::to_string(s.parallelism.tp) + " x pp " + std::to_string(s.parallelism.pp)
        + " x sequence parallel " + std::to_string(std::max(1, s.parallelism.cp)) + "))";
    if (hasTrain && hasMicro && hasAccum) {
        // all three given: checked below
    } else if (hasTrain && hasMicro) {
        accum = train / micro / dp;
    } else if (hasTrain && hasAccum) {
        micro = train / dp / accum;
    } else if (hasMicro && hasAccum) {
        train = 0; // stays 0 (refused below) when the product exceeds kMaxWhole
        if (int64_t microAccum = 0; boundedProduct(micro, accum, kMaxWhole, microAccum))
            boundedProduct(microAccum, dp, kMaxWhole, train);
    } else if (hasTrain) {
        accum = 1;
        micro = train / dp;
    } else if (hasMicro) {
        accum = 1;
        train = 0;
        boundedProduct(micro, dp, kMaxWhole, train);
    }
    int64_t product = -1, microAccum = 0; // micro x accum x dp, -1 when it exceeds kMaxWhole
    if (boundedProduct(micro, accum, kMaxWhole, microAccum) && !boundedProduct(microAccum, dp, kMaxWhole, product))
        product = -1;
    if (hasTrain || hasMicro) {
        if (micro < 1 || accum < 1 || train < 1 || train != product) {
            cx.error(hasTrain ? "train_batch_size" : "train_micro_batch_size_per_gpu",
                "the rule train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x "
                "data-parallel "
                "ranks fails: "
                    + (hasTrain ? std::to_string(train) : std::string("(derived)"))
                    + " != " + (hasMicro ? std::to_string(micro) : "(derived " + std::to_string(micro) + ")") + " x "
                    + (hasAccum ? std::to_string(accum) : "(derived " + std::to_string(accum) + ")") + " x " + world
                    + " (deepspeed/runtime/config.py _batch_assertion); give --gpus the run's GPU count");
        } else {
            s.training.globalBatch = train;
            s.training.microBatch = micro;
            cx.set("training.global_batch");
            cx.set("training.micro_batch");
        }
    }

    // ---- Precision: bf16 (or its old name bfloat16) / fp16 "enabled"; neither: fp32 (DeepSpeed's default).
    auto enabled = [&](const char* key, bool& out) {
        const json* o = top.object(key);
        if (!o)
            return false;
        DsObject sec(*o, key, cx);
        sec.known({ "loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis", "consecutive_hysteresis",
            "min_loss_scale", "auto_cast", "fp16_master_weights_and_grads", "immediate_grad_update",
            "check_grad_overflow", "bf16_master_weights_and_grads", "bf16_optimizer_states" });
        bool on = false;
        sec.flag("enabled", on);
        sec.reportUnknown();
        out = on;
        return true;
    };
    bool bf16 = false, fp16 = false, bf16Old = false;
    const bool bf16Given = enabled("bf16", bf16);
    const bool bf16OldGiven = enabled("bfloat16", bf16Old);
    const bool fp16Given = enabled("fp16", fp16);
    bf16 = bf16 || bf16Old;
    if (top.object("amp"))
        cx.warning("amp", "NVIDIA Apex AMP is not modelled; use fp16 or bf16");
    if (bf16 && fp16) {
        cx.error("fp16.enabled", "bf16 and fp16 cannot both be enabled (deepspeed/runtime/config.py)");
    } else {
        s.training.precision = bf16 ? Precision::Bf16Mixed : fp16 ? Precision::Fp16Mixed : Precision::Fp32;
        cx.set("training.precision");
        if (!bf16Given && !bf16OldGiven && !fp16Given)
            cx.warning("bf16", "neither bf16 nor fp16 is configured: DeepSpeed trains in fp32");
    }

    // ---- ZeRO.
    if (const json* z = top.object("zero_optimization")) {
        DsObject zero(*z, "zero_optimization", cx);
        zero.known({ "contiguous_gradients", "reduce_scatter", "allgather_partitions", "overlap_comm",
            "load_from_fp32_weights", "elastic_checkpoint", "sub_group_size", "cpu_offload_use_pin_memory",
            "stage3_param_persistence_threshold", "param_persistence_threshold", "stage3_model_persistence_threshold",
            "model_persistence_threshold", "stage3_max_live_parameters", "max_live_parameters",
            "stage3_max_reuse_distance", "max_reuse_distance", "stage3_gather_16bit_weights_on_model_save",
            "gather_16bit_weights_on_model_save", "stage3_gather_fp16_weights_on_model_save",
            "ignore_unused_parameters", "legacy_stage1", "round_robin_gradients", "mics_hierarchical_params_gather",
            "memory_efficient_linear", "pipeline_loading_checkpoint", "override_module_apply",
            "use_all_reduce_for_fetch_params", "stage3_use_all_reduce_for_fetch_params", "log_trace_cache_warnings",
            "module_granularity_threshold", "use_multi_rank_bucket_allreduce" });
        int64_t stage = 0;
        zero.count("stage", stage, 0);
        if (stage > 3) {
            cx.error("zero_optimization.stage", std::to_string(stage) + " is not one of: 0, 1, 2, 3");
            stage = 0;
        }
        int64_t mics = 0;
        zero.count("mics_shard_size", mics, -1, kMaxIntCount);
        const Sharding shardings[] = { Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3 };
        s.parallelism.sharding = shardings[stage];
        if (stage == 3 && mics > 0) {
            s.parallelism.sharding = Sharding::FsdpHybrid; // MiCS = hybrid sharding (engine.py:1706)
            s.parallelism.shardGroup = static_cast<int>(mics);
            cx.set("parallelism.shard_group");
        } else if (mics > 0) {
            cx.warning("zero_optimization.mics_shard_size", "MiCS needs stage 3; ignored");
        }
        cx.set("parallelism.sharding");
        // Stage 0 all-reduces the gradients after the backward (deepspeed/runtime/engine.py: backward() ->
        // allreduce_gradients()); stage 1 reduces them during the backward only with overlap_comm, default false below
        // stage 3 (deepspeed/runtime/zero/config.py, overlap_comm); stages 2 and 3 reduce inside the backward anyway.
        if (stage <= 1) {
            bool overlap = false;
            if (stage == 1)
                zero.flag("overlap_comm", overlap);
            s.parallelism.overlapGradReduce = overlap;
            cx.set("parallelism.overlap_grad_reduce");
        }

        OffloadTarget opt = OffloadTarget::None, par = OffloadTarget::None;
        bool legacyCpu = false;
        if (zero.flag("cpu_offload", legacyCpu) && legacyCpu)
            opt = OffloadTarget::Cpu; // the deprecated spelling of offload_optimizer.device cpu
        bool legacyParams = false;
        if (zero.flag("cpu_offload_params", legacyParams) && legacyParams)
            par = OffloadTarget::Cpu;
        offloadDevice(zero, "offload_optimizer", opt, cx);
        offloadDevice(zero, "offload_param", par, cx);
        if (stage < 3 && par != OffloadTarget::None) {
            cx.warning(
                "zero_optimization.offload_param", "parameter offload needs stage 3 (zero/offload_config.py); ignored");
            par = OffloadTarget::None;
        }
        if (stage == 0 && opt != OffloadTarget::None) {
            cx.warning("zero_optimization.offload_optimizer", "optimizer offload needs stage 1 or more; ignored");
            opt = OffloadTarget::None;
        }
        s.offload.optimizer = opt;
        s.offload.parameters = par;
        cx.set("offload.optimizer");
        cx.set("offload.parameters");

        bucket(zero, "reduce_bucket_size", kDsReduceBucket, cx);
        bucket(zero, "allgather_bucket_size", kDsAllgatherBucket, cx);
        bucket(zero, "stage3_prefetch_bucket_size", kDsPrefetchBucket, cx);
        bucket(zero, "prefetch_bucket_size", kDsPrefetchBucket, cx);
        int64_t hpz = 0;
        if (zero.count("zero_hpz_partition_size", hpz) && hpz > 1)
            cx.warning("zero_optimization.zero_hpz_partition_size", "ZeRO++ hierarchical partitioning is not modelled");
        for (const char* q :
            { "zero_quantized_weights", "zero_quantized_gradients", "zero_quantized_nontrainable_weights" }) {
            bool on = false;
            if (zero.flag(q, on) && on)
                cx.warning(zero.field(q), "ZeRO++ quantized communication is not modelled");
        }
        zero.reportUnknown();
    } else {
        // No zero_optimization section: stage 0 (DeepSpeed's default), plain data parallelism, its all-reduce after
        // the backward (deepspeed/runtime/engine.py: backward() -> allreduce_gradients()).
        s.parallelism.sharding = Sharding::Ddp;
        s.parallelism.overlapGradReduce = false;
        cx.set("parallelism.overlap_grad_reduce");
        s.offload = {};
        cx.set("parallelism.sharding");
        cx.set("offload.optimizer");
        cx.set("offload.parameters");
    }

    // ---- Activation checkpointing: the section configures deepspeed.checkpointing, which model code calls per layer.
    if (const json* ac = top.object("activation_checkpointing")) {
        DsObject a(*ac, "activation_checkpointing", cx);
        a.known({ "partition_activations", "cpu_checkpointing", "contiguous_memory_optimization", "number_checkpoints",
            "synchronize_checkpoint_boundary", "profile" });
        bool cpu = false;
        if (a.flag("cpu_checkpointing", cpu) && cpu)
            cx.warning("activation_checkpointing.cpu_checkpointing", "checkpoints in CPU memory are not modelled");
        a.reportUnknown();
        s.training.recompute = Recompute::Full;
        cx.set("training.recompute");
    }

    // ---- Optimizer: DeepSpeed's names (runtime/config.py DEEPSPEED_OPTIMIZERS), matched case-insensitively.
    if (const json* o = top.object("optimizer")) {
        DsObject opt(*o, "optimizer", cx);
        opt.known({ "params" });
        std::string type;
        if (opt.text("type", type)) {
            std::string lower;
            for (char c : type)
                lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (lower == "adam" || lower == "adamw" || lower == "fusedadam" || lower == "cpuadam") {
                s.training.optimizer = Optimizer::AdamW;
                cx.set("training.optimizer");
            } else if (lower == "sgd") {
                s.training.optimizer = Optimizer::SgdMomentum;
                cx.set("training.optimizer");
            } else {
                cx.warning("optimizer.type",
                    "'" + type
                        + "' is not modelled (adam, adamw or sgd): the base scenario's "
                          "optimizer is kept");
            }
        }
        opt.reportUnknown();
    }
    top.reportUnknown();
}

} // namespace shardscope::core::detail
