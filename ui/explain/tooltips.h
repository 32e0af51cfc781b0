// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Tooltip text for every figure: what it is, the formula, the values plugged in and the source.

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QString>

namespace shardscope::ui {

/// Rich text: "<b>title: value</b>", what, formula, values, source (explain/formulas.h text for key).
[[nodiscard]] QString explainHtml(const QString& key, const QString& value = {}, const QString& values = {});

/// The inputs a memory item depends on, e.g. "Ψ = 70.55 B, t = 1, p = 1, N_d = 32 (ZeRO-3)".
[[nodiscard]] QString memoryValues(const QString& key, const core::Scenario& s, const core::Result& r,
                                   const core::StageInfo* stage = nullptr);
/// The inputs of a step-time item, e.g. "FLOPs/token = 4.2e11, tokens/step = 4.19 M, 32 × 989 TFLOP/s × 0.80".
[[nodiscard]] QString timeValues(const QString& key, const core::Scenario& s, const core::Result& r);
/// Group size, calls, message size, algorithm and protocol, links.
[[nodiscard]] QString collectiveValues(const core::Collective& c, const core::Scenario& s);

/// "comm.dp.reduce_scatter"
[[nodiscard]] QString collectiveKey(const core::Collective& c);
/// "DP reduce-scatter"
[[nodiscard]] QString collectiveLabel(const core::Collective& c);
/// "DP", "TP", ...
[[nodiscard]] QString groupLabel(core::Group g);

} // namespace shardscope::ui
