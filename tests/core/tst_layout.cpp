// SPDX-License-Identifier: GPL-3.0-or-later
// Layout (issue 9): the degrees, groups and placements derived once from a scenario, checked by hand against
// Megatron-LM's rank order (megatron/core/parallel_state.py: tp fastest, then cp, dp, pp) and FSDP's hybrid sharding.
#include "test_support.h"

#include <shardscope/core/enum_names.h>
#include <shardscope/core/layout.h>
#include <shardscope/core/strategies.h>

#include <QObject>

using namespace shardscope::core;

class TestLayout : public QObject
{
    Q_OBJECT
private slots:
    void denseThreeD();
    void hybridShardGroups();
    void expertsAndContext();
    void placements_data();
    void placements();
    void strategyLadder();
    void shardingNameTable();
};

// 16 nodes × 8 GPUs, tp 8, pp 4, cp 1: dp = 128 / 32 = 4; 512 sequences in micro-batches of 2 → 512 / (2·4) = 64.
void TestLayout::denseThreeD()
{
    Scenario s = sstest::presetScenario("llama3-70b", 16, 8);
    s.parallelism.tp = 8;
    s.parallelism.pp = 4;
    s.parallelism.cp = 1;
    s.parallelism.sharding = Sharding::Zero1;
    s.parallelism.schedule = PpSchedule::Interleaved;
    s.parallelism.virtualStages = 5;
    s.training.globalBatch = 512;
    s.training.microBatch = 2;
    const Layout l = makeLayout(s);
    QCOMPARE(l.gpus, 128);
    QCOMPARE(l.dp, 4);
    QCOMPARE(l.dpcp, 4);
    QCOMPARE(l.shardGroup, 4); // ZeRO shards over every data-parallel rank
    QCOMPARE(l.replicas, 1);
    QCOMPARE(l.ep, 1); // dense model
    QCOMPARE(l.virtualStages, 5);
    QCOMPARE(l.microBatches, int64_t(64));
    // tp 8 fills a node; dp ranks are 8 apart: 4 nodes, one member each; pipeline neighbours 32 ranks apart.
    QCOMPARE(l.tpGroup, (GroupPlacement { 8, 8, 1 }));
    QCOMPARE(l.dpcpGroup, (GroupPlacement { 4, 1, 4 }));
    QCOMPARE(l.ppPair, (GroupPlacement { 2, 1, 2 }));
    QCOMPARE(makeLayout(s, 2).microBatches, int64_t(128)); // the same scenario at dp 2 (min_gpus)
}

// fsdp-hybrid on 4 × 8 GPUs, tp 1: dp·cp = 32 ranks; shard_group 0 means one node (8), so 4 replicas; 16 → 2 replicas;
// a group larger than dp·cp is capped at dp·cp.
void TestLayout::hybridShardGroups()
{
    Scenario s = sstest::presetScenario("llama3-8b", 4, 8);
    s.parallelism.sharding = Sharding::FsdpHybrid;
    s.parallelism.shardGroup = 0;
    Layout l = makeLayout(s);
    QCOMPARE(l.shardGroup, 8);
    QCOMPARE(l.replicas, 4);
    QCOMPARE(l.shardGroupPlacement, (GroupPlacement { 8, 8, 1 }));
    QCOMPARE(l.replicaGroup, (GroupPlacement { 4, 1, 4 })); // one member per node, 8 ranks apart
    s.parallelism.shardGroup = 16;
    l = makeLayout(s);
    QCOMPARE(l.shardGroup, 16);
    QCOMPARE(l.replicas, 2);
    QCOMPARE(l.shardGroupPlacement, (GroupPlacement { 16, 8, 2 }));
    s.parallelism.shardGroup = 64;
    QCOMPARE(makeLayout(s).shardGroup, 32);
}

// Mixtral 8x7B on 2 × 8 GPUs, tp 2, cp 2, ep 4: dp = 16 / 4 = 4, dp·cp = 8, experts replicated over 8 / 4 = 2 ranks;
// cp neighbours 2 ranks apart stay in a node.
void TestLayout::expertsAndContext()
{
    Scenario s = sstest::presetScenario("mixtral-8x7b", 2, 8);
    s.parallelism.tp = 2;
    s.parallelism.cp = 2;
    s.parallelism.ep = 4;
    const Layout l = makeLayout(s);
    QCOMPARE(l.dp, 4);
    QCOMPARE(l.dpcp, 8);
    QCOMPARE(l.ep, 4);
    QCOMPARE(l.expertDp, 2);
    QCOMPARE(l.epGroup, (GroupPlacement { 4, 4, 1 })); // 4 members 2 apart: 8 ranks, one node
    QCOMPARE(l.expertDpGroup, (GroupPlacement { 2, 1, 2 })); // 2 members 8 apart: two nodes
    QCOMPARE(l.cpPair, (GroupPlacement { 2, 2, 1 }));
    s.model.moe.experts = 0; // a dense model ignores ep
    QCOMPARE(makeLayout(s).ep, 1);
}

