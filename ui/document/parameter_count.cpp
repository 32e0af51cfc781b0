// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/parameter_count.h"

#include <shardscope/core/evaluate.h>

#include <cmath>

namespace shardscope::ui {

ParameterCount countParameters(const core::ModelSpec& model)
{
    if (model.layers <= 0 || model.hidden <= 0 || model.heads <= 0 || model.vocab <= 0)
        return {};
    const core::ModelSize size = core::modelSize(model);
    const bool ok = std::isfinite(size.total) && size.total > 0;
    return { size.total, size.active, ok };
}

} // namespace shardscope::ui
