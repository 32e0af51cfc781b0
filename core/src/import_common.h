// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal pieces shared by the importers (import_*.cpp): the context each parser writes into, and the steps every
// source needs (catalog preset matching, GPU counts, framework profiles).

#include "shardscope/core/import.h"

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <string_view>

namespace shardscope::core::detail {

/// What a parser works on: the scenario (base values already in place), the catalog, and the record of which fields
/// the source gave.
struct ImportContext {
    ImportResult& out;
    const char* source; ///< "hf-config", "deepspeed", ...
    const Catalog& catalog;
    const ImportOptions& options;
    std::set<std::string> given; ///< fields the source set (importFieldNames() spelling)

    Scenario& s() { return out.scenario; }
    void set(const std::string& field) { given.insert(field); }
    void error(const std::string& field, const std::string& message) { out.errors.push_back({ field, message }); }
    void warning(const std::string& field, const std::string& message) { out.warnings.push_back({ field, message }); }
    /// Sets training.framework (and its profile); an error naming `field` when the catalog has no such profile.
    void framework(Framework f, const std::string& field);
};

/// Each source's parser. They read `text` (already size-checked) and set fields of cx.s(), marking each with set().
void importHfConfig(std::string_view text, ImportContext& cx);
void importDeepSpeed(std::string_view text, ImportContext& cx);
void importMegatronArgs(std::string_view text, ImportContext& cx);
void importTorchTitan(std::string_view text, ImportContext& cx);

/// The model with a catalog preset's identity (id, name, source, published total) when its architecture is that
/// preset's; otherwise id "" and the given name. `ownName`: the source names the model itself (a config.json's
/// _name_or_path), and that name is kept even over a preset's (Qwen2 7B has Qwen2.5 7B's architecture). Of presets
/// with the same architecture (llama3-70b, llama3.1-70b) the base scenario's `current` one is kept.
void adoptPreset(ModelSpec& m, const std::string& name, bool ownName, const ModelSpec& current, const Catalog& catalog);

/// Sets the cluster to `gpus` GPUs: gpus_per_node kept when it divides gpus, one node of `gpus` when gpus is
/// smaller than a node. False with a message otherwise.
bool setGpuCount(Cluster& c, int gpus, std::string& message);

/// Parses `text` as one JSON object into `root` (JSON importers' first step); otherwise an error, naming the field
/// where parsing stopped or saying "a WHAT must be a JSON object, not TYPE", and false.
bool parseJsonObject(std::string_view text, const char* what, nlohmann::json& root, ImportContext& cx);

/// "a, b or c" of a list, for messages naming the supported values.
std::string oneOf(std::initializer_list<std::string_view> values);

} // namespace shardscope::core::detail
