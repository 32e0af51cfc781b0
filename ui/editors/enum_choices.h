// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The values each enum control offers, with their labels (translated on use).

#include <span>

namespace shardscope::ui {

struct Choice {
    int value; ///< the enum value, as int
    const char* label; ///< untranslated label (context "Choices")
    const char* hint = ""; ///< tooltip
};

std::span<const Choice> shardingChoices();
std::span<const Choice> precisionChoices();
std::span<const Choice> optimizerChoices();
std::span<const Choice> recomputeChoices();
std::span<const Choice> accountingChoices();
std::span<const Choice> gradReduceChoices();
std::span<const Choice> masterWeightsChoices();
std::span<const Choice> momentsDtypeChoices();
std::span<const Choice> frameworkChoices();
std::span<const Choice> scheduleChoices();
std::span<const Choice> offloadChoices();
std::span<const Choice> moeOverlapChoices();
std::span<const Choice> cpCommTypeChoices();
std::span<const Choice> dispatcherChoices();
std::span<const Choice> ncclAlgoChoices();
std::span<const Choice> ncclProtoChoices();
std::span<const Choice> mlpChoices();
std::span<const Choice> normChoices();
std::span<const Choice> positionChoices();

} // namespace shardscope::ui
