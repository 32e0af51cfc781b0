// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What each figure is, the formula it follows and its source: static text keyed by item
/// ("memory.optimizer_states", "comm.dp.reduce_scatter", "kpi.mfu", "chart.memory"). The numbers come from
/// the core; this text only explains them (docs/model.md has the derivations).

#include <QString>

namespace shardscope::ui {

struct Explanation {
    const char* title = "";    ///< "Optimizer states"
    const char* what = "";     ///< one sentence: what the figure is
    const char* formula = "";  ///< the formula, in the symbols of docs/model.md §conventions
    const char* source = "";   ///< paper / code it comes from
};

/// The explanation for key, or nullptr. Collective keys fall back from "comm.dp.all_gather" to "comm.all_gather".
[[nodiscard]] const Explanation* explanation(const QString& key);

/// Translated title of key (the key itself when unknown).
[[nodiscard]] QString explanationTitle(const QString& key);

} // namespace shardscope::ui
