// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A scenario's title. A scenario whose `name` is empty is named from its content (model, GPUs, strategy,
/// layout), so pins, legends, export captions and the report title follow every edit until the user types a name.

#include "shardscope/core/scenario.h"

#include <string>

namespace shardscope::core {

/// The name made from the content, in the style of the shipped examples:
/// "Llama 3 70B, 4 x 8 H100 80GB, ZeRO-3", "Mixtral 8x22B, 16 x 8 H100 80GB, ZeRO-1, TP 2 x PP 4 x EP 8",
/// with " + CPU optimizer offload" / " + NVMe parameter offload" after the strategy when there is offload.
/// The GPU's catalog name drops its vendor, parenthesised notes and SXM form-factor words ("NVIDIA H100 SXM5 80GB"
/// becomes "H100 80GB"); a model without a name is called by its id, or "Custom model".
[[nodiscard]] std::string generatedName(const Scenario& scenario);

/// scenario.name when the user gave one, otherwise generatedName(scenario).
[[nodiscard]] std::string scenarioTitle(const Scenario& scenario);

} // namespace shardscope::core
