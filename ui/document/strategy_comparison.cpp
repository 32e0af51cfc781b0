// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/strategy_comparison.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/strategies.h>

#include <QCoreApplication>

namespace shardscope::ui {

StrategyComparison compareStrategies(const core::Scenario& scenario)
{
    StrategyComparison out;
    const auto strategies = core::comparedStrategies();
    out.reserve(strategies.size());
    for (const core::StrategyChoice& choice : strategies) {
        StrategyVariant v;
        v.label = QCoreApplication::translate("StrategyComparison", choice.label);
        v.scenario = core::withStrategy(scenario, choice);
        v.current = core::usesStrategy(scenario, choice);
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
