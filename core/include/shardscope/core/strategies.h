// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Strategy ladders: the ordered sets of sharding strategies that comparisons, sweeps and cluster sizing set side by
/// side. Each climbs the ZeRO ladder of Rajbhandari et al. (SC'20, §5: P_os, P_os+g, P_os+g+p) from DDP up, then adds
/// ZeRO-Offload's optimizer offload (Ren et al., ATC'21) and ZeRO-Infinity's parameter offload (Rajbhandari et al.,
/// SC'21) on top of ZeRO-3. Labels are made from the sharding name table (enum_names.h).

#include "shardscope/core/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace shardscope::core {

/// One rung of a strategy ladder: a sharding mode, its offload and, when set, a recompute policy.
struct Strategy {
    std::string label; ///< "ZeRO-3\n+CPU opt." or "ZeRO-3 + full recompute" (English; a view may translate it)
    Sharding sharding = Sharding::Ddp;
    OffloadTarget optimizer = OffloadTarget::None;
    OffloadTarget parameters = OffloadTarget::None;
    std::optional<Recompute> recompute; ///< unset: the scenario's own recompute is kept
};
using StrategyLadder = std::vector<Strategy>;

/// The comparison charts' ladder: DDP, ZeRO-1, ZeRO-2, ZeRO-3, ZeRO-3 + CPU optimizer offload, ZeRO-3 + CPU optimizer
/// and parameter offload; recompute is the scenario's own. Labels in strategyLabel()'s two-line style.
[[nodiscard]] const StrategyLadder& comparedStrategies();

/// The sweeps' and cluster sizing's "which strategy when" ladder: DDP, ZeRO-1, ZeRO-2, ZeRO-3 with selective
/// recompute, then ZeRO-3 + full recompute, ZeRO-3 + full recompute + CPU offload (optimizer and parameters). Each
/// label names the recompute and offload it adds ("ZeRO-3 + full recompute + CPU offload").
[[nodiscard]] const StrategyLadder& sweepStrategies();

/// The scenario with only its sharding, offload and (when the strategy sets one) recompute replaced.
[[nodiscard]] Scenario withStrategy(const Scenario& scenario, const Strategy& strategy);

/// "FSDP full", "ZeRO-1\n+CPU opt.": the scenario's own sharding and offload, in the compared strategies' style
/// (shown beside them when none of comparedStrategies() is the scenario's own).
[[nodiscard]] std::string strategyLabel(const Scenario& scenario);

/// Whether the scenario already uses this strategy (same parallelism, offload and recompute after applying it).
[[nodiscard]] bool usesStrategy(const Scenario& scenario, const Strategy& strategy);

} // namespace shardscope::core
