// SPDX-License-Identifier: GPL-3.0-or-later
// Framework profiles: Megatron-Core's defaults, the profile constants and their names (documents: profile_json.cpp).
#include "shardscope/core/profile.h"

#include "checked_int.h"

#include "shardscope/core/result.h"
#include "shardscope/core/term.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core {

namespace {
// ---- Megatron-Core's profile. The two fitted time-model constants: fit on Narayanan et al. SC'21 Table 1 and
// Korthikanti et al. MLSys'23 Table 5 only (grid search; tests/core/tst_calibration.cpp holds the rows,
// docs/model.md §validation); every other figure comes from a datasheet, NCCL's model or the framework's source.
// Fraction of the best-shape measured matmul rate (MAMF, stas00 ml-engineering compute/accelerator/README.md) that a
// training step's GEMMs sustain: real shapes, kernel launch gaps and host overhead. 0.80 × A100's 0.869 MAMF = 70%.
constexpr double kGemmRealized = 0.80;
// HBM traffic of the element-wise kernels (norms, GELU/SwiGLU, dropout, softmax, residual adds, casts) per byte of
// activation the layer stores, in each of forward and backward: unfused element-wise kernels read and write each
// stored tensor about three times. Korthikanti Table 4 (22B layer, 7.7 ms forward) pins it together with the above.
constexpr double kElementwiseTraffic = 3.0;
// Allocator slack: Megatron's theoretical_memory_usage multiplies activations by 1.05 for "optimizer and misc
// temporaries" (megatron/training/theoretical_memory_usage.py); applied to all transient memory.
constexpr double kAllocatorSlack = 0.05;
// Megatron's fused vocab-parallel cross-entropy keeps the bf16 logits and overwrites them with the fp32 softmax it
// returns as their gradient (megatron/core/tensor_parallel/cross_entropy.py): 2 + 4 bytes per logit.
// The same kernel runs on the vocabulary shard of each TP rank (VocabParallelCrossEntropy): 6 bytes per local logit.
constexpr double kMegatronLogitBytes = 6.0;
// FP8 linear layers with Transformer Engine's DelayedScaling recipe (Megatron's --fp8-recipe delayed default): 1.69×
// the BF16 GEMM time's speed, quantization included (TransformerEngine docs/examples/gemm_profiling/
// gemm_profiling.rst @ d0067d0, H200, hidden 4096: 32.014 / 18.978 ms per layer).
constexpr double kDelayedScalingSpeedup = 1.69;
// Megatron-Core's gradient (and distributed-optimizer parameter) buckets: max(40,000,000, 1,000,000 × dp) parameters,
// "to ensure that chunks used in NCCL ring-reduce implementations are large enough to remain bandwidth-bound"
// (megatron/core/distributed/distributed_data_parallel.py).
constexpr double kMegatronBucketElements = 40000000;
constexpr double kMegatronBucketElementsPerDpRank = 1000000;
} // namespace

FrameworkProfile megatronProfile()
{
    FrameworkProfile p;
    p.id = "megatron";
    p.name = "Megatron-Core";
    p.framework = Framework::Megatron;
    p.gemmEfficiency = kGemmRealized;
    p.elementwiseTraffic = kElementwiseTraffic;
    p.attentionEfficiency = 1; // Megatron-Core's fused attention (cuDNN / FlashAttention) as published
    p.hostOverheadPerLayer = 0; // launches run ahead of the GPU at these layer sizes (no host-bound gaps)
    p.collectiveEfficiency = 1; // NCCL's own model (collective.cpp) as it stands
    p.overlapSlowdown = 0; // the overlap model of the time stage as it stands
    p.memoryOverheadBytes = 0; // everything Megatron holds is in the memory model
    p.allocatorSlack = kAllocatorSlack;
    p.logitBytes = kMegatronLogitBytes;
    p.logitBytesTp = kMegatronLogitBytes;
    p.fp8GemmSpeedup = kDelayedScalingSpeedup;
    // Megatron-Core's TEDotProductAttention: Transformer Engine picks cuDNN's fused attention on Hopper and newer,
    // FlashAttention-2 on Ampere (transformer_engine/pytorch/attention/dot_product_attention/utils.py
    // get_attention_backend @ d0067d0)
    p.attentionKernel = AttentionKernel::Cudnn;
    p.gatherBucketElements = 0; // FSDP-style: one gather per TransformerLayer
    p.gradBucketElements = kMegatronBucketElements;
    p.gradBucketElementsPerDpRank = kMegatronBucketElementsPerDpRank;
    p.gradBucketBytes = 0;
    p.sources = {
        { "gemm_efficiency", "fitted on Narayanan et al. SC'21 Table 1 and Korthikanti et al. MLSys'23 Table 5" },
        { "elementwise_traffic", "fitted on Korthikanti et al. MLSys'23 Table 4 and Table 5" },
        { "attention_efficiency",
            "the kernel's published rates as they are (Shah et al. 2024 Figs. 5 and 6; Dao 2023 "
            "Figs. 4 and 7)" },
        { "host_overhead_per_layer", "Megatron-Core launches ahead of the GPU (none measured at these layer sizes)" },
        { "collective_efficiency", "NCCL's tuning model (src/graph/tuning.cc) as is" },
        { "overlap_slowdown", "not modelled for Megatron-Core" },
        { "memory_overhead_bytes", "none beyond the memory model" },
        { "allocator_slack", "megatron/training/theoretical_memory_usage.py (activations × 1.05)" },
        { "logit_bytes", "megatron/core/tensor_parallel/cross_entropy.py (bf16 logits + fp32 softmax in place)" },
        { "logit_bytes_tp",
            "megatron/core/tensor_parallel/cross_entropy.py (VocabParallelCrossEntropy: bf16 logits + "
            "fp32 softmax in place on each rank's vocabulary shard)" },
        { "fp8_gemm_speedup",
            "TransformerEngine docs/examples/gemm_profiling/gemm_profiling.rst (DelayedScaling, "
            "H200: 32.014 / 18.978 ms per layer)" },
        { "attention_kernel",
            "Transformer Engine's get_attention_backend (transformer_engine/pytorch/attention/"
            "dot_product_attention/utils.py): cuDNN fused attention on Hopper and newer, "
            "FlashAttention-2 on Ampere" },
        { "gather_bucket_elements",
            "one all-gather per TransformerLayer (Megatron-Core's FSDP wraps each layer: "
            "megatron/core/distributed/torch_fully_sharded_data_parallel.py)" },
        { "grad_bucket_elements",
            "megatron/core/distributed/distributed_data_parallel.py (bucket_size = "
            "max(40000000, 1000000 * dp))" },
        { "grad_bucket_elements_per_dp_rank",
            "megatron/core/distributed/distributed_data_parallel.py (bucket_size "
            "= max(40000000, 1000000 * dp))" },
        { "grad_bucket_bytes", "Megatron-Core sizes buckets in parameters (not bytes)" },
    };
    return p;
}

