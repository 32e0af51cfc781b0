// SPDX-License-Identifier: GPL-3.0-or-later
// Launch configurations use only option names the frameworks really have (issue 5, items 4 and 5).
// For every example scenario (resources/scenarios and tests/golden/scenarios) and every target, each DeepSpeed key,
// Megatron-LM flag, NCCL variable, torchrun flag and PyTorch import must be in an allowlist below that names where it
// was checked. Commits: microsoft/DeepSpeed 38327e07 (2025-02-21), NVIDIA/Megatron-LM d98e8a64 (2026-08-22),
// NVIDIA/nccl 5067397c (v2.30.7), pytorch/pytorch main (2025-2026). "ds:" = deepspeed/, "mg:" = megatron/,
// "mgargs" = megatron/training/arguments.py, "mpc" = megatron/core/model_parallel_config.py,
// "tc" = megatron/core/transformer/transformer_config.py, "mgtrain" = megatron/training/config/training_config.py.
#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/launch_config.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/catalog_files.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QObject>
#include <QTest>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#ifndef SHARDSCOPE_TEST_RESOURCES
#error "SHARDSCOPE_TEST_RESOURCES must name the resources/ directory"
#endif
#ifndef SHARDSCOPE_GOLDEN_SCENARIOS
#error "SHARDSCOPE_GOLDEN_SCENARIOS must name tests/golden/scenarios"
#endif

using namespace shardscope::core;
using Allowlist = std::map<std::string, std::string>; // name -> where it was checked

