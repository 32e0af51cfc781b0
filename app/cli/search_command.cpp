// SPDX-License-Identifier: GPL-3.0-or-later
#include "search_command.h"

#include "shardscope/core/evaluate.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/search.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace shardscope::cli {
namespace {

bool intOption(
    const std::map<std::string, std::string>& o, const char* key, int lo, int hi, int& out, std::ostream& err)
{
    auto it = o.find(key);
    if (it == o.end())
        return true;
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0' || v < lo || v > hi) {
        err << "shardscope-cli: error: " << key << ": '" << it->second << "' must be a whole number from " << lo
            << " to " << hi << "\n";
        return false;
    }
    out = static_cast<int>(v);
    return true;
}

const char* offloadName(core::OffloadTarget t) { return core::toString(t); }

} // namespace

int runSearch(const core::Scenario& base, const core::Catalog& catalog, const std::map<std::string, std::string>& o,
    std::ostream& out, std::ostream& err)
{
    core::SearchOptions opt;
    int top = 10, gpus = 0;
    opt.threads = 1;
    bool ok = intOption(o, "--top", 1, 100000, top, err) && intOption(o, "--gpus", 1, 10000000, gpus, err)
        && intOption(o, "--min-gpus", 1, 10000000, opt.minGpus, err)
        && intOption(o, "--max-gpus", 1, 10000000, opt.maxGpus, err)
        && intOption(o, "--max-tp", 1, 1024, opt.maxTp, err) && intOption(o, "--max-pp", 1, 1024, opt.maxPp, err)
        && intOption(o, "--max-cp", 1, 1024, opt.maxCp, err)
        && intOption(o, "--max-micro-batch", 1, 1024, opt.maxMicroBatch, err)
        && intOption(o, "--threads", 1, 256, opt.threads, err);
    if (!ok)
        return 2;
    if (gpus > 0)
        opt.minGpus = opt.maxGpus = gpus;
    core::Scenario scenario = base; // --headroom overrides the scenario's cluster.memory_headroom
    if (auto it = o.find("--headroom"); it != o.end()) {
        char* end = nullptr;
        scenario.cluster.memoryHeadroom = std::strtod(it->second.c_str(), &end);
        const double h = scenario.cluster.memoryHeadroom;
        if (end == it->second.c_str() || *end != '\0' || !(h >= 0 && h <= 0.5)) {
            err << "shardscope-cli: error: --headroom: '" << it->second
                << "' must be a fraction from 0 to 0.5 (it overrides cluster.memory_headroom)\n";
            return 2;
        }
    }
    if (auto it = o.find("--overlap-efficiency"); it != o.end()) {
        char* end = nullptr;
        opt.overlapEfficiency = std::strtod(it->second.c_str(), &end);
        if (end == it->second.c_str() || *end != '\0' || !(opt.overlapEfficiency >= 0 && opt.overlapEfficiency <= 1)) {
            err << "shardscope-cli: error: --overlap-efficiency: '" << it->second
                << "' must be a fraction from 0 to 1 (the share of assumed-hidden communication that is hidden)\n";
            return 2;
        }
    }
    if (auto it = o.find("--objective"); it != o.end()) {
        if (it->second == "tokens")
            opt.objective = core::SearchObjective::TokensPerSecond;
        else if (it->second == "cost")
            opt.objective = core::SearchObjective::CostPerToken;
        else if (it->second == "headroom")
            opt.objective = core::SearchObjective::MemoryHeadroom;
        else {
            err << "shardscope-cli: error: --objective: '" << it->second << "' is not one of tokens, cost, headroom\n";
            return 2;
        }
    }
    opt.allowOffload = o.find("--no-offload") == o.end();
    opt.pessimistic = o.find("--guaranteed-fit") != o.end(); // rank by the 80% ranges' pessimistic ends
    const std::string format = o.count("--format") ? o.at("--format") : "json";
    if (format != "json" && format != "csv") {
        err << "shardscope-cli: error: --format: search prints json or csv, not '" << format << "'\n";
        return 2;
    }

    const core::SearchResult res = core::search(scenario, opt);
    const size_t n = std::min<size_t>(res.points.size(), static_cast<size_t>(top));
    if (format == "csv") {
        // The figures are the ones the search ranked on (core::rankedFigures): the last two columns say which.
        out << "rank,gpus,sharding,tp,pp,cp,cp_comm_type,ep,pp_schedule,virtual_stages,micro_batch,recompute,"
               "offload_optimizer,offload_parameters,activation_layers,step_time_s,memory_bytes,tokens_per_second,cost_"
               "per_token_usd,pareto,"
               "pessimistic,overlap_efficiency\n";
        std::vector<bool> onFront(res.points.size(), false);
        for (size_t i : res.pareto)
            onFront[i] = true;
        for (size_t i = 0; i < n; ++i) {
            const auto& p = res.points[i];
            const auto& l = p.layout;
            char buf[512];
            std::snprintf(buf, sizeof buf,
                "%zu,%d,%s,%d,%d,%d,%s,%d,%s,%d,%d,%s,%s,%s,%d,%.6g,%.6g,%.6g,%.6g,%d,%d,%.6g\n", i + 1, l.gpus,
                core::toString(l.sharding), l.tp, l.pp, l.cp, core::toString(l.cpCommType), l.ep,
                core::toString(l.schedule), l.virtualStages, l.microBatch, core::toString(l.recompute),
                offloadName(l.offloadOptimizer), offloadName(l.offloadParameters), l.activationLayers, p.stepTime,
                p.memory, p.tokensPerSecond, p.costPerToken, onFront[i] ? 1 : 0, opt.pessimistic ? 1 : 0,
                opt.overlapEfficiency);
            out << buf;
        }
        return 0;
    }
    char head[256];
    std::snprintf(head, sizeof head,
        "{\n\"schema\": \"shardscope.search/1\",\n\"evaluated\": %lld,\n\"feasible\": %lld,\n\"seconds\": %.6f,\n",
        static_cast<long long>(res.evaluated), static_cast<long long>(res.feasible), res.seconds);
    // ranked_on: which figures the ranking used; each result's "ranked" holds them (core::rankedFigures), beside
    // evaluate's own result.
    out << head << "\"pareto_size\": " << res.pareto.size() << ",\n\"ranked_on\": "
        << nlohmann::json { { "pessimistic", opt.pessimistic }, { "overlap_efficiency", opt.overlapEfficiency } }.dump()
        << ",\n\"results\": [";
    for (size_t i = 0; i < n; ++i) {
        const core::SearchPoint& p = res.points[i];
        const core::Scenario s = core::applyLayout(scenario, p.layout);
        const core::Result r = core::evaluate(s);
        const nlohmann::json ranked = { { "step_time", p.stepTime }, { "memory_per_gpu", p.memory },
            { "tokens_per_second", p.tokensPerSecond }, { "mfu", p.mfu }, { "cost_per_token_usd", p.costPerToken } };
        out << (i ? ",\n" : "\n") << "{\"scenario\": " << core::scenarioToJson(s, catalog, -1)
            << ", \"ranked\": " << ranked.dump() << ", \"result\": " << core::resultToJson(r, -1) << "}";
    }
    out << "\n]\n}\n";
    return 0;
}

} // namespace shardscope::cli
