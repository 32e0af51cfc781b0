// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Tooltip text for every figure. A term's tooltip is the core's own account of it: formula, the expression with
/// the numbers substituted, the inputs with their meaning, the source and a link to its derivation in
/// docs/model.md, which a click on the element opens in Help → Model Reference (openDerivation()).

#include "explain/formulas.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QString>

#include <string>
#include <vector>

class QWidget;

namespace shardscope::ui {

/// Rich text for a figure that is not a term (formulas.h key): "<b>title: value</b>", what, formula, values,
/// source. For a term key without its term (a result of core::evaluate()): the core's label, the value, the
/// values and the derivation link.
[[nodiscard]] QString explainHtml(const QString& key, const QString& value = {}, const QString& values = {});

/// Rich text for a term: "<b>label: value</b>" (value: the term's own when empty), note, the formula, the
/// expression with the numbers substituted (monospace, wrapped), the inputs with their meaning, the source and the
/// derivation link.
[[nodiscard]] QString termHtml(const core::Term& term, const QString& value = {}, const QString& note = {});

/// Rich text for a sum of figures (memory per GPU, step time): "<b>title: value</b>", note, then one line per
/// figure with its value and share of the sum.
[[nodiscard]] QString sumHtml(const QString& key, const std::vector<TermFigure>& figures, const std::string& unit,
    const QString& value, const QString& note = {});

/// A value in a term's unit: "46.6 GiB" (B), "1.23 s" (s), "41.3 %" (ratio), "2.41 M tokens/s".
[[nodiscard]] QString figureText(double value, const std::string& unit);

/// The title of the docs/model.md section with this anchor ("activations" → "Activations"); the anchor if none.
[[nodiscard]] QString modelSectionTitle(const QString& anchor);
/// The docs/model.md anchor the derivation link of a tooltip points to ("" when it has none).
[[nodiscard]] QString derivationAnchor(const QString& html);
/// Opens Help → Model Reference at the section the tooltip text links to. False when it links to none.
bool openDerivation(const QString& html, QWidget* parent);

/// Group size, calls, message size, algorithm and protocol, links.
[[nodiscard]] QString collectiveValues(const core::Collective& c, const core::Scenario& s);

/// "DP reduce-scatter"
[[nodiscard]] QString collectiveLabel(const core::Collective& c);
/// "DP", "TP", ...
[[nodiscard]] QString groupLabel(core::Group g);

} // namespace shardscope::ui
