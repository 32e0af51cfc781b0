// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/parameter_count.h"

#include <shardscope/core/evaluate.h>

namespace shardscope::ui {

ParameterCount countParameters(const core::Scenario& base, const core::ModelSpec& model)
{
    core::Scenario s = base;
    s.model = model;
    s.cluster.nodes = 1;
    s.cluster.gpusPerNode = 1;
    s.cluster.nicsPerNode = 0;
    s.parallelism = core::Parallelism{};
    s.parallelism.sharding = core::Sharding::Ddp;
    s.offload = core::Offload{};
    s.training.globalBatch = 1;
    s.training.microBatch = 1;
    if (!core::validate(s).empty())
        return {};
    core::Result r;
    core::evaluateInto(s, r, false);
    return {r.parameters, r.activeParameters, r.parameters > 0};
}

} // namespace shardscope::ui
