// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The benchmarks' DeepSeek-V3 scenario (resources/scenarios/moe-deepseek-v3-h800.shardscope.json: 2048 H800, PP 16 x
// EP 64), read with the shipped catalog.

#include "shardscope/core/catalog.h"
#include "shardscope/core/catalog_files.h"
#include "shardscope/core/scenario_json.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace bench {

/// The catalog of `resources`/catalog and the DeepSeek-V3 scenario read with it; nullopt when either fails to load.
inline std::optional<shardscope::core::Scenario> deepSeekV3Scenario(
    const std::string& resources, shardscope::core::Catalog& catalog)
{
    if (!shardscope::core::loadCatalogDirectory(resources + "/catalog", catalog).ok())
        return std::nullopt;
    std::ifstream in(resources + "/scenarios/moe-deepseek-v3-h800.shardscope.json");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto parsed = shardscope::core::parseScenario(ss.str(), catalog);
    if (!parsed.ok())
        return std::nullopt;
    return parsed.scenario;
}

} // namespace bench
