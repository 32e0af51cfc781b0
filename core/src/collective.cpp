// SPDX-License-Identifier: GPL-3.0-or-later
// NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc @ 5067397c, v2.30); docs/model.md §collective-time.
#include "collective.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace shardscope::core::detail {
namespace {

enum ProtoIdx { kLL = 0, kLL128 = 1, kSimple = 2 };

// Base latency per algorithm and protocol, µs (NVIDIA/nccl src/graph/tuning.cc baseLat).
constexpr double kBaseLatTree[3] = { 6.8, 14.0, 8.4 };
constexpr double kBaseLatRing[3] = { 6.6, 14.0, 8.4 };
// Per-hop hardware latency, µs (NVIDIA/nccl src/graph/tuning.cc hwLat[NVLINK|PCI|NET][Tree|Ring][LL|LL128|Simple]).
constexpr double kHwLatNvlinkTree[3] = { 0.6, 1.25, 4.0 };
constexpr double kHwLatNvlinkRing[3] = { 0.6, 1.9, 3.4 };
constexpr double kHwLatPciTree[3] = { 1.0, 1.9, 4.0 };
constexpr double kHwLatPciRing[3] = { 1.0, 2.5, 5.7 };
constexpr double kHwLatNetTree[3] = { 5.0, 8.5, 14.0 };
constexpr double kHwLatNetRing[3] = { 2.7, 4.0, 14.0 };
constexpr double kHwLatNvls = 25.0; // tuning.cc hwLat[NVLINK][NVLS][Simple]
// PAT (Parallel Aggregated Trees, NCCL >= 2.23): all-gather and reduce-scatter with one GPU per node, Simple only
// (NVIDIA/nccl src/graph/tuning.cc: baseLat[PAT] 8.0 µs; latency += log2i(nNodes)·interLat/3.5 + nRanks·2.8 µs;
// busBw × 0.75, not converted to algorithm bandwidth).
constexpr double kBaseLatPat = 8.0;
constexpr double kPatLogDivisor = 3.5;
constexpr double kPatPerRankUs = 2.8;
constexpr double kPatBwFactor = 0.75;
// Multi-node Ring Simple all-reduce "plateau": lat × 1.4 on compute capability ≥ 80 once nBytes / (nChannels · nRanks)
// ≥ 64 (NVIDIA/nccl src/graph/tuning.cc ncclTopoGetAlgoTime).
constexpr double kRingPlateauLatencyFactor = 1.4;
constexpr double kRingPlateauBytes = 64;
constexpr double kNetOverheadUs = 1.0; // NCCL_NET_OVERHEAD default on Intel x86 (NVIDIA/nccl src/graph/tuning.cc)

// Per-architecture caps, GB/s, [arch: Ampere, Hopper, Blackwell][1 node, 2 nodes, 4+ nodes]
// (NVIDIA/nccl src/graph/tuning.cc llMaxBws, perChMaxRingLL128Bws, perChMaxTreeBws, perChMaxTreeLL128Bws).
constexpr double kLlMaxBw[3][3] = { { 87.7, 22.5, 19.0 }, { 141.0, 45.0, 35.0 }, { 282.0, 90.0, 70.0 } };
constexpr double kPerChRingLL128[3] = { 20.0, 36.7, 40.0 };
constexpr double kPerChTree[3][3] = { { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 } };
constexpr double kPerChTreeLL128[3][3] = { { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 } };

// NVLS (NVLink SHARP) all-reduce runs about 30% above ring busbw inside a node
// (stas00/ml-engineering network/README.md: 8x H200 all_reduce busbw, NVLS 482.3 vs ring 367.6 GB/s).
constexpr double kNvlsSpeedup = 482.3 / 367.6;
// Without GPU Direct RDMA, network data is staged through host memory and crosses the GPU's PCIe link
// twice; NCCL's model rates PCIe at 75% of raw (NVIDIA/nccl src/graph/topo.cc: x16 Gen4 = 24 of 31.5 GB/s). [DERIVED]
constexpr double kPcieEfficiency = 0.75;

int archIndex(const std::string& arch)
{
    // RCCL and Gaudi have their own tuners; we use the NVIDIA generation of the same era (approximation).
    // Switch on the first letters (hot path: called for every collective and communicator).
    if (arch.empty())
        return 0;
    switch (arch[0]) {
    case 'b': return 2; // blackwell
    case 'h': // hopper
    case 'g': return 1; // gaudi3
    case 'c': return arch.size() > 4 && arch[4] == '4' ? 2 : 1; // cdna4 : cdna3
    default: return 0; // ampere, ada, volta
    }
}

int nodeIndex(int nodes) { return nodes <= 1 ? 0 : (nodes == 2 ? 1 : 2); }

double intraBusBw(const Cluster& c)
{
    const double link = c.intraNode.bandwidth;
    const double bw = c.gpu.scaleUpBandwidth > 0 ? std::min(c.gpu.scaleUpBandwidth, link) : link;
    return bw * c.intraNode.efficiency;
}

double netPerGpu(const Cluster& c, const Nccl& n)
{
    double bw = c.interNode.bandwidth * c.nics() / c.gpusPerNode * c.interNode.efficiency;
    if (!n.gdr && c.gpu.hostLinkBandwidth > 0)
        bw = std::min(bw, c.gpu.hostLinkBandwidth * kPcieEfficiency / 2);
    return bw;
}

bool intraIsNvlink(const Cluster& c) { return c.gpu.scaleUpBandwidth > 0 && c.intraNode.kind == LinkKind::ScaleUp; }

// Link latencies from the catalog are NCCL's Simple-protocol hop latencies; other protocols scale by NCCL's ratios.
double hopLatency(double simpleLatencySeconds, const double* table, int proto)
{
    const double us = simpleLatencySeconds > 0 ? simpleLatencySeconds * 1e6 : table[kSimple];
    return us * table[proto] / table[kSimple];
}

} // namespace

