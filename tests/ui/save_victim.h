// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What save_victim writes, shared with tst_no_lost_work so the test knows every byte the victim can leave.

#include <shardscope/core/catalog.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/scenario_json.h>

#include <string>

namespace shardscope::test {

/// The scenario name is padded to this many bytes so that each save (serialise, write, fsync, rename) takes
/// long enough for a kill to land inside it.
constexpr size_t kVictimPadBytes = size_t(4) << 20;

/// The n-th scenario `save_victim save` writes: the default one, its name padded, n in the name and nodes.
inline core::Scenario victimScenario(int n, const core::Catalog& catalog)
{
    core::Scenario s = core::defaultScenario(catalog);
    s.name = "save " + std::to_string(n) + " " + std::string(kVictimPadBytes, char('a' + n % 26));
    s.cluster.nodes = 1 + n % 16;
    return s;
}

/// The exact bytes of its file (writeScenarioFile: the JSON and a newline).
inline std::string victimBytes(int n, const core::Catalog& catalog)
{
    return core::scenarioToJson(victimScenario(n, catalog), catalog) + "\n";
}

/// The scenario `save_victim autosave` pins after its edit (the autosave keeps the pins).
inline core::Scenario victimPin(const core::Catalog& catalog)
{
    core::Scenario s = core::defaultScenario(catalog);
    s.name = "pinned before a crash";
    s.parallelism.tp = 8;
    return s;
}

/// The unsaved edit `save_victim autosave` makes before it is killed.
inline void victimEdit(core::Scenario& s)
{
    s.name = "unsaved work, autosaved before a crash";
    s.cluster.nodes = 5;
    s.training.globalBatch = 640;
}

} // namespace shardscope::test
