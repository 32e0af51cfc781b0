// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: layouts scored per second by search() for Llama 3.1 405B on 1,024 H100 (one thread), and the
// same search on every core. Prints `bench: search_layouts_per_second N layouts/s` (single core).
#include "shardscope/core/catalog.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/search.h"
#include "shardscope/core/catalog_files.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

int main(int argc, char** argv)
{
    const std::string resources = argc > 1 ? argv[1] : SHARDSCOPE_TEST_RESOURCES;
    shardscope::core::Catalog catalog;
    if (!shardscope::core::loadCatalogDirectory(resources + "/catalog", catalog).ok())
        return 1;
    std::ifstream in(resources + "/scenarios/3d-llama3.1-405b-h100.shardscope.json");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto parsed = shardscope::core::parseScenario(ss.str(), catalog);
    if (!parsed.ok())
        return 1;
    shardscope::core::SearchOptions opt;
    opt.threads = 1;
    double best = 0;
    long long evaluated = 0, feasible = 0;
    for (int run = 0; run < 5; ++run) {
        const auto r = shardscope::core::search(parsed.scenario, opt);
        best = std::max(best, r.evaluated / r.seconds);
        evaluated = r.evaluated;
        feasible = r.feasible;
    }
    opt.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto mt = shardscope::core::search(parsed.scenario, opt);
    std::printf("search: %lld layouts, %lld fit, %s on %d GPUs; %d threads: %.3f s\n", evaluated, feasible,
        parsed.scenario.model.name.c_str(), parsed.scenario.cluster.gpus(), opt.threads, mt.seconds);
    std::printf("bench: search_layouts_per_second %.0f layouts/s\n", best);
    std::printf("bench: search_seconds_405b_1024gpus %.4f s\n", evaluated / best);
    return 0;
}
