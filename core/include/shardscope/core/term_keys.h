// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The fixed list of the breakdown terms evaluate() gives (memory per GPU, step time), in the order views list them:
/// the one place that names a term key, its label, its docs/model.md section and the field of a result that holds
/// its value when the result has no terms (core::evaluate(), a pipeline stage's memory). The stages build each term
/// under these names; the views and the lessons read them here.

#include "shardscope/core/result.h"

#include <span>
#include <string_view>

namespace shardscope::core {

struct TermKey {
    std::string_view key; ///< "memory.activations"
    TermGroup group;
    std::string_view label; ///< "Activations"
    std::string_view unit; ///< "B", "s"
    std::string_view anchor; ///< section of docs/model.md that derives it
    double MemoryBreakdown::*memory = nullptr; ///< the field of a memory key
    double StepTime::*step = nullptr; ///< the field of a step-time key
};

/// Every memory key (MemoryBreakdown's parts), then every step-time key (StepTime's parts).
std::span<const TermKey> termKeys();
/// The keys of one group (Memory or StepTime), in order.
std::span<const TermKey> termKeys(TermGroup group);
/// The entry of key, or nullptr.
const TermKey* findTermKey(std::string_view key);
/// The value of a memory (step-time) key in a breakdown; 0 for a key of another group or none.
double breakdownValue(const MemoryBreakdown& memory, std::string_view key);
double breakdownValue(const StepTime& step, std::string_view key);

} // namespace shardscope::core
