// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The status line: in words, what limits the layout ("does not fit: activations 51 GiB of 80 GiB; try
/// selective recompute or TP=2"). Suggestions are checked by evaluating modified copies with the core.

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QString>

namespace shardscope::ui {

struct StatusSummary {
    enum class Level { Good, Warning, Bad, Invalid };
    Level level = Level::Good;
    QString text;
};

[[nodiscard]] StatusSummary summarize(const core::Scenario& scenario, const core::Result& result);

} // namespace shardscope::ui
