// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/chart_kind.h"

#include <shardscope/core/catalog.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <memory>

namespace shardscope::ui {

class ChartBase;

/// An analysis chart of the scenario with its pane's opening settings (analysis/pane_defaults.h), as `shardscope-cli export --chart` draws it
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
