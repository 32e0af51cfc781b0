// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>
#include <shardscope/core/scenario.h>

#include <QString>
#include <QStringList>

namespace shardscope::ui {

struct ScenarioLoad {
    core::Scenario scenario;
    QStringList errors;    ///< "field: message"; the scenario is unusable when not empty
    QStringList warnings;  ///< unknown fields and the like
    [[nodiscard]] bool ok() const { return errors.isEmpty(); }
};

/// Reads and parses a shardscope.scenario/1 file (also from Qt resources, ":/scenarios/...").
[[nodiscard]] ScenarioLoad readScenarioFile(const QString& path, const core::Catalog& catalog);

/// Writes the scenario atomically (QSaveFile: a temporary file renamed over the target on commit).
/// Returns an empty string on success, otherwise the reason.
[[nodiscard]] QString writeScenarioFile(const QString& path, const core::Scenario& scenario,
                                        const core::Catalog& catalog);

} // namespace shardscope::ui
