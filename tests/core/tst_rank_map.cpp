// SPDX-License-Identifier: GPL-3.0-or-later
// Rank map: Megatron's rank order (tp fastest, then cp, dp, pp), groups worked out by hand.
#include "test_support.h"

#include "shardscope/core/rank_map.h"

using namespace sstest;

class TestRankMap : public QObject {
    Q_OBJECT
private slots:
    void coordinatesByHand();
    void groupsByHand();
    void expertGroups();
    void spillWarnings();
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
    QCOMPARE(membersOf(gs, Group::Tp), (std::vector<int>{ 4, 5 }));
    QCOMPARE(membersOf(gs, Group::Cp), (std::vector<int>{ 5, 7 }));
    QCOMPARE(membersOf(gs, Group::Dp), (std::vector<int>{ 1, 3, 5, 7 })); // dense gradients: dp × cp
    QCOMPARE(membersOf(gs, Group::Pp), (std::vector<int>{ 5, 13 }));
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
    QCOMPARE(membersOf(gs, Group::Ep), (std::vector<int>{ 0, 2, 4, 6 }));
    QCOMPARE(membersOf(gs, Group::Dp, true), (std::vector<int>{ 0, 8 }));
}

void TestRankMap::spillWarnings()
{
    Scenario s = presetScenario("llama3-70b", 2, 8);
    s.parallelism.tp = 16; // 64 heads / 16 = 4, spans both nodes
    QVERIFY(hasIssue(placementWarnings(s), "parallelism.tp", "spans 2 nodes"));
    s.parallelism.tp = 8;
    QVERIFY(placementWarnings(s).empty());
}

QTEST_APPLESS_MAIN(TestRankMap)
#include "tst_rank_map.moc"
