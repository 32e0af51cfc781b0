// SPDX-License-Identifier: GPL-3.0-or-later
// whatIf() (issue 22 step 3): which strategy variants the window compares, which single changes the "what would fit"
// advice tries and names, and that each variant's figures are the core's own for that scenario. The choices are
// pinned here by hand from the rules in core/include/shardscope/core/what_if.h.
#include "test_support.h"

#include "shardscope/core/strategies.h"
#include "shardscope/core/term_keys.h"
#include "shardscope/core/what_if.h"

#include <QObject>

using namespace shardscope::core;

namespace {
QStringList labels(const StrategyComparison& c)
{
    QStringList out;
    for (const StrategyVariant& v : c)
        out << QString::fromStdString(v.label);
    return out;
}

QList<int> changes(const std::vector<FitSuggestion>& c)
{
    QList<int> out;
    for (const FitSuggestion& f : c)
        out << int(f.change);
    return out;
}

/// Llama 3 70B on 4 × 8 H100 (defaultScenario) with every setting the advice looks at set here.
Scenario base()
{
    Scenario s = defaultScenario(sstest::catalog());
    s.training.recompute = Recompute::None;
    s.training.microBatch = 4;
    s.training.globalBatch = 512;
    s.parallelism.sharding = Sharding::Zero1;
    s.parallelism.tp = 2;
    s.parallelism.sequenceParallel = false;
    s.parallelism.pp = 1;
    s.offload = {};
    return s;
}
} // namespace

class TestWhatIf : public QObject
{
    Q_OBJECT
private slots:
    void comparesTheZeroLadderAndOffloads();
    void addsTheOwnStrategyWhenNoneIsIt();
    void variantFiguresAreTheCoresWithoutTerms();
    void variantTermsAreTheCoresWhenAsked();
    void invalidVariantCarriesItsIssues();
    void candidatesInOrderWithTheirValues();
    void candidatesSkipWhatIsAlreadySet();
    void tensorParallelSkipsWhatTheHeadsForbid();
    void adviceNamesTheFastestFittingChanges();
    void adviceNamesTheClosestWhenNoneFits();
    void activationOffloadFitIsTheFewestLayers();
    void noAdviceForAFittingOrInvalidScenario();
    void whatIfHoldsAllOfIt();
    void whatIfEvaluatesThePins();
};

void TestWhatIf::comparesTheZeroLadderAndOffloads()
{
    // defaultScenario is ZeRO-3 without offload: the fourth bar is its own, none is added.
    const Scenario s = defaultScenario(sstest::catalog());
    const StrategyComparison c = compareStrategies(s);
    QCOMPARE(labels(c), QStringList({ "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3", "ZeRO-3\n+CPU opt.", "ZeRO-3\n+CPU all" }));
    const Sharding sharding[]
        = { Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3, Sharding::Zero3, Sharding::Zero3 };
    const OffloadTarget optimizer[] = { OffloadTarget::None, OffloadTarget::None, OffloadTarget::None,
        OffloadTarget::None, OffloadTarget::Cpu, OffloadTarget::Cpu };
    const OffloadTarget parameters[] = { OffloadTarget::None, OffloadTarget::None, OffloadTarget::None,
        OffloadTarget::None, OffloadTarget::None, OffloadTarget::Cpu };
    for (size_t i = 0; i < c.size(); ++i) {
        Scenario expected = s; // only sharding and offload change
        expected.parallelism.sharding = sharding[i];
        expected.offload = { optimizer[i], parameters[i] };
        QVERIFY(c[i].scenario == expected);
        QCOMPARE(c[i].current, i == 3);
        QVERIFY(!c[i].own);
    }
}

