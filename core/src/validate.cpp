// SPDX-License-Identifier: GPL-3.0-or-later
// validate(): every rule a scenario breaks, each naming its field. Limits keep every product finite in doubles.
#include "shardscope/core/evaluate.h"
#include "shardscope/core/enum_names.h"
#include "shardscope/core/pipeline_layout.h"
#include "sizing.h"
#include "usable_memory.h"

#include <cmath>
#include <sstream>
#include <string>

namespace shardscope::core {

namespace {
/// 199980 -> "199,980".
std::string withThousands(size_t n)
{
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}
} // namespace

void capIssues(std::vector<Issue>& issues)
{
    if (issues.size() <= kMaxIssuesListed)
        return;
    const size_t more = issues.size() - kMaxIssuesListed;
    issues.resize(kMaxIssuesListed);
    issues.push_back({ "(file)", "\u2026 and " + withThousands(more) + " more" });
}

std::string cappedList(const std::vector<std::string>& names, const char* separator)
{
    std::string s;
    for (size_t i = 0; i < names.size() && i < kMaxIssuesListed; ++i)
        s += (i == 0 ? "" : separator) + names[i];
    if (names.size() > kMaxIssuesListed)
        s += std::string(separator) + "\u2026 and " + withThousands(names.size() - kMaxIssuesListed) + " more";
    return s;
}

namespace {

// Documented limits (README "Limits"): beyond them results stop being meaningful, and they keep all arithmetic
// far from overflow (the largest intermediate, bytes of 1e7 GPUs' states, stays below 1e30).
constexpr double kMaxLayers = 10000;
constexpr double kMaxHidden = 1 << 20;
constexpr double kMaxHeads = 1 << 16;
constexpr double kMaxVocab = 1e8;
constexpr double kMaxSeq = 1e8;
constexpr double kMaxParams = 1e15;
constexpr double kMaxGpus = 1e7;
constexpr double kMaxGpusPerNode = 1024;
constexpr double kMaxBatch = 1e9;
constexpr int kMaxDegree = 1 << 20;
constexpr double kMaxTdpWatts = 1e5; // a whole GB200 NVL72 rack draws ~1.2e5 W; one accelerator stays far below
// Lower limits on hardware rates (1 GFLOP/s, 1 MB/s, 1 MiB): below them times overflow no product but stop meaning anything.
constexpr double kMinFlops = 1e9;
constexpr double kMinBandwidth = 1e6;
constexpr double kMinMemory = 1 << 20;
constexpr double kMaxHeadroom = 0.5; // a planning margin above half the GPU's memory is a typo, not a margin

struct Checker {
    std::vector<Issue>& out;
    template <class... Args> void fail(const char* field, Args&&... parts)
    {
        std::ostringstream os;
        (os << ... << parts);
        out.push_back({ field, os.str() });
    }
    /// Whole numbers as integers ("10000000", not "1e+07"), others with six significant digits.
    static std::string number(double v)
    {
        if (v == std::floor(v) && std::fabs(v) < 1e15)
            return std::to_string(static_cast<long long>(v));
        std::ostringstream os;
        os << v;
        return os.str();
    }
    // The message follows the field's name where it is shown ("cluster.nodes: is -4; it must be between 1 and
    // 10000000"), so it does not repeat the name.
    // The checks pass on every valid scenario (validate runs before each evaluate): the test is inline, the message
    // out of line, so that a passing check costs a few instructions.
    bool range(const char* field, double v, double lo, double hi)
    {
        // lo and hi are finite (constants, limits of this file): the comparisons also refuse NaN and ±∞
        if (v >= lo && v <= hi) [[likely]]
            return true;
        outOfRange(field, v, lo, hi);
        return false;
    }
    bool positive(const char* field, double v, double hi = 1e30)
    {
        if (v > 0 && v <= hi) [[likely]] // hi finite: refuses NaN and ±∞
            return true;
        notPositive(field, v, hi);
        return false;
    }

private:
    [[gnu::noinline, gnu::cold]] void outOfRange(const char* field, double v, double lo, double hi)
    {
        if (!std::isfinite(v))
            fail(field, "must be a finite number");
        else
            fail(field, "is ", number(v), "; it must be between ", number(lo), " and ", number(hi));
    }
    [[gnu::noinline, gnu::cold]] void notPositive(const char* field, double v, double hi)
    {
        if (!std::isfinite(v) || v <= 0)
            fail(field, field, " (", v, ") must be a positive number");
        else
            fail(field, field, " (", v, ") is larger than the limit ", hi);
    }
};

/// The rules on the data-parallel degree: validate() applies them with the scenario's dp, and min_gpus asks them of
/// other degrees (detail::dataParallelValid) without copying the scenario. gpusPerNode: the node's GPUs (the default
/// FSDP hybrid shard group).
void dataParallelRules(const Scenario& s, int64_t dp, int gpusPerNode, Checker& ck)
{
    const Training& t = s.training;
    const Parallelism& p = s.parallelism;
    const double mbdp = double(t.microBatch) * double(dp);
    // In integers where micro_batch × dp is one (every valid scenario), without fmod's libm call
    const bool whole = mbdp >= 1 && mbdp <= 9e15 ? t.globalBatch % static_cast<int64_t>(mbdp) == 0
                                                 : std::fmod(double(t.globalBatch), mbdp) == 0;
    if (!whole)
        ck.fail("training.global_batch", "global_batch (", t.globalBatch, ") must be a multiple of micro_batch × dp (",
            t.microBatch, " × ", dp, " = ", mbdp, ")");
    if (p.schedule == PpSchedule::Interleaved && p.pp > 1 && whole && (t.globalBatch / (t.microBatch * dp)) % p.pp != 0)
        ck.fail("parallelism.pp_schedule", "the interleaved schedule needs the micro-batch count (",
            t.globalBatch / (t.microBatch * dp), ") to be a multiple of pp (", p.pp,
            "), as Megatron-LM's schedules.py requires");
    const int64_t dpcp = dp * p.cp;
    // Megatron-Core lays each pipeline stage's tp·cp·dp ranks out again as an expert_tp × ep × expert_dp grid
    // (megatron/core/parallel_state.py, initialize_model_parallel: "world_size is not divisible by
    // expert_tensor_model_pipeline_parallel size"); with expert_tp = tp that is ep dividing dp × cp.
    const int etp = p.effectiveExpertTp();
    if (etp == p.tp) {
        if (p.ep > 1 && dpcp % p.ep != 0)
            ck.fail("parallelism.ep", "ep (", p.ep, ") must divide dp × cp (", dpcp, ")");
    } else if (etp > 0 && (int64_t(p.tp) * dpcp) % (int64_t(etp) * p.ep) != 0) {
        ck.fail("parallelism.ep", "ep × expert_tp (", p.ep, " × ", etp, ") must divide tp × dp × cp (", p.tp, " × ",
            dpcp,
            "): each pipeline stage's GPUs form an expert_tp × ep × expert-data-parallel grid (Megatron-Core "
            "parallel_state.py)");
    }
    if (p.sharding == Sharding::FsdpHybrid) {
        const int group = p.shardGroup > 0 ? p.shardGroup : gpusPerNode;
        if (p.shardGroup > dpcp)
            ck.fail("parallelism.shard_group", "shard_group (", p.shardGroup, ") must not exceed dp × cp (", dpcp,
                "): a shard group holds data-parallel ranks");
        else if (dpcp % group != 0 && group < dpcp)
            ck.fail("parallelism.shard_group", "shard_group (", group, ") must divide dp × cp (", dpcp, ")");
    }
}

/// parallelism.pipeline_layout against the model and the pipeline degrees: the rules Megatron-Core checks
/// (megatron/training/arguments.py: stages divisible by pp; pipeline_parallel_layer_layout.py,
/// PipelineParallelLayerLayout.validate_layer_layout: E first and once, L last and once, t count = num_layers, MTP
/// layers = mtp_num_layers).
void pipelineLayoutRules(const Scenario& s, Checker& ck)
{
    const Parallelism& p = s.parallelism;
    const char* field = "parallelism.pipeline_layout";
    const ParsedPipelineLayout pl = parsePipelineLayout(p.pipelineLayout);
    if (!pl.error.empty()) {
        ck.fail(field, "the layout ", pl.error);
        return;
    }
    const int v = p.schedule == PpSchedule::Interleaved ? p.virtualStages : 1;
    if (double(pl.chunks.size()) != double(p.pp) * v)
        ck.fail(field, "the layout has ", pl.chunks.size(), " stages ('|' separates them); pp × virtual stages is ",
            p.pp, " × ", v, " = ", double(p.pp) * v,
            (p.schedule == PpSchedule::Interleaved ? ""
                                                   : " (virtual stages count only "
                                                     "with pp_schedule interleaved)"));
    int embeddings = 0, losses = 0, layers = 0, mtp = 0;
    for (const PipelineChunk& c : pl.chunks) {
        embeddings += c.embedding ? 1 : 0;
        losses += c.loss ? 1 : 0;
        layers += c.layers;
        mtp += c.mtp;
    }
    if (embeddings != 1 || pl.first != 'E')
        ck.fail(field, "the layout must name the embedding (E) once, as its first layer");
    if (losses != 1 || pl.last != 'L')
        ck.fail(field, "the layout must name the loss (L) once, as its last layer");
    if (layers != s.model.layers)
        ck.fail(field, "the layout has ", layers, " transformer layers (t); the model has ", s.model.layers);
    if (mtp > 0)
        ck.fail(field, "the layout has multi-token-prediction layers (m); the model has none");
}

} // namespace

namespace detail {
bool dataParallelValid(const Scenario& s, int64_t dp, int gpusPerNode)
{
    std::vector<Issue> issues;
    Checker ck { issues };
    dataParallelRules(s, dp, gpusPerNode, ck);
    return issues.empty();
}
} // namespace detail

std::vector<Issue> tensorParallelIssues(const ModelSpec& m, int tp)
{
    // Megatron-LM splits attention by heads and the MLP by columns (Shoeybi et al. 2019 §3): every rank owns whole
    // heads and an equal share of ffn_hidden; KV heads fewer than tp are replicated (megatron/core/transformer).
    std::vector<Issue> issues;
    Checker ck { issues };
    if (tp < 1) {
        ck.fail("parallelism.tp", "tp (", tp, ") must be at least 1");
        return issues;
    }
    if (m.heads % tp != 0)
        ck.fail("parallelism.tp", "tp (", tp, ") must divide heads (", m.heads, ")");
    else if (m.kvHeads > 0 && m.kvHeads % tp != 0 && tp % m.kvHeads != 0)
        ck.fail("parallelism.tp", "tp (", tp, ") must divide kv_heads (", m.kvHeads,
            ") or be a multiple of it (KV heads are then replicated)");
    if (m.ffnHidden % tp != 0)
        ck.fail("parallelism.tp", "tp (", tp, ") must divide ffn_hidden (", m.ffnHidden, ")");
    if (m.vocab < tp)
        ck.fail("parallelism.tp", "tp (", tp, ") must not exceed vocab (", m.vocab, ")");
    return issues;
}

std::vector<Issue> contextParallelIssues(const ModelSpec& m, Framework fw, int tp, int cp, CpCommType type)
{
    std::vector<Issue> issues;
    Checker ck { issues };
    if (cp <= 1 || tp < 1)
        return issues;
    // All-to-all CP trades the sequence split for a head split: each rank's query heads, and on Transformer Engine
    // its K/V heads, must divide by cp (transformer_engine/pytorch/attention/dot_product_attention/
    // context_parallel.py, AttnFuncWithCPAndQKVOA2A: "requires num_heads % cp_size == 0 for Q, K, V"; DeepSpeed-Ulysses
    // deepspeed/sequence/layer.py scatters the query heads). KV heads fewer than tp are replicated, one per rank.
    if (type == CpCommType::A2a && m.heads % tp == 0) {
        const int q = m.heads / tp;
        const int kvHeads = m.isMla() || m.kvHeads <= 0 ? m.heads : m.kvHeads;
        const int kv = std::max(kvHeads, tp) / tp;
        if (q % cp != 0)
            ck.fail("parallelism.cp_comm_type", "a2a splits attention heads over the cp ranks: cp (", cp,
                ") must divide the query heads per TP rank (heads / tp = ", q, ")");
        else if (fw == Framework::Megatron && kv % cp != 0)
            ck.fail("parallelism.cp_comm_type", "a2a splits attention heads over the cp ranks: cp (", cp,
                ") must divide the key/value heads per TP rank (", kv, ")");
    }
    // DeepSpeed's sequence parallelism is DeepSpeed-Ulysses only (deepspeed/sequence/layer.py, DistributedAttention);
    // torch's context_parallel is ring attention only, its KV rotated by all-to-all permutes or one all-gather
    // (torch/distributed/tensor/experimental/_attention.py, _RotateMethod).
    if (fw == Framework::DeepSpeed && type != CpCommType::A2a)
        ck.fail("parallelism.cp_comm_type",
            "DeepSpeed's context parallelism is DeepSpeed-Ulysses: cp_comm_type must be "
            "a2a with framework deepspeed, not ",
            toString(type));
    if ((fw == Framework::PyTorch || fw == Framework::PyTorchCompile) && type == CpCommType::A2a)
        ck.fail("parallelism.cp_comm_type",
            "PyTorch's context_parallel is ring attention: cp_comm_type p2p or allgather with framework ", toString(fw),
            " (a2a is Megatron's or DeepSpeed's)");
    return issues;
}

std::vector<Issue> validate(const Scenario& s)
{
    std::vector<Issue> issues;
    Checker ck { issues };
    const ModelSpec& m = s.model;
    bool modelOk = true;
    modelOk &= ck.range("model.layers", m.layers, 1, kMaxLayers);
    modelOk &= ck.range("model.hidden", double(m.hidden), 1, kMaxHidden);
    modelOk &= ck.range("model.heads", m.heads, 1, kMaxHeads);
    modelOk &= ck.range("model.kv_heads", m.kvHeads, 1, kMaxHeads);
    modelOk &= ck.range("model.head_dim", double(m.headDim), 0, kMaxHidden);
    modelOk &= ck.range("model.ffn_hidden", double(m.ffnHidden), 1, 16 * kMaxHidden);
    modelOk &= ck.range("model.vocab", double(m.vocab), 1, kMaxVocab);
    modelOk &= ck.range("model.max_seq", double(m.maxSeq), 0, kMaxSeq);
    modelOk &= ck.range("model.sliding_window", double(m.slidingWindow), 0, kMaxSeq);
    modelOk &= ck.range("model.sliding_window_pattern", m.slidingWindowPattern, 0, kMaxLayers);
    if (m.slidingWindowPattern > 0 && m.slidingWindow == 0)
        ck.fail("model.sliding_window_pattern", "a pattern of global layers needs model.sliding_window (0: no window)");
    if (modelOk) {
        if (m.kvHeads > m.heads || m.heads % m.kvHeads != 0)
            ck.fail("model.kv_heads", "kv_heads (", m.kvHeads, ") must divide heads (", m.heads, ")");
        if (m.effectiveHeadDim() < 1)
            ck.fail("model.head_dim", "head_dim must be at least 1 (hidden / heads is ", m.hidden / m.heads, ")");
    }
    if (m.isMoe() || m.moe.topK != 0 || m.moe.expertFfnHidden != 0) {
        bool moeOk = ck.range("model.moe.experts", m.moe.experts, 1, 1 << 16);
        moeOk &= ck.range("model.moe.top_k", m.moe.topK, 1, 1 << 16);
        moeOk &= ck.range("model.moe.expert_ffn_hidden", double(m.moe.expertFfnHidden), 1, 16 * kMaxHidden);
        moeOk &= ck.range("model.moe.shared_experts", m.moe.sharedExperts, 0, 1 << 16);
        moeOk &= ck.range("model.moe.dense_layers", m.moe.denseLayers, 0, kMaxLayers);
        moeOk &= ck.range("model.moe.capacity_factor", m.moe.capacityFactor, 1, 64);
        moeOk &= ck.range("model.moe.max_nodes_per_token", m.moe.maxNodesPerToken, 0, 1 << 16);
        if (moeOk && m.moe.topK > m.moe.experts)
            ck.fail("model.moe.top_k", "top_k (", m.moe.topK, ") must not exceed experts (", m.moe.experts, ")");
        if (moeOk && modelOk && m.moe.denseLayers > m.layers)
            ck.fail("model.moe.dense_layers", "dense_layers (", m.moe.denseLayers, ") must not exceed layers (",
                m.layers, ")");
    }
    if (m.isMla() || m.mla.qLoraRank != 0 || m.mla.qkNopeHeadDim != 0 || m.mla.qkRopeHeadDim != 0
        || m.mla.vHeadDim != 0) {
        // DeepSeek-V3 multi-head latent attention sizes (config_671B.json)
        modelOk &= ck.range("model.mla.q_lora_rank", double(m.mla.qLoraRank), 0, kMaxHidden);
        modelOk &= ck.range("model.mla.kv_lora_rank", double(m.mla.kvLoraRank), 1, kMaxHidden);
        modelOk &= ck.range("model.mla.qk_nope_head_dim", double(m.mla.qkNopeHeadDim), 0, kMaxHidden);
        modelOk &= ck.range("model.mla.qk_rope_head_dim", double(m.mla.qkRopeHeadDim), 0, kMaxHidden);
        modelOk &= ck.range("model.mla.v_head_dim", double(m.mla.vHeadDim), 1, kMaxHidden);
    }
    if (m.paramsOverride != 0)
        ck.range("model.params", m.paramsOverride, 1, kMaxParams);
    else if (modelOk) {
        const double total = modelSize(m).total;
        if (!(total >= 1 && total <= kMaxParams))
            ck.fail("model", "the architecture has ", total, " parameters; it must be between 1 and ", kMaxParams);
    }

    const Cluster& c = s.cluster;
    bool clusterOk = ck.range("cluster.nodes", c.nodes, 1, kMaxGpus);
    clusterOk &= ck.range("cluster.gpus_per_node", c.gpusPerNode, 1, kMaxGpusPerNode);
    if (clusterOk && double(c.nodes) * c.gpusPerNode > kMaxGpus) {
        ck.fail("cluster.nodes", "nodes × gpus_per_node (", double(c.nodes) * c.gpusPerNode, ") exceeds the limit of ",
            kMaxGpus, " GPUs");
        clusterOk = false;
    }
    ck.range("cluster.nics_per_node", c.nicsPerNode, 0, kMaxGpusPerNode);
    ck.range("cluster.gpu.bf16_dense_flops", c.gpu.bf16DenseFlops, kMinFlops, 1e18);
    if (ck.range("cluster.gpu.fp8_dense_flops", c.gpu.fp8DenseFlops, 0, 1e18) && c.gpu.fp8DenseFlops > 0)
        ck.range("cluster.gpu.fp8_dense_flops", c.gpu.fp8DenseFlops, kMinFlops, 1e18); // 0 = no FP8
    const bool memoryOk = ck.range("cluster.gpu.memory_bytes", c.gpu.memoryBytes, kMinMemory, 1e15);
    // 0 = no driver figure; a driver reports at most the datasheet's memory (it keeps some for itself)
    const bool reportedOk = c.gpu.reportedMemoryBytes == 0
        || ck.range("cluster.gpu.reported_memory_bytes", c.gpu.reportedMemoryBytes, kMinMemory,
            memoryOk ? c.gpu.memoryBytes : 1e15);
    const bool headroomOk = ck.range("cluster.memory_headroom", c.memoryHeadroom, 0, kMaxHeadroom);
    if (memoryOk && reportedOk && headroomOk && detail::usableMemory<detail::Fast>(s).value() <= 0)
        ck.fail("cluster.gpu.memory_bytes", "leaves no usable memory: ", detail::reportedCapacity(c.gpu),
            " B less the CUDA context (", detail::kCudaContextBytes, " B) and the headroom (",
            c.memoryHeadroom * detail::reportedCapacity(c.gpu), " B) is not above 0");
    ck.range("cluster.gpu.memory_bandwidth", c.gpu.memoryBandwidth, kMinBandwidth, 1e15);
    if (ck.range("cluster.gpu.scale_up_bandwidth", c.gpu.scaleUpBandwidth, 0, 1e15) && c.gpu.scaleUpBandwidth > 0)
        ck.range("cluster.gpu.scale_up_bandwidth", c.gpu.scaleUpBandwidth, kMinBandwidth, 1e15); // 0 = none
    if (ck.range("cluster.gpu.host_link_bandwidth", c.gpu.hostLinkBandwidth, 0, 1e15) && c.gpu.hostLinkBandwidth > 0)
        ck.range("cluster.gpu.host_link_bandwidth", c.gpu.hostLinkBandwidth, kMinBandwidth, 1e15); // 0 = none
    ck.range("cluster.gpu.achievable_matmul_fraction", c.gpu.achievableMatmulFraction, 0.01, 1);
    ck.range("cluster.gpu.hourly_price_usd", c.gpu.hourlyPriceUsd, 0, 1e6);
    ck.range("cluster.gpu.scale_up_domain", c.gpu.scaleUpDomain, 1,
        kMaxGpus); // GPUs per NVLink domain: at least the GPU itself
    ck.range("cluster.gpu.tdp_watts", c.gpu.tdpWatts, 0, kMaxTdpWatts); // 0 = not known
    ck.range("cluster.intra_node.bandwidth", c.intraNode.bandwidth, kMinBandwidth, 1e15);
    ck.range("cluster.intra_node.latency", c.intraNode.latency, 0, 1);
    ck.range("cluster.intra_node.efficiency", c.intraNode.efficiency, 0.01, 1.5);
    ck.range("cluster.inter_node.bandwidth", c.interNode.bandwidth, kMinBandwidth, 1e15);
    ck.range("cluster.inter_node.latency", c.interNode.latency, 0, 1);
    ck.range("cluster.inter_node.efficiency", c.interNode.efficiency, 0.01, 1.5);
    ck.range("cluster.nvme_bandwidth_per_node", c.nvmeBandwidthPerNode, kMinBandwidth, 1e15);
    ck.range("cluster.cpu_adam_params_per_second", c.cpuAdamParamsPerSecond, 1e3, 1e15);
    ck.range("cluster.misc_bytes", c.miscBytes, 0, 1e15);
    if (s.cluster.gpu.hostLinkBandwidth <= 0
        && (s.offload.optimizer != OffloadTarget::None || s.offload.parameters != OffloadTarget::None
            || s.offload.activationLayers > 0))
        ck.fail("cluster.gpu.host_link_bandwidth", "offload needs a host link bandwidth above 0");

    const Training& t = s.training;
    bool trainOk = ck.range("training.seq_len", double(t.seqLen), 1, kMaxSeq);
    trainOk &= ck.range("training.global_batch", double(t.globalBatch), 1, kMaxBatch);
    trainOk &= ck.range("training.micro_batch", double(t.microBatch), 1, kMaxBatch);
    if (isFp8(t.precision) && c.gpu.fp8DenseFlops <= 0)
        ck.fail("training.precision", toString(t.precision), " needs FP8 tensor cores; ",
            c.gpu.name.empty() ? c.gpu.id : c.gpu.name, " has none (fp8_dense_flops is 0)");
    else if (t.precision == Precision::Mxfp8 && !hasMxScaling(c.gpu))
        ck.fail("training.precision",
            "mxfp8 needs tensor cores with MX block scaling (Blackwell; Transformer Engine "
            "check_mxfp8_support: compute capability 10.0 or newer); ",
            c.gpu.name.empty() ? c.gpu.id : c.gpu.name, " is ",
            c.gpu.arch.empty() ? std::string("of unknown architecture") : c.gpu.arch);
    const bool mixed = t.precision == Precision::Bf16Mixed || t.precision == Precision::Fp16Mixed || isFp8(t.precision);
    if (t.gradReduce != GradReduce::Framework && !mixed)
        ck.fail("training.grad_reduce_dtype",
            "a gradient reduce dtype applies to mixed precision (bf16-mixed, "
            "fp16-mixed, fp8-mixed); precision ",
            toString(t.precision), " keeps its gradients in its own dtype");
    if (t.gradReduce == GradReduce::Bf16 && t.precision == Precision::Fp16Mixed)
        ck.fail("training.grad_reduce_dtype",
            "bf16 needs bf16 weights (bf16-mixed or fp8-mixed); fp16-mixed reduces "
            "fp16 gradients into fp32 main gradients");
    if (t.masterWeights != MasterWeights::Fp32 && !mixed)
        ck.fail("training.master_weights",
            "master weights belong to mixed precision (bf16-mixed, fp16-mixed, "
            "fp8-mixed, mxfp8); precision ",
            toString(t.precision), " updates its weights in place");
    if (t.masterWeights == MasterWeights::Fp32Remainder && t.precision == Precision::Fp16Mixed)
        ck.fail("training.master_weights",
            "fp32-remainder keeps the 16 bits a bf16 weight lacks; fp16-mixed weights are fp16 (use fp32 or fp16)");
    if (t.masterWeights == MasterWeights::Fp32Remainder && t.fp8ParamGather)
        ck.fail("training.master_weights",
            "fp32-remainder needs bf16 weights to complete; with fp8_param_gather the weights are FP8 and the "
            "master weights stay fp32 (megatron/core/optimizer/optimizer_config.py, "
            "use_precision_aware_optimizer_no_fp8_or_ds_fp8)");
    if (t.momentsDtype != MomentsDtype::Fp32 && (!mixed || t.optimizer != Optimizer::AdamW))
        ck.fail("training.moments_dtype", "a moments dtype applies to AdamW in mixed precision (optimizer is ",
            toString(t.optimizer), ", precision ", toString(t.precision), ")");
    if (t.fp8ParamGather && !isFp8(t.precision))
        ck.fail("training.fp8_param_gather", "FP8 parameters need precision fp8-mixed or mxfp8 (precision is ",
            toString(t.precision), ")");
    if (t.fp8ParamGather && s.parallelism.sharding == Sharding::Ddp)
        ck.fail("training.fp8_param_gather",
            "FP8 parameters need a sharded optimizer (Megatron-LM arguments.py: "
            "distributed optimizer or FSDP); sharding is ddp");
    if (t.fp8ParamGather && (t.framework == Framework::PyTorch || t.framework == Framework::PyTorchCompile))
        ck.fail("training.fp8_param_gather",
            "FP8 parameters are modelled for Transformer Engine stacks (megatron, "
            "deepspeed); torchao's Float8 keeps no FP8 weight copy to replace");
    if (m.position == PositionEmbedding::Learned && trainOk && modelOk && m.maxSeq > 0 && t.seqLen > m.maxSeq)
        ck.fail("training.seq_len", "seq_len (", t.seqLen, ") exceeds the learned position embedding's max_seq (",
            m.maxSeq, ")");

    const Parallelism& p = s.parallelism;
    bool parOk = ck.range("parallelism.tp", p.tp, 1, kMaxDegree);
    parOk &= ck.range("parallelism.pp", p.pp, 1, kMaxDegree);
    parOk &= ck.range("parallelism.cp", p.cp, 1, kMaxDegree);
    parOk &= ck.range("parallelism.ep", p.ep, 1, kMaxDegree);
    parOk &= ck.range("parallelism.expert_tp", p.expertTp, 0, kMaxDegree); // 0: tp
    parOk &= ck.range("parallelism.virtual_stages", p.virtualStages, 1, 1024);
    parOk &= ck.range("parallelism.shard_group", p.shardGroup, 0, kMaxGpus);
    if (!(parOk && modelOk && clusterOk && trainOk))
        return issues;

    for (Issue& i : tensorParallelIssues(m, p.tp))
        issues.push_back(std::move(i));
    const double gpus = double(c.nodes) * c.gpusPerNode;
    const double denom = double(p.tp) * p.pp * p.cp;
    const int dp = dataParallel(s);
    if (denom > gpus || dp == 0) {
        ck.fail("parallelism.tp", "tp × pp × cp (", denom, ") must divide the GPU count nodes × gpus_per_node (", gpus,
            ") so that dp is whole");
        return issues;
    }
    if (p.pp > m.layers)
        ck.fail("parallelism.pp", "pp (", p.pp, ") must not exceed layers (", m.layers, ")");
    // The embedding and the loss may each take a layer's place in the split (Megatron-LM arguments.py:
    // --account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split; Llama 3 paper §3.3.2: one
    // layer fewer on the first and the last stage), so a chunk may hold no transformer layer.
    if (p.schedule == PpSchedule::Interleaved && double(p.pp) * p.virtualStages > m.layers + 2.0)
        ck.fail("parallelism.virtual_stages", "pp × virtual_stages (", p.pp * p.virtualStages,
            ") must not exceed layers + 2 (", m.layers + 2, "; the embedding and the loss may take a layer's place)");
    if (p.schedule == PpSchedule::Interleaved && p.pp > 1 && p.virtualStages < 2)
        ck.fail("parallelism.virtual_stages", "the interleaved schedule needs virtual_stages of 2 or more");
    if (!p.pipelineLayout.empty())
        pipelineLayoutRules(s, ck);
    if (t.seqLen % p.cp != 0)
        ck.fail("parallelism.cp", "cp (", p.cp, ") must divide seq_len (", t.seqLen, ")");
    if (p.cp > 1 && (t.seqLen / p.cp) % 2 != 0)
        ck.fail("parallelism.cp", "seq_len / cp (", t.seqLen / p.cp,
            ") must be even: causal load balancing splits each chunk in two");
    for (Issue& i : contextParallelIssues(m, t.framework, p.tp, p.cp, p.cpCommType))
        issues.push_back(std::move(i));
    dataParallelRules(s, dp, c.gpusPerNode, ck);
    if (p.ep > 1) {
        if (!m.isMoe())
            ck.fail("parallelism.ep", "ep (", p.ep, ") needs a mixture-of-experts model");
        else if (m.moe.experts % p.ep != 0)
            ck.fail("parallelism.ep", "ep (", p.ep, ") must divide experts (", m.moe.experts, ")");
    }
    // Experts split their columns over expert_tp as dense MLPs do over tp (megatron/core/transformer/moe/experts.py).
    if (p.effectiveExpertTp() != p.tp) {
        if (!m.isMoe())
            ck.fail("parallelism.expert_tp", "expert_tp (", p.expertTp, ") differs from tp (", p.tp,
                ") but the model has no experts");
        else if (m.moe.expertFfnHidden % p.effectiveExpertTp() != 0)
            ck.fail("parallelism.expert_tp", "expert_tp (", p.expertTp, ") must divide expert_ffn_hidden (",
                m.moe.expertFfnHidden, ")");
    }
    // megatron/core/transformer/moe/token_dispatcher.py (MoEFlexTokenDispatcher, whose tp is the expert TP):
    // "DeepEP dispatcher requires TPxEP > 1".
    if (m.isMoe() && m.moe.dispatcher == MoeDispatcher::DeepEp && p.ep * p.effectiveExpertTp() <= 1)
        ck.fail("model.moe.dispatcher", "deepep moves tokens between GPUs: it needs ep × expert_tp > 1 (both are 1)");
    if (t.recomputeModules && t.recompute != Recompute::Selective)
        ck.fail("training.recompute_modules",
            "recompute_modules apply to recompute selective (Megatron "
            "--recompute-granularity selective); recompute is ",
            toString(t.recompute));
    // transformer_config.py: "disable moe in recompute_modules when enabling overlap_moe_expert_parallel_comm".
    if (t.recompute == Recompute::Selective && t.effectiveRecomputeModules().moe
        && p.moeOverlap == MoeOverlap::EpOverlap)
        ck.fail("training.recompute_modules",
            "moe cannot be recomputed with moe_overlap ep-overlap (Megatron-Core "
            "refuses it with --overlap-moe-expert-parallel-comm)");
    // megatron/training/arguments.py (validate_args): "Tensor parallel communication/GEMM overlap can happen only when
    // sequence parallelism is enabled"; torchtitan's async TP needs torch.compile (enable_async_tensor_parallel).
    if (p.tpCommOverlap && !(p.tp > 1 && p.sequenceParallel))
        ck.fail("parallelism.tp_comm_overlap", "TP communication overlap needs tp > 1 with sequence_parallel");
    if (p.tpCommOverlap && s.training.framework == Framework::PyTorch)
        ck.fail("parallelism.tp_comm_overlap",
            "on PyTorch, TP overlap is async TP, which needs torch.compile "
            "(framework pytorch-compile)");
    // megatron/training/arguments.py (validate_args): "Must use --overlap-param-gather with --overlap-grad-reduce";
    // DeepSpeed's ZeRO-1/2 step() all-gathers inline (deepspeed/runtime/zero/stage_1_and_2.py all_gather_dp_groups)
    // and PyTorch has no distributed optimizer that defers it
    if (p.overlapParamGather && !p.overlapGradReduce)
        ck.fail("parallelism.overlap_param_gather",
            "overlap_param_gather needs overlap_grad_reduce (Megatron-LM: \"Must use --overlap-param-gather with "
            "--overlap-grad-reduce\")");
    if (p.overlapParamGather && s.training.framework != Framework::Megatron)
        ck.fail("parallelism.overlap_param_gather",
            "overlap_param_gather is Megatron-LM's distributed optimizer (--overlap-param-gather); ",
            toString(s.training.framework), " all-gathers the parameters inside the optimizer step");
    if (p.moeOverlap != MoeOverlap::None && p.ep <= 1)
        ck.fail("parallelism.moe_overlap", "moe_overlap (", toString(p.moeOverlap),
            ") hides the expert-parallel all-to-all: it needs ep > 1 (ep is ", p.ep, ")");
    // Megatron-Core refuses its all-to-all overlap with full recomputation and, with pipelining, without virtual
    // stages (megatron/core/transformer/transformer_config.py, overlap_moe_expert_parallel_comm).
    if (p.moeOverlap == MoeOverlap::EpOverlap && p.ep > 1) {
        if (t.recompute == Recompute::Full)
            ck.fail("parallelism.moe_overlap",
                "moe_overlap ep-overlap cannot be combined with training.recompute full "
                "(Megatron-Core disables full recomputation with --overlap-moe-expert-parallel-comm)");
        if (p.pp > 1 && p.schedule != PpSchedule::Interleaved)
            ck.fail("parallelism.moe_overlap",
                "moe_overlap ep-overlap with pp > 1 needs pp_schedule interleaved "
                "(Megatron-Core requires virtual pipeline stages)");
    }
    if (s.offload.parameters != OffloadTarget::None && p.sharding != Sharding::Zero3
        && p.sharding != Sharding::FsdpFull)
        ck.fail("offload.parameters", "parameter offload needs fully sharded parameters (zero3 or fsdp-full), not ",
            p.sharding == Sharding::Ddp ? "ddp" : "this sharding");
    if (s.offload.optimizer != OffloadTarget::None && p.sharding == Sharding::Ddp)
        ck.fail("offload.optimizer", "optimizer offload needs a ZeRO or FSDP sharding strategy, not ddp");
    // Megatron-Core's activation offload (megatron/core/transformer/transformer_config.py, __post_init__): fewer
    // layers than the model has, no pipeline parallelism, no activation recomputation.
    if (const int n = s.offload.activationLayers;
        n != 0 && ck.range("offload.activation_layers", n, 0, kMaxLayers - 1)) {
        if (n >= s.model.layers)
            ck.fail("offload.activation_layers", "activation_layers (", n, ") must be below the model's ",
                s.model.layers, " layers (Megatron-Core: cpu_offloading_num_layers < num_layers)");
        else if (p.pp > 1)
            ck.fail("offload.activation_layers",
                "activation offload needs pp = 1 (Megatron-Core has no pipeline parallelism with CPU offloading)");
        else if (s.training.recompute != Recompute::None)
            ck.fail("offload.activation_layers",
                "activation offload needs training.recompute none (Megatron-Core: CPU offloading does not work when "
                "activation recomputation is enabled)");
        else if (s.training.framework != Framework::Megatron)
            ck.fail("offload.activation_layers",
                "activation offload is Megatron-Core's --cpu-offloading; it needs training.framework megatron");
    }
    if (s.nccl.minChannels < 0 || s.nccl.minChannels > 64)
        ck.fail(
            "nccl.min_channels", "min_channels (", s.nccl.minChannels, ") must be between 0 and 64 (NCCL MAXCHANNELS)");
    return issues;
}

} // namespace shardscope::core
