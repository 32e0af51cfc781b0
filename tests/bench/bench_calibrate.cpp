// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: calibrate on 100 runs (issue 11: "calibration of 100 runs takes under a second"). The runs are 100 valid
// layouts of five models on 1 to 8 nodes of H100 (sharding, TP, micro-batch varied), measured on a synthetic cluster
// (GEMMs at 65% of MAMF, 2 GiB extra per GPU) with a deterministic ±3% scatter; the fit starts from Megatron-Core's
// profile and chooses its constants. Prints `bench: calibrate_100_runs VALUE ms` (the fastest of three fits).
#include "shardscope/core/calibrate.h"
#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/catalog_files.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace shardscope::core;

int main(int argc, char** argv)
{
    const std::string resources = argc > 1 ? argv[1] : SHARDSCOPE_TEST_RESOURCES;
    Catalog catalog;
    if (!loadCatalogDirectory(resources + "/catalog", catalog).ok())
        return 1;
    FrameworkProfile truth = megatronProfile();
    truth.gemmEfficiency = 0.65;
    truth.memoryOverheadBytes = 2.0 * 1024 * 1024 * 1024;
    std::vector<CalibrationRun> runs;
    const char* models[] = { "llama3-8b", "mistral-7b", "llama2-13b", "qwen2.5-7b", "llama3-70b" };
    const Sharding shardings[] = { Sharding::Zero1, Sharding::Zero2, Sharding::Zero3, Sharding::FsdpFull };
    for (int i = 0; runs.size() < 100 && i < 4000; ++i) {
        Scenario s = defaultScenario(catalog);
        s.model = *catalog.model(models[i % 5]);
        s.cluster.nodes = 1 << ((i / 5) % 4);
        s.parallelism.sharding = shardings[(i / 20) % 4];
        s.parallelism.tp = 1 << ((i / 80) % 3);
        s.training.microBatch = 1 + (i / 240) % 2;
        s.training.seqLen = 4096;
        const int64_t dp = int64_t(s.cluster.nodes) * s.cluster.gpusPerNode / s.parallelism.tp;
        s.training.globalBatch = dp * s.training.microBatch * 4;
        if (!validate(s).empty())
            continue;
        Scenario t = s;
        t.profile = truth;
        const Result r = evaluate(t);
        const double scatter = 1 + 0.03 * std::sin(1.7 * double(runs.size())); // deterministic ±3%
        CalibrationRun run;
        run.scenario = s;
        run.measured[int(Figure::TokensPerSecondPerGpu)] = predictedFigure(r, Figure::TokensPerSecondPerGpu) * scatter;
        run.measured[int(Figure::ReservedPeak)] = predictedFigure(r, Figure::ReservedPeak) * scatter;
        runs.push_back(run);
    }
    if (runs.size() != 100) {
        std::printf("bench_calibrate: only %zu valid runs\n", runs.size());
        return 1;
    }
    double best = 1e300;
    Calibration c;
    for (int rep = 0; rep < 3; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        c = calibrate(runs, megatronProfile());
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    if (!c.ok()) {
        std::printf("bench_calibrate: the fit was refused: %s: %s\n", c.errors.front().field.c_str(),
            c.errors.front().message.c_str());
        return 1;
    }
    std::printf("calibrate: %zu constants fitted in %d iterations, rms log error %.4f -> %.4f\n", c.fitted.size(),
        c.iterations, c.rmsLogErrorBefore, c.rmsLogErrorAfter);
    std::printf("bench: calibrate_100_runs %.1f ms\n", best);
    return 0;
}