namespace {

// DeepSpeed config keys, as dotted paths from the root (array elements are not keys).
const Allowlist kDeepSpeedKeys = {
    { "train_batch_size", "ds:runtime/constants.py:17; config-json.md Batch Size Related Parameters" },
    { "train_micro_batch_size_per_gpu", "ds:runtime/constants.py:93" },
    { "gradient_accumulation_steps", "ds:runtime/constants.py:105" },
    { "sequence_parallel_size", "ds:__init__.py:158-161 (with data_parallel_size: the data x sequence mesh)" },
    { "data_parallel_size", "ds:__init__.py:158-161; runtime/config.py:728 (batch check's world size)" },
    { "bf16", "ds:runtime/constants.py:123; config-json.md BFLOAT16 training options" },
    { "bf16.enabled", "ds:runtime/constants.py:126" },
    { "communication_data_type",
        "ds:runtime/constants.py (COMMUNICATION_DATA_TYPE); config-json.md Communication options" },
    { "fp16", "ds:runtime/constants.py:151; config-json.md FP16 training options" },
    { "fp16.enabled", "ds:runtime/constants.py:153" },
    { "fp16.loss_scale", "ds:runtime/constants.py:157 (0 = dynamic)" },
    { "fp16.initial_scale_power", "ds:runtime/constants.py:164" },
    { "gradient_clipping", "ds:runtime/constants.py:214; config-json.md Gradient Clipping" },
    { "zero_allow_untested_optimizer", "ds:runtime/constants.py:73; engine.py:1311" },
    { "optimizer", "ds:runtime/constants.py:59; config-json.md Optimizer Parameters" },
    { "optimizer.type", "ds:runtime/constants.py:62" },
    { "optimizer.params", "ds:runtime/constants.py:61" },
    { "optimizer.params.lr", "torch.optim.AdamW / SGD constructor; config-json.md Optimizer Parameters example" },
    { "optimizer.params.betas", "torch.optim.AdamW constructor; config-json.md Optimizer Parameters example" },
    { "optimizer.params.eps", "torch.optim.AdamW constructor; config-json.md Optimizer Parameters example" },
    { "optimizer.params.weight_decay", "torch.optim.AdamW constructor; config-json.md Optimizer Parameters example" },
    { "optimizer.params.momentum",
        "torch.optim.SGD constructor (DeepSpeed falls back to torch.optim, engine.py:1499)" },
    { "activation_checkpointing",
        "ds:runtime/activation_checkpointing/config.py:45; config-json.md Activation Checkpointing" },
    { "activation_checkpointing.partition_activations", "ds:runtime/activation_checkpointing/config.py:27" },
    { "activation_checkpointing.cpu_checkpointing", "ds:runtime/activation_checkpointing/config.py:42" },
    { "activation_checkpointing.contiguous_memory_optimization", "ds:runtime/activation_checkpointing/config.py:33" },
    { "activation_checkpointing.synchronize_checkpoint_boundary", "ds:runtime/activation_checkpointing/config.py:36" },
    { "zero_optimization", "ds:runtime/zero/config.py:53" },
    { "zero_optimization.stage", "ds:runtime/zero/config.py:91" },
    { "zero_optimization.contiguous_gradients", "ds:runtime/zero/config.py:98" },
    { "zero_optimization.reduce_bucket_size", "ds:runtime/zero/config.py:109" },
    { "zero_optimization.allgather_bucket_size", "ds:runtime/zero/config.py:128" },
    { "zero_optimization.overlap_comm", "ds:runtime/zero/config.py:134" },
    { "zero_optimization.offload_param", "ds:runtime/zero/config.py:153; config-json.md Parameter offloading" },
    { "zero_optimization.offload_optimizer", "ds:runtime/zero/config.py:160; config-json.md Optimizer offloading" },
    { "zero_optimization.stage3_prefetch_bucket_size", "ds:runtime/zero/config.py:208 (alias)" },
    { "zero_optimization.stage3_param_persistence_threshold", "ds:runtime/zero/config.py:214 (alias)" },
    { "zero_optimization.stage3_max_live_parameters", "ds:runtime/zero/config.py:231 (alias)" },
    { "zero_optimization.mics_shard_size", "ds:runtime/zero/config.py:326; engine.py:1706 (MiCS)" },
    { "zero_optimization.offload_param.device", "ds:runtime/zero/offload_config.py:24" },
    { "zero_optimization.offload_param.nvme_path", "ds:runtime/zero/offload_config.py:30" },
    { "zero_optimization.offload_param.pin_memory", "ds:runtime/zero/offload_config.py:45" },
    { "zero_optimization.offload_optimizer.device", "ds:runtime/zero/offload_config.py:55" },
    { "zero_optimization.offload_optimizer.nvme_path", "ds:runtime/zero/offload_config.py:61" },
    { "zero_optimization.offload_optimizer.pin_memory", "ds:runtime/zero/offload_config.py:72" },
};

// Megatron-LM flags (explicit add_argument in arguments.py, or generated from a config dataclass field by
// megatron/training/argument_utils.py: --field-name) and the torchrun flags of the launch line.
const Allowlist kMegatronFlags = {
    { "--tensor-model-parallel-size", "mpc:55 (field)" },
    { "--pipeline-model-parallel-size", "mpc:83 (field)" },
    { "--context-parallel-size", "mpc:100 (field)" },
    { "--cp-comm-type",
        "mgargs:3221 (nargs '+', default p2p; tc:1030 field; Transformer Engine's spelling all_gather, "
        "transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py:5096-5123 @ d0067d0)" },
    { "--expert-model-parallel-size", "mpc:127 (field)" },
    { "--expert-tensor-parallel-size", "mpc:130 (field; None = tensor_model_parallel_size, mgargs:587)" },
    { "--moe-flex-dispatcher-backend", "tc:898 (Literal deepep|hybridep|ncclep)" },
    { "--recompute-modules", "tc:560 (List[str]; choices checked in __post_init__, tc:1945)" },
    { "--sequence-parallel", "mpc:94 (bool field, store_true)" },
    { "--num-layers-per-virtual-pipeline-stage", "mgargs:3114" },
    { "--num-virtual-stages-per-pipeline-rank", "mgargs:3116" },
    { "--pipeline-model-parallel-layout",
        "mgargs:3103 (parsed by core/transformer/pipeline_parallel_layer_layout.py)" },
    { "--use-distributed-optimizer", "mgargs:3156" },
    { "--use-megatron-fsdp", "mg:training/config/common_config.py:92 (DistributedInitConfig field)" },
    { "--use-torch-fsdp2", "mg:training/config/common_config.py:95 (DistributedInitConfig field)" },
    { "--torch-fsdp2-no-reshard-after-forward", "mgargs:3218" },
    { "--data-parallel-sharding-strategy", "mgargs:3190" },
    { "--num-distributed-optimizer-instances",
        "mgargs:3216; HSDP when > 1, core/distributed/fsdp/mcore_fsdp_adapter.py:346" },
    { "--ckpt-format", "mgtrain:486 (CheckpointConfig field)" },
    { "--overlap-grad-reduce", "mgargs:3121" },
    { "--overlap-param-gather", "mgargs:3148" },
    { "--optimizer-cpu-offload", "mgargs:2918" },
    { "--use-precision-aware-optimizer", "mgargs:3667 (required by --optimizer-cpu-offload, mgargs:1884)" },
    { "--optimizer-offload-fraction", "mgargs:2922" },
    { "--no-gradient-accumulation-fusion", "mgargs:2944" },
    { "--num-layers", "tc:65 (field)" },
    { "--hidden-size", "tc:145 (field)" },
    { "--num-attention-heads", "tc:148 (field)" },
    { "--multi-latent-attention", "tc:288 (bool field)" },
    { "--q-lora-rank", "mgargs:3548" },
    { "--kv-lora-rank", "mgargs:3550" },
    { "--qk-head-dim", "mgargs:3552" },
    { "--qk-pos-emb-head-dim", "mgargs:3554" },
    { "--v-head-dim", "mgargs:3556" },
    { "--group-query-attention", "mgargs:2382" },
    { "--num-query-groups", "tc:175 (field)" },
    { "--kv-channels", "tc:184 (field)" },
    { "--ffn-hidden-size", "tc:180 (field)" },
    { "--swiglu", "mgargs:2450" },
    { "--squared-relu", "mgargs:2448" },
    { "--normalization", "tc:256 (Literal LayerNorm|RMSNorm)" },
    { "--position-embedding-type", "mgargs:2397" },
    { "--untie-embeddings-and-output-weights", "mgargs:2460" },
    { "--disable-bias-linear", "tc:212 (argparse_meta arg_names)" },
    { "--add-qkv-bias", "tc:218 (bool field)" },
    { "--num-experts", "mgargs:3518" },
    { "--moe-router-topk", "tc:760 (field)" },
    { "--moe-ffn-hidden-size", "tc:740 (field)" },
    { "--moe-shared-expert-intermediate-size", "tc:701 (field)" },
    { "--moe-layer-freq", "mgargs:3520" },
    { "--moe-token-dispatcher-type", "tc:891 (Literal allgather|alltoall|flex)" },
    { "--moe-router-num-groups", "tc:780 (field)" },
    { "--moe-router-group-topk", "tc:796 (field; <= num groups, tc:2687)" },
    { "--overlap-moe-expert-parallel-comm", "mpc:343 (bool field; restrictions tc:3002)" },
    { "--tokenizer-type", "mgtrain:698 (TokenizerConfig field)" },
    { "--vocab-size", "mgtrain:679 (TokenizerConfig field)" },
    { "--data-path", "mgargs:3255" },
    { "--micro-batch-size", "mgtrain:11 (TrainingConfig field)" },
    { "--global-batch-size", "mgtrain:15 (TrainingConfig field)" },
    { "--seq-length", "mgargs:3305" },
    { "--max-position-embeddings", "mgargs:2394 (required, >= seq-length: mgargs:1314, 1354)" },
    { "--bf16", "mpc:180 (bool field)" },
    { "--fp16", "mpc:177 (bool field)" },
    { "--fp8-format", "tc:587 (argparse_meta arg_names)" },
    { "--fp8-recipe", "tc:594 (Literal tensorwise|delayed|mxfp8|blockwise|custom; mxfp8 Blackwell only)" },
    { "--tp-comm-overlap", "mpc:265 (bool field; needs --sequence-parallel, mgargs:1441)" },
    { "--fp8-param-gather", "mgargs:2016 (store_true; needs a sharded optimizer, mgargs:1095)" },
    { "--cpu-offloading-num-layers", "mpc:461 (field; > 0 turns cpu_offloading on, mgargs:1950)" },
    { "--grad-reduce-in-bf16", "mgargs:3053 (store_true; turns accumulate_allreduce_grads_in_fp32 off, mgargs:1213)" },
    { "--accumulate-allreduce-grads-in-fp32", "mgargs:3069 (store_true)" },
    { "--main-params-dtype", "mgargs:3673 (choices fp32|fp16; with --use-precision-aware-optimizer)" },
    { "--exp-avg-dtype", "mgargs:3675 (choices fp32|fp16|bf16|fp8)" },
    { "--exp-avg-sq-dtype", "mgargs:3680 (choices fp32|fp16|bf16|fp8)" },
    { "--attention-backend", "tc:151 (AttnBackend enum, mg:core/transformer/enums.py:51)" },
    { "--recompute-granularity", "tc:532 (Literal full|selective)" },
    { "--recompute-method", "tc:543 (Literal uniform|block)" },
    { "--recompute-num-layers", "tc:551 (field)" },
    { "--hidden-dropout", "tc:188 (field)" },
    { "--attention-dropout", "tc:191 (field)" },
    { "--optimizer", "mgargs:2913" },
    { "--lr", "mgargs:2984" },
    { "--weight-decay", "mgargs:2611" },
    { "--adam-beta1", "mgargs:2617" },
    { "--adam-beta2", "mgargs:2620" },
    { "--sgd-momentum", "mgargs:2626" },
    { "--clip-grad", "mgargs:2615" },
};

// torchrun (torch/distributed/run.py, get_args_parser).
const Allowlist kTorchrunFlags = {
    { "--nnodes", "torch/distributed/run.py get_args_parser" },
    { "--nproc-per-node", "torch/distributed/run.py get_args_parser (alias --nproc_per_node)" },
    { "--rdzv-backend", "torch/distributed/run.py get_args_parser (alias --rdzv_backend)" },
    { "--rdzv-endpoint", "torch/distributed/run.py get_args_parser (alias --rdzv_endpoint)" },
};

// Values checked against the flag's choices.
const std::map<std::string, std::set<std::string>> kMegatronChoices = {
    { "--normalization", { "LayerNorm", "RMSNorm" } }, // tc:256
    { "--position-embedding-type", { "learned_absolute", "rope", "yarn", "mrope", "relative", "none" } }, // mgargs:2397
    { "--recompute-granularity", { "full", "selective" } }, // tc:532
    { "--recompute-method", { "uniform", "block" } }, // tc:543
    { "--attention-backend", { "flash", "fused", "unfused", "local", "auto" } }, // enums.py:51
    { "--data-parallel-sharding-strategy",
        { "no_shard", "optim", "optim_grads", "optim_grads_params" } }, // mgargs:3190
    { "--fp8-format", { "e4m3", "hybrid" } }, // tc:587
    { "--main-params-dtype", { "fp32", "fp16" } }, // mgargs:3673
    { "--exp-avg-dtype", { "fp32", "fp16", "bf16", "fp8" } }, // mgargs:3675
    { "--exp-avg-sq-dtype", { "fp32", "fp16", "bf16", "fp8" } }, // mgargs:3680
    { "--fp8-recipe", { "tensorwise", "delayed", "mxfp8", "blockwise", "custom" } }, // tc:594
    { "--moe-token-dispatcher-type", { "allgather", "alltoall", "flex" } }, // tc:891
    { "--cp-comm-type", { "p2p", "a2a", "all_gather", "a2a+p2p" } }, // tc:1034, TE context_parallel.py:5096-5123
    { "--moe-flex-dispatcher-backend", { "deepep", "hybridep", "ncclep" } }, // tc:898
    { "--optimizer", { "adam", "sgd", "muon", "dist_muon", "lion", "soap", "adaptive_muon" } }, // mgargs:2913
    { "--ckpt-format", { "torch", "torch_dist", "torch_dcp", "fsdp_dtensor" } }, // mgtrain:486
};

// NCCL environment variables (NVIDIA/nccl v2.30.7).
const Allowlist kNcclVariables = {
    { "NCCL_ALGO", "src/graph/tuning.cc:458, src/enqueue.cc:2055" },
    { "NCCL_PROTO", "src/graph/tuning.cc:453, src/enqueue.cc:2059" },
    { "NCCL_MIN_CTAS", "src/init.cc:1726 NCCL_PARAM(MinCTAs, \"MIN_CTAS\") (since 2.17.1)" },
    { "NCCL_MIN_NCHANNELS", "src/graph/connect.cc:331 NCCL_PARAM(MinNchannels, \"MIN_NCHANNELS\")" },
    { "NCCL_NET_GDR_LEVEL", "src/graph/paths.cc:512" },
    { "NCCL_NVLS_ENABLE", "src/transport/nvls.cc:159 NCCL_PARAM(NvlsEnable, \"NVLS_ENABLE\", 2)" },
};
const std::map<std::string, std::set<std::string>> kNcclValues = {
    { "NCCL_ALGO", { "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT" } }, // init.cc:53
    { "NCCL_PROTO", { "LL", "LL128", "Simple" } }, // init.cc:55
    { "NCCL_NET_GDR_LEVEL", { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS" } }, // topo.cc:34
    { "NCCL_NVLS_ENABLE", { "0", "1", "2" } }, // nvls.cc:253-270
};

// PyTorch imports the FSDP fragment may use: "module" -> names (empty set: plain `import module`).
const std::map<std::string, std::set<std::string>> kPythonImports = {
    { "torch.distributed.device_mesh", { "init_device_mesh" } }, // torch/distributed/device_mesh.py __all__
    { "torch.distributed.fsdp",
        { "fully_shard", "MixedPrecisionPolicy", "CPUOffloadPolicy" } }, // fsdp/__init__.py (2.6+)
    { "torch.distributed.algorithms._checkpoint.checkpoint_wrapper", { "checkpoint_wrapper" } },
    { "torch.distributed.tensor.parallel", { "parallelize_module", "ColwiseParallel", "RowwiseParallel" } },
    { "torch.distributed.tensor.experimental", { "context_parallel" } }, // tensor/experimental/__init__.py __all__
    { "torch.distributed.tensor.experimental._attention",
        { "set_rotate_method" } }, // _attention.py (2.6+), as torchtitan/distributed/utils.py imports it
    { "torch.nn.parallel", { "DistributedDataParallel" } },
    { "torch.distributed.optim", { "ZeroRedundancyOptimizer" } }, // distributed/optim/zero_redundancy_optimizer.py
    { "os", {} }, { "contextlib", {} }, { "torch", {} }, { "torch.distributed", {} },
    { "bitsandbytes", {} }, // bitsandbytes.optim.AdamW8bit (adamw-8bit only)
};

const Catalog& catalog()
{
    static const Catalog c = [] {
        Catalog loaded;
        const auto e = loadCatalogDirectory(SHARDSCOPE_TEST_RESOURCES "/catalog", loaded);
        if (!e.ok())
            qFatal("cannot load %s", SHARDSCOPE_TEST_RESOURCES "/catalog");
        return loaded;
    }();
    return c;
}

struct Evaluated {
    Scenario scenario;
    Result result;
};

Evaluated load(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(path));
    const QByteArray text = f.readAll();
    const ScenarioParse p
        = parseScenario(std::string_view(text.constData(), static_cast<size_t>(text.size())), catalog());
    if (!p.ok())
        qFatal("%s does not parse", qPrintable(path));
    return { p.scenario, evaluate(p.scenario) };
}

void addScenarioRows()
{
    QTest::addColumn<QString>("path");
    for (const QString& dir :
        { QStringLiteral(SHARDSCOPE_TEST_RESOURCES "/scenarios"), QStringLiteral(SHARDSCOPE_GOLDEN_SCENARIOS) })
        for (const QString& name :
            QDir(dir).entryList({ QStringLiteral("*.shardscope.json") }, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(name)) << QDir(dir).filePath(name);
}

void walkKeys(const nlohmann::json& j, const std::string& prefix, std::vector<std::string>& out)
{
    if (!j.is_object())
        return;
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        out.push_back(path);
        walkKeys(it.value(), path, out);
    }
}

std::set<std::string> tokens(const std::string& text, const std::regex& re)
{
    std::set<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
        out.insert(it->str());
    return out;
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

} // namespace

class TestLaunchConfigKeys : public QObject
{
    Q_OBJECT
private slots:
    void parseTargets();
    void deepSpeedKeys_data() { addScenarioRows(); }
    void deepSpeedKeys();
    void megatronFlags_data() { addScenarioRows(); }
    void megatronFlags();
    void ncclVariables_data() { addScenarioRows(); }
    void ncclVariables();
    void fsdpImportsAndTorchrun_data() { addScenarioRows(); }
    void fsdpImportsAndTorchrun();
    void deterministic_data() { addScenarioRows(); }
    void deterministic();
    void contextParallelLayouts();
    void refusedLayouts();
};

void TestLaunchConfigKeys::parseTargets()
{
    const std::pair<const char*, LaunchTarget> good[] = { { "deepspeed", LaunchTarget::DeepSpeed },
        { "fsdp", LaunchTarget::Fsdp }, { "megatron", LaunchTarget::Megatron }, { "nccl-env", LaunchTarget::NcclEnv } };
    for (const auto& [text, expected] : good) {
        LaunchTarget t = LaunchTarget::DeepSpeed;
        QVERIFY2(parseLaunchTarget(text, t), text);
        QCOMPARE(t, expected);
        QCOMPARE(QString(toString(t)), QString(text));
    }
    LaunchTarget t = LaunchTarget::Megatron;
    for (const char* bad : { "", "DeepSpeed", "nccl", "fsdp2", "pytorch", "megatron " })
        QVERIFY2(!parseLaunchTarget(bad, t), bad);
    QCOMPARE(t, LaunchTarget::Megatron); // untouched on failure
}

void TestLaunchConfigKeys::deepSpeedKeys()
{
    QFETCH(QString, path);
    const Evaluated e = load(path);
    QVERIFY2(e.result.valid, qPrintable(path));
    if (!launchConfigIssues(e.scenario, LaunchTarget::DeepSpeed).empty())
        QSKIP("this layout is refused for the target (refusedLayouts checks why)");
    const std::string text = launchConfig(e.scenario, LaunchTarget::DeepSpeed);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception& ex) {
        QFAIL(ex.what());
    }
    std::vector<std::string> keys;
    walkKeys(j, "", keys);
    for (const auto& k : keys)
        QVERIFY2(kDeepSpeedKeys.count(k), qPrintable(QString::fromStdString("not a verified DeepSpeed key: " + k)));

    // DeepSpeed's batch rule (config-json.md "Batch Size Related Parameters"): train = micro x accumulation x dp.
    QCOMPARE(j["train_batch_size"].get<int64_t>(),
        j["train_micro_batch_size_per_gpu"].get<int64_t>() * j["gradient_accumulation_steps"].get<int64_t>()
            * e.result.dp);
    const int stage = j["zero_optimization"]["stage"].get<int>();
    QVERIFY(stage >= 0 && stage <= 3); // ZeroStageEnum, ds:runtime/zero/config.py:77
    for (const char* block : { "offload_param", "offload_optimizer" }) {
        if (!j["zero_optimization"].contains(block))
            continue;
        const std::string device = j["zero_optimization"][block]["device"].get<std::string>();
        QVERIFY(device == "cpu" || device == "nvme"); // OffloadDeviceEnum, offload_config.py:14
        QCOMPARE(j["zero_optimization"][block].contains("nvme_path"), device == "nvme");
        if (std::string(block) == "offload_param")
            QCOMPARE(stage, 3); // "Valid only with stage 3", offload_config.py:22
    }
    if (j.contains("optimizer")) {
        const std::string type = j["optimizer"]["type"].get<std::string>();
        QVERIFY2(type == "AdamW" || type == "SGD", type.c_str()); // 'adamw' (config.py:75) or torch.optim.SGD
    }
    QVERIFY(!j.contains("bf16") || !j.contains("fp16")); // config-json.md: bf16 "cannot be combined with the fp16 mode"
}

void TestLaunchConfigKeys::megatronFlags()
{
    QFETCH(QString, path);
    const Evaluated e = load(path);
    QVERIFY2(e.result.valid, qPrintable(path));
    if (!launchConfigIssues(e.scenario, LaunchTarget::Megatron).empty())
        QSKIP("this layout is refused for the target (refusedLayouts checks why)");
    const std::string text = launchConfig(e.scenario, LaunchTarget::Megatron);
    static const std::regex flag(R"(--[a-z0-9][a-z0-9-]*)");
    for (const auto& f : tokens(text, flag))
        QVERIFY2(kMegatronFlags.count(f) || kTorchrunFlags.count(f),
            qPrintable(QString::fromStdString("not a verified Megatron-LM/torchrun flag: " + f)));

    // Values inside MEGATRON_ARGS=( ... ) against the flags' choices; every flag given at most once.
    bool inside = false;
    std::set<std::string> seen;
    for (const auto& l : lines(text)) {
        if (l == "MEGATRON_ARGS=(") {
            inside = true;
            continue;
        }
        if (l == ")")
            inside = false;
        if (!inside || l.rfind("  --", 0) != 0)
            continue;
        std::istringstream in(l);
        std::string name, value;
        in >> name >> value;
        QVERIFY2(seen.insert(name).second, qPrintable(QString::fromStdString("flag given twice: " + name)));
        if (auto c = kMegatronChoices.find(name); c != kMegatronChoices.end())
            QVERIFY2(
                c->second.count(value), qPrintable(QString::fromStdString(name + " " + value + " is not a choice")));
    }
    QVERIFY(!seen.empty());
    // Megatron-FSDP v1 runs on the distributed optimizer and needs the fsdp_dtensor checkpoint format (mgargs:1128-1135, 1169).
    if (seen.count("--use-megatron-fsdp")) {
        QVERIFY(seen.count("--use-distributed-optimizer"));
        QVERIFY(seen.count("--ckpt-format"));
    }
    if (seen.count("--optimizer-cpu-offload"))
        QVERIFY(seen.count("--use-precision-aware-optimizer")); // mgargs:1884
}

void TestLaunchConfigKeys::ncclVariables()
{
    QFETCH(QString, path);
    const Evaluated e = load(path);
    QVERIFY2(e.result.valid, qPrintable(path));
    if (!launchConfigIssues(e.scenario, LaunchTarget::NcclEnv).empty())
        QSKIP("this layout is refused for the target (refusedLayouts checks why)");
    const std::string text = launchConfig(e.scenario, LaunchTarget::NcclEnv);
    static const std::regex var(R"(NCCL_[A-Z0-9_]+)");
    for (const auto& v : tokens(text, var))
        QVERIFY2(kNcclVariables.count(v), qPrintable(QString::fromStdString("not a verified NCCL variable: " + v)));
    static const std::regex assignment(R"(^export (NCCL_[A-Z0-9_]+)=(\S+))");
    for (const auto& l : lines(text)) {
        std::smatch m;
        if (!std::regex_search(l, m, assignment))
            continue;
        if (auto c = kNcclValues.find(m[1].str()); c != kNcclValues.end())
            QVERIFY2(c->second.count(m[2].str()), qPrintable(QString::fromStdString(l)));
    }
    // Settings that are NCCL's defaults are not exported.
    if (e.scenario.nccl.algo == NcclAlgo::Auto)
        QVERIFY(text.find("export NCCL_ALGO=") == std::string::npos);
    if (e.scenario.nccl.gdr)
        QVERIFY(text.find("export NCCL_NET_GDR_LEVEL=") == std::string::npos);
}

void TestLaunchConfigKeys::fsdpImportsAndTorchrun()
{
    QFETCH(QString, path);
    const Evaluated e = load(path);
    QVERIFY2(e.result.valid, qPrintable(path));
    if (!launchConfigIssues(e.scenario, LaunchTarget::Fsdp).empty())
        QSKIP("this layout is refused for the target (refusedLayouts checks why)");
    const std::string text = launchConfig(e.scenario, LaunchTarget::Fsdp);
    static const std::regex flag(R"(--[a-z0-9][a-z0-9-]*)");
    for (const auto& f : tokens(text, flag))
        QVERIFY2(kTorchrunFlags.count(f), qPrintable(QString::fromStdString("not a verified torchrun flag: " + f)));
    static const std::regex fromImport(R"(^from (\S+) import (.+)$)");
    static const std::regex plainImport(R"(^import (\S+))");
    int imports = 0;
    for (const auto& l : lines(text)) {
        std::smatch m;
        if (std::regex_search(l, m, fromImport)) {
            const auto allowed = kPythonImports.find(m[1].str());
            QVERIFY2(allowed != kPythonImports.end(), qPrintable(QString::fromStdString("unverified module: " + l)));
            std::string names = m[2].str();
            if (auto as = names.find(" as "); as != std::string::npos)
                names = names.substr(0, as);
            std::istringstream in(names);
            for (std::string name; std::getline(in, name, ',');) {
                name.erase(0, name.find_first_not_of(' '));
                name.erase(name.find_last_not_of(' ') + 1);
                QVERIFY2(allowed->second.count(name), qPrintable(QString::fromStdString("unverified name: " + name)));
            }
            ++imports;
        } else if (std::regex_search(l, m, plainImport)) {
            QVERIFY2(kPythonImports.count(m[1].str()), qPrintable(QString::fromStdString("unverified module: " + l)));
            ++imports;
        }
    }
    QVERIFY(imports >= 4);
}

void TestLaunchConfigKeys::deterministic()
{
    QFETCH(QString, path);
    const Evaluated e = load(path);
    QVERIFY2(e.result.valid, qPrintable(path));
    for (LaunchTarget t :
        { LaunchTarget::DeepSpeed, LaunchTarget::Fsdp, LaunchTarget::Megatron, LaunchTarget::NcclEnv }) {
        if (!launchConfigIssues(e.scenario, t).empty())
            continue;
        const std::string once = launchConfig(e.scenario, t);
        QVERIFY(!once.empty());
        QCOMPARE(launchConfig(e.scenario, t), once);
        QCOMPARE(once.back(), '\n');
    }
}

// Context parallelism is expressed, never dropped: DeepSpeed's data x sequence mesh covers every GPU with
// data_parallel_size = dp (so train_batch_size = micro x accumulation x dp holds, runtime/config.py:931), FSDP2's
// device mesh has a cp dim, shards over dp x cp and wraps each micro-batch in context_parallel.
void TestLaunchConfigKeys::contextParallelLayouts()
{
    const Evaluated e = load(QStringLiteral(SHARDSCOPE_GOLDEN_SCENARIOS "/cp-llama3-8b-64k-zero3.shardscope.json"));
    QVERIFY(e.result.valid);
    QCOMPARE(e.scenario.parallelism.cp, 4);
    QCOMPARE(e.result.dp, 16 / 4); // 2 nodes x 8 GPUs / cp 4
    const auto ds = nlohmann::json::parse(launchConfig(e.scenario, LaunchTarget::DeepSpeed));
    QCOMPARE(ds["sequence_parallel_size"].get<int>(), 4);
    QCOMPARE(ds["data_parallel_size"].get<int>(), 4);
    QCOMPARE(ds["train_batch_size"].get<int>(), 32);
    QCOMPARE(ds["train_micro_batch_size_per_gpu"].get<int>() * ds["gradient_accumulation_steps"].get<int>() * 4, 32);

    const std::string py = launchConfig(e.scenario, LaunchTarget::Fsdp);
    QVERIFY2(py.find("mesh = init_device_mesh(\"cuda\", (4, 4), mesh_dim_names=(\"dp\", \"cp\"))") != std::string::npos,
        py.c_str());
    QVERIFY(py.find("dp_cp_mesh = mesh[\"dp\", \"cp\"]._flatten(\"dp_cp\")") != std::string::npos);
    QVERIFY(py.find("fsdp_kwargs = dict(mesh=dp_cp_mesh,") != std::string::npos);
    QVERIFY(py.find("with context_parallel(mesh[\"cp\"], buffers=[inputs, labels], buffer_seq_dims=[1, 1]")
        != std::string::npos);
    QVERIFY(py.find("GRAD_ACCUM = 8 ") != std::string::npos); // 32 sequences / (micro 1 x dp 4)

    // HSDP with cp 2 and shard groups of 8 (dp x cp) ranks on 32 GPUs: replicate 4 x shard 4 x cp 2.
    const Evaluated h = load(QStringLiteral(SHARDSCOPE_GOLDEN_SCENARIOS "/cp-hybrid-llama3-8b.shardscope.json"));
    QVERIFY(h.result.valid);
    const std::string hp = launchConfig(h.scenario, LaunchTarget::Fsdp);
    QVERIFY2(hp.find("(4, 4, 2), mesh_dim_names=(\"dp_replicate\", \"dp_shard\", \"cp\"))") != std::string::npos,
        hp.c_str());
    QVERIFY(hp.find("fsdp_kwargs = dict(mesh=mesh[\"dp_replicate\", \"dp_shard_cp\"],") != std::string::npos);
}

void TestLaunchConfigKeys::refusedLayouts()
{
    // TP 8 x CP 8 on a ring: DeepSpeed's mesh has no tensor-parallel dim and its only CP is Ulysses all-to-all;
    // refused naming both fields, every other target written.
    const Evaluated e = load(QStringLiteral(SHARDSCOPE_TEST_RESOURCES "/scenarios/cp-llama3-70b-128k.shardscope.json"));
    QVERIFY(e.result.valid);
    const auto ds = launchConfigIssues(e.scenario, LaunchTarget::DeepSpeed);
    QCOMPARE(ds.size(), size_t(2));
    QCOMPARE(ds[0].field, std::string("parallelism.cp_comm_type"));
    QCOMPARE(ds[1].field, std::string("parallelism.cp"));
    for (LaunchTarget t : { LaunchTarget::Fsdp, LaunchTarget::Megatron, LaunchTarget::NcclEnv })
        QVERIFY(launchConfigIssues(e.scenario, t).empty());

    // All-to-all CP (Ulysses) scatters heads over the cp ranks. cp 16 > kv_heads 8: Transformer Engine refuses it
    // (validation, on megatron); DeepSpeed-Ulysses is refused at its launch configuration; torch has no Ulysses.
    Scenario s = load(QStringLiteral(SHARDSCOPE_GOLDEN_SCENARIOS "/cp-llama3-8b-64k-zero3.shardscope.json")).scenario;
    QCOMPARE(s.parallelism.cpCommType, CpCommType::A2a);
    QVERIFY(launchConfigIssues(s, LaunchTarget::DeepSpeed).empty());
    const auto torchCp = launchConfigIssues(s, LaunchTarget::Fsdp);
    QCOMPARE(torchCp.size(), size_t(1));
    QCOMPARE(torchCp[0].field, std::string("parallelism.cp_comm_type"));
    s.parallelism.cp = 16;
    Result r = evaluate(s);
    QVERIFY(!r.valid);
    QCOMPARE(r.issues[0].field, std::string("parallelism.cp_comm_type"));
    QVERIFY(r.issues[0].message.find("key/value heads per TP rank (8)") != std::string::npos);
    QVERIFY(applyFramework(s, Framework::DeepSpeed, catalog()));
    r = evaluate(s);
    QVERIFY2(r.valid, r.issues.empty() ? "" : r.issues[0].message.c_str());
    const auto kv = launchConfigIssues(s, LaunchTarget::DeepSpeed);
    QCOMPARE(kv.size(), size_t(1));
    QVERIFY(kv[0].message.find("kv_heads (8)") != std::string::npos);

    // FSDP2 with cp 2 in shard groups of 3 ranks cannot be a dp_shard x cp mesh.
    QVERIFY(applyFramework(s, Framework::Megatron, catalog()));
    s.parallelism.cpCommType = CpCommType::P2p;
    s.parallelism.cp = 2;
    s.parallelism.sharding = Sharding::FsdpHybrid;
    s.parallelism.shardGroup = 2;
    s.cluster.nodes = 3; // 24 GPUs: dp 12, dp x cp 24 ranks in shard groups of 2: fine
    s.training.globalBatch = 24;
    r = evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(launchConfigIssues(s, LaunchTarget::Fsdp).empty());
    s.parallelism.shardGroup = 3; // 24 / 3 = 8 groups of 3 ranks: 3 is not dp_shard x cp with cp 2
    r = evaluate(s);
    QVERIFY2(r.valid, r.issues.empty() ? "" : r.issues[0].message.c_str());
    const auto hy = launchConfigIssues(s, LaunchTarget::Fsdp);
    QCOMPARE(hy.size(), size_t(1));
    QCOMPARE(hy[0].field, std::string("parallelism.shard_group"));
}

QTEST_GUILESS_MAIN(TestLaunchConfigKeys)
#include "tst_launch_config_keys.moc"