void TestWhatIf::addsTheOwnStrategyWhenNoneIsIt()
{
    Scenario s = defaultScenario(sstest::catalog());
    s.parallelism.sharding = Sharding::FsdpHybrid;
    StrategyComparison c = compareStrategies(s);
    QCOMPARE(c.size(), size_t(7));
    QCOMPARE(QString::fromStdString(c.back().label), QStringLiteral("FSDP hybrid"));
    QVERIFY(c.back().own && c.back().current && c.back().scenario == s);
    for (size_t i = 0; i + 1 < c.size(); ++i)
        QVERIFY(!c[i].current && !c[i].own);

    // ZeRO-1 with the optimizer on the CPU is not on the ladder (which offloads only with ZeRO-3).
    s.parallelism.sharding = Sharding::Zero1;
    s.offload.optimizer = OffloadTarget::Cpu;
    c = compareStrategies(s);
    QCOMPARE(QString::fromStdString(c.back().label), QStringLiteral("ZeRO-1\n+CPU opt."));
    // ZeRO-3 with parameters on NVMe: the ladder's "+CPU all" is CPU, so the scenario's own bar is added.
    s.parallelism.sharding = Sharding::Zero3;
    s.offload = { OffloadTarget::Nvme, OffloadTarget::Nvme };
    c = compareStrategies(s);
    QCOMPARE(QString::fromStdString(c.back().label), QStringLiteral("ZeRO-3\n+NVMe all"));
    QVERIFY(c.back().own);
}

void TestWhatIf::variantFiguresAreTheCoresWithoutTerms()
{
    // whatIf() runs per edit: the variants' figures come from the fast path (no formula text), and are explain()'s.
    for (const Scenario& s : { defaultScenario(sstest::catalog()), base() }) {
        for (const StrategyVariant& v : compareStrategies(s)) {
            const Result r = explain(v.scenario);
            QCOMPARE(v.result.valid, r.valid);
            QVERIFY(v.result.terms.empty());
            if (!r.valid)
                continue;
            QCOMPARE(v.result.memory.total(), r.memory.total());
            QCOMPARE(v.result.step.total(), r.step.total());
            QCOMPARE(v.result.fits, r.fits);
            QCOMPARE(v.result.usable, r.usable);
            QCOMPARE(v.result.minGpus, 0); // not shown per variant, so not computed
            // The charts read a variant's parts from its breakdown under the core's keys (ui termFigures()): the same
            // list, order and values as explain()'s terms.
            for (const TermGroup group : { TermGroup::Memory, TermGroup::StepTime }) {
                const std::vector<const Term*> terms = termsOf(r.terms, group);
                QCOMPARE(terms.size(), termKeys(group).size());
                for (size_t i = 0; i < terms.size(); ++i) {
                    const TermKey& k = termKeys(group)[i];
                    QCOMPARE(terms[i]->key, std::string(k.key));
                    QCOMPARE(group == TermGroup::Memory ? breakdownValue(v.result.memory, k.key)
                                                        : breakdownValue(v.result.step, k.key),
                        terms[i]->value);
                }
            }
        }
    }
}

void TestWhatIf::variantTermsAreTheCoresWhenAsked()
{
    // A chart's tooltip asks for one variant's terms: explain()'s of that scenario, formula text included.
    Scenario s = defaultScenario(sstest::catalog());
    s.parallelism.sharding = Sharding::Zero2;
    s.offload.parameters = OffloadTarget::Cpu; // the own bar, not allowed (tst invalidVariantCarriesItsIssues)
    const StrategyComparison c = compareStrategies(s);
    for (const StrategyVariant& v : c) {
        const std::vector<Term> terms = variantTerms(v);
        if (!v.result.valid) {
            QVERIFY(terms.empty());
            continue;
        }
        const Result r = explain(v.scenario);
        QVERIFY(!terms.empty());
        QCOMPARE(terms.size(), r.terms.size());
        for (size_t i = 0; i < terms.size(); ++i)
            QVERIFY2(terms[i] == r.terms[i], r.terms[i].key.c_str()); // key, value, formula, expression, inputs
    }
    QVERIFY(!c.back().result.valid);
}

void TestWhatIf::invalidVariantCarriesItsIssues()
{
    // Parameter offload needs ZeRO-3 or FSDP full shard (validate.cpp): with ZeRO-2 + parameters on the CPU, the
    // scenario's own bar is refused and says why; the ladder's ZeRO-3 + CPU all is allowed.
    Scenario s = defaultScenario(sstest::catalog());
    s.parallelism.sharding = Sharding::Zero2;
    s.offload.parameters = OffloadTarget::Cpu;
    QVERIFY(!validate(s).empty());
    const StrategyComparison c = compareStrategies(s);
    QVERIFY(c.back().own);
    QVERIFY(!c.back().result.valid);
    QCOMPARE(c.back().result.issues.size(), validate(s).size());
    QVERIFY(c[5].result.valid);
}

