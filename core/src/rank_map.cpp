// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/rank_map.h"

#include "shardscope/core/evaluate.h"

#include "shardscope/core/layout.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace shardscope::core {

RankCoord rankCoord(const Scenario& s, int rank)
{
    const auto& p = s.parallelism;
    const int dp = std::max(1, dataParallel(s));
    RankCoord c;
    c.rank = rank;
    c.node = rank / std::max(1, s.cluster.gpusPerNode);
    c.localGpu = rank % std::max(1, s.cluster.gpusPerNode);
    c.domain = rank / std::max(1, std::min(s.cluster.gpu.scaleUpDomain, s.cluster.gpusPerNode * s.cluster.nodes));
    int r = rank;
    c.tp = r % p.tp;
    r /= p.tp;
    c.cp = r % p.cp;
    r /= p.cp;
    c.dp = r % dp;
    c.pp = r / dp;
    // The expert grid of a stage (megatron/core/parallel_state.py, RankGenerator order "tp-ep-dp-pp"): expert_tp
    // fastest, then ep, then expert_dp, over the stage's tp·cp·dp ranks.
    const int ep = s.model.isMoe() ? std::max(1, p.ep) : 1;
    const int etp = s.model.isMoe() ? std::max(1, p.effectiveExpertTp()) : std::max(1, p.tp);
    const int q = c.tp + p.tp * (c.cp + p.cp * c.dp); // position in the stage
    c.ep = q / etp % ep;
    c.expertDp = q / (etp * ep);
    return c;
}

namespace {
int rankOf(const Scenario& s, int tp, int cp, int dp, int pp)
{
    const int dpN = std::max(1, dataParallel(s));
    return tp + s.parallelism.tp * (cp + s.parallelism.cp * (dp + dpN * pp));
}

/// Blocks of `block` consecutive ranks (nodes, scale-up domains) that first + i·stride, i < size, touches. With
/// stride ≥ block each member is in its own block; with a smaller stride no block between the first and the last
/// member is skipped.
int blocksSpanned(int64_t first, int64_t stride, int64_t size, int64_t block)
{
    if (size <= 0)
        return 0;
    if (stride >= block)
        return int(size);
    const int64_t last = first + (size - 1) * stride;
    return int(last / block - first / block + 1);
}
} // namespace

RankGroup groupOf(const Scenario& s, int rank, Group g, bool expertDp, size_t maxMembers)
{
    const auto& p = s.parallelism;
    const RankCoord c = rankCoord(s, rank);
    const int dpN = std::max(1, dataParallel(s));
    const int ep = s.model.isMoe() ? std::max(1, p.ep) : 1;
    const int etp = s.model.isMoe() ? std::max(1, p.effectiveExpertTp()) : std::max(1, p.tp);
    const int stage = rankOf(s, 0, 0, 0, c.pp);
    const int q = rank - stage; // position in the stage's expert grid
    const int expertTpRank = q % etp; // position in its expert tensor-parallel group
    RankGroup out; // { group, expertDataParallel, size, first, stride, members (filled below), ... }
    switch (g) {
    case Group::Tp: out = { g, false, p.tp, rankOf(s, 0, c.cp, c.dp, c.pp), 1, {}, 0, false, true }; break;
    case Group::Cp: out = { g, false, p.cp, rankOf(s, c.tp, 0, c.dp, c.pp), p.tp, {}, 0, false, true }; break;
    case Group::Dp:
        if (expertDp) // the same expert_tp and ep position in every etp·ep block of the stage
            out = { g, true, p.tp * p.cp * dpN / (etp * ep), stage + expertTpRank + etp * c.ep, etp * ep, {}, 0, false,
                true };
        else
            out = { g, false, p.cp * dpN, rankOf(s, c.tp, 0, 0, c.pp), p.tp, {}, 0, false, true };
        break;
    case Group::Pp:
        out = { g, false, p.pp, rankOf(s, c.tp, c.cp, c.dp, 0), p.tp * p.cp * dpN, {}, 0, false, true };
        break;
    case Group::Ep: // ep positions etp apart in the stage's expert grid
        out = { g, false, ep, stage + expertTpRank + etp * ep * c.expertDp, etp, {}, 0, false, true };
        break;
    }
    const size_t listed = std::min(size_t(std::max(0, out.size)), maxMembers);
    out.members.reserve(listed);
    for (size_t i = 0; i < listed; ++i)
        out.members.push_back(out.first + int(i) * out.stride);
    const int gpn = std::max(1, s.cluster.gpusPerNode);
    const int domainSize = std::max(1, std::min(s.cluster.gpu.scaleUpDomain, gpn * s.cluster.nodes));
    out.nodesSpanned = blocksSpanned(out.first, out.stride, out.size, gpn);
    out.crossesNodes = out.nodesSpanned > 1;
    out.withinScaleUpDomain = blocksSpanned(out.first, out.stride, out.size, domainSize) <= 1;
    return out;
}

std::vector<RankGroup> groupsOf(const Scenario& s, int rank, size_t maxMembers)
{
    std::vector<RankGroup> out;
    for (Group g : { Group::Tp, Group::Cp, Group::Dp, Group::Pp })
        out.push_back(groupOf(s, rank, g, false, maxMembers));
    if (s.model.isMoe() && s.parallelism.ep > 1) {
        out.push_back(groupOf(s, rank, Group::Ep, false, maxMembers));
        out.push_back(groupOf(s, rank, Group::Dp, true, maxMembers));
    }
    return out;
}

std::vector<Issue> placementWarnings(const Scenario& s)
{
    std::vector<Issue> w;
    if (dataParallel(s) > 0)
        appendPlacementWarnings(s, makeLayout(s), w);
    return w;
}

namespace {
/// "prefix N suffix" in one allocation (evaluate's hot path warns with it).
std::string sentence(std::string_view prefix, int n, std::string_view suffix)
{
    char digits[12];
    char* end = std::to_chars(digits, digits + sizeof digits, n).ptr;
    std::string out;
    out.reserve(prefix.size() + size_t(end - digits) + suffix.size());
    out.append(prefix).append(digits, end).append(suffix);
    return out;
}
} // namespace

void appendPlacementWarnings(const Scenario& s, const Layout& l, std::vector<Issue>& w)
{
    // The communication model's own placements (layout.h): no member lists needed.
    const auto& p = s.parallelism;
    if (l.tpGroup.nodes > 1)
        w.push_back({ "parallelism.tp",
            sentence("the TP group spans ", l.tpGroup.nodes,
                " nodes: every layer's TP collectives cross the inter-node network") });
    else if (p.tp > s.cluster.gpu.scaleUpDomain)
        w.push_back({ "parallelism.tp",
            sentence("the TP group leaves the NVLink domain of ", s.cluster.gpu.scaleUpDomain, " GPUs") });
    if (l.epGroup.nodes > 1)
        w.push_back({ "parallelism.ep",
            sentence("the EP group spans ", l.epGroup.nodes,
                " nodes: expert all-to-all traffic crosses the inter-node network") });
    if (l.cpGroup.nodes > 1)
        w.push_back({ "parallelism.cp",
            sentence(
                "the CP group spans ", l.cpGroup.nodes, " nodes: K/V ring exchanges cross the inter-node network") });
}

} // namespace shardscope::core
