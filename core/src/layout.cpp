// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/layout.h"

#include <algorithm>

namespace shardscope::core {

GroupPlacement placeGroup(int size, int stride, int gpusPerNode)
{
    if (size <= 1)
        return { 1, 1, 1 };
    const double span = static_cast<double>(stride) * size;
    if (span <= gpusPerNode)
        return { size, size, 1 };
    if (stride >= gpusPerNode)
        return { size, 1, size };
    const int perNode = std::max(1, gpusPerNode / stride);
    return { size, perNode, (size + perNode - 1) / perNode };
}

int dataParallel(const Scenario& s)
{
    const long long denom = static_cast<long long>(s.parallelism.tp) * s.parallelism.pp * s.parallelism.cp;
    if (denom <= 0)
        return 0;
    const long long g = static_cast<long long>(s.cluster.nodes) * s.cluster.gpusPerNode;
    return (g % denom == 0) ? static_cast<int>(g / denom) : 0;
}

ShardDegrees shardDegrees(const Scenario& s, int dp)
{
    const Parallelism& par = s.parallelism;
    ShardDegrees d;
    d.dpcp = dp * std::max(1, par.cp);
    const int ep = s.model.isMoe() ? std::max(1, par.ep) : 1;
    // Megatron-Core's expert grid (megatron/core/parallel_state.py, initialize_model_parallel): a stage's tp·dp·cp
    // ranks as expert_tp × ep × expert_dp, so expert_dp = tp·dp·cp / (expert_tp·ep) (dp·cp/ep when expert_tp = tp).
    const int etp = s.model.isMoe() ? std::max(1, par.effectiveExpertTp()) : std::max(1, par.tp);
    d.expertDp = std::max(1, int(int64_t(d.dpcp) * std::max(1, par.tp) / (int64_t(etp) * ep)));
    // fsdp-hybrid shards inside groups of shard_group ranks (0 = one node), replicated across them
    // (torch/distributed/fsdp/api.py HYBRID_SHARD); every other strategy shards over all dp·cp ranks.
    d.shardGroup = par.sharding == Sharding::FsdpHybrid
        ? std::max(1, std::min(d.dpcp, par.shardGroup > 0 ? par.shardGroup : s.cluster.gpusPerNode))
        : std::max(1, d.dpcp);
    return d;
}

Layout makeLayout(const Scenario& s) { return makeLayout(s, dataParallel(s)); }

Layout makeLayout(const Scenario& s, int dp)
{
    const Parallelism& par = s.parallelism;
    Layout l;
    l.nodes = s.cluster.nodes;
    l.gpusPerNode = s.cluster.gpusPerNode;
    l.gpus = s.cluster.gpus();
    l.dp = dp;
    l.tp = std::max(1, par.tp);
    l.pp = std::max(1, par.pp);
    l.cp = std::max(1, par.cp);
    l.ep = s.model.isMoe() ? std::max(1, par.ep) : 1;
    static_cast<ShardDegrees&>(l) = shardDegrees(s, dp);
    l.replicas = std::max(1, l.dpcp / l.shardGroup);
    l.virtualStages = par.schedule == PpSchedule::Interleaved ? std::max(1, par.virtualStages) : 1;
    const int64_t perStep = static_cast<int64_t>(s.training.microBatch) * std::max(1, dp);
    l.microBatches = perStep > 0 ? s.training.globalBatch / perStep : 0;
    // A scale-up domain of whole nodes larger than one (GB200 NVL72: 72 GPUs, 18 compute trays of 4) is one NCCL
    // topology: with multi-node NVLink, the clique's ranks fuse their topology into one system and its rings and trees
    // stay on NVLink (NVIDIA/nccl src/graph/topo.cc ncclTopoGetSystem, comm->MNNVL; src/graph/tuning.cc drops the
    // multi-node ring plateau for MNNVL). Groups are placed in such domains; otherwise in nodes.
    const int domain = s.cluster.gpu.scaleUpDomain;
    l.scaleUpBlock
        = domain > l.gpusPerNode && l.gpusPerNode > 0 && domain % l.gpusPerNode == 0 ? domain : l.gpusPerNode;
    const int gpn = l.scaleUpBlock;
    l.tpGroup = placeGroup(l.tp, 1, gpn);
    l.cpGroup = placeGroup(l.cp, l.tp, gpn);
    l.dpcpGroup = placeGroup(l.dpcp, l.tp, gpn);
    // the expert grid's order is expert_tp fastest, then ep, then expert_dp (RankGenerator order "tp-ep-dp-pp")
    l.etp = s.model.isMoe() ? std::max(1, par.effectiveExpertTp()) : l.tp;
    l.etpGroup = placeGroup(l.etp, 1, gpn);
    l.epGroup = placeGroup(l.ep, l.etp, gpn);
    l.expertDpGroup = placeGroup(l.expertDp, l.etp * l.ep, gpn);
    l.shardGroupPlacement = placeGroup(l.shardGroup, l.tp, gpn);
    l.replicaGroup = placeGroup(l.replicas, l.tp * l.shardGroup, gpn);
    l.ppPair = placeGroup(l.pp > 1 ? 2 : 1, l.tp * l.cp * dp, gpn);
    l.cpPair = placeGroup(l.cp > 1 ? 2 : 1, l.tp, gpn);
    if (l.cp > 1 && l.cpGroup.nodes > 1)
        l.cpPair.nodes = 2; // the ring's hop between nodes sets its pace

    return l;
}

} // namespace shardscope::core
