// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// shardscope-cli calibrate RUNS.json --out PROFILE.json [--framework NAME] [--fit KEY,...] [--format table|json], and
// the --profile PROFILE.json option of the commands that evaluate a scenario (core/calibrate.h).

#include "shardscope/core/catalog.h"
#include "shardscope/core/scenario.h"

#include <map>
#include <ostream>
#include <string>

namespace shardscope::cli {

/// Fits a profile to the runs in `runsText` (read from `runsPath`) and writes it atomically to --out; prints the
/// per-run errors before and after and the fitted values (table or JSON). Returns 0, 2 (invalid runs or a refused
/// fit, each message naming the field) or 1 (the profile could not be written).
int runCalibrate(const std::string& runsText, const std::string& runsPath, const core::Catalog& catalog,
    const std::map<std::string, std::string>& options, const std::string& format, std::ostream& out, std::ostream& err);

/// With --profile PROFILE.json among `options`, replaces the scenario's profile by that file's; false (exit 2) with
/// parseProfile's messages, or when the profile's framework is not the scenario's training.framework.
bool applyProfileOption(const std::map<std::string, std::string>& options, core::Scenario& scenario, std::ostream& err);

} // namespace shardscope::cli
