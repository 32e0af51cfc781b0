// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

#include <array>

namespace shardscope::ui {

/// The charts that can be exported (File → Export…, the charts' context menus, `shardscope-cli export --chart`).
enum class ChartKind { Memory, Strategy, Communication, Time, Timeline };

inline constexpr std::array<ChartKind, 5> kAllChartKinds{ChartKind::Memory, ChartKind::Strategy, ChartKind::Communication,
                                                         ChartKind::Time, ChartKind::Timeline};

/// "memory", "strategy", "communication", "time", "timeline" (the CLI's --chart values and file-name stems).
[[nodiscard]] QString chartKindId(ChartKind kind);
/// Parses chartKindId() spellings (also "comm" and "step-time"). False for anything else.
[[nodiscard]] bool parseChartKind(QStringView text, ChartKind& out);
/// Translated name for menus and the dialog: "Memory per GPU", ...
[[nodiscard]] QString chartKindName(ChartKind kind);

} // namespace shardscope::ui
