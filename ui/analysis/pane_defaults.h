// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The settings the analysis panes open with; the exports of a pane not opened yet (and the CLI) draw with them too.

#include <string>
#include <vector>

namespace shardscope::ui {

/// GPU types the sizing pane compares when it opens (with the scenario's own): H100, H200, B200, MI300X.
[[nodiscard]] const std::vector<std::string>& defaultSizingGpuIds();
/// Token budget the sizing pane starts with: 10^12 (1 T tokens).
inline constexpr double kDefaultSizingTokens = 1e12;
/// Nodes the rank map shows when it opens (the first ones).
inline constexpr int kDefaultRankMapNodes = 16;

} // namespace shardscope::ui
