// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/scenario.h>

namespace shardscope::ui {

struct ParameterCount {
    double total = 0;
    double active = 0;
    bool valid = false;
};

/// Ψ of model as the core counts it: the model evaluated by core::evaluateInto on one GPU without model
/// parallelism (the count does not depend on the layout). Invalid when the architecture fails validation.
[[nodiscard]] ParameterCount countParameters(const core::Scenario& base, const core::ModelSpec& model);

} // namespace shardscope::ui
