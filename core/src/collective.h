// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Collective time: an alpha-beta model following NCCL's own tuning model (NVIDIA/nccl src/graph/tuning.cc).

#include "shardscope/core/layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

using core::GroupPlacement; // layout.h: where a group sits
using core::placeGroup;

struct CollectiveCost {
    double time = 0; ///< seconds for one call
    double latency = 0; ///< of which the algorithm's latency (NCCL's lat term: base + hops)
    Algo algo = Algo::Ring;
    Proto proto = Proto::Simple;
};

/// Time of one collective of `messageBytes` (S as in nccl-tests) over a placed group, choosing the
/// algorithm and protocol as NCCL's tuner would (minimum predicted time) unless the scenario forces them.
/// offNodeShare (all-to-all only): the share of the off-node bytes that cross the network when routing is node-limited
/// and deduplicated (the rest forwarded over the scale-up link at the destination node).
CollectiveCost collectiveTime(CollectiveOp op, double messageBytes, const GroupPlacement& g, const Cluster& cluster,
    const Nccl& nccl, double offNodeShare = 1.0);

/// NCCL channels a communicator on this group uses (for buffer memory).
int ncclChannels(const GroupPlacement& g, const Cluster& cluster, const Nccl& nccl);

} // namespace shardscope::core::detail
