// SPDX-License-Identifier: GPL-3.0-or-later
// Rank map: Megatron's rank order (tp fastest, then cp, dp, pp), groups worked out by hand; the constant-time groups
// (arithmetic progressions, issue 12) against every rank's coordinates; a group of 10^7 / 32 ranks in no time.
#include "test_support.h"

#include "shardscope/core/rank_map.h"

#include <set>

using namespace sstest;

class TestRankMap : public QObject
{
    Q_OBJECT
private slots:
    void coordinatesByHand();
    void groupsByHand();
    void expertGroups();
    void spillWarnings();
    void groupsMatchCoordinates();
    void hugeGroupsListFewMembers();
};

namespace {
Scenario grid()
{
    // 2 nodes x 8 GPUs, tp 2, cp 2, pp 2 -> dp 2
    Scenario s = presetScenario("llama3-8b", 2, 8);
    s.parallelism.tp = 2;
    s.parallelism.cp = 2;
    s.parallelism.pp = 2;
    return s;
}
std::vector<int> membersOf(const std::vector<RankGroup>& gs, Group g, bool expert = false)
{
    for (const auto& x : gs)
        if (x.group == g && x.expertDataParallel == expert)
            return x.members;
    return {};
}
} // namespace

void TestRankMap::coordinatesByHand()
{
    // rank = tp + 2·(cp + 2·(dp + 2·pp)): 13 = 1 + 2·(0 + 2·(1 + 2·1)) -> tp 1, cp 0, dp 1, pp 1
    const RankCoord c = rankCoord(grid(), 13);
    QCOMPARE(c.tp, 1);
    QCOMPARE(c.cp, 0);
    QCOMPARE(c.dp, 1);
    QCOMPARE(c.pp, 1);
    QCOMPARE(c.node, 1);
    QCOMPARE(c.localGpu, 5);
}

void TestRankMap::groupsByHand()
{
    const auto gs = groupsOf(grid(), 5); // 5 = 1 + 2·(0 + 2·(1 + 0)): tp 1, cp 0, dp 1, pp 0
    QCOMPARE(membersOf(gs, Group::Tp), (std::vector<int> { 4, 5 }));
    QCOMPARE(membersOf(gs, Group::Cp), (std::vector<int> { 5, 7 }));
    QCOMPARE(membersOf(gs, Group::Dp), (std::vector<int> { 1, 3, 5, 7 })); // dense gradients: dp × cp
    QCOMPARE(membersOf(gs, Group::Pp), (std::vector<int> { 5, 13 }));
    for (const auto& g : gs)
        QCOMPARE(g.crossesNodes, g.group == Group::Pp); // stages are 8 ranks apart: the next node
}

void TestRankMap::expertGroups()
{
    // Mixtral on 16 GPUs, tp 2, ep 4 -> dp 8; expert groups are 4 consecutive dp ranks (stride tp = 2),
    // expert data-parallel groups the dp ranks 4 apart.
    Scenario s = presetScenario("mixtral-8x7b", 2, 8);
    s.parallelism.tp = 2;
    s.parallelism.ep = 4;
    const auto gs = groupsOf(s, 0);
    QCOMPARE(membersOf(gs, Group::Ep), (std::vector<int> { 0, 2, 4, 6 }));
    QCOMPARE(membersOf(gs, Group::Dp, true), (std::vector<int> { 0, 8 }));
}

void TestRankMap::spillWarnings()
{
    Scenario s = presetScenario("llama3-70b", 2, 8);
    s.parallelism.tp = 16; // 64 heads / 16 = 4, spans both nodes
    QVERIFY(hasIssue(placementWarnings(s), "parallelism.tp", "spans 2 nodes"));
    s.parallelism.tp = 8;
    QVERIFY(placementWarnings(s).empty());
}

void TestRankMap::groupsMatchCoordinates()
{
    // Every group = the ranks that share every coordinate but the group's own, found by brute force; its node and
    // NVLink-domain span counted from the members.
    Scenario moe = presetScenario("mixtral-8x7b", 4, 8);
    moe.parallelism.tp = 2;
    moe.parallelism.cp = 2;
    moe.parallelism.ep = 4;
    moe.cluster.gpu.scaleUpDomain = 4;
    Scenario wide = grid();
    wide.cluster.gpusPerNode = 3; // nodes of 3 GPUs: groups straddle nodes in every way
    wide.cluster.nodes = 8;
    wide.parallelism.cp = 1;
    wide.parallelism.pp = 3;
    for (const Scenario& s : { grid(), moe, wide }) {
        QVERIFY(evaluate(s).valid);
        const int gpus = s.cluster.gpus();
        const int gpn = s.cluster.gpusPerNode;
        const int domain = std::min(s.cluster.gpu.scaleUpDomain, gpus);
        for (int r = 0; r < gpus; ++r) {
            const RankCoord a = rankCoord(s, r);
            for (const RankGroup& g : groupsOf(s, r)) {
                std::vector<int> expected;
                for (int q = 0; q < gpus; ++q) {
                    const RankCoord b = rankCoord(s, q);
                    bool same = a.tp == b.tp && a.pp == b.pp;
                    switch (g.group) {
                    case Group::Tp: same = a.cp == b.cp && a.dp == b.dp && a.pp == b.pp; break;
                    case Group::Cp: same = same && a.dp == b.dp; break;
                    case Group::Pp: same = a.tp == b.tp && a.cp == b.cp && a.dp == b.dp; break;
                    case Group::Ep: same = same && a.expertDp == b.expertDp; break;
                    case Group::Dp: same = same && (!g.expertDataParallel || a.ep == b.ep); break;
                    }
                    if (same)
                        expected.push_back(q);
                }
                QCOMPARE(g.members, expected);
                QCOMPARE(g.size, int(expected.size()));
                std::set<int> nodes, domains;
                for (int m : expected) {
                    nodes.insert(m / gpn);
                    domains.insert(m / domain);
                }
                QCOMPARE(g.nodesSpanned, int(nodes.size()));
                QCOMPARE(g.crossesNodes, nodes.size() > 1);
                QCOMPARE(g.withinScaleUpDomain, domains.size() == 1);
            }
        }
    }
}

void TestRankMap::hugeGroupsListFewMembers()
{
    // ~10^7 GPUs: the DP group of the last rank has 312,480 members; asked for 16, it lists 16 and still knows its
    // size and span.
    Scenario s = presetScenario("llama3-70b", 9765, 1024);
    s.parallelism.tp = 8;
    s.parallelism.pp = 4;
    const RankGroup dp = groupOf(s, s.cluster.gpus() - 1, Group::Dp, false, 16);
    QCOMPARE(dp.size, 9765 * 1024 / 32);
    QCOMPARE(dp.members.size(), size_t(16));
    const int first = 3 * (s.cluster.gpus() / 4) + 7; // the last pipeline stage, TP rank 7
    QCOMPARE(dp.first, first);
    QCOMPARE(dp.members.front(), first);
    QCOMPARE(dp.members[1] - dp.members[0], 8);
    QCOMPARE(dp.nodesSpanned, (s.cluster.gpus() - 1) / 1024 - first / 1024 + 1); // the stage's quarter of the nodes
    QVERIFY(dp.crossesNodes);
    QCOMPARE(groupsOf(s, 0, 0).front().members.size(), size_t(0));
}

QTEST_APPLESS_MAIN(TestRankMap)
#include "tst_rank_map.moc"
