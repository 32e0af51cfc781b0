// SPDX-License-Identifier: GPL-3.0-or-later
// whatIf(): the open scenario explained, beside its strategy variants, the single changes that would make it fit and
// the fixes of an invalid edit. Which variants are evaluated is decided here (once the GUI's StrategyComparison and
// StatusSummary); each is evaluated with the same stages as evaluate(), formula text only for the open scenario.
#include "shardscope/core/what_if.h"

#include "shardscope/core/evaluate.h"
#include "shardscope/core/strategies.h"

#include "evaluate_into.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace shardscope::core {

namespace {

/// How many fitting changes the advice names: the status line's one sentence has room for two ("try full recompute
/// (…) or TP=4 (…)"); our UI policy, no model figure; tst_what_if counts the advice against two.
constexpr size_t kShownFits = 2;

/// Validates, then evaluates without terms (variantTerms() builds them for a tooltip), min_gpus (not shown per
/// variant), ranges or warnings.
void evaluateVariant(StrategyVariant& v)
{
    v.result.issues = validate(v.scenario);
    if (v.result.issues.empty())
        evaluateInto(v.scenario, v.result, false);
    else
        v.result.valid = false;
}

bool divides(int64_t d, int64_t n) { return d > 0 && n % d == 0; }

FitSuggestion candidate(const Scenario& s, FitChange change, int64_t value, void (*apply)(Scenario&, int64_t))
{
    FitSuggestion f { change, value, s, {} };
    apply(f.scenario, value);
    return f;
}

} // namespace

