// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// GPU, interconnect and model catalogs and framework profiles, looked up by id (read from files: catalog_files.h).

#include "shardscope/core/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

struct Catalog {
    std::vector<GpuSpec> gpus;
    std::vector<LinkSpec> links;
    std::vector<ModelSpec> models;
    std::vector<FrameworkProfile> profiles; ///< resources/profiles/*.json
    [[nodiscard]] const GpuSpec* gpu(std::string_view id) const;
    [[nodiscard]] const LinkSpec* link(std::string_view id) const;
    [[nodiscard]] const ModelSpec* model(std::string_view id) const;
    [[nodiscard]] const FrameworkProfile* profile(std::string_view id) const;
};

/// Sets training.framework and the scenario's profile to the catalog's profile of that framework (Megatron-Core's
/// built-in one when the catalog has none). False, and nothing changed, when the catalog lacks another framework's.
bool applyFramework(Scenario& s, Framework f, const Catalog& catalog);

} // namespace shardscope::core
