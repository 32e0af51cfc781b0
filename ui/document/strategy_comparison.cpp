// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/strategy_comparison.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/strategies.h>

#include <QCoreApplication>

namespace shardscope::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("StrategyComparison", text); }

/// "FSDP full", "ZeRO-1\n+CPU opt.": the open scenario's strategy, in the compared strategies' style.
QString ownLabel(const core::Scenario& s)
{
    using core::Sharding;
    static const std::pair<Sharding, const char*> names[] = {{Sharding::Ddp, "DDP"}, {Sharding::Zero1, "ZeRO-1"},
        {Sharding::Zero2, "ZeRO-2"}, {Sharding::Zero3, "ZeRO-3"}, {Sharding::FsdpFull, "FSDP full"},
        {Sharding::FsdpGradOp, "FSDP grad-op"}, {Sharding::FsdpHybrid, "FSDP hybrid"}};
    QString label;
    for (const auto& [sharding, name] : names)
        if (sharding == s.parallelism.sharding)
            label = tr(name);
    const auto place = [](core::OffloadTarget t) { return t == core::OffloadTarget::Nvme ? tr("NVMe") : tr("CPU"); };
    if (s.offload.parameters != core::OffloadTarget::None)
        label += tr("\n+%1 all").arg(place(s.offload.parameters));
    else if (s.offload.optimizer != core::OffloadTarget::None)
        label += tr("\n+%1 opt.").arg(place(s.offload.optimizer));
    return label;
}

/// Validates, then evaluates without min_gpus (not shown per variant).
void evaluateVariant(StrategyVariant& v)
{
    v.result.issues = core::validate(v.scenario);
    if (v.result.issues.empty()) {
        core::evaluateInto(v.scenario, v.result, false);
        v.result.valid = true;
    } else {
        v.result.valid = false;
    }
}
} // namespace

StrategyComparison compareStrategies(const core::Scenario& scenario)
{
    StrategyComparison out;
    const auto strategies = core::comparedStrategies();
    out.reserve(strategies.size() + 1);
    bool ownShown = false;
    for (const core::StrategyChoice& choice : strategies) {
        StrategyVariant v;
        v.label = tr(choice.label);
        v.scenario = core::withStrategy(scenario, choice);
        v.current = core::usesStrategy(scenario, choice);
        ownShown = ownShown || v.current;
        evaluateVariant(v);
        out.push_back(std::move(v));
    }
    if (!ownShown) { // FSDP, or ZeRO-1/2 with offload: the open scenario's own bar beside the others
        StrategyVariant v;
        v.label = ownLabel(scenario);
        v.scenario = scenario;
        v.current = true;
        v.own = true;
        evaluateVariant(v);
        out.push_back(std::move(v));
    }
    return out;
}

} // namespace shardscope::ui
