// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Rank map: which ranks form each TP, CP, EP, DP and PP group, where they sit (GPU, node, scale-up domain),
/// and which groups cross the inter-node network. Rank order is Megatron-LM's: tp fastest, then cp, dp, pp;
/// expert-parallel groups are carved out of the dp × cp ranks (parallel_state.py, RankGenerator).

#include "shardscope/core/layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardscope::core {

struct RankCoord {
    int rank = 0, node = 0, localGpu = 0, domain = 0; ///< domain: scale-up (NVLink) domain index
    int tp = 0, cp = 0, dp = 0, pp = 0;
    int ep = 0; ///< position inside its expert-parallel group
    int expertDp = 0; ///< position inside its expert data-parallel group
};

/// Coordinates of `rank` (0 ≤ rank < gpus) in a valid scenario.
RankCoord rankCoord(const Scenario& s, int rank);

struct RankGroup {
    Group group = Group::Tp; ///< Dp here is the dense-gradient group (dp × cp ranks)
    bool expertDataParallel = false;
    /// Every group is an arithmetic progression of ranks in Megatron's order: first + i·stride, i < size.
    int size = 0, first = 0, stride = 1;
    std::vector<int> members; ///< the first min(size, maxMembers) ranks, ascending
    int nodesSpanned = 0;
    bool crossesNodes = false;
    bool withinScaleUpDomain = true;
};

/// The group of kind g (expertDp: the expert data-parallel group, g = Dp) that `rank` belongs to, with at most
/// maxMembers members listed. Size, span and placement take constant time whatever the group's size.
RankGroup groupOf(const Scenario& s, int rank, Group g, bool expertDp = false, size_t maxMembers = SIZE_MAX);

/// The groups `rank` belongs to (tp, cp, dp, pp and, for MoE with ep > 1, ep and expert-dp), each listing at most
/// maxMembers members.
std::vector<RankGroup> groupsOf(const Scenario& s, int rank, size_t maxMembers = SIZE_MAX);

/// Placement advice: a TP or EP group that spills across nodes or out of the NVLink domain, a CP group that does.
std::vector<Issue> placementWarnings(const Scenario& s);
/// The same advice appended to `out` (evaluate's warnings), without a list of its own, for the scenario's layout
/// (makeLayout(s)) when evaluate has made it already.
void appendPlacementWarnings(const Scenario& s, const Layout& layout, std::vector<Issue>& out);

} // namespace shardscope::core
