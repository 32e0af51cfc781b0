// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The status line: in words, what limits the layout ("does not fit: activations 51 GiB of 80 GiB; try
/// selective recompute or TP=2"). The suggestions are core::fitAdvice()'s, in words.

#include <shardscope/core/what_if.h>

#include <QString>

namespace shardscope::ui {

struct StatusSummary {
    enum class Level { Good, Warning, Bad, Invalid };
    Level level = Level::Good;
    QString text;
};

/// shown is the scenario's core::whatIf().
[[nodiscard]] StatusSummary summarize(const core::WhatIf& shown);

} // namespace shardscope::ui
