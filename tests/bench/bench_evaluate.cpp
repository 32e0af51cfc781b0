// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: evaluate() latency on a large 3D-parallel MoE scenario (DeepSeek-V3 on 2048 H800, PP 16 x EP 64),
// single thread. Prints `bench: evaluate_median VALUE us` and `bench: evaluate_p99 VALUE us`.
#include "bench_scenario.h"
#include "shardscope/core/evaluate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    const std::string resources = argc > 1 ? argv[1] : SHARDSCOPE_TEST_RESOURCES;
    shardscope::core::Catalog catalog;
    const auto scenario = bench::deepSeekV3Scenario(resources, catalog);
    if (!scenario)
        return 1;
    const shardscope::core::Scenario& s = *scenario;
    // warm up
    volatile double sink = 0;
    for (int i = 0; i < 1000; ++i)
        sink = sink + shardscope::core::evaluate(s).step.total();
    constexpr int kBatches = 2000, kPerBatch = 10;
    std::vector<double> us;
    us.reserve(kBatches);
    for (int b = 0; b < kBatches; ++b) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kPerBatch; ++i) {
            sink = sink + shardscope::core::evaluate(s).step.total();
        }
        const auto t1 = std::chrono::steady_clock::now();
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kPerBatch);
    }
    std::sort(us.begin(), us.end());
    std::printf("evaluate(): %d batches of %d calls on %s\n", kBatches, kPerBatch, s.name.c_str());
    std::printf("bench: evaluate_median %.3f us\n", us[us.size() / 2]);
    std::printf("bench: evaluate_p99 %.3f us\n", us[us.size() * 99 / 100]);
    return sink > 0 ? 0 : 1;
}
