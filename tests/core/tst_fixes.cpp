// SPDX-License-Identifier: GPL-3.0-or-later
// One-click fixes for an invalid edit (issue 13, item 6): the nearest node counts, global batch sizes and
// micro-batch sizes with which the scenario validates, each worked out here from validate()'s rules.
#include "test_support.h"

#include "shardscope/core/fixes.h"

#include <QObject>

using namespace shardscope::core;

namespace {
QStringList describe(const std::vector<Fix>& fixes)
{
    QStringList out;
    for (const Fix& f : fixes)
        out << QStringLiteral("%1=%2").arg(QString::fromStdString(f.field)).arg(f.value);
    return out;
}
} // namespace

class TestFixes : public QObject
{
    Q_OBJECT
private slots:
    void fiveNodesWithBatch512();
    void validScenarioHasNoFixes();
    void issueNoFieldCuresHasNoFixes();
    void fixesHonourTheOtherRules();
    void eachFixChangesOneFieldAndValidates();
};

void TestFixes::fiveNodesWithBatch512()
{
    // The issue's example: 5 x 8 H100, ZeRO-3, global batch 512, micro-batch 1. dp = 40 and 512 is not a multiple
    // of 1 x 40. Nodes: 4 gives dp 32 (512 = 16 x 32); 6 and 7 give dp 48 and 56, which do not divide 512; 8 gives
    // dp 64 (512 = 8 x 64). Global batch: the multiples of 40 around 512 are 480 and 520. Micro-batch: 512 is not a
    // multiple of 40·m for any m, so there is none.
    Scenario s = defaultScenario(sstest::catalog());
    s.cluster.nodes = 5;
    QVERIFY(!validate(s).empty());
    QCOMPARE(describe(nearestValidFixes(s)),
        QStringList({ QStringLiteral("cluster.nodes=4"), QStringLiteral("cluster.nodes=8"),
            QStringLiteral("training.global_batch=480"), QStringLiteral("training.global_batch=520") }));
}

void TestFixes::validScenarioHasNoFixes() { QVERIFY(nearestValidFixes(defaultScenario(sstest::catalog())).empty()); }

void TestFixes::issueNoFieldCuresHasNoFixes()
{
    // tp 6 does not divide Llama 3 70B's 64 heads: no node count or batch size helps.
    Scenario s = defaultScenario(sstest::catalog());
    s.parallelism.tp = 6;
    QVERIFY(!validate(s).empty());
    QVERIFY(nearestValidFixes(s).empty());
}

void TestFixes::fixesHonourTheOtherRules()
{
    // 4 x 8 GPUs, pp 2 interleaved (2 virtual stages): dp = 16. Global batch 40 is not a multiple of 16. Below: 32,
    // 2 micro-batches per rank, a multiple of pp: valid. Above: 48 gives 3 micro-batches, which Megatron's
    // interleaved schedule refuses (not a multiple of pp = 2), so the fix above is 64 (4 micro-batches).
    Scenario s = defaultScenario(sstest::catalog());
    s.parallelism.pp = 2;
    s.parallelism.schedule = PpSchedule::Interleaved;
    s.parallelism.virtualStages = 2;
    s.training.globalBatch = 40;
    QStringList batches;
    for (const Fix& f : nearestValidFixes(s))
        if (f.field == "training.global_batch")
            batches << QString::number(f.value);
    QCOMPARE(batches, QStringList({ QStringLiteral("32"), QStringLiteral("64") }));
    // Micro-batch 3 with global batch 64: 64 is not a multiple of 3 x 16. Below, 2 gives 2 micro-batches: valid.
    // Above, 4 gives 1 micro-batch (not a multiple of pp = 2) and 5 and more exceed 64 / 16: no fix above.
    s.training.globalBatch = 64;
    s.training.microBatch = 3;
    QStringList micro;
    for (const Fix& f : nearestValidFixes(s))
        if (f.field == "training.micro_batch")
            micro << QString::number(f.value);
    QCOMPARE(micro, QStringList({ QStringLiteral("2") }));
}

void TestFixes::eachFixChangesOneFieldAndValidates()
{
    Scenario s = defaultScenario(sstest::catalog());
    s.cluster.nodes = 3;
    s.parallelism.tp = 2;
    s.training.globalBatch = 100;
    const std::vector<Fix> fixes = nearestValidFixes(s);
    QVERIFY(!fixes.empty());
    for (const Fix& f : fixes) {
        QVERIFY2(validate(f.scenario).empty(), qPrintable(QString::fromStdString(f.field)));
        Scenario back = f.scenario;
        if (f.field == "cluster.nodes") {
            QCOMPARE(int64_t(back.cluster.nodes), f.value);
            back.cluster.nodes = s.cluster.nodes;
        } else if (f.field == "training.global_batch") {
            QCOMPARE(back.training.globalBatch, f.value);
            back.training.globalBatch = s.training.globalBatch;
        } else {
            QCOMPARE(f.field, std::string("training.micro_batch"));
            QCOMPARE(back.training.microBatch, f.value);
            back.training.microBatch = s.training.microBatch;
        }
        QCOMPARE(back, s); // nothing else changed
    }
}

QTEST_APPLESS_MAIN(TestFixes)
#include "tst_fixes.moc"
