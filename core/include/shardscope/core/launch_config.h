// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Launch configurations generated from a scenario (issue 5, item 4): the DeepSpeed config JSON, a PyTorch
/// FSDP2 script fragment with its torchrun line, Megatron-LM arguments and NCCL environment exports.
/// Every option name is one the framework really has; launch_config.cpp lists where each was checked.

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

enum class LaunchTarget { DeepSpeed, Fsdp, Megatron, NcclEnv };

/// "deepspeed", "fsdp", "megatron" or "nccl-env" (the CLI's --target values). False for anything else.
[[nodiscard]] bool parseLaunchTarget(std::string_view text, LaunchTarget& out);

/// The --target spelling of a target.
[[nodiscard]] const char* toString(LaunchTarget target);

/// Why the layout cannot be written for `target` (empty: it can), each issue naming the field it comes from, e.g.
/// parallelism.cp when DeepSpeed's data × sequence-parallel mesh cannot hold cp together with tp or pp. The CLI
/// exits 2 with these; the GUI shows them instead of a configuration.
[[nodiscard]] std::vector<Issue> launchConfigIssues(const Scenario& scenario, LaunchTarget target);

/// Text taken from the scenario (its name, the model's name, catalog ids) for a comment line of generated code:
/// control characters (newlines, carriage returns, escape sequences), Unicode line and paragraph separators
/// and bidirectional overrides become spaces, so no string can end the comment and become code.
[[nodiscard]] std::string commentText(std::string_view text);

/// The configuration text for one valid scenario and target; launchConfigIssues(...) must be empty. The layout
/// figures (dp, gradient accumulation, shard groups) are the scenario's Layout (layout.h). DeepSpeed is pure JSON (no comments);
/// the FSDP fragment is Python; Megatron and NCCL are bash. Deterministic: same input, same bytes. Strings from
/// the scenario appear only in comments (commentText), never in code, so a hostile name cannot inject code.
[[nodiscard]] std::string launchConfig(const Scenario& scenario, LaunchTarget target);

} // namespace shardscope::core
