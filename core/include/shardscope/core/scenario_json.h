// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Scenario files (shardscope.scenario/1) and result JSON (shardscope.result/1); examples in resources/scenarios/.

#include "shardscope/core/catalog.h"
#include "shardscope/core/enum_names.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

struct ScenarioParse {
    Scenario scenario;
    std::vector<Issue> errors; ///< malformed, wrong type, unknown id: the scenario is unusable
    std::vector<Issue> warnings; ///< unknown fields (kept as warnings)
    [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// A file's "pins" (scenarios pinned for comparison) are read up to this many, the first ones; more are ignored with
/// a warning naming the field. A product limit, not a model constant: the Compare window lays out one chart per pin,
/// and 320,000 empty pins once took the window to 1 GB.
inline constexpr std::size_t kMaxPins = 64;

/// The app's default scenario: Llama 3 70B, 4 x 8 H100, ZeRO-3 (the design example), unnamed (its title is
/// generated from its content, scenario_name.h). Needs the catalog.
Scenario defaultScenario(const Catalog& catalog);

/// Parses scenario JSON text; fields absent take the default scenario's values. A "name" equal to the one
/// generatedName() makes from the content is dropped, so it keeps following the content after edits. "pins" is
/// not read here (ui/document/scenario_pins.h reads it), only checked: not an array, or more than kMaxPins, warns.
ScenarioParse parseScenario(std::string_view json, const Catalog& catalog);

/// Writes a scenario file; catalog entries that are unchanged are written as ids, changed ones as objects. An
/// unnamed scenario is written with "name": "" (named from its content when read).
std::string scenarioToJson(const Scenario& scenario, const Catalog& catalog, int indent = 2);

/// One catalog as JSON: which = "gpus", "interconnects" or "models".
std::string catalogToJson(const Catalog& catalog, const std::string& which, int indent = 2);

/// Result JSON as `shardscope-cli evaluate` prints it.
std::string resultToJson(const Result& result, int indent = 2);

} // namespace shardscope::core
