// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What a training framework does beyond the model's arithmetic: a framework profile
/// (resources/profiles/*.json, shardscope.profile/1; docs/model.md §framework-profiles).
/// Scenario::training.framework names one; the catalog resolves it when the scenario is parsed, and a profile from
/// `shardscope-cli calibrate` can replace it (`--profile`).

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

enum class Framework { Megatron, DeepSpeed, PyTorch, PyTorchCompile };

/// The fused attention kernel a framework runs (docs/model.md §attention-rate): FlashAttention-2, FlashAttention-3
/// (Hopper only) or cuDNN's fused attention (Hopper and newer); elsewhere FlashAttention-2 runs instead.
enum class AttentionKernel { Fa2, Fa3, Cudnn };

/// One measured figure of a calibrated profile's fit ("fit.figures" of calibrate's output): the figure's key in
/// RUNS.json ("tokens_per_second_per_gpu", "step_time", "memory_allocated_peak", "memory_reserved_peak"), the measured
/// value and the model's after the fit.
struct FitFigure {
    std::string figure;
    double measured = 0, after = 0;
    double heldOut = 0; ///< the model's value with the run left out of the fit ("held_out"; 0: not computed)
    friend bool operator==(const FitFigure&, const FitFigure&) = default;
};

/// What a calibrated profile was fitted on (empty for a shipped profile): the 80% ranges narrow to it
/// (core/uncertainty.h).
struct ProfileFit {
    int runs = 0;
    std::vector<FitFigure> figures;
    friend bool operator==(const ProfileFit&, const ProfileFit&) = default;
};

/// The values evaluate() reads from a profile. megatronProfile() holds the built-in (Megatron-Core) values with their
/// sources; resources/profiles/*.json state every framework's, each value with its `source`.
struct FrameworkProfile {
    std::string id; ///< file stem: megatron, deepspeed, pytorch, pytorch-compile, or a calibrated profile's name
    std::string name;
    Framework framework = Framework::Megatron;

    // ---- Free constants: physical, bounded (profileConstants), fitted by calibrate.
    double gemmEfficiency = 0; ///< fraction of the measured best-shape matmul rate (MAMF) a step's GEMMs sustain
    double attentionEfficiency = 0; ///< fraction of its attention kernel's published rates the framework reaches
    double elementwiseTraffic = 0; ///< HBM passes of element-wise kernels per stored activation byte, fwd and bwd each
    double hostOverheadPerLayer = 0; ///< s per layer per micro-batch (fwd + bwd) the GPU waits for the host
    double collectiveEfficiency = 0; ///< achieved / modelled bus bandwidth of every collective
    double overlapSlowdown = 0; ///< share of an overlapped collective's time added to the compute it overlaps
    double memoryOverheadBytes = 0; ///< bytes per GPU besides the model (allocator caches, workspaces)
    double allocatorSlack = 0; ///< reserved − allocated at the peak, per byte of transient memory

    // ---- Framework facts (from the framework's source; not fitted).
    double logitBytes = 0; ///< bytes per logit element held at the loss peak (output layer not TP-split)
    double logitBytesTp = 0; ///< the same per local logit when the loss is vocabulary-parallel over TP (t > 1)
    double fp8GemmSpeedup = 0; ///< FP8 over BF16 linear-layer time, quantization included, on Hopper
    AttentionKernel attentionKernel = AttentionKernel::Fa2; ///< the fused attention kernel (JSON "fa2", "fa3", "cudnn")
    /// ZeRO-3 parameter all-gather: at most this many elements per call (DeepSpeed's prefetch bucket); 0: one call
    /// per unit (a transformer layer), as FSDP gathers a wrapped block.
    double gatherBucketElements = 0;
    /// Gradient buckets of the data-parallel reduction (DDP all-reduce, ZeRO-1/2 reduce-scatter and parameter
    /// all-gather; ZeRO-3 reduce-scatter when gatherBucketElements > 0): the largest of elements, elements × data-parallel size, and
    /// bytes ÷ bytes per element; all three 0: one bucket of the whole gradient.
    double gradBucketElements = 0;
    double gradBucketElementsPerDpRank = 0;
    double gradBucketBytes = 0;

    ProfileFit fit; ///< calibrate's fit, when the profile came from it

    /// Where each value comes from, by JSON key ("gemm_efficiency" → "fitted on Narayanan et al. 2021 Table 1").
    std::vector<std::pair<std::string, std::string>> sources;
    friend bool operator==(const FrameworkProfile&, const FrameworkProfile&) = default;
};

/// Elements per gradient bucket of a data-parallel group of `dp` ranks with `bytesPerElement` (0: no bucketing).
double gradBucketElements(const FrameworkProfile& p, int dp, double bytesPerElement);

/// Megatron-Core's profile, built in: what a scenario without training.framework uses (core/src/profile.cpp).
FrameworkProfile megatronProfile();

/// A free constant of a profile: its JSON key, its physical bounds and the member it sets.
struct ProfileConstant {
    const char* key;
    double lo, hi;
    double FrameworkProfile::*member;
    const char* meaning;
};
/// The constants calibrate may fit, with their bounds (docs/model.md §calibration).
const std::vector<ProfileConstant>& profileConstants();

const char* toString(Framework f);
bool frameworkFromString(std::string_view name, Framework& out);
/// "megatron, deepspeed, pytorch, pytorch-compile": the names frameworkFromString accepts, for messages.
std::string allowedFrameworks();
const char* toString(AttentionKernel k); ///< "fa2", "fa3", "cudnn"
bool attentionKernelFromString(std::string_view name, AttentionKernel& out);
/// The kernel's name as the views print it ("FlashAttention-2", "FlashAttention-3", "cuDNN fused attention").
const char* displayName(AttentionKernel k);

} // namespace shardscope::core
