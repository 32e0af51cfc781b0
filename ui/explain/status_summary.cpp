// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/status_summary.h"

#include "explain/field_names.h"
#include "explain/formulas.h"
#include "explain/tooltips.h"
#include "util/units.h"
#include "views/uncertainty_text.h"

#include <shardscope/core/evaluate.h>

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <vector>

namespace shardscope::ui {

namespace {
QString tr(const char* text, const char* disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("StatusSummary", text, disambiguation, n);
}

struct Candidate {
    QString label;
    std::function<bool(core::Scenario&)> change; // false: not applicable
};

struct Tried {
    QString label;
    core::Result result;
};

/// The memory terms, largest first.
std::vector<TermFigure> largestFirst(std::vector<TermFigure> figures)
{
    std::stable_sort(figures.begin(), figures.end(), [](const TermFigure& a, const TermFigure& b) { return a.value > b.value; });
    return figures;
}

bool divides(int64_t d, int64_t n) { return d > 0 && n % d == 0; }

std::vector<Candidate> candidates(const core::Scenario& s)
{
    using core::Scenario;
    std::vector<Candidate> c;
    const auto& p = s.parallelism;
    if (s.training.recompute == core::Recompute::None)
        c.push_back({tr("selective recompute"), [](Scenario& x) { x.training.recompute = core::Recompute::Selective; return true; }});
    if (s.training.recompute != core::Recompute::Full)
        c.push_back({tr("full recompute"), [](Scenario& x) { x.training.recompute = core::Recompute::Full; return true; }});
    if (s.training.microBatch > 1)
        c.push_back({tr("micro-batch %1").arg(s.training.microBatch / 2),
                     [](Scenario& x) { x.training.microBatch /= 2; return true; }});
    if (p.tp > 1 && !p.sequenceParallel)
        c.push_back({tr("sequence parallel"), [](Scenario& x) { x.parallelism.sequenceParallel = true; return true; }});
    for (int tp = p.tp * 2; tp <= s.cluster.gpusPerNode; tp *= 2) {
        if (!core::tensorParallelIssues(s.model, tp).empty())
            continue;
        c.push_back({tr("TP=%1").arg(tp), [tp](Scenario& x) { x.parallelism.tp = tp; return true; }});
        break;
    }
    if (divides(p.pp * 2, s.model.layers))
        c.push_back({tr("PP=%1").arg(p.pp * 2), [](Scenario& x) { x.parallelism.pp *= 2; return true; }});
    if (p.sharding != core::Sharding::Zero3 && p.sharding != core::Sharding::FsdpFull)
        c.push_back({tr("ZeRO-3"), [](Scenario& x) { x.parallelism.sharding = core::Sharding::Zero3; return true; }});
    if (s.offload.optimizer == core::OffloadTarget::None)
        c.push_back({tr("optimizer offload to CPU"), [](Scenario& x) { x.offload.optimizer = core::OffloadTarget::Cpu; return true; }});
    c.push_back({tr("%1 nodes").arg(s.cluster.nodes * 2), [](Scenario& x) { x.cluster.nodes *= 2; return true; }});
    return c;
}

std::vector<Tried> tryCandidates(const core::Scenario& s)
{
    std::vector<Tried> out;
    for (const Candidate& cand : candidates(s)) {
        core::Scenario x = s;
        if (!cand.change(x) || !core::validate(x).empty())
            continue;
        Tried t{cand.label, {}};
        core::evaluateInto(x, t.result, false);
        out.push_back(std::move(t));
    }
    return out;
}

QString suggestion(const core::Scenario& s)
{
    std::vector<Tried> tried = tryCandidates(s);
    std::vector<const Tried*> fitting;
    for (const Tried& t : tried)
        if (t.result.fits)
            fitting.push_back(&t);
    if (!fitting.empty()) {
        std::sort(fitting.begin(), fitting.end(),
                  [](const Tried* a, const Tried* b) { return a->result.step.total() < b->result.step.total(); });
        QStringList parts;
        for (size_t i = 0; i < std::min<size_t>(2, fitting.size()); ++i)
            parts << tr("%1 (%2, %3/step)")
                         .arg(fitting[i]->label, Units::bytes(fitting[i]->result.memory.total()),
                              Units::seconds(fitting[i]->result.step.total()));
        return tr("try %1").arg(parts.join(tr(" or ")));
    }
    const auto best = std::min_element(tried.begin(), tried.end(), [](const Tried& a, const Tried& b) {
        return a.result.memory.total() < b.result.memory.total();
    });
    if (best == tried.end())
        return {};
    return tr("no single change fits; closest: %1 (%2)").arg(best->label, Units::bytes(best->result.memory.total()));
}

QString timeLimit(const core::Result& r)
{
    const std::vector<TermFigure> parts = termFigures(r, core::TermGroup::StepTime);
    double total = 0;
    for (const TermFigure& p : parts)
        total += p.value;
    if (total <= 0)
        return {};
    QString text = tr("step %1, %2 tokens/s, MFU %3")
                       .arg(Units::seconds(total), Units::tokensPerSecond(termValue(r, "throughput.tokens_per_second", r.throughput.tokensPerSecond)),
                            Units::percent(termValue(r, "throughput.mfu", r.throughput.mfu)));
    // Name the biggest overhead beyond compute when it is material.
    const TermFigure* worst = nullptr;
    for (const TermFigure& p : parts)
        if (p.key != QLatin1String("step_time.compute") && (!worst || p.value > worst->value))
            worst = &p;
    const double share = worst ? worst->value / total : 0;
    if (share < 0.05)
        return text + tr("; compute-bound");
    QString what = worst->label.toLower();
    if (worst->key == QLatin1String("step_time.exposed_communication")) {
        const auto top = std::max_element(r.collectives.begin(), r.collectives.end(),
                                          [](const auto& a, const auto& b) { return a.exposedTime < b.exposedTime; });
        if (top != r.collectives.end() && top->exposedTime > 0)
            what += tr(" (mostly %1)").arg(collectiveLabel(*top));
    }
    return text + tr("; limited by %1 at %2 of the step").arg(what, Units::percent(share, 0));
}
} // namespace

StatusSummary summarize(const core::Scenario& scenario, const core::Result& result)
{
    StatusSummary out;
    if (!result.valid) {
        out.level = StatusSummary::Level::Invalid;
        if (result.issues.empty()) {
            out.text = tr("The scenario cannot be evaluated.");
            return out;
        }
        const core::Issue& first = result.issues.front();
        out.text = tr("Invalid: %1: %2").arg(fieldLabel(QString::fromStdString(first.field)),
                                             QString::fromStdString(first.message));
        if (result.issues.size() > 1)
            out.text += tr(" (and %n more, see Issues)", nullptr, int(result.issues.size() - 1));
        return out;
    }
    const std::vector<TermFigure> items = largestFirst(termFigures(result, core::TermGroup::Memory));
    double total = 0;
    for (const TermFigure& f : items)
        total += f.value;
    const QString largest = items.empty() ? QString() : items.front().label.toLower();
    const double largestBytes = items.empty() ? 0 : items.front().value;
    if (!result.fits) {
        out.level = StatusSummary::Level::Bad;
        out.text = tr("Does not fit: %1 of %2 usable per GPU (%3 over); largest item %4 %5")
                       .arg(Units::bytes(total), Units::bytes(result.usable), Units::bytes(total - result.usable),
                            largest, Units::bytes(largestBytes));
        if (result.pp > 1)
            out.text += tr(" on stage %1").arg(result.peakStage);
        const QString hint = suggestion(scenario);
        if (!hint.isEmpty())
            out.text += QStringLiteral("; ") + hint;
        if (result.minGpus > 0)
            out.text += tr(". Fits from %1 GPUs with these settings.").arg(result.minGpus);
        else
            out.text += QLatin1Char('.');
        if (result.verdict == core::Verdict::Borderline) { // amber: over the usable memory, but possibly not over what the GPU can allocate
            out.level = StatusSummary::Level::Warning;
            out.text = borderlineSentence(result) + QStringLiteral(". ") + out.text;
        }
        return out;
    }
    const double free = result.usable > 0 ? 1.0 - total / result.usable : 0;
    out.level = free < 0.05 || result.verdict == core::Verdict::Borderline ? StatusSummary::Level::Warning
                                                                           : StatusSummary::Level::Good;
    out.text = tr("Fits: %1 of %2 usable per GPU (%3 free; largest item %4 %5); %6.")
                   .arg(Units::bytes(total), Units::bytes(result.usable), Units::percent(free, 0), largest,
                        Units::bytes(largestBytes), timeLimit(result));
    if (result.verdict == core::Verdict::Borderline) // the sentence holds the estimate; then the time
        out.text = borderlineSentence(result)
            + tr("; largest item %1 %2; %3.").arg(largest, Units::bytes(largestBytes), timeLimit(result));
    if (!result.warnings.empty()) {
        out.level = StatusSummary::Level::Warning;
        out.text += tr(" %n warning(s), see Issues.", nullptr, int(result.warnings.size()));
    }
    return out;
}

} // namespace shardscope::ui
