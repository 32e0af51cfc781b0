// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/fixes.h"

#include "shardscope/core/evaluate.h"

#include <functional>

namespace shardscope::core {

namespace {

/// Upper bounds of validate()'s ranges (README "Limits"): no candidate beyond them is tried.
constexpr int64_t kMaxGpus = 10'000'000;
constexpr int64_t kMaxBatch = 1'000'000'000;

/// Walks start, start + dir·step, ... (kFixSearchSteps candidates at most, within [lo, hi]) and appends the first
/// one with which validate() finds no issue.
void firstValid(const Scenario& s, const char* field, int64_t start, int64_t dir, int64_t step, int64_t lo, int64_t hi,
    const std::function<void(Scenario&, int64_t)>& set, std::vector<Fix>& out)
{
    for (int k = 0; k < kFixSearchSteps; ++k) {
        const int64_t v = start + dir * k * step;
        if (v < lo || v > hi)
            return;
        Scenario next = s;
        set(next, v);
        if (validate(next).empty()) {
            out.push_back({ field, v, std::move(next) });
            return;
        }
    }
}

} // namespace

std::vector<Fix> nearestValidFixes(const Scenario& s)
{
    std::vector<Fix> out;
    if (validate(s).empty())
        return out;
    const int64_t gpn = s.cluster.gpusPerNode > 0 ? s.cluster.gpusPerNode : 1;
    const auto setNodes = [](Scenario& x, int64_t v) { x.cluster.nodes = int(v); };
    firstValid(s, "cluster.nodes", s.cluster.nodes - 1, -1, 1, 1, kMaxGpus / gpn, setNodes, out);
    firstValid(s, "cluster.nodes", s.cluster.nodes + 1, +1, 1, 1, kMaxGpus / gpn, setNodes, out);

    // Global batch: the multiples of micro_batch × dp on either side of the current value.
    const int dp = dataParallel(s);
    const int64_t gb = s.training.globalBatch;
    if (dp > 0 && s.training.microBatch > 0) {
        const int64_t step = s.training.microBatch * int64_t(dp);
        const int64_t below = gb / step * step; // the multiple at or below gb
        const auto setBatch = [](Scenario& x, int64_t v) { x.training.globalBatch = v; };
        firstValid(s, "training.global_batch", below == gb ? gb - step : below, -1, step, 1, kMaxBatch, setBatch, out);
        firstValid(s, "training.global_batch", below + step, +1, step, 1, kMaxBatch, setBatch, out);
    }

    const auto setMicro = [](Scenario& x, int64_t v) { x.training.microBatch = v; };
    firstValid(s, "training.micro_batch", s.training.microBatch - 1, -1, 1, 1, gb, setMicro, out);
    firstValid(s, "training.micro_batch", s.training.microBatch + 1, +1, 1, 1, gb, setMicro, out);
    return out;
}

} // namespace shardscope::core
