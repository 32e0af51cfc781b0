// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/strategies.h"

#include "shardscope/core/enum_names.h"

namespace shardscope::core {

namespace {

/// "ZeRO-3", "ZeRO-3\n+CPU opt.", "ZeRO-3\n+NVMe all": the sharding's short label, then the offload on a second line.
std::string ladderLabel(Sharding sharding, OffloadTarget optimizer, OffloadTarget parameters)
{
    std::string label = shardingName(sharding).shortLabel;
    if (parameters != OffloadTarget::None)
        label += std::string("\n+") + offloadLabel(parameters) + " all";
    else if (optimizer != OffloadTarget::None)
        label += std::string("\n+") + offloadLabel(optimizer) + " opt.";
    return label;
}

Strategy compared(
    Sharding sharding, OffloadTarget optimizer = OffloadTarget::None, OffloadTarget parameters = OffloadTarget::None)
{
    return { ladderLabel(sharding, optimizer, parameters), sharding, optimizer, parameters, std::nullopt };
}

/// "ZeRO-3 + full recompute + CPU offload": the short label, then what the rung adds to selective recompute.
Strategy swept(Sharding sharding, Recompute recompute, OffloadTarget offload = OffloadTarget::None)
{
    std::string label = shardingName(sharding).shortLabel;
    if (recompute == Recompute::Full)
        label += " + full recompute";
    if (offload != OffloadTarget::None)
        label += std::string(" + ") + offloadLabel(offload) + " offload";
    return { label, sharding, offload, offload, recompute };
}

} // namespace

const StrategyLadder& comparedStrategies()
{
    static const StrategyLadder ladder = {
        compared(Sharding::Ddp),
        compared(Sharding::Zero1),
        compared(Sharding::Zero2),
        compared(Sharding::Zero3),
        compared(Sharding::Zero3, OffloadTarget::Cpu),
        compared(Sharding::Zero3, OffloadTarget::Cpu, OffloadTarget::Cpu),
    };
    return ladder;
}

const StrategyLadder& sweepStrategies()
{
    static const StrategyLadder ladder = {
        swept(Sharding::Ddp, Recompute::Selective),
        swept(Sharding::Zero1, Recompute::Selective),
        swept(Sharding::Zero2, Recompute::Selective),
        swept(Sharding::Zero3, Recompute::Selective),
        swept(Sharding::Zero3, Recompute::Full),
        swept(Sharding::Zero3, Recompute::Full, OffloadTarget::Cpu),
    };
    return ladder;
}

Scenario withStrategy(const Scenario& scenario, const Strategy& strategy)
{
    Scenario s = scenario;
    s.parallelism.sharding = strategy.sharding;
    s.offload.optimizer = strategy.optimizer;
    s.offload.parameters = strategy.parameters;
    if (strategy.recompute)
        s.training.recompute = *strategy.recompute;
    return s;
}

std::string strategyLabel(const Scenario& scenario)
{
    return ladderLabel(scenario.parallelism.sharding, scenario.offload.optimizer, scenario.offload.parameters);
}

bool usesStrategy(const Scenario& scenario, const Strategy& strategy)
{
    const Scenario s = withStrategy(scenario, strategy);
    return s.parallelism == scenario.parallelism && s.offload == scenario.offload
        && s.training.recompute == scenario.training.recompute;
}

} // namespace shardscope::core