double gradBucketElements(const FrameworkProfile& p, int dp, double bytesPerElement)
{
    const double bytes = bytesPerElement > 0 ? p.gradBucketBytes / bytesPerElement : 0.0;
    return std::max({ p.gradBucketElements, p.gradBucketElementsPerDpRank * dp, bytes });
}

const std::vector<ProfileConstant>& profileConstants()
{
    // Bounds are physical: a GEMM cannot beat its measured best shape (MAMF) nor fall under a fifth of it on
    // transformer shapes; an element-wise kernel moves each byte at least once, an unfused chain rarely > 12 times;
    // a layer's host work beyond 5 ms means the run is not GPU-bound; NCCL cannot beat its bus bandwidth by > 20%;
    // fragmentation beyond half the transient memory is an allocator failure, not a constant (docs/model.md §calibration).
    static const std::vector<ProfileConstant> all = {
        { "gemm_efficiency", 0.2, 1.0, &FrameworkProfile::gemmEfficiency, "fraction of the measured matmul rate" },
        { "attention_efficiency", 0.3, 1.2, &FrameworkProfile::attentionEfficiency,
            "fraction of the attention kernel's measured rates" },
        { "elementwise_traffic", 0.5, 12.0, &FrameworkProfile::elementwiseTraffic,
            "HBM passes per stored activation byte" },
        { "host_overhead_per_layer", 0.0, 5e-3, &FrameworkProfile::hostOverheadPerLayer,
            "host seconds per layer per micro-batch" },
        { "collective_efficiency", 0.2, 1.2, &FrameworkProfile::collectiveEfficiency,
            "achieved / modelled collective bandwidth" },
        { "overlap_slowdown", 0.0, 1.0, &FrameworkProfile::overlapSlowdown,
            "share of overlapped communication added to compute" },
        { "memory_overhead_bytes", 0.0, 64e9, &FrameworkProfile::memoryOverheadBytes,
            "bytes per GPU besides the model" },
        { "allocator_slack", 0.0, 0.5, &FrameworkProfile::allocatorSlack,
            "reserved beyond allocated, per byte of transient memory" },
    };
    return all;
}

namespace {

const std::pair<AttentionKernel, const char*> kKernelNames[]
    = { { AttentionKernel::Fa2, "fa2" }, { AttentionKernel::Fa3, "fa3" }, { AttentionKernel::Cudnn, "cudnn" } };

const std::pair<Framework, const char*> kFrameworkNames[]
    = { { Framework::Megatron, "megatron" }, { Framework::DeepSpeed, "deepspeed" }, { Framework::PyTorch, "pytorch" },
          { Framework::PyTorchCompile, "pytorch-compile" } };

/// The name of value in a {value, name} table (the first entry's when absent).
template <typename Enum, size_t N> const char* nameIn(const std::pair<Enum, const char*> (&table)[N], Enum value)
{
    for (const auto& [v, n] : table)
        if (v == value)
            return n;
    return table[0].second;
}

/// Sets out to the value named name in a {value, name} table; false when no entry has that name.
template <typename Enum, size_t N>
bool valueIn(const std::pair<Enum, const char*> (&table)[N], std::string_view name, Enum& out)
{
    for (const auto& [v, n] : table)
        if (name == n) {
            out = v;
            return true;
        }
    return false;
}

} // namespace

std::string allowedFrameworks()
{
    std::string s;
    for (const auto& [f, n] : kFrameworkNames)
        s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

const char* toString(Framework f) { return nameIn(kFrameworkNames, f); }

const char* toString(AttentionKernel k) { return nameIn(kKernelNames, k); }

bool attentionKernelFromString(std::string_view name, AttentionKernel& out) { return valueIn(kKernelNames, name, out); }

const char* displayName(AttentionKernel k)
{
    switch (k) {
    case AttentionKernel::Fa3: return "FlashAttention-3";
    case AttentionKernel::Cudnn: return "cuDNN fused attention";
    default: return "FlashAttention-2";
    }
}

bool frameworkFromString(std::string_view name, Framework& out) { return valueIn(kFrameworkNames, name, out); }

} // namespace shardscope::core
