// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: the step timeline of the longest pipeline the limits allow in practice (issue 23: a 1,024-layer
// model over 1,024 stages with 65,536 micro-batches took 108 s and 20 GB before the timeline was bounded).
// Prints `bench: timeline_pp1024_mb65536_ms VALUE ms` (median of 5) and `bench: timeline_pp1024_blocks N blocks`.
#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/timeline.h"
#include "shardscope/core/catalog_files.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    const std::string resources = argc > 1 ? argv[1] : SHARDSCOPE_TEST_RESOURCES;
    shardscope::core::Catalog catalog;
    if (!shardscope::core::loadCatalogDirectory(resources + "/catalog", catalog).ok())
        return 1;
    const auto parsed = shardscope::core::parseScenario(R"({"schema": "shardscope.scenario/1",
        "model": {"layers": 1024, "hidden": 1024, "heads": 16, "kv_heads": 16, "ffn_hidden": 4096, "vocab": 51200,
                  "mlp": "gelu", "norm": "layernorm", "position_embedding": "learned", "tied_embeddings": true},
        "cluster": {"gpu": "a100-sxm4-80gb", "nodes": 128, "gpus_per_node": 8, "intra_node": "nvlink3", "inter_node": "ib-hdr200"},
        "training": {"seq_len": 2048, "global_batch": 65536, "micro_batch": 1},
        "parallelism": {"sharding": "zero1", "pp": 1024, "pp_schedule": "1f1b"}})",
        catalog);
    if (!parsed.ok())
        return 1;
    const auto r = shardscope::core::evaluate(parsed.scenario);
    if (!r.valid)
        return 1;
    std::vector<double> ms;
    size_t blocks = 0;
    for (int i = 0; i < 5; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto t = shardscope::core::buildTimeline(parsed.scenario, r);
        const auto t1 = std::chrono::steady_clock::now();
        blocks = t.blocks.size();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("bench: timeline_pp1024_mb65536_ms %.1f ms\n", ms[ms.size() / 2]);
    std::printf("bench: timeline_pp1024_blocks %zu blocks\n", blocks);
    return 0;
}