void TestWhatIf::candidatesInOrderWithTheirValues()
{
    // base(): no recompute, micro-batch 4, tp 2 without SP, pp 1, ZeRO-1, no offload, 4 nodes. Llama 3 70B has 64
    // heads, 8 KV heads, ffn_hidden 28672 and 80 layers: tp 4 divides them all (and 8 KV heads are a multiple of 4);
    // pp 2 divides 80.
    const Scenario s = base();
    const std::vector<FitSuggestion> c = fitCandidates(s);
    QCOMPARE(changes(c),
        QList<int>({ int(FitChange::SelectiveRecompute), int(FitChange::FullRecompute), int(FitChange::HalveMicroBatch),
            int(FitChange::SequenceParallel), int(FitChange::RaiseTensorParallel), int(FitChange::DoublePipeline),
            int(FitChange::Zero3), int(FitChange::OffloadOptimizer), int(FitChange::DoubleNodes) }));
    QCOMPARE(c[2].value, int64_t(4 / 2));
    QCOMPARE(c[4].value, int64_t(2 * 2));
    QCOMPARE(c[5].value, int64_t(1 * 2));
    QCOMPARE(c[8].value, int64_t(4 * 2));
    // Each changes its one field only.
    Scenario e = s;
    e.training.recompute = Recompute::Selective;
    QVERIFY(c[0].scenario == e);
    e = s;
    e.training.recompute = Recompute::Full;
    QVERIFY(c[1].scenario == e);
    e = s;
    e.training.microBatch = 2;
    QVERIFY(c[2].scenario == e);
    e = s;
    e.parallelism.sequenceParallel = true;
    QVERIFY(c[3].scenario == e);
    e = s;
    e.parallelism.tp = 4;
    QVERIFY(c[4].scenario == e);
    e = s;
    e.parallelism.pp = 2;
    QVERIFY(c[5].scenario == e);
    e = s;
    e.parallelism.sharding = Sharding::Zero3;
    QVERIFY(c[6].scenario == e);
    e = s;
    e.offload.optimizer = OffloadTarget::Cpu;
    QVERIFY(c[7].scenario == e);
    e = s;
    e.cluster.nodes = 8;
    QVERIFY(c[8].scenario == e);
}

void TestWhatIf::candidatesSkipWhatIsAlreadySet()
{
    // Full recompute, micro-batch 1, tp 8 = GPUs per node with SP, pp 16 (32 does not divide 80 layers), FSDP full
    // shard, optimizer offloaded: only more nodes is left.
    Scenario s = base();
    s.training.recompute = Recompute::Full;
    s.training.microBatch = 1;
    s.parallelism.tp = 8;
    s.parallelism.sequenceParallel = true;
    s.parallelism.pp = 16; // 80 % 32 = 16
    s.parallelism.sharding = Sharding::FsdpFull;
    s.offload.optimizer = OffloadTarget::Cpu;
    QCOMPARE(changes(fitCandidates(s)), QList<int>({ int(FitChange::DoubleNodes) }));
    // Selective recompute: full recompute is still tried, selective is not.
    s.training.recompute = Recompute::Selective;
    QCOMPARE(changes(fitCandidates(s)), QList<int>({ int(FitChange::FullRecompute), int(FitChange::DoubleNodes) }));
}

