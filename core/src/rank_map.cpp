// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/rank_map.h"

#include "shardscope/core/evaluate.h"

#include "collective.h"

#include <algorithm>

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
    const int ep = s.model.isMoe() ? std::max(1, p.ep) : 1;
    const int e = c.cp + p.cp * c.dp; // position in the dp × cp block
    c.ep = e % ep;
    c.expertDp = e / ep;
    return c;
}

namespace {
int rankOf(const Scenario& s, int tp, int cp, int dp, int pp)
{
    const int dpN = std::max(1, dataParallel(s));
    return tp + s.parallelism.tp * (cp + s.parallelism.cp * (dp + dpN * pp));
}

RankGroup makeGroup(const Scenario& s, Group g, std::vector<int> members, bool expertDp = false)
{
    RankGroup out;
    out.group = g;
    out.expertDataParallel = expertDp;
    std::sort(members.begin(), members.end());
    // Sorted ranks have non-decreasing node and domain indices: count the changes.
    const int gpn = std::max(1, s.cluster.gpusPerNode);
    const int domainSize = std::max(1, std::min(s.cluster.gpu.scaleUpDomain, gpn * s.cluster.nodes));
    int nodes = 0, domains = 0, lastNode = -1, lastDomain = -1;
    for (int m : members) {
        nodes += m / gpn != lastNode;
        domains += m / domainSize != lastDomain;
        lastNode = m / gpn;
        lastDomain = m / domainSize;
    }
    out.members = std::move(members);
    out.nodesSpanned = nodes;
    out.crossesNodes = nodes > 1;
    out.withinScaleUpDomain = domains <= 1;
    return out;
}
} // namespace

namespace {
// Members of the group of kind `g` that the rank at `c` belongs to.
std::vector<int> members(const Scenario& s, const RankCoord& c, Group g, bool expertDp)
{
    const auto& p = s.parallelism;
    const int dpN = std::max(1, dataParallel(s));
    const int ep = s.model.isMoe() ? std::max(1, p.ep) : 1;
    const int e = c.cp + p.cp * c.dp;
    std::vector<int> m;
    switch (g) {
    case Group::Tp:
        for (int i = 0; i < p.tp; ++i)
            m.push_back(rankOf(s, i, c.cp, c.dp, c.pp));
        break;
    case Group::Cp:
        for (int i = 0; i < p.cp; ++i)
            m.push_back(rankOf(s, c.tp, i, c.dp, c.pp));
        break;
    case Group::Dp:
        if (expertDp) {
            for (int k = e % ep; k < p.cp * dpN; k += ep)
                m.push_back(rankOf(s, c.tp, k % p.cp, k / p.cp, c.pp));
        } else {
            for (int d = 0; d < dpN; ++d)
                for (int i = 0; i < p.cp; ++i)
                    m.push_back(rankOf(s, c.tp, i, d, c.pp));
        }
        break;
    case Group::Pp:
        for (int i = 0; i < p.pp; ++i)
            m.push_back(rankOf(s, c.tp, c.cp, c.dp, i));
        break;
    case Group::Ep:
        for (int k = (e / ep) * ep; k < (e / ep + 1) * ep; ++k)
            m.push_back(rankOf(s, c.tp, k % p.cp, k / p.cp, c.pp));
        break;
    }
    return m;
}
} // namespace

std::vector<RankGroup> groupsOf(const Scenario& s, int rank)
{
    const RankCoord c = rankCoord(s, rank);
    std::vector<RankGroup> out;
    for (Group g : { Group::Tp, Group::Cp, Group::Dp, Group::Pp })
        out.push_back(makeGroup(s, g, members(s, c, g, false)));
    if (s.model.isMoe() && s.parallelism.ep > 1) {
        out.push_back(makeGroup(s, Group::Ep, members(s, c, Group::Ep, false)));
        out.push_back(makeGroup(s, Group::Dp, members(s, c, Group::Dp, true), true));
    }
    return out;
}

std::vector<Issue> placementWarnings(const Scenario& s)
{
    std::vector<Issue> w;
    if (dataParallel(s) == 0)
        return w;
    // Same placement arithmetic as the communication model (collective.cpp placeGroup): no member lists needed.
    const auto& p = s.parallelism;
    const int gpn = std::max(1, s.cluster.gpusPerNode);
    const auto tpG = detail::placeGroup(p.tp, 1, gpn);
    if (tpG.nodes > 1)
        w.push_back({ "parallelism.tp", "the TP group spans " + std::to_string(tpG.nodes)
                + " nodes: every layer's TP collectives cross the inter-node network" });
    else if (p.tp > s.cluster.gpu.scaleUpDomain)
        w.push_back({ "parallelism.tp", "the TP group leaves the NVLink domain of " + std::to_string(s.cluster.gpu.scaleUpDomain)
                + " GPUs" });
    if (s.model.isMoe() && p.ep > 1) {
        const auto epG = detail::placeGroup(p.ep, p.tp, gpn);
        if (epG.nodes > 1)
            w.push_back({ "parallelism.ep", "the EP group spans " + std::to_string(epG.nodes)
                    + " nodes: expert all-to-all traffic crosses the inter-node network" });
    }
    const auto cpG = detail::placeGroup(p.cp, p.tp, gpn);
    if (cpG.nodes > 1)
        w.push_back({ "parallelism.cp", "the CP group spans " + std::to_string(cpG.nodes)
                + " nodes: K/V ring exchanges cross the inter-node network" });
    return w;
}

} // namespace shardscope::core
