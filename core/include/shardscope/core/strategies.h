// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The sharding strategies the comparison views set side by side: the ZeRO ladder of Rajbhandari et al. (SC'20, §5:
/// P_os, P_os+g, P_os+g+p) from DDP up, then ZeRO-Offload's optimizer offload (Ren et al., ATC'21) and ZeRO-Infinity's
/// parameter offload (Rajbhandari et al., SC'21) on top of ZeRO-3.

#include "shardscope/core/scenario.h"

#include <span>
#include <string>

namespace shardscope::core {

struct StrategyChoice {
    const char* label; ///< "ZeRO-3\n+CPU opt." (English; a view may translate it)
    Sharding sharding;
    OffloadTarget optimizer;
    OffloadTarget parameters;
};

/// DDP, ZeRO-1, ZeRO-2, ZeRO-3, ZeRO-3 + CPU optimizer offload, ZeRO-3 + CPU optimizer and parameter offload.
[[nodiscard]] std::span<const StrategyChoice> comparedStrategies();

/// The scenario with only its sharding and offload replaced by the choice's.
[[nodiscard]] Scenario withStrategy(const Scenario& scenario, const StrategyChoice& choice);

/// "FSDP full", "ZeRO-1\n+CPU opt.": the scenario's own sharding and offload, in the compared strategies' style
/// (shown beside them when none of comparedStrategies() is the scenario's own).
[[nodiscard]] std::string strategyLabel(const Scenario& scenario);

/// Whether the scenario already uses this strategy (same parallelism and offload after applying it).
[[nodiscard]] bool usesStrategy(const Scenario& scenario, const StrategyChoice& choice);

} // namespace shardscope::core
