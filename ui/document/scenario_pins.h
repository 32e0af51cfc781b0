// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Pinned scenarios in a scenario file: a top-level "pins" array of full scenario objects (shardscope.scenario/1
/// each), after the open scenario's own fields. The core parser only checks the key (an array of at most
/// core::kMaxPins), so files with pins still open in older builds and in `shardscope-cli`.

#include <shardscope/core/catalog.h>
#include <shardscope/core/scenario.h>

#include <QByteArray>
#include <QStringList>

#include <string>
#include <vector>

namespace shardscope::ui {

/// The file's first core::kMaxPins pins, in order (core::parseScenario warns of the rest). A pin that does not parse is left out with a warning ("pins[1].parallelism.tp: ...").
[[nodiscard]] std::vector<core::Scenario> readPins(
    const QByteArray& fileBytes, const core::Catalog& catalog, QStringList* warnings = nullptr);

/// scenarioJson (scenarioToJson output, one JSON object) with a "pins" array appended before its closing brace;
/// unchanged when pins is empty.
[[nodiscard]] std::string appendPins(
    const std::string& scenarioJson, const std::vector<core::Scenario>& pins, const core::Catalog& catalog);

} // namespace shardscope::ui
