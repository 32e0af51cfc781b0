// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QString>

#include <vector>

namespace shardscope::ui {

/// The scenario re-evaluated under one sharding strategy (and offload), for the comparison charts.
struct StrategyVariant {
    QString label;            ///< "ZeRO-3\n+CPU optim." (may contain a line break)
    core::Scenario scenario;  ///< copy of the open scenario with parallelism.sharding / offload changed
    core::Result result;      ///< core result; valid == false with issues when the variant is not allowed
    bool current = false;     ///< same strategy and offload as the open scenario
    bool own = false;         ///< the open scenario itself, added because no compared strategy is its own
};
using StrategyComparison = std::vector<StrategyVariant>;

/// DDP, ZeRO-1, ZeRO-2, ZeRO-3, ZeRO-3 + CPU optimizer offload, ZeRO-3 + CPU optimizer and parameter offload,
/// each a copy of scenario with only parallelism.sharding and offload changed, evaluated by the core; then, when
/// none of them is the scenario's own strategy (FSDP, ZeRO-1/2 with offload), the scenario itself (own, current).
[[nodiscard]] StrategyComparison compareStrategies(const core::Scenario& scenario);

} // namespace shardscope::ui
