// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Short labels and colours for layouts, shared by the analysis views (search table, scatter, sweeps, sizing).

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/search.h>

#include <QColor>
#include <QString>

namespace shardscope::ui {

/// One Okabe–Ito colour per sharding strategy (the same in every analysis chart).
[[nodiscard]] QColor shardingColor(core::Sharding sharding);
/// "—" without pipeline; "1F1B", "interleaved ×2", "zero bubble", "GPipe".
[[nodiscard]] QString scheduleText(core::PpSchedule schedule, int virtualStages, int pp);
/// The context-parallel exchange for tables: "ring", "a2a", "all-gather".
[[nodiscard]] QString cpCommTypeShort(core::CpCommType type);
/// "none", "selective", "full".
[[nodiscard]] QString recomputeText(core::Recompute recompute);
/// "none", "optimizer → CPU", "optimizer + params → CPU".
[[nodiscard]] QString offloadText(core::OffloadTarget optimizer, core::OffloadTarget parameters);
/// Compact form for tables: "—", "opt → CPU", "opt+params → CPU".
[[nodiscard]] QString offloadShort(core::OffloadTarget optimizer, core::OffloadTarget parameters);
/// "32 GPUs · ZeRO-3 · TP 2 · PP 4 (1F1B) · CP 1 · micro-batch 1 · selective recompute"
[[nodiscard]] QString layoutSummary(const core::LayoutChoice& layout);
/// Which figures a search ranked on, for its labels. Time-like figures (step time, tokens/s, MFU, cost): "slow end"
/// (SearchOptions::pessimistic: the slow end of the 80% range), "η 70%" (the overlap charge), both ("slow end, η 70%"),
/// or "" for evaluate's figures.
[[nodiscard]] QString rankedTimeBasis(const core::SearchOptions& options);
/// Memory: "top of range" when the search screened on the top of the memory range, else "".
[[nodiscard]] QString rankedMemoryBasis(const core::SearchOptions& options);
/// "Step time (slow end)", or the label alone when basis is empty.
[[nodiscard]] QString withBasis(const QString& label, const QString& basis);
/// Group name as the rank map and collectives use it ("TP", "DP", ...).
[[nodiscard]] QString groupShort(core::Group group);
/// A categorical colour for index i: Okabe–Ito, then lighter and darker variants (24 distinct values).
[[nodiscard]] QColor categoricalColor(int i);
/// Integer with locale grouping ("23,352").
[[nodiscard]] QString groupedInt(qint64 value);

} // namespace shardscope::ui