StrategyComparison compareStrategies(const Scenario& scenario)
{
    StrategyComparison out;
    const StrategyLadder& strategies = comparedStrategies();
    out.reserve(strategies.size() + 1);
    bool ownShown = false;
    for (const Strategy& choice : strategies) {
        StrategyVariant v;
        v.label = choice.label;
        v.scenario = withStrategy(scenario, choice);
        v.current = usesStrategy(scenario, choice);
        ownShown = ownShown || v.current;
        evaluateVariant(v);
        out.push_back(std::move(v));
    }
    if (!ownShown) { // FSDP, or ZeRO-1/2 with offload: the open scenario's own bar beside the others
        StrategyVariant v;
        v.label = strategyLabel(scenario);
        v.scenario = scenario;
        v.current = true;
        v.own = true;
        evaluateVariant(v);
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<Term> variantTerms(const StrategyVariant& variant)
{
    std::vector<Term> terms;
    if (variant.result.valid) {
        Result figures;
        evaluateInto(variant.scenario, figures, false, &terms);
    }
    return terms;
}

std::vector<FitSuggestion> fitCandidates(const Scenario& s)
{
    std::vector<FitSuggestion> c;
    const Parallelism& p = s.parallelism;
    if (s.training.recompute == Recompute::None)
        c.push_back(candidate(s, FitChange::SelectiveRecompute, 0,
            [](Scenario& x, int64_t) { x.training.recompute = Recompute::Selective; }));
    if (s.training.recompute != Recompute::Full)
        c.push_back(candidate(
            s, FitChange::FullRecompute, 0, [](Scenario& x, int64_t) { x.training.recompute = Recompute::Full; }));
    if (s.training.microBatch > 1)
        c.push_back(candidate(s, FitChange::HalveMicroBatch, s.training.microBatch / 2,
            [](Scenario& x, int64_t v) { x.training.microBatch = decltype(x.training.microBatch)(v); }));
    if (p.tp > 1 && !p.sequenceParallel)
        c.push_back(candidate(
            s, FitChange::SequenceParallel, 0, [](Scenario& x, int64_t) { x.parallelism.sequenceParallel = true; }));
    for (int tp = p.tp * 2; tp <= s.cluster.gpusPerNode; tp *= 2) {
        if (!tensorParallelIssues(s.model, tp).empty())
            continue;
        c.push_back(candidate(
            s, FitChange::RaiseTensorParallel, tp, [](Scenario& x, int64_t v) { x.parallelism.tp = int(v); }));
        break;
    }
    if (divides(int64_t(p.pp) * 2, s.model.layers))
        c.push_back(candidate(s, FitChange::DoublePipeline, int64_t(p.pp) * 2,
            [](Scenario& x, int64_t v) { x.parallelism.pp = int(v); }));
    if (p.sharding != Sharding::Zero3 && p.sharding != Sharding::FsdpFull)
        c.push_back(
            candidate(s, FitChange::Zero3, 0, [](Scenario& x, int64_t) { x.parallelism.sharding = Sharding::Zero3; }));
    if (s.offload.optimizer == OffloadTarget::None)
        c.push_back(candidate(
            s, FitChange::OffloadOptimizer, 0, [](Scenario& x, int64_t) { x.offload.optimizer = OffloadTarget::Cpu; }));
    c.push_back(candidate(s, FitChange::DoubleNodes, int64_t(s.cluster.nodes) * 2,
        [](Scenario& x, int64_t v) { x.cluster.nodes = decltype(x.cluster.nodes)(v); }));
    return c;
}

std::optional<FitSuggestion> activationOffloadFit(const Scenario& scenario)
{
    const int layers = scenario.model.layers;
    if (scenario.offload.activationLayers >= layers - 1)
        return std::nullopt;
    const auto withLayers = [&](int n) {
        FitSuggestion f { FitChange::OffloadActivations, n, scenario, {} };
        f.scenario.offload.activationLayers = n;
        return f;
    };
    FitSuggestion fitting = withLayers(layers - 1);
    if (!validate(fitting.scenario).empty())
        return std::nullopt;
    evaluateInto(fitting.scenario, fitting.result, false);
    if (!fitting.result.fits)
        return std::nullopt;
    // Memory falls with every offloaded layer: bisect between the scenario's own count (does not fit) and hi (fits).
    int lo = scenario.offload.activationLayers, hi = layers - 1;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        FitSuggestion f = withLayers(mid);
        evaluateInto(f.scenario, f.result, false);
        if (f.result.fits) {
            hi = mid;
            fitting = std::move(f);
        } else {
            lo = mid;
        }
    }
    return fitting;
}

FitAdvice fitAdvice(const Scenario& scenario, const Result& result)
{
    FitAdvice advice;
    if (!result.valid || result.fits)
        return advice;
    std::vector<FitSuggestion> tried;
    for (FitSuggestion& c : fitCandidates(scenario)) {
        if (!validate(c.scenario).empty())
            continue;
        evaluateInto(c.scenario, c.result, false);
        tried.push_back(std::move(c));
    }
    if (std::optional<FitSuggestion> offload = activationOffloadFit(scenario))
        tried.push_back(std::move(*offload));
    for (const FitSuggestion& t : tried)
        if (t.result.fits)
            advice.fitting.push_back(t);
    if (!advice.fitting.empty()) {
        std::stable_sort(
            advice.fitting.begin(), advice.fitting.end(), [](const FitSuggestion& a, const FitSuggestion& b) {
                return a.result.step.total() < b.result.step.total();
            });
        if (advice.fitting.size() > kShownFits)
            advice.fitting.resize(kShownFits);
        return advice;
    }
    const auto best = std::min_element(tried.begin(), tried.end(), [](const FitSuggestion& a, const FitSuggestion& b) {
        return a.result.memory.total() < b.result.memory.total();
    });
    if (best != tried.end())
        advice.closest = std::move(*best);
    return advice;
}

WhatIf whatIf(const Scenario& scenario, const std::vector<Scenario>& pins)
{
    WhatIf w;
    w.scenario = scenario;
    w.result = explain(scenario);
    w.strategies = compareStrategies(scenario);
    w.advice = fitAdvice(scenario, w.result);
    if (!w.result.valid)
        w.fixes = nearestValidFixes(scenario);
    w.pins = pins;
    w.pinResults.reserve(pins.size());
    for (const Scenario& pin : pins)
        w.pinResults.push_back(evaluate(pin));
    return w;
}

} // namespace shardscope::core
