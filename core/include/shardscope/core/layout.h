// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The layout of a scenario on its GPUs, derived once: the parallel degrees, the groups every rank belongs to and
/// where they sit on nodes (Megatron-LM's rank order: tp fastest, then cp, dp/ep, pp; megatron/core/parallel_state.py),
/// micro-batches per step. evaluate, search, launch configurations and the rank map read it; nothing else derives
/// these figures.

#include "shardscope/core/scenario.h"

#include <cstdint>

namespace shardscope::core {

/// Where a communication group sits: its size, members per node and nodes spanned.
struct GroupPlacement {
    int size = 1;
    int perNode = 1;
    int nodes = 1;
    friend bool operator==(const GroupPlacement&, const GroupPlacement&) = default;
};

/// A group of `size` ranks whose members are `stride` ranks apart, on nodes of gpusPerNode GPUs.
[[nodiscard]] GroupPlacement placeGroup(int size, int stride, int gpusPerNode);

/// How many ranks share (and shard) the model states: the part of the layout the memory model needs, cheap enough
/// for min_gpus to try many data-parallel degrees.
struct ShardDegrees {
    int dpcp = 1; ///< ranks holding the same dense weights: dp·cp
    int expertDp = 1; ///< ranks holding the same experts: tp·dp·cp/(expert_tp·ep), dp·cp/ep when expert_tp = tp
    int shardGroup = 1; ///< ranks sharding model states: dp·cp, or fsdp-hybrid's group (0 = one node), at most dp·cp
};
[[nodiscard]] ShardDegrees shardDegrees(const Scenario& scenario, int dp);

/// dpcp, expertDp and shardGroup come from ShardDegrees.
struct Layout : ShardDegrees {
    int gpus = 0, nodes = 0, gpusPerNode = 0;
    /// GPUs per scale-up island the groups are placed in: the node, or a scale-up domain of several whole nodes
    /// (cluster.gpu.scale_up_domain, NVL72). A placement's `nodes` counts these islands: > 1 crosses the network.
    int scaleUpBlock = 0;
    int dp = 0, tp = 1, pp = 1, cp = 1;
    int ep = 1; ///< expert parallelism; 1 for a dense model whatever the scenario says
    int etp = 1; ///< expert tensor parallelism (parallelism.expert_tp, default tp); tp for a dense model
    int replicas = 1; ///< fsdp-hybrid: copies of the sharded states, dp·cp / shardGroup
    int virtualStages = 1; ///< pipeline chunks per rank (interleaved schedule), 1 otherwise
    int64_t microBatches = 0; ///< per pipeline per step: global batch / (micro-batch · dp)
    GroupPlacement tpGroup, cpGroup, dpcpGroup, epGroup, expertDpGroup, shardGroupPlacement, replicaGroup;
    GroupPlacement etpGroup; ///< the expert tensor-parallel group (consecutive ranks, like tp)
    GroupPlacement ppPair; ///< two neighbouring pipeline stages
    GroupPlacement cpPair; ///< two neighbours on the context-parallel ring (across nodes when the ring spans nodes)
};

/// The layout of a scenario (dp from dataParallel(), scenario.h); `dp` given: the same scenario at another data-parallel degree
/// (min_gpus). The scenario should be valid; degrees below 1 are treated as 1.
[[nodiscard]] Layout makeLayout(const Scenario& scenario);
[[nodiscard]] Layout makeLayout(const Scenario& scenario, int dp);

} // namespace shardscope::core
