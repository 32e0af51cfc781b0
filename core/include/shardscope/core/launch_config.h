// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Launch configurations generated from a scenario (issue 5, item 4): the DeepSpeed config JSON, a PyTorch
/// FSDP2 script fragment with its torchrun line, Megatron-LM arguments and NCCL environment exports.
/// Every option name is one the framework really has; launch_config.cpp lists where each was checked.

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <string>
#include <string_view>

namespace shardscope::core {

enum class LaunchTarget { DeepSpeed, Fsdp, Megatron, NcclEnv };

/// "deepspeed", "fsdp", "megatron" or "nccl-env" (the CLI's --target values). False for anything else.
[[nodiscard]] bool parseLaunchTarget(std::string_view text, LaunchTarget& out);

/// The --target spelling of a target.
[[nodiscard]] const char* toString(LaunchTarget target);

/// The configuration text for one target. `result` must come from evaluate(scenario) and be valid: the
/// layout figures (dp, gradient accumulation) are taken from it. DeepSpeed is pure JSON (no comments);
/// the FSDP fragment is Python; Megatron and NCCL are bash. Deterministic: same input, same bytes.
[[nodiscard]] std::string launchConfig(const Scenario& scenario, const Result& result, LaunchTarget target);

} // namespace shardscope::core