void TestWhatIf::tensorParallelSkipsWhatTheHeadsForbid()
{
    // A larger tp is offered only when tensorParallelIssues() allows it: with 12 heads and 4 KV heads, tp 8 does not
    // divide the heads, so from tp 4 no larger tp within 8 GPUs is offered; from tp 2, tp 4 is.
    Scenario s = base();
    s.model.heads = 12;
    s.model.kvHeads = 4;
    s.parallelism.tp = 4;
    QVERIFY(!tensorParallelIssues(s.model, 8).empty());
    for (const FitSuggestion& f : fitCandidates(s))
        QVERIFY(f.change != FitChange::RaiseTensorParallel);
    s.parallelism.tp = 2; // 4 divides 12 heads and 4 KV heads
    QVERIFY(tensorParallelIssues(s.model, 4).empty());
    bool offered = false;
    for (const FitSuggestion& f : fitCandidates(s))
        if (f.change == FitChange::RaiseTensorParallel) {
            offered = true;
            QCOMPARE(f.value, int64_t(4));
        }
    QVERIFY(offered);
}

void TestWhatIf::adviceNamesTheFastestFittingChanges()
{
    // Llama 2 13B with ZeRO-1, tp 2, micro-batch 2 and no recompute on 4 × 8 H100 does not fit; three single
    // changes do.
    Scenario s = base();
    s.model = sstest::presetModel("llama2-13b");
    s.training.microBatch = 2;
    const Result r = evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(!r.fits);
    // The rule, applied here candidate by candidate: the valid ones that fit, fastest first, at most two.
    std::vector<std::pair<double, int>> fitting; // step time, candidate index
    const std::vector<FitSuggestion> all = fitCandidates(s);
    for (size_t i = 0; i < all.size(); ++i) {
        const Result ri = evaluate(all[i].scenario);
        if (ri.valid && ri.fits)
            fitting.push_back({ ri.step.total(), int(i) });
    }
    QVERIFY2(fitting.size() > 2, "the case must have more fitting changes than the advice names");
    std::stable_sort(fitting.begin(), fitting.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const FitAdvice advice = fitAdvice(s, r);
    QCOMPARE(advice.fitting.size(), size_t(2));
    QVERIFY(!advice.closest);
    for (size_t k = 0; k < 2; ++k) {
        QCOMPARE(int(advice.fitting[k].change), int(all[size_t(fitting[k].second)].change));
        QCOMPARE(advice.fitting[k].result.step.total(), fitting[k].first);
        QVERIFY(advice.fitting[k].result.fits);
    }
}

void TestWhatIf::adviceNamesTheClosestWhenNoneFits()
{
    // base() (Llama 3 70B, ZeRO-1, tp 2, micro-batch 4, no recompute on 4 × 8 H100): no single change fits; the
    // closest is the one with the least memory.
    const Scenario s = base();
    const Result r = evaluate(s);
    QVERIFY(r.valid);
    QVERIFY(!r.fits);
    double least = 0;
    int leastIndex = -1;
    const std::vector<FitSuggestion> all = fitCandidates(s);
    for (size_t i = 0; i < all.size(); ++i) {
        const Result ri = evaluate(all[i].scenario);
        if (!ri.valid)
            continue;
        QVERIFY(!ri.fits);
        if (leastIndex < 0 || ri.memory.total() < least) {
            least = ri.memory.total();
            leastIndex = int(i);
        }
    }
    QVERIFY(leastIndex >= 0);
    const FitAdvice advice = fitAdvice(s, r);
    QVERIFY(advice.fitting.empty());
    QVERIFY(advice.closest);
    QCOMPARE(int(advice.closest->change), int(all[size_t(leastIndex)].change));
    QCOMPARE(advice.closest->result.memory.total(), least);
}

void TestWhatIf::activationOffloadFitIsTheFewestLayers()
{
    // Llama 2 13B (40 layers) with ZeRO-1, tp 2, micro-batch 4, no recompute, Megatron-Core, pp 1 on 4 × 8 H100 does
    // not fit; offloading the activations of n layers lowers the peak with every layer, so the advice is the n that
    // fits where n − 1 does not, as evaluate() says of each.
    Scenario s = base();
    s.model = sstest::presetModel("llama2-13b");
    QVERIFY(!evaluate(s).fits);
    const std::optional<FitSuggestion> f = activationOffloadFit(s);
    QVERIFY(f);
    QCOMPARE(int(f->change), int(FitChange::OffloadActivations));
    const int n = int(f->value);
    QVERIFY(n > 1 && n < s.model.layers);
    QCOMPARE(f->scenario.offload.activationLayers, n);
    QVERIFY(f->result.fits);
    Scenario fewer = s;
    fewer.offload.activationLayers = n - 1;
    QVERIFY(!evaluate(fewer).fits);
    QCOMPARE(evaluate(f->scenario).memory.total(), f->result.memory.total());
    // not where Megatron-Core refuses it (pp > 1 or recompute), nor when even all but one layer do not fit
    Scenario piped = s;
    piped.parallelism.pp = 2;
    QVERIFY(!activationOffloadFit(piped));
    Scenario recomputed = s;
    recomputed.training.recompute = Recompute::Selective;
    QVERIFY(!activationOffloadFit(recomputed));
    Scenario huge = s;
    huge.model = sstest::presetModel("llama3.1-405b");
    huge.training.globalBatch = 512;
    QVERIFY(!activationOffloadFit(huge));
}

void TestWhatIf::noAdviceForAFittingOrInvalidScenario()
{
    Scenario fits = defaultScenario(sstest::catalog());
    fits.model = sstest::presetModel("llama3-8b");
    const Result r = evaluate(fits);
    QVERIFY(r.fits);
    FitAdvice advice = fitAdvice(fits, r);
    QVERIFY(advice.fitting.empty() && !advice.closest);
    Scenario invalid = fits;
    invalid.parallelism.tp = 6; // does not divide Llama 3 8B's 32 heads
    advice = fitAdvice(invalid, evaluate(invalid));
    QVERIFY(advice.fitting.empty() && !advice.closest);
}

void TestWhatIf::whatIfHoldsAllOfIt()
{
    const Scenario s = defaultScenario(sstest::catalog());
    WhatIf w = whatIf(s);
    QVERIFY(w.scenario == s);
    const Result r = explain(s);
    QCOMPARE(w.result.memory.total(), r.memory.total());
    QCOMPARE(w.result.terms.size(), r.terms.size());
    QCOMPARE(w.result.minGpus, r.minGpus);
    QCOMPARE(labels(w.strategies), labels(compareStrategies(s)));
    QVERIFY(w.fixes.empty());

    // Five nodes with global batch 512 (tst_fixes): invalid, so the one-click fixes come with it.
    Scenario invalid = s;
    invalid.cluster.nodes = 5;
    w = whatIf(invalid);
    QVERIFY(!w.result.valid);
    QCOMPARE(w.fixes.size(), nearestValidFixes(invalid).size());
    QCOMPARE(w.fixes.size(), size_t(4));
    QCOMPARE(w.fixes[0].field, std::string("cluster.nodes"));
    QCOMPARE(w.fixes[0].value, int64_t(4));
}

// The pins ride along: each is evaluated as evaluate() would, in order, an invalid one with its issues.
void TestWhatIf::whatIfEvaluatesThePins()
{
    const Scenario s = defaultScenario(sstest::catalog());
    QVERIFY(whatIf(s).pins.empty());
    QVERIFY(whatIf(s).pinResults.empty());
    Scenario twoNodes = s;
    twoNodes.cluster.nodes = 2;
    Scenario invalid = s;
    invalid.cluster.nodes = 5; // global batch 512 does not split over 40 GPUs (tst_fixes)
    const WhatIf w = whatIf(s, { twoNodes, invalid });
    QCOMPARE(w.pins.size(), size_t(2));
    QVERIFY(w.pins[0] == twoNodes && w.pins[1] == invalid);
    QCOMPARE(w.pinResults.size(), size_t(2));
    const Result r = evaluate(twoNodes);
    QCOMPARE(w.pinResults[0].memory.total(), r.memory.total());
    QCOMPARE(w.pinResults[0].step.total(), r.step.total());
    QVERIFY(w.pinResults[0].memory.total() != w.result.memory.total()); // ZeRO-3 shards over half the GPUs
    QVERIFY(!w.pinResults[1].valid);
    QCOMPARE(w.pinResults[1].issues.size(), evaluate(invalid).issues.size());
}

QTEST_APPLESS_MAIN(TestWhatIf)
#include "tst_what_if.moc"
