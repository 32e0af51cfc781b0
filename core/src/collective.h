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

/// What NCCL's tuner weighs for one collective over a placed group, whatever its size: every algorithm and protocol
/// it would consider, each a latency and a bus bandwidth (NVIDIA/nccl src/graph/tuning.cc). Made once, it prices
/// calls of several sizes (a bucketed reduction's full and last buckets) without redoing the topology arithmetic.
struct CollectiveCurve {
    struct Choice { // every field written when a choice is added (a curve is made for every collective)
        Algo algo;
        Proto proto;
        double latUs; ///< NCCL's lat term, µs
        double factor; ///< time = lat + factor·S / busBw
        double busBw; ///< B/s
        int plateauRanks; ///< > 0: channels × ranks of a multi-node Ring Simple all-reduce (NCCL's lat plateau)
        bool anyBandwidth; ///< considered even at zero bandwidth (PAT)
        bool onlyToImprove; ///< chosen only over an earlier choice (NVLS)
    };
    CollectiveOp op = CollectiveOp::AllReduce;
    int n = 0; ///< ranks
    Choice choices[8]; ///< the first `count`: ring and tree × three protocols, PAT, NVLS
    int count = 0;
    // send/recv and all-to-all: one path
    double latency = 0; ///< seconds
    double bw = 0; ///< B/s: the path's (send/recv), the scale-up link's (all-to-all)
    double netBw = 0; ///< all-to-all: the network's per GPU
    int perNode = 0; ///< all-to-all: the group's ranks on one node
    double offNodeShare = 1; ///< all-to-all: the off-node bytes that cross the network
};

/// The curve of one collective over a placed group (offNodeShare as for collectiveTime).
CollectiveCurve collectiveCurve(
    CollectiveOp op, const GroupPlacement& g, const Cluster& cluster, const Nccl& nccl, double offNodeShare = 1.0);

/// Time of one call of `messageBytes` on a curve: NCCL's choice of least predicted time.
CollectiveCost collectiveTime(const CollectiveCurve& curve, double messageBytes);

/// Time of one collective of `messageBytes` (S as in nccl-tests) over a placed group, choosing the
/// algorithm and protocol as NCCL's tuner would (minimum predicted time) unless the scenario forces them.
/// offNodeShare (all-to-all only): the share of the off-node bytes that cross the network when routing is node-limited
/// and deduplicated (the rest forwarded over the scale-up link at the destination node).
CollectiveCost collectiveTime(CollectiveOp op, double messageBytes, const GroupPlacement& g, const Cluster& cluster,
    const Nccl& nccl, double offNodeShare = 1.0);

/// NCCL channels a communicator on this group uses (for buffer memory).
int ncclChannels(const GroupPlacement& g, const Cluster& cluster, const Nccl& nccl);

} // namespace shardscope::core::detail