int ncclChannels(const GroupPlacement& g, const Cluster& cluster, const Nccl& nccl)
{
    int ch;
    if (g.nodes <= 1) {
        // NCCL's search on NVSwitch systems settles at 16 channels on Hopper/Blackwell and 12 on Ampere
        // (one per NVLink on A100; search.cc speed arrays), fewer on PCIe.
        const int a = archIndex(cluster.gpu.arch);
        ch = intraIsNvlink(cluster) ? (a >= 1 ? 16 : 12) : 4;
    } else {
        // Two channels per NIC the group's GPUs drive (search.cc inter-node rings, doubled by ncclTopoDupChannels).
        ch = std::max(2, 2 * g.perNode * cluster.nics() / std::max(1, cluster.gpusPerNode));
    }
    return std::clamp(std::max(ch, nccl.minChannels), 1, 64); // MAXCHANNELS = 64
}

CollectiveCurve collectiveCurve(
    CollectiveOp op, const GroupPlacement& g, const Cluster& cluster, const Nccl& nccl, double offNodeShare)
{
    CollectiveCurve c;
    c.op = op;
    const int n = c.n = g.size;
    if (n <= 1)
        return c;
    const int M = g.nodes;
    const double intraBw = intraBusBw(cluster);
    const double netBw = netPerGpu(cluster, nccl);
    const bool nvlink = intraIsNvlink(cluster);
    const double* intraRing = nvlink ? kHwLatNvlinkRing : kHwLatPciRing;
    const double* intraTree = nvlink ? kHwLatNvlinkTree : kHwLatPciTree;
    // "With ppn=1 latencies are fully exposed, use the Tree network latency" (tuning.cc): every algorithm's
    // inter-node hop then takes hwLat[NET][TREE].
    const bool onePerNode = M > 1 && g.perNode == 1;
    const double* netRing = onePerNode ? kHwLatNetTree : kHwLatNetRing;

    if (op == CollectiveOp::SendRecv) {
        // One message to one peer: base latency + one hop + S over the path's bandwidth.
        const bool net = M > 1;
        c.bw = net ? netBw : intraBw;
        const double hop = net ? hopLatency(cluster.interNode.latency, kHwLatNetRing, kSimple)
                               : hopLatency(cluster.intraNode.latency, intraRing, kSimple);
        c.latency = (kBaseLatRing[kSimple] + hop) * 1e-6;
        return c;
    }
    if (op == CollectiveOp::AllToAll) {
        // Pairwise exchange (Thakur, Rabenseifner & Gropp, IJHPCA 2005): (n−1)/n·S leaves each rank;
        // the off-node share rides the NIC.
        // Node-limited routing (DeepSeek-V3 report §2.1.2): a share of the off-node bytes crosses the network, and
        // every off-node copy is forwarded over the scale-up link at its destination node.
        c.perNode = g.perNode;
        c.offNodeShare = offNodeShare;
        c.bw = intraBw;
        c.netBw = netBw;
        const double hop = M > 1 ? hopLatency(cluster.interNode.latency, kHwLatNetRing, kSimple)
                                 : hopLatency(cluster.intraNode.latency, intraRing, kSimple);
        c.latency = (kBaseLatRing[kSimple] + (n - 1) * hop * 0.5) * 1e-6;
        return c;
    }

    const int a = archIndex(cluster.gpu.arch);
    const int ni = nodeIndex(M);
    const int nCh = ncclChannels(g, cluster, nccl);
    // Ring bus bandwidth: inside a node the scale-up fabric; across nodes the slower of it and the NICs
    // the group's GPUs on one node share (each ring crosses each node boundary once per channel).
    const double ringBus = M > 1 ? std::min(intraBw, g.perNode * netBw) : intraBw;
    const bool allReduce = op == CollectiveOp::AllReduce;
    const double nsteps = allReduce ? 2.0 * (n - 1) : (n - 1);
    const double nInter = M <= 1 ? 0.0 : (allReduce ? 2.0 * (M - 1) : (M - 1));
    const double perRankFactor = allReduce ? 2.0 * (n - 1) / n : double(n - 1) / n; // nccl-tests doc/PERFORMANCE.md

    auto add = [&](Algo algo, int proto, double factor, double busBw, double latUs) -> CollectiveCurve::Choice& {
        CollectiveCurve::Choice& ch = c.choices[c.count++];
        ch.algo = algo;
        ch.proto = proto == kLL ? Proto::LL : (proto == kLL128 ? Proto::LL128 : Proto::Simple);
        ch.factor = factor;
        ch.busBw = busBw;
        ch.latUs = latUs;
        ch.plateauRanks = 0;
        ch.anyBandwidth = false;
        ch.onlyToImprove = false;
        return ch;
    };
    const bool ringOk = nccl.algo != NcclAlgo::Tree || !allReduce; // NCCL: only all-reduce has a tree
    // NCCL's tree is chosen across nodes; forced (NCCL_ALGO=Tree) it also runs inside one node as a chain.
    const bool treeOk = allReduce && nccl.algo != NcclAlgo::Ring && (M > 1 || nccl.algo == NcclAlgo::Tree);
    auto protoOk = [&](int p) {
        switch (nccl.proto) {
        case NcclProto::Auto: return true;
        case NcclProto::Simple: return p == kSimple;
        case NcclProto::LL: return p == kLL;
        case NcclProto::LL128: return p == kLL128;
        }
        return true;
    };
    const double llMax = kLlMaxBw[a][ni];
    if (ringOk) {
        for (int p = 0; p < 3; ++p) {
            if (!protoOk(p))
                continue;
            double intraLat = hopLatency(cluster.intraNode.latency, intraRing, p);
            if (M > 1)
                intraLat = std::max(intraLat, kNetOverheadUs * (p == kSimple ? 3 : 1));
            const double interLat = hopLatency(cluster.interNode.latency, netRing, p);
            const double lat = kBaseLatRing[p] + (nsteps - nInter) * intraLat + nInter * interLat;
            double bus = ringBus;
            if (p == kLL)
                bus = std::min(llMax * 1e9, 0.5 * bus); // LL: 8 B data per 16 B line; caps are in GB/s
            else if (p == kLL128)
                bus = std::min(0.92 * bus, nCh * kPerChRingLL128[a] * 1e9); // LL128: 120 of 128 B, tuned to 0.92
            CollectiveCurve::Choice& ch = add(Algo::Ring, p, perRankFactor, bus, lat);
            // the multi-node Ring Simple all-reduce plateau (kRingPlateauLatencyFactor), priced by collectiveTime
            if (p == kSimple && allReduce && M > 1)
                ch.plateauRanks = nCh * n;
        }
    }
    if (treeOk) {
        for (int p = 0; p < 3; ++p) {
            if (!protoOk(p))
                continue;
            const double intraLat = hopLatency(cluster.intraNode.latency, intraTree, p);
            const double interLat = hopLatency(cluster.interNode.latency, kHwLatNetTree, p);
            const double lat = kBaseLatTree[p] + 2 * ((double(n) / M - 1) * intraLat + std::log2(double(M)) * interLat);
            double bus = std::min(0.92 * ringBus, nCh * kPerChTree[a][ni] * 1e9);
            if (p == kLL)
                bus = std::min(bus / 3.8, llMax * 1e9);
            else if (p == kLL128)
                bus = std::min(bus * 120.0 / 128.0, nCh * kPerChTreeLL128[a][ni] * 1e9);
            add(Algo::Tree, p, 2.0, bus, lat);
        }
    }
    // PAT: all-gather / reduce-scatter when the communicator has one GPU per node (tuning.cc ncclPatEnable:
    // nNodes == nRanks), Simple only, time = lat + S / (0.75·busBw). Forcing NCCL_ALGO=Ring or Tree rules it out.
    if (!allReduce && onePerNode && nccl.algo == NcclAlgo::Auto && protoOk(kSimple)) {
        const double interLat = hopLatency(cluster.interNode.latency, kHwLatNetTree, kSimple);
        // ⌊log2 M⌋ for M ≥ 2 nodes (tuning.cc's log2i): the index of the highest set bit
        const double latUs
            = kBaseLatPat + (std::bit_width(unsigned(M)) - 1) * interLat / kPatLogDivisor + n * kPatPerRankUs;
        add(Algo::Pat, kSimple, 1.0, kPatBwFactor * ringBus, latUs).anyBandwidth = true;
    }
    // NVLS: single-node all-reduce on NVSwitch with SHARP, Simple only (NVIDIA/nccl src/graph/tuning.cc).
    if (allReduce && M == 1 && n > 2 && cluster.gpu.nvls && nccl.algo == NcclAlgo::Auto && protoOk(kSimple))
        add(Algo::Nvls, kSimple, perRankFactor, ringBus * kNvlsSpeedup, kHwLatNvls).onlyToImprove = true;
    return c;
}

