// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/chart_kind.h"

#include <shardscope/core/catalog.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <memory>
#include <string>
#include <vector>

namespace shardscope::ui {

class ChartBase;

/// GPU types the sizing pane compares when it opens (with the scenario's own): H100, H200, B200, MI300X.
[[nodiscard]] const std::vector<std::string>& defaultSizingGpuIds();
/// Token budget the sizing pane starts with: 10^12 (1 T tokens).
inline constexpr double kDefaultSizingTokens = 1e12;
/// Nodes the rank map shows when it opens (the first ones).
inline constexpr int kDefaultRankMapNodes = 16;

/// An analysis chart of the scenario with its pane's opening settings, as `shardscope-cli export --chart` draws it
/// on a machine without the window (not shown; the caller owns it):
/// - Search: every layout on the scenario's GPU count (core::SearchOptions defaults: 10% headroom, every strategy,
///   offload allowed), step time against memory, the Pareto front, the scenario marked;
/// - Sweep: memory per GPU against the GPU count (core::defaultSweepValues, the default strategies);
/// - Sizing: the fewest GPUs per strategy on defaultSizingGpuIds() and the scenario's GPU, for kDefaultSizingTokens;
/// - RankMap: the TP groups of the first kDefaultRankMapNodes nodes.
/// kind is one of those four.
[[nodiscard]] std::unique_ptr<ChartBase> makeAnalysisChart(
    ChartKind kind, const core::Scenario& scenario, const core::Result& result, const core::Catalog& catalog);

} // namespace shardscope::ui
