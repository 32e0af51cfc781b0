// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What each figure is. The memory, step-time, throughput and communication figures are the core's terms
/// (core::explain(): key, label, value, formula, substituted expression, inputs, source, docs/model.md anchor):
/// this file hands them to the views in the core's order. Figures that are not terms (the charts themselves,
/// GPU capacity, excess, fit, minimum GPUs, cost, hidden and exposed time) have static text here.

#include <shardscope/core/result.h>
#include <shardscope/core/term_keys.h>

#include <QString>

#include <string_view>
#include <vector>

namespace shardscope::ui {

struct Explanation {
    const char* title = ""; ///< "GPU memory"
    const char* what = ""; ///< one sentence: what the figure is
    const char* formula = ""; ///< the formula, in the symbols of docs/model.md §conventions
    const char* source = ""; ///< paper / code it comes from
};

/// The static explanation of a figure that is not a term ("chart.memory", "kpi.cost", "comm.exposed"), or nullptr.
[[nodiscard]] const Explanation* explanation(const QString& key);

/// Translated title of key: the static title, else the core's label of the term key, else the key itself.
[[nodiscard]] QString explanationTitle(const QString& key);

/// One memory or step-time term as a view lists it.
struct TermFigure {
    QString key; ///< core::Term::key, "memory.activations"
    QString label; ///< core::Term::label, "Activations"
    double value = 0; ///< bytes or seconds
    const core::Term* term = nullptr; ///< the term itself; null when the figures come from a breakdown
};

/// The figures of a group (TermGroup::Memory or TermGroup::StepTime) of a result, in the core's order: its terms
/// (core::explain()), or for a result of core::evaluate() (no terms) the breakdown's values under the core's
/// keys and labels (core::termKeys()). Empty for an invalid result.
[[nodiscard]] std::vector<TermFigure> termFigures(const core::Result& result, core::TermGroup group);
/// The memory figures of one pipeline stage (or any breakdown without terms), in the core's order.
[[nodiscard]] std::vector<TermFigure> memoryFigures(const core::MemoryBreakdown& memory);
/// The step-time figures of a step without terms, in the core's order.
[[nodiscard]] std::vector<TermFigure> stepFigures(const core::StepTime& step);

/// The value of the figure with key (0 when absent); index is where it usually is.
[[nodiscard]] double figureValue(const std::vector<TermFigure>& figures, const QString& key, size_t index);
/// The term with key in terms, or nullptr.
[[nodiscard]] const core::Term* findTerm(const std::vector<core::Term>& terms, std::string_view key);
/// The value of the term key of a result, or `fallback` for a result without terms (core::evaluate()).
[[nodiscard]] double termValue(const core::Result& result, std::string_view key, double fallback);
/// The value of a memory (step-time) term key in a breakdown that has no terms (core/term_keys.h).
using core::breakdownValue;

} // namespace shardscope::ui
