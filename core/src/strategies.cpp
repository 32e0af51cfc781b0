// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/strategies.h"

#include <utility>

namespace shardscope::core {

namespace {
constexpr StrategyChoice kStrategies[] = {
    { "DDP", Sharding::Ddp, OffloadTarget::None, OffloadTarget::None },
    { "ZeRO-1", Sharding::Zero1, OffloadTarget::None, OffloadTarget::None },
    { "ZeRO-2", Sharding::Zero2, OffloadTarget::None, OffloadTarget::None },
    { "ZeRO-3", Sharding::Zero3, OffloadTarget::None, OffloadTarget::None },
    { "ZeRO-3\n+CPU opt.", Sharding::Zero3, OffloadTarget::Cpu, OffloadTarget::None },
    { "ZeRO-3\n+CPU all", Sharding::Zero3, OffloadTarget::Cpu, OffloadTarget::Cpu },
};
} // namespace

std::span<const StrategyChoice> comparedStrategies() { return kStrategies; }

Scenario withStrategy(const Scenario& scenario, const StrategyChoice& choice)
{
    Scenario s = scenario;
    s.parallelism.sharding = choice.sharding;
    s.offload.optimizer = choice.optimizer;
    s.offload.parameters = choice.parameters;
    return s;
}

std::string strategyLabel(const Scenario& scenario)
{
    static constexpr std::pair<Sharding, const char*> kNames[]
        = { { Sharding::Ddp, "DDP" }, { Sharding::Zero1, "ZeRO-1" }, { Sharding::Zero2, "ZeRO-2" },
              { Sharding::Zero3, "ZeRO-3" }, { Sharding::FsdpFull, "FSDP full" },
              { Sharding::FsdpGradOp, "FSDP grad-op" }, { Sharding::FsdpHybrid, "FSDP hybrid" } };
    std::string label;
    for (const auto& [sharding, name] : kNames)
        if (sharding == scenario.parallelism.sharding)
            label = name;
    const auto place = [](OffloadTarget t) { return t == OffloadTarget::Nvme ? "NVMe" : "CPU"; };
    if (scenario.offload.parameters != OffloadTarget::None)
        label += std::string("\n+") + place(scenario.offload.parameters) + " all";
    else if (scenario.offload.optimizer != OffloadTarget::None)
        label += std::string("\n+") + place(scenario.offload.optimizer) + " opt.";
    return label;
}

bool usesStrategy(const Scenario& scenario, const StrategyChoice& choice)
{
    const Scenario s = withStrategy(scenario, choice);
    return s.parallelism == scenario.parallelism && s.offload == scenario.offload;
}

} // namespace shardscope::core