void TestLayout::placements_data()
{
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("perNode");
    QTest::addColumn<int>("members");
    QTest::addColumn<int>("nodes");
    QTest::newRow("single") << 1 << 1 << 8 << 1 << 1;
    QTest::newRow("inside a node") << 4 << 2 << 8 << 4 << 1;
    QTest::newRow("one per node") << 4 << 8 << 8 << 1 << 4;
    QTest::newRow("two per node") << 8 << 4 << 8 << 2 << 4;
    QTest::newRow("uneven") << 3 << 3 << 8 << 2 << 2; // ranks 0, 3 | 6 ... two fit in 8 at stride 3
}

void TestLayout::placements()
{
    QFETCH(int, size);
    QFETCH(int, stride);
    QFETCH(int, perNode);
    QFETCH(int, members);
    QFETCH(int, nodes);
    const GroupPlacement g = placeGroup(size, stride, perNode);
    QCOMPARE(g.size, size);
    QCOMPARE(g.perNode, members);
    QCOMPARE(g.nodes, nodes);
}

// The comparison's strategies: ZeRO's stages in order (Rajbhandari et al. §5), then ZeRO-3 with the optimizer, then
// also the parameters, on the CPU; applying one changes nothing but sharding and offload.
void TestLayout::strategyLadder()
{
    const StrategyLadder& ladder = comparedStrategies();
    QCOMPARE(ladder.size(), size_t(6));
    const Sharding order[]
        = { Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3, Sharding::Zero3, Sharding::Zero3 };
    for (size_t i = 0; i < ladder.size(); ++i)
        QCOMPARE(ladder[i].sharding, order[i]);
    QCOMPARE(ladder[4].optimizer, OffloadTarget::Cpu);
    QCOMPARE(ladder[4].parameters, OffloadTarget::None);
    QCOMPARE(ladder[5].parameters, OffloadTarget::Cpu);
    Scenario s = sstest::presetScenario("llama3-8b", 2, 8);
    s.parallelism.tp = 2;
    s.parallelism.sharding = Sharding::Zero2;
    const Scenario z3 = withStrategy(s, ladder[5]);
    QCOMPARE(z3.parallelism.sharding, Sharding::Zero3);
    QCOMPARE(z3.parallelism.tp, 2);
    QCOMPARE(z3.offload.parameters, OffloadTarget::Cpu);
    QVERIFY(z3.model == s.model && z3.cluster == s.cluster && z3.training == s.training);
    QVERIFY(usesStrategy(s, ladder[2]));
    QVERIFY(!usesStrategy(s, ladder[3]));
    // Labels from the sharding name table, the offload on a second line (the strategy chart's bars).
    const char* labels[] = { "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3", "ZeRO-3\n+CPU opt.", "ZeRO-3\n+CPU all" };
    for (size_t i = 0; i < ladder.size(); ++i)
        QCOMPARE(ladder[i].label, std::string(labels[i]));
    s.parallelism.sharding = Sharding::FsdpGradOp;
    s.offload.optimizer = OffloadTarget::Nvme;
    QCOMPARE(strategyLabel(s), std::string("FSDP grad-op\n+NVMe opt."));
}

// One name table: the file key is toString()'s, and each mode has its labels and a description.
void TestLayout::shardingNameTable()
{
    const char* keys[] = { "ddp", "zero1", "zero2", "zero3", "fsdp-full", "fsdp-grad-op", "fsdp-hybrid" };
    const char* shortLabels[] = { "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3", "FSDP full", "FSDP grad-op", "FSDP hybrid" };
    const char* longLabels[]
        = { "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3", "FSDP full shard", "FSDP grad-op shard", "FSDP hybrid shard" };
    QCOMPARE(shardingNames().size(), std::size(keys));
    for (size_t i = 0; i < std::size(keys); ++i) {
        const ShardingName& n = shardingNames()[i];
        QCOMPARE(int(n.sharding), int(i));
        QCOMPARE(&shardingName(n.sharding), &n);
        QCOMPARE(std::string(toString(n.sharding)), std::string(keys[i]));
        QCOMPARE(std::string(n.shortLabel), std::string(shortLabels[i]));
        QCOMPARE(std::string(n.longLabel), std::string(longLabels[i]));
        QVERIFY(std::string(n.description).size() > 10);
    }
}

QTEST_GUILESS_MAIN(TestLayout)
#include "tst_layout.moc"
