// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/strategy_comparison.h"

#include <shardscope/core/evaluate.h>

#include <QCoreApplication>

namespace shardscope::ui {

namespace {
struct Spec {
    const char* label;
    core::Sharding sharding;
    core::OffloadTarget optimizer;
    core::OffloadTarget parameters;
};
constexpr Spec kSpecs[] = {
    {QT_TRANSLATE_NOOP("StrategyComparison", "DDP"), core::Sharding::Ddp, core::OffloadTarget::None,
     core::OffloadTarget::None},
    {QT_TRANSLATE_NOOP("StrategyComparison", "ZeRO-1"), core::Sharding::Zero1, core::OffloadTarget::None,
     core::OffloadTarget::None},
    {QT_TRANSLATE_NOOP("StrategyComparison", "ZeRO-2"), core::Sharding::Zero2, core::OffloadTarget::None,
     core::OffloadTarget::None},
    {QT_TRANSLATE_NOOP("StrategyComparison", "ZeRO-3"), core::Sharding::Zero3, core::OffloadTarget::None,
     core::OffloadTarget::None},
    {QT_TRANSLATE_NOOP("StrategyComparison", "ZeRO-3\n+CPU opt."), core::Sharding::Zero3,
     core::OffloadTarget::Cpu, core::OffloadTarget::None},
    {QT_TRANSLATE_NOOP("StrategyComparison", "ZeRO-3\n+CPU all"), core::Sharding::Zero3,
     core::OffloadTarget::Cpu, core::OffloadTarget::Cpu},
};
} // namespace

StrategyComparison compareStrategies(const core::Scenario& scenario)
{
    StrategyComparison out;
    out.reserve(std::size(kSpecs));
    for (const Spec& spec : kSpecs) {
        StrategyVariant v;
        v.label = QCoreApplication::translate("StrategyComparison", spec.label);
        v.scenario = scenario;
        v.scenario.parallelism.sharding = spec.sharding;
        v.scenario.offload.optimizer = spec.optimizer;
        v.scenario.offload.parameters = spec.parameters;
        v.current = v.scenario.parallelism == scenario.parallelism && v.scenario.offload == scenario.offload;
        // min_gpus is not shown per variant, so skip its search: validate, then evaluate without it.
        v.result.issues = core::validate(v.scenario);
        if (v.result.issues.empty()) {
            core::evaluateInto(v.scenario, v.result, false);
            v.result.valid = true;
        } else {
            v.result.valid = false;
        }
        out.push_back(std::move(v));
    }
    return out;
}

} // namespace shardscope::ui
