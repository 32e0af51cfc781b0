// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Importing the configurations users already have (issue 14): a Hugging Face config.json, a DeepSpeed config JSON,
/// Megatron-LM arguments (a command line or a launch script), a torchtitan TOML job file, or a scenario file.
/// Each parser is pure: text in, a Scenario out, with where every field came from. Nothing is evaluated or
/// executed: JSON and TOML are parsed by bounded readers, shell text is split into words and never run.

#include "shardscope/core/catalog.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope::core {

enum class ImportSource { HfConfig, DeepSpeed, MegatronArgs, TorchTitan, Scenario };

/// "hf-config", "deepspeed", "megatron-args", "torchtitan" or "scenario" (the CLI's --from values).
[[nodiscard]] bool parseImportSource(std::string_view text, ImportSource& out);
[[nodiscard]] const char* toString(ImportSource source);
/// "hf-config, deepspeed, megatron-args, torchtitan, scenario", for messages.
[[nodiscard]] const char* importSourceNames();

/// The format of a file from its name and first bytes: *.toml → torchtitan, *.sh or a text that starts with "#!" or
/// holds "--num-layers"-style flags → megatron-args, JSON with "schema": "shardscope.scenario/1" → scenario, with
/// "model_type" or "architectures" → hf-config, with "zero_optimization" or "train_batch_size" → deepspeed.
/// False when nothing matches (the caller asks the user).
[[nodiscard]] bool detectImportSource(std::string_view fileName, std::string_view text, ImportSource& out);

/// Largest file an import reads (bytes): the scenario parser's limit; a config.json or a launch script is kilobytes.
inline constexpr size_t kMaxImportBytes = size_t { 16 } * 1024 * 1024;

/// What the command line adds to a source: a GPU count and a catalog GPU (0 / "" = not given).
struct ImportOptions {
    int gpus = 0; ///< --gpus N: nodes × gpus_per_node = N (gpus_per_node kept when it divides N)
    std::string gpu; ///< --gpu ID: cluster.gpu, and its own scale-up link when the catalog names one
};

/// Where one scenario field came from: the source ("hf-config", "deepspeed", ...), "--gpus" / "--gpu", "base" (the
/// --base scenario) or "default" (the default scenario, when no --base was given).
struct FieldOrigin {
    std::string field; ///< scenario path, e.g. "parallelism.tp", "model.layers"
    std::string origin;
};

struct ImportResult {
    Scenario scenario;
    std::vector<FieldOrigin> fromWhere; ///< every field importFieldNames() lists, in that order
    std::vector<Issue> errors; ///< the key and the rule (with the supported values); the scenario is unusable
    std::vector<Issue> warnings; ///< unknown keys, values ShardScope cannot model, approximations
    [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// The scenario fields an import reports the origin of (model architecture, cluster size and GPU, training,
/// parallelism, offload).
[[nodiscard]] const std::vector<std::string>& importFieldNames();

/// Imports `text` of format `source`. Fields the source does not give keep `base`'s values and are reported as
/// "base", or "default" when baseIsDefault. The result is validated only as far as the source's own rules go (e.g.
/// DeepSpeed's train_batch_size = micro × accumulation × data-parallel ranks); run validate() on it as on any scenario.
[[nodiscard]] ImportResult importConfig(ImportSource source, std::string_view text, const Scenario& base,
    bool baseIsDefault, const ImportOptions& options, const Catalog& catalog);

} // namespace shardscope::core
