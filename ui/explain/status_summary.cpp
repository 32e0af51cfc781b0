// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/status_summary.h"

#include "explain/field_names.h"
#include "explain/formulas.h"
#include "explain/tooltips.h"
#include "util/units.h"
#include "explain/uncertainty_text.h"
#include "util/sharding_names.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace shardscope::ui {

namespace {
QString tr(const char* text, const char* disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("StatusSummary", text, disambiguation, n);
}

/// The memory terms, largest first.
std::vector<TermFigure> largestFirst(std::vector<TermFigure> figures)
{
    std::stable_sort(
        figures.begin(), figures.end(), [](const TermFigure& a, const TermFigure& b) { return a.value > b.value; });
    return figures;
}

/// The advice's change in words: "selective recompute", "TP=4", "16 nodes".
QString changeLabel(const core::FitSuggestion& f)
{
    switch (f.change) {
    case core::FitChange::SelectiveRecompute: return tr("selective recompute");
    case core::FitChange::FullRecompute: return tr("full recompute");
    case core::FitChange::HalveMicroBatch: return tr("micro-batch %1").arg(f.value);
    case core::FitChange::SequenceParallel: return tr("sequence parallel");
    case core::FitChange::RaiseTensorParallel: return tr("TP=%1").arg(f.value);
    case core::FitChange::DoublePipeline: return tr("PP=%1").arg(f.value);
    case core::FitChange::Zero3: return shardingShort(core::Sharding::Zero3);
    case core::FitChange::OffloadOptimizer: return tr("optimizer offload to CPU");
    case core::FitChange::DoubleNodes: return tr("%1 nodes").arg(f.value);
    case core::FitChange::OffloadActivations: return tr("activations of %1 layers offloaded").arg(f.value);
    }
    return {};
}

QString suggestion(const core::FitAdvice& advice)
{
    if (!advice.fitting.empty()) {
        QStringList parts;
        for (const core::FitSuggestion& f : advice.fitting)
            parts << tr("%1 (%2, %3/step)")
                         .arg(changeLabel(f), Units::bytes(f.result.memory.total()),
                             Units::seconds(f.result.step.total()));
        return tr("try %1").arg(parts.join(tr(" or ")));
    }
    if (!advice.closest)
        return {};
    return tr("no single change fits; closest: %1 (%2)")
        .arg(changeLabel(*advice.closest), Units::bytes(advice.closest->result.memory.total()));
}

QString timeLimit(const core::Result& r)
{
    const std::vector<TermFigure> parts = termFigures(r, core::TermGroup::StepTime);
    double total = 0;
    for (const TermFigure& p : parts)
        total += p.value;
    if (total <= 0)
        return {};
    QString text
        = tr("step %1, %2 tokens/s, MFU %3")
              .arg(Units::seconds(total),
                  Units::tokensPerSecond(termValue(r, "throughput.tokens_per_second", r.throughput.tokensPerSecond)),
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

StatusSummary summarize(const core::WhatIf& shown)
{
    const core::Result& result = shown.result;
    StatusSummary out;
    if (!result.valid) {
        out.level = StatusSummary::Level::Invalid;
        if (result.issues.empty()) {
            out.text = tr("The scenario cannot be evaluated.");
            return out;
        }
        const core::Issue& first = result.issues.front();
        out.text = tr("Invalid: %1: %2")
                       .arg(fieldLabel(QString::fromStdString(first.field)), QString::fromStdString(first.message));
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
        const QString hint = suggestion(shown.advice);
        if (!hint.isEmpty())
            out.text += QStringLiteral("; ") + hint;
        if (result.minGpus > 0)
            out.text += tr(". Fits from %1 GPUs with these settings.").arg(result.minGpus);
        else
            out.text += QLatin1Char('.');
        if (result.verdict
            == core::Verdict::
                Borderline) { // amber: over the usable memory, but possibly not over what the GPU can allocate
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
