// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/scenario.h>

namespace shardscope::ui {

struct ParameterCount {
    double total = 0;
    double active = 0;
    bool valid = false;
};

/// Ψ and active Ψ of model as the core counts them (core::modelSize); invalid when the count is not a
/// positive finite number (an architecture field is zero or inconsistent).
[[nodiscard]] ParameterCount countParameters(const core::ModelSpec& model);

} // namespace shardscope::ui
