// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

#include <array>

namespace shardscope::ui {

/// The charts that can be exported (File → Export…, the charts' context menus, `shardscope-cli export --chart`).
enum class ChartKind {
    Memory,
    Strategy,
    Communication,
    Time,
    Timeline,
    Search,
    Sweep,
    Sizing,
    RankMap,
    Compare,
    Waterfall
};

/// Drawn from a scenario and its result alone (makeChart): the report's charts, File → Copy Chart.
inline constexpr std::array<ChartKind, 5> kScenarioChartKinds { ChartKind::Memory, ChartKind::Strategy,
    ChartKind::Communication, ChartKind::Time, ChartKind::Timeline };
/// What `shardscope-cli export --chart` draws: the scenario's charts and the analyses it runs itself with their
/// default settings (export/analysis_figures.h). Compare and Waterfall need pins and exist in the window only.
inline constexpr std::array<ChartKind, 9> kCliChartKinds { ChartKind::Memory, ChartKind::Strategy,
    ChartKind::Communication, ChartKind::Time, ChartKind::Timeline, ChartKind::Search, ChartKind::Sweep,
    ChartKind::Sizing, ChartKind::RankMap };
inline constexpr std::array<ChartKind, 11> kAllChartKinds { ChartKind::Memory, ChartKind::Strategy,
    ChartKind::Communication, ChartKind::Time, ChartKind::Timeline, ChartKind::Search, ChartKind::Sweep,
    ChartKind::Sizing, ChartKind::RankMap, ChartKind::Compare, ChartKind::Waterfall };

/// "memory", "strategy", "communication", "time", "timeline", "search", "sweep", "sizing", "rank-map", "compare",
/// "waterfall" (the CLI's --chart values and file-name stems).
[[nodiscard]] QString chartKindId(ChartKind kind);
/// Parses chartKindId() spellings (also "comm", "step-time" and "rankmap"). False for anything else.
[[nodiscard]] bool parseChartKind(QStringView text, ChartKind& out);
/// Translated name for menus and the dialog: "Memory per GPU", ...
[[nodiscard]] QString chartKindName(ChartKind kind);
/// True for the kinds makeChart() draws from a scenario alone (kScenarioChartKinds).
[[nodiscard]] bool isScenarioChart(ChartKind kind);

} // namespace shardscope::ui
