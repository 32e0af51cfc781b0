// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: whatIf() latency (what the window's background job computes per edit: the scenario explained, its
// strategy variants, the fit advice), single thread, on the default scenario, DeepSeek-V3 on 2048 H800 (PP 16 x
// EP 64) and the default scenario made invalid by a nodes edit (its nearest valid values). Prints
// `bench: what_if_default_median VALUE us`, `bench: what_if_deepseek_v3_median VALUE us`,
// `bench: what_if_invalid_nodes_median VALUE us` and the p99 of each. Usage: bench_what_if [batches] (500 batches of 10 calls; a few under callgrind, with
// --toggle-collect='shardscope::core::whatIf*' to count the instructions of the calls alone).
#include "bench_scenario.h"
#include "shardscope/core/scenario.h"
#include "shardscope/core/what_if.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using shardscope::core::Scenario;

bool run(const char* name, const Scenario& s, int batches)
{
    constexpr int kWarmUp = 20, kPerBatch = 10;
    size_t sink = 0; // keeps the calls from being optimised away
    const auto call = [&] {
        const auto w = shardscope::core::whatIf(s);
        sink += w.strategies.size() + w.fixes.size();
    };
    for (int i = 0; i < kWarmUp; ++i)
        call();
    std::vector<double> us;
    us.reserve(size_t(batches));
    for (int b = 0; b < batches; ++b) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kPerBatch; ++i)
            call();
        const auto t1 = std::chrono::steady_clock::now();
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kPerBatch);
    }
    std::sort(us.begin(), us.end());
    std::printf("whatIf(): %d batches of %d calls on the %s scenario\n", batches, kPerBatch, name);
    std::printf("bench: what_if_%s_median %.1f us\n", name, us[us.size() / 2]);
    std::printf("bench: what_if_%s_p99 %.1f us\n", name, us[us.size() * 99 / 100]);
    return sink > 0;
}

} // namespace

int main(int argc, char** argv)
{
    const int batches = argc > 1 ? std::max(1, std::atoi(argv[1])) : 500;
    const std::string resources = SHARDSCOPE_TEST_RESOURCES;
    shardscope::core::Catalog catalog;
    const auto deepSeek = bench::deepSeekV3Scenario(resources, catalog);
    if (!deepSeek)
        return 1;
    // An edit that makes the scenario invalid (global batch 512 over dp 40: not a multiple), as a dragged nodes slider
    // makes most of them: whatIf() then looks for the nearest valid values (core::Fix) instead of strategies.
    Scenario invalid = shardscope::core::defaultScenario(catalog);
    invalid.cluster.nodes = 5;
    const bool ok = run("default", shardscope::core::defaultScenario(catalog), batches)
        && run("deepseek_v3", *deepSeek, batches) && run("invalid_nodes", invalid, batches);
    return ok ? 0 : 1;
}
