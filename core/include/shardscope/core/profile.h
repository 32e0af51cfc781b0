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

/// The values evaluate() reads from a profile. megatronProfile() holds the built-in (Megatron-Core) values with their
/// sources; resources/profiles/*.json state every framework's, each value with its `source`.
struct FrameworkProfile {
    std::string id;   ///< file stem: megatron, deepspeed, pytorch, pytorch-compile, or a calibrated profile's name
    std::string name;
    Framework framework = Framework::Megatron;

    // ---- Free constants: physical, bounded (profileConstants), fitted by calibrate.
    double gemmEfficiency = 0;       ///< fraction of the measured best-shape matmul rate (MAMF) a step's GEMMs sustain
    double elementwiseTraffic = 0;   ///< HBM passes of element-wise kernels per stored activation byte, fwd and bwd each
    double hostOverheadPerLayer = 0; ///< s per layer per micro-batch (fwd + bwd) the GPU waits for the host
    double collectiveEfficiency = 0; ///< achieved / modelled bus bandwidth of every collective
    double overlapSlowdown = 0;      ///< share of an overlapped collective's time added to the compute it overlaps
    double memoryOverheadBytes = 0;  ///< bytes per GPU besides the model (allocator caches, workspaces)
    double allocatorSlack = 0;       ///< reserved − allocated at the peak, per byte of transient memory

    // ---- Framework facts (from the framework's source; not fitted).
    double logitBytes = 0;           ///< bytes per logit element held at the loss

    /// Where each value comes from, by JSON key ("gemm_efficiency" → "fitted on Narayanan et al. 2021 Table 1").
    std::vector<std::pair<std::string, std::string>> sources;
    friend bool operator==(const FrameworkProfile&, const FrameworkProfile&) = default;
};

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

inline constexpr const char* kProfileSchema = "shardscope.profile/1";

struct ProfileParse {
    FrameworkProfile profile;
    std::vector<std::string> errors; ///< "values.gemm_efficiency: must be in [0.2, 1]"
    [[nodiscard]] bool ok() const { return errors.empty(); }
};
/// Parses a shardscope.profile/1 document; every value is checked against its bounds.
ProfileParse parseProfile(std::string_view json);
/// The profile as a shardscope.profile/1 document (what calibrate writes); parseProfile reads it back equal.
std::string profileJson(const FrameworkProfile& p);

} // namespace shardscope::core
