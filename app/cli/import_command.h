// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `shardscope-cli import`: a scenario from a Hugging Face config.json, a DeepSpeed config, Megatron-LM arguments, a
// torchtitan TOML file or a scenario file (README "Command line"; core/import.h).

#include "shardscope/core/catalog.h"

#include <map>
#include <ostream>
#include <string>

namespace shardscope::cli {

/// import FILE --from SOURCE [--base SCENARIO.json] [--gpus N] [--gpu ID] [--out FILE]: the scenario JSON on `out`
/// (or written atomically to --out); warnings and where every field came from on `err`. Returns the exit code:
/// 2 for bad input (the message names the key and the supported values), 1 when the output cannot be written.
int runImport(const std::string& file, const core::Catalog& catalog, const std::map<std::string, std::string>& options,
    std::ostream& out, std::ostream& err);

} // namespace shardscope::cli