CollectiveCost collectiveTime(const CollectiveCurve& c, double S)
{
    CollectiveCost best;
    if (c.n <= 1 || S <= 0)
        return best;
    if (c.op == CollectiveOp::SendRecv) {
        best.latency = c.latency;
        best.time = best.latency + S / c.bw;
        best.algo = Algo::PointToPoint;
        return best;
    }
    if (c.op == CollectiveOp::AllToAll) {
        const int n = c.n;
        const double out = S * (n - 1) / n;
        const double naiveOffNode = S * (n - c.perNode) / n;
        const double offNode = naiveOffNode * c.offNodeShare;
        const double onNode = out - naiveOffNode + (c.offNodeShare < 1 ? naiveOffNode : 0.0);
        best.latency = c.latency;
        best.time = best.latency + std::max(offNode / c.netBw, onNode / c.bw);
        best.algo = Algo::PointToPoint;
        return best;
    }
    // NCCL's tuner: the algorithm and protocol of least predicted time, lat + factor·S / busBw.
    for (int i = 0; i < c.count; ++i) {
        const CollectiveCurve::Choice& ch = c.choices[i];
        if (ch.busBw <= 0 && !ch.anyBandwidth)
            continue;
        const double latUs = ch.plateauRanks > 0 && S / ch.plateauRanks >= kRingPlateauBytes
            ? ch.latUs * kRingPlateauLatencyFactor
            : ch.latUs;
        const double t = latUs * 1e-6 + ch.factor * S / ch.busBw;
        if ((best.time == 0 && !ch.onlyToImprove) || t < best.time) {
            best.time = t;
            best.latency = latUs * 1e-6;
            best.algo = ch.algo;
            best.proto = ch.proto;
        }
    }
    return best;
}

CollectiveCost collectiveTime(
    CollectiveOp op, double S, const GroupPlacement& g, const Cluster& cluster, const Nccl& nccl, double offNodeShare)
{
    return collectiveTime(collectiveCurve(op, g, cluster, nccl, offNodeShare), S);
}

} // namespace shardscope::core::detail
