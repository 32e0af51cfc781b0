// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The pure core: Scenario in, Result out. No I/O, no Qt, no exceptions on bad input.

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"
#include "shardscope/core/term.h"

#include <vector>

namespace shardscope::core {

/// Every rule the scenario breaks, each naming its field (dotted scenario path). Empty = valid.
[[nodiscard]] std::vector<Issue> validate(const Scenario& scenario);

/// The tensor-parallel rule, the one validate() applies and every view and search uses: tp divides the heads and
/// ffn_hidden, divides the KV heads or is a multiple of them, and does not exceed the vocabulary. Empty = allowed.
[[nodiscard]] std::vector<Issue> tensorParallelIssues(const ModelSpec& model, int tp);
/// What validate() refuses about parallelism.cp_comm_type for this model, framework, tp and cp (none with cp 1): the
/// heads an all-to-all splits over cp, and the exchanges each framework has. Searches offer what it allows.
[[nodiscard]] std::vector<Issue> contextParallelIssues(
    const ModelSpec& model, Framework framework, int tp, int cp, CpCommType type);

/// Memory, communication and step time of one optimizer step. If validate() finds issues the result
/// has valid == false, the issues, and no figures. Deterministic and allocation-light (called per slider move).
[[nodiscard]] Result evaluate(const Scenario& scenario);

/// Parameter count of an architecture (docs/model.md §parameter-count; honours params override).
struct ModelSize {
    double total = 0; ///< Ψ
    double active = 0; ///< parameters one token uses (top-k experts for MoE)
};
[[nodiscard]] ModelSize modelSize(const ModelSpec& model);

/// memory_per_gpu.usable of a scenario (Result::usable; docs/model.md §usable-memory): the GPU's memory as the driver
/// reports it − the CUDA context − cluster.memory_headroom of it. What "fits" means in every view.
[[nodiscard]] double usableMemory(const Scenario& scenario);

/// evaluate() and the terms every view lists (Result::terms): each figure with its formula, substituted expression,
/// inputs and source. Slower than evaluate() (text is built): for the views, the CLI and exports, not for searches.
[[nodiscard]] Result explain(const Scenario& scenario);

} // namespace shardscope::core
