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
    QStringList errors; ///< "field: message"; the scenario is unusable when not empty
    QStringList warnings; ///< unknown fields and the like
    std::vector<core::Scenario> pins; ///< the file's pinned scenarios ("pins", document/scenario_pins.h)
    [[nodiscard]] bool ok() const { return errors.isEmpty(); }
};

/// Largest scenario file read (bytes): the scenario parser's own limit (core/src/json_fields.h, kMaxJsonBytes).
constexpr qint64 kMaxScenarioFileBytes = qint64(16) << 20;

/// Reads and parses a shardscope.scenario/1 file (also from Qt resources, ":/scenarios/..."). Anything but a
/// regular file of at most kMaxScenarioFileBytes (a directory, FIFO, device, larger file) is refused before a
/// byte of it is read, with an error naming the path and the rule. Safe to call from a worker thread.
[[nodiscard]] ScenarioLoad readScenarioFile(const QString& path, const core::Catalog& catalog);

/// Writes the scenario atomically (core::writeFileAtomically: a temporary file beside it, every write checked,
/// fsynced, its size verified, renamed over the target; then the folder is fsynced). A failed or interrupted
/// write leaves the previous file as it was. Returns an empty string on success, otherwise the failed step and
/// why (e.g. "cannot write /x/a.json: No space left on device (/x/a.json was not changed)").
/// pins, when given, are written as the top-level "pins" array.
[[nodiscard]] QString writeScenarioFile(const QString& path, const core::Scenario& scenario,
    const core::Catalog& catalog, const std::vector<core::Scenario>& pins = {});

} // namespace shardscope::ui
