// SPDX-License-Identifier: GPL-3.0-or-later
// The sizing stage: min_gpus by bisection over the data-parallel degree (docs/model.md §min-gpus).
#include "sizing.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

namespace shardscope::core::detail {

int minGpus(const Scenario& s, const Shape& sh, const Layout& layout, bool fitsHere, double capacity, double buffers,
    int peakStage, std::span<const StageShape> stageShapes)
{
    const int tp = layout.tp, pp = layout.pp, cp = layout.cp, ep = layout.ep, dp = layout.dp;
    // dp beyond the validated GPU limit (1e7 GPUs) is never tried, so every rank product stays in int.
    const int64_t dpMax = std::min<int64_t>(s.training.globalBatch / s.training.microBatch,
        static_cast<int64_t>(1e7) / (static_cast<int64_t>(tp) * pp * cp));
    // dp such that expert_tp·ep divides tp·dp·cp (Megatron-Core's expert grid, validate.cpp): multiples of
    // g / gcd(g, tp·cp), g = expert_tp·ep (ep / gcd(ep, cp) when expert_tp = tp)
    const int64_t grid = int64_t(layout.etp) * ep;
    const int step = ep > 1 || layout.etp != tp ? int(grid / std::gcd(grid, int64_t(tp) * cp)) : 1;
    PeakCandidates cand = peakCandidates(s, sh, stageShapes);
    // The evaluated layout's peak stage first: at another dp it is the likeliest to be over (candidatesFit stops there).
    for (int k = 1; k < cand.count; ++k)
        if (cand.index[k] == peakStage) {
            std::swap(cand.index[0], cand.index[k]);
            std::swap(cand.shape[0], cand.shape[k]);
        }
    // NCCL buffers change little with dp (only the dp-group placement): bisect with this layout's buffers,
    // then settle the answer with the exact buffers of the candidate degrees.
    // The bisection, the exact checks and the walk over valid degrees revisit some degrees: each (dp, buffers) pair is
    // tried once, and the evaluated degree's exact buffers are the ones evaluate computed (`buffers`).
    struct Tried {
        int64_t d = 0;
        double nccl = 0;
        bool fits = false;
    };
    std::array<Tried, 8> tried {};
    size_t triedCount = 0;
    // The evaluated degree with its exact buffers is already judged: evaluate found its peak (`fitsHere`).
    tried[triedCount++] = { dp, buffers, fitsHere };
    auto fitsAt = [&](int64_t d, double nccl) {
        // At one degree, more buffer memory leaves less for the stages: what fitted with more fits, what did not fit
        // with less does not.
        for (size_t i = 0; i < std::min(triedCount, tried.size()); ++i)
            if (tried[i].d == d
                && (tried[i].nccl == nccl || (tried[i].fits ? tried[i].nccl >= nccl : tried[i].nccl <= nccl)))
                return tried[i].fits;
        const int64_t mb = std::max<int64_t>(1, s.training.globalBatch / (s.training.microBatch * d));
        const bool fits = candidatesFit(s, sh, cand, shardDegrees(s, static_cast<int>(d)), mb, capacity - nccl);
        tried[triedCount++ % tried.size()] = { d, nccl, fits };
        return fits;
    };
    auto fitsExact = [&](int64_t k) {
        const int64_t d = k * step;
        return fitsAt(d, d == dp ? buffers : ncclBufferBytes(s, makeLayout(s, static_cast<int>(d))));
    };
    // Memory falls as dp grows, so bisect; the evaluated layout itself bounds the range from one side.
    int64_t lo = 1, hi = dpMax / step;
    const int64_t top = hi;
    const int64_t here = dp / step;
    if (fitsHere && here >= 1 && dp % step == 0)
        hi = here;
    else if (here >= 1 && here < hi)
        lo = here + 1;
    if (hi < lo || !fitsExact(hi))
        return 0;
    while (lo < hi) {
        const int64_t mid = (lo + hi) / 2;
        if (fitsAt(mid * step, buffers))
            hi = mid;
        else
            lo = mid + 1;
    }
    while (lo < top && !fitsExact(lo))
        ++lo;
    while (lo > 1 && fitsExact(lo - 1))
        --lo;
    // The answer is a layout the scenario can take: whole nodes (or part of one), and every rule that depends on dp (global batch a
    // multiple of micro-batch × dp, ep × expert_tp dividing tp × dp × cp, the interleaved schedule's micro-batch count, shard
    // groups; validate.cpp). Memory only falls as dp grows, so the answer is the smallest valid dp at or above the
    // fewest that fits; a valid dp divides B/b (global over micro-batch), so only those divisors are tried.
    const int64_t gpusPerRank = int64_t(tp) * pp * cp;
    auto validAt = [&](int64_t d) {
        const int64_t gpus = d * gpusPerRank;
        const int perNode = s.cluster.gpusPerNode;
        if (gpus >= perNode && gpus % perNode != 0)
            return false;
        return dataParallelValid(s, d, gpus < perNode ? static_cast<int>(gpus) : perNode); // part of one node
    };
    int64_t d = lo * step;
    if (d != dp && !validAt(d)) {
        const int64_t batches = s.training.globalBatch / s.training.microBatch;
        std::vector<int64_t> divisors;
        for (int64_t i = 1; i * i <= batches; ++i)
            if (batches % i == 0)
                divisors.insert(divisors.end(), { i, batches / i });
        std::sort(divisors.begin(), divisors.end());
        d = 0;
        for (const int64_t q : divisors)
            if (q > lo * step && q % step == 0 && q <= dpMax && (q == dp || validAt(q)) && fitsExact(q / step)) {
                d = q;
                break;
            }
    }
    // GPU counts beyond the validated limit (1e7) are reported as "none up to the limit" (0).
    const double gpusNeeded = double(d) * gpusPerRank;
    return d > 0 && gpusNeeded <= 1e7 ? static_cast<int>(gpusNeeded) : 0;
}

} // namespace shardscope::core::detail
