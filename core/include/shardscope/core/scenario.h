// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The input of every evaluation: one plain, copyable value (the shardscope.scenario/1 file format).
/// All sizes are counts, bandwidths bytes/s per direction, times seconds, compute FLOP/s.
/// Catalog references are resolved when the scenario is parsed, so evaluate() needs no catalog.

#include "shardscope/core/profile.h"

#include <cstdint>
#include <optional>
#include <string>

namespace shardscope::core {

enum class Mlp { Gelu, Relu, SwiGlu };
enum class Norm { LayerNorm, RmsNorm };
enum class PositionEmbedding { Learned, Rope, Alibi };

/// How tokens reach their experts (Megatron --moe-token-dispatcher-type, megatron/core/transformer/moe/
/// token_dispatcher.py): AllToAll: NCCL all-to-all over the EP group (MoEAlltoAllTokenDispatcher); DeepEp: DeepEP's
/// kernels (Megatron's flex dispatcher with --moe-flex-dispatcher-backend deepep): an all-to-all whose off-node copies
/// cross the network once per destination node and are forwarded over NVLink there; AllGather: every rank gathers
/// all tokens of the EP × expert-TP group and reduce-scatters the outputs back (MoEAllGatherTokenDispatcher).
enum class MoeDispatcher { AllToAll, DeepEp, AllGather };

/// Mixture-of-experts block (Mixtral, DeepSeek-V3 configs). experts == 0 means a dense model.
struct MoeSpec {
    int experts = 0; ///< routed experts per MoE layer
    int topK = 0; ///< routed experts each token visits
    int64_t expertFfnHidden = 0; ///< intermediate size of one expert
    int sharedExperts = 0; ///< always-active experts (DeepSeek), each expertFfnHidden wide
    int denseLayers = 0; ///< leading layers with a dense MLP of ffnHidden
    double capacityFactor = 1.0; ///< tokens an expert is sized for, relative to a uniform share (GShard/Switch)
    /// Node-limited routing: each token goes to experts on at most this many nodes, crossing the network once per
    /// node and forwarded over NVLink there (DeepSeek-V3 report §2.1.2, M = 4); 0: not limited.
    int maxNodesPerToken = 0;
    MoeDispatcher dispatcher = MoeDispatcher::AllToAll; ///< model.moe.dispatcher (absent in a file: alltoall)
    friend bool operator==(const MoeSpec&, const MoeSpec&) = default;
};

/// Multi-head latent attention (DeepSeek-V3 config_671B.json). qLoraRank == 0 and kvLoraRank == 0: not used.
struct MlaSpec {
    int64_t qLoraRank = 0, kvLoraRank = 0, qkNopeHeadDim = 0, qkRopeHeadDim = 0, vHeadDim = 0;
    friend bool operator==(const MlaSpec&, const MlaSpec&) = default;
};

struct ModelSpec {
    std::string id; ///< catalog id it came from ("" for a custom model)
    std::string name;
    int layers = 0;
    int64_t hidden = 0;
    int heads = 0;
    int kvHeads = 0;
    int64_t headDim = 0; ///< 0 means hidden / heads
    int64_t ffnHidden = 0;
    int64_t vocab = 0;
    int64_t maxSeq = 0; ///< positions of a learned position embedding
    Mlp mlp = Mlp::SwiGlu;
    Norm norm = Norm::RmsNorm;
    PositionEmbedding position = PositionEmbedding::Rope;
    bool tiedEmbeddings = false;
    bool qkvBias = false;
    bool linearBias = false; ///< GPT-2/3 style biases on every linear layer
    bool embeddingNorm = false; ///< a norm right after the embedding (BLOOM)
    MoeSpec moe;
    MlaSpec mla;
    /// Sliding-window attention (Mistral 7B §2; Gemma 2/3, GPT-OSS): each query attends to at most this many keys,
    /// itself included; 0 = full causal attention.
    int64_t slidingWindow = 0;
    /// With a window: every n-th layer (layers n, 2n, …) attends globally, the rest through the window (Gemma 3
    /// sliding_window_pattern 6, GPT-OSS alternating 2); 0 = every layer windowed.
    int slidingWindowPattern = 0;
    double paramsOverride = 0; ///< > 0: use this Ψ instead of the derived count (ZeRO paper examples)
    double paramsPublished = 0; ///< catalog's published total, for display
    std::string source;
    [[nodiscard]] int64_t effectiveHeadDim() const { return headDim > 0 ? headDim : (heads > 0 ? hidden / heads : 0); }
    [[nodiscard]] bool isMoe() const { return moe.experts > 0; }
    [[nodiscard]] bool isMla() const { return mla.kvLoraRank > 0; }
    friend bool operator==(const ModelSpec&, const ModelSpec&) = default;
};

struct GpuSpec {
    std::string id, name, vendor;
    std::string arch; ///< ampere, hopper, blackwell, ada, cdna3, cdna4, gaudi3: picks NCCL tables
    double bf16DenseFlops = 0; ///< FLOP/s, dense (datasheet)
    double fp8DenseFlops = 0; ///< FLOP/s, dense; 0 = no FP8 tensor cores
    double memoryBytes = 0; ///< datasheet capacity (vendor's GB taken as GiB, as CUDA counts)
    double reportedMemoryBytes = 0; ///< total as the driver reports it (nvidia-smi, rocm-smi); 0 = unknown
    double memoryBandwidth = 0; ///< HBM bytes/s
    double scaleUpBandwidth = 0; ///< NVLink/XGMI bytes/s per GPU per direction
    int scaleUpDomain = 8; ///< GPUs sharing the scale-up fabric (8 HGX, 72 NVL72)
    bool nvls = false; ///< NVSwitch with NVLink SHARP (NCCL NVLS algorithm)
    double hostLinkBandwidth = 0; ///< PCIe/C2C bytes/s per direction
    double achievableMatmulFraction = 0.75; ///< measured max achievable matmul FLOPS / peak (MAMF)
    double tdpWatts = 0;
    double hourlyPriceUsd = 0; ///< 0 = unknown
    std::string source;
    std::string scaleUpLink; ///< catalog link id of the GPU's own scale-up fabric ("" = not named)
    std::string scaleOutLink; ///< catalog link id of the NIC its reference servers ship with ("" = not named)
    std::string linksSource; ///< where scaleUpLink and scaleOutLink come from
    friend bool operator==(const GpuSpec&, const GpuSpec&) = default;
};

/// Tensor cores with MX block scaling, which training.precision mxfp8 needs: NVIDIA Blackwell (Transformer Engine
/// transformer_engine/pytorch/fp8.py check_mxfp8_support: compute capability 10.0 or newer).
[[nodiscard]] inline bool hasMxScaling(const GpuSpec& g) { return g.arch == "blackwell"; }

enum class LinkKind { ScaleUp, ScaleOut, Host, Storage };

struct LinkSpec {
    std::string id, name;
    LinkKind kind = LinkKind::ScaleUp;
    double bandwidth = 0; ///< bytes/s per direction: per GPU (scale-up) or per port (scale-out)
    double latency = 0; ///< seconds per hop
    double efficiency = 1; ///< fraction of bandwidth a large NCCL collective reaches
    std::string source;
    friend bool operator==(const LinkSpec&, const LinkSpec&) = default;
};

struct Cluster {
    GpuSpec gpu;
    int nodes = 1;
    int gpusPerNode = 8;
    LinkSpec intraNode;
    LinkSpec interNode;
    int nicsPerNode = 0; ///< 0 = one per GPU
    double nvmeBandwidthPerNode = 25e9; ///< bytes/s (ZeRO-Infinity §4: ~25 GB/s per DGX-2 node)
    double cpuAdamParamsPerSecond = 4e9; ///< per node; ZeRO-Offload Table 4: 1B params in 0.22 s, 10B in 2.57 s
    double miscBytes = 0; ///< user's extra per-GPU reserve (fragmentation beyond the model's)
    /// Share of the driver-reported capacity kept free when judging "fits" (memory_per_gpu.usable): a planning margin
    /// for allocator fragmentation, spikes and what the model does not count. Default 10%, the convention of vLLM's
    /// gpu_memory_utilization default of 0.9 (vllm/engine/arg_utils.py, EngineArgs.gpu_memory_utilization).
    double memoryHeadroom = 0.10;
    [[nodiscard]] int gpus() const { return nodes * gpusPerNode; }
    [[nodiscard]] int nics() const { return nicsPerNode > 0 ? nicsPerNode : gpusPerNode; }
    friend bool operator==(const Cluster&, const Cluster&) = default;
};

/// Mxfp8: block-scaled FP8 (OCP Microscaling Formats v1.0: 32-element blocks sharing an E8M0 scale; Transformer
/// Engine MXFP8BlockScaling), Blackwell only.
enum class Precision { Fp32, Bf16Mixed, Fp16Mixed, Bf16, Fp8Mixed, Mxfp8 };
/// FP8 GEMMs in the linear layers: fp8-mixed (per-tensor scales) or mxfp8 (block scales).
[[nodiscard]] constexpr bool isFp8(Precision p) { return p == Precision::Fp8Mixed || p == Precision::Mxfp8; }
enum class Optimizer { AdamW, AdamW8bit, SgdMomentum, Adafactor };
/// Selective: Megatron's core-attention recomputation (Korthikanti et al. 2022 §4.2); SelectiveOp: PyTorch's op-level
/// selective checkpointing as torchtitan applies it (torchtitan/models/llama3/infra/parallelize.py, `_save_list`).
enum class Recompute { None, Selective, Full, SelectiveOp };
enum class Accounting { ZeroPaper, Megatron, DeepSpeed };
/// Gradient buffer and data-parallel reduction dtype (training.grad_reduce_dtype). Framework: the accounting's own
/// (fp32 for Megatron and PyTorch FSDP, the half-precision dtype for zero-paper and DeepSpeed); absent in a file.
enum class GradReduce { Framework, Fp32, Bf16 };
/// How the optimizer keeps its master weights (training.master_weights): fp32 (4 B); fp32 as the 16-bit remainders
/// the bf16 weights lack (2 B: Megatron-Core's precision-aware optimizer with store_param_remainders, NeMo's
/// distributed_fused_adam on bf16); fp16 (2 B: Megatron --main-params-dtype fp16).
enum class MasterWeights { Fp32, Fp32Remainder, Fp16 };
/// The dtype of Adam's two moments (training.moments_dtype; Megatron --exp-avg-dtype / --exp-avg-sq-dtype with
/// --use-precision-aware-optimizer, Transformer Engine FusedAdam).
enum class MomentsDtype { Fp32, Bf16, Fp16, Fp8 };

/// The modules selective recompute re-runs in backward instead of keeping their activations (training.recompute_modules,
/// Megatron --recompute-modules; megatron/core/transformer/transformer_config.py, recompute_modules).
struct RecomputeModules {
    bool coreAttn = false; ///< core_attn: core attention (softmax or the kernel's log-sum-exp)
    bool mlp = false; ///< mlp: a dense layer's MLP (not an MoE layer's)
    bool moeAct = false; ///< moe_act: the routed experts' activation function (its output discarded)
    bool layernorm = false; ///< layernorm: the input and pre-MLP norms (their outputs discarded)
    bool moe = false; ///< moe: the whole MoE block (router, dispatch, experts, combine)
    bool sharedExperts = false; ///< shared_experts: the shared experts
    friend bool operator==(const RecomputeModules&, const RecomputeModules&) = default;
};

struct Training {
    int64_t seqLen = 8192;
    int64_t globalBatch = 512; ///< sequences per optimizer step
    int64_t microBatch = 1; ///< sequences per micro-batch per data-parallel rank
    Precision precision = Precision::Bf16Mixed;
    Optimizer optimizer = Optimizer::AdamW;
    Recompute recompute = Recompute::Selective;
    bool flashAttention = true;
    bool dropout = false;
    Accounting accounting = Accounting::ZeroPaper;
    GradReduce gradReduce = GradReduce::Framework;
    MasterWeights masterWeights = MasterWeights::Fp32;
    MomentsDtype momentsDtype = MomentsDtype::Fp32;
    /// FP8 primary weights (Megatron --fp8-param-gather, Transformer Engine fp8_model_init): the transformer layers'
    /// linear weights are stored and gathered in FP8, with no bf16 copy beside them.
    bool fp8ParamGather = false;
    /// training.recompute_modules, used when recompute is selective; absent: core_attn alone (Megatron's default).
    std::optional<RecomputeModules> recomputeModules;
    /// The modules selective recompute re-runs: recomputeModules, or core_attn alone when absent.
    [[nodiscard]] RecomputeModules effectiveRecomputeModules() const
    {
        return recomputeModules ? *recomputeModules : RecomputeModules { .coreAttn = true };
    }
    Framework framework = Framework::Megatron; ///< selects Scenario::profile (absent in a file: megatron)
    friend bool operator==(const Training&, const Training&) = default;
};

enum class Sharding { Ddp, Zero1, Zero2, Zero3, FsdpFull, FsdpGradOp, FsdpHybrid };
enum class PpSchedule { GPipe, OneFOneB, Interleaved, ZeroBubble };

/// What hides the expert-parallel all-to-all: nothing; Megatron-Core's --overlap-moe-expert-parallel-comm (one
/// micro-batch's dispatch/combine behind another's compute); DeepSeek's DualPipe (forward and backward chunks of two
/// micro-batches overlapped).
enum class MoeOverlap { None, EpOverlap, DualPipe };

/// How the ranks of a context-parallel group exchange attention inputs (Megatron-Core --cp-comm-type): K/V chunks
/// passed around a ring (p2p), all-to-alls that trade the sequence split for a head split (a2a: DeepSpeed-Ulysses),
/// or K/V all-gathered before attention (allgather: the Llama 3 paper §3.3.2, torch's rotate method "allgather").
enum class CpCommType { P2p, A2a, AllGather };

struct Parallelism {
    Sharding sharding = Sharding::Zero3;
    int tp = 1, pp = 1, cp = 1, ep = 1;
    CpCommType cpCommType = CpCommType::P2p; ///< parallelism.cp_comm_type (absent in a file: p2p)
    /// parallelism.expert_tp: tensor-parallel size of the experts (Megatron --expert-tensor-parallel-size); 0 (absent
    /// in a file): tp, Megatron's default (megatron/training/arguments.py).
    int expertTp = 0;
    [[nodiscard]] int effectiveExpertTp() const { return expertTp > 0 ? expertTp : tp; }
    bool sequenceParallel = false;
    PpSchedule schedule = PpSchedule::OneFOneB;
    int virtualStages = 1;
    int shardGroup = 0; ///< fsdp-hybrid: GPUs per shard group, 0 = one node
    MoeOverlap moeOverlap = MoeOverlap::None;
    /// TP communication overlapped with the GEMMs (Megatron --tp-comm-overlap: Transformer Engine userbuffers; needs
    /// sequence parallelism; PyTorch's async TP under torch.compile).
    bool tpCommOverlap = false;
    /// parallelism.overlap_grad_reduce: the DDP / ZeRO-1 gradient reduction overlapped with the last micro-batch's
    /// backward, bucket by bucket (Megatron --overlap-grad-reduce, off by default in megatron/training/arguments.py
    /// and on in NeMo's recipes; PyTorch DDP always; DeepSpeed zero_optimization.overlap_comm). false: it runs after
    /// the backward, all of it exposed. Absent in a file: true.
    bool overlapGradReduce = true;
    /// DDP and ZeRO-1 reduce the gradients once per step, where overlap_grad_reduce applies; ZeRO-2 reduces every
    /// micro-batch's and ZeRO-3 / FSDP each unit's, inside the backward.
    /// parallelism.overlap_param_gather: Megatron-LM's distributed optimizer (ZeRO-1) all-gathers the updated
    /// parameters bucket by bucket in the next step's first forward instead of inside the optimizer step (Megatron
    /// --overlap-param-gather, off by default in megatron/core/distributed/distributed_data_parallel_config.py, on in
    /// Megatron-Bridge's pretraining recipes; needs overlap_grad_reduce). false: the whole all-gather is exposed, as
    /// DeepSpeed's stage_1_and_2.py step() runs it. Absent in a file: false.
    bool overlapParamGather = false;
    [[nodiscard]] bool reducesGradientsOncePerStep() const
    {
        return sharding == Sharding::Ddp || sharding == Sharding::Zero1;
    }
    /// Layers per virtual pipeline stage as Megatron-Core's --pipeline-model-parallel-layout string ("Et*3|(tt|)*29,m|L";
    /// shardscope/core/pipeline_layout.h); "" = layers split evenly, the extra ones on the last stages.
    std::string pipelineLayout;
    friend bool operator==(const Parallelism&, const Parallelism&) = default;
};

enum class OffloadTarget { None, Cpu, Nvme };

struct Offload {
    OffloadTarget optimizer = OffloadTarget::None;
    OffloadTarget parameters = OffloadTarget::None;
    /// Layers whose saved activations go to host memory during the forward and come back for the backward
    /// (Megatron-Core --cpu-offloading-num-layers, Transformer Engine cpu_offload); 0: none.
    int activationLayers = 0;
    friend bool operator==(const Offload&, const Offload&) = default;
};

enum class NcclAlgo { Auto, Ring, Tree };
enum class NcclProto { Auto, Simple, LL, LL128 };

struct Nccl {
    NcclAlgo algo = NcclAlgo::Auto;
    NcclProto proto = NcclProto::Auto;
    int minChannels = 0; ///< 0 = NCCL's default
    bool gdr = true; ///< GPU Direct RDMA
    friend bool operator==(const Nccl&, const Nccl&) = default;
};

struct Scenario {
    std::string name;
    ModelSpec model;
    Cluster cluster;
    Training training;
    Parallelism parallelism;
    Offload offload;
    Nccl nccl;
    FrameworkProfile profile
        = megatronProfile(); ///< training.framework's profile from the catalog, or one given with --profile
    friend bool operator==(const Scenario&, const Scenario&) = default;
};

/// Data-parallel degree gpus / (tp·pp·cp) (docs/model.md §layout); 0 when it is not whole.
[[nodiscard]] int dataParallel(const Scenario& s);

} // namespace shardscope::core
