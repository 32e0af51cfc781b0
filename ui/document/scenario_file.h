// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>
#include <shardscope/core/scenario.h>

#include <QString>
#include <QStringList>

#include <vector>

namespace shardscope::ui {

struct ScenarioLoad {
    core::Scenario scenario;
    QStringList errors;    ///< "field: message"; the scenario is unusable when not empty
    QStringList warnings;  ///< unknown fields and the like
    std::vector<core::Scenario> pins; ///< the file's pinned scenarios ("pins", document/scenario_pins.h)
    [[nodiscard]] bool ok() const { return errors.isEmpty(); }
};

/// Reads and parses a shardscope.scenario/1 file (also from Qt resources, ":/scenarios/...").
[[nodiscard]] ScenarioLoad readScenarioFile(const QString& path, const core::Catalog& catalog);

/// Writes the scenario atomically (QSaveFile: a temporary file, fsynced and renamed over the target on commit;
/// then the folder is fsynced). A failed or interrupted write leaves the previous file as it was.
/// Returns an empty string on success, otherwise the reason.
/// pins, when given, are written as the top-level "pins" array.
[[nodiscard]] QString writeScenarioFile(const QString& path, const core::Scenario& scenario,
                                        const core::Catalog& catalog, const std::vector<core::Scenario>& pins = {});

} // namespace shardscope::ui
