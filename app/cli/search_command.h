// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `shardscope-cli search`: best layouts for a scenario's model and GPUs (README "Command line").

#include "shardscope/core/catalog.h"
#include "shardscope/core/scenario.h"

#include <map>
#include <ostream>
#include <string>

namespace shardscope::cli {

/// Options: --top K, --format json|csv, --gpus N | --min-gpus N --max-gpus N, --max-tp N, --max-pp N, --max-cp N,
/// --max-micro-batch N, --headroom F, --objective tokens|cost|headroom, --threads N, --no-offload, --guaranteed-fit,
/// --overlap-efficiency F.
/// Returns the exit code (2 with a message on `err` for a bad option).
int runSearch(const core::Scenario& base, const core::Catalog& catalog,
    const std::map<std::string, std::string>& options, std::ostream& out, std::ostream& err);

} // namespace shardscope::cli
