// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario names made from the content (issue 13, item 3): model, GPUs, strategy, offload and the model-parallel
// degrees; a typed name wins; files keep an unnamed scenario unnamed across a save and an open.
#include "test_support.h"

#include "shardscope/core/scenario_name.h"

#include <QObject>

using namespace shardscope::core;

class TestScenarioName : public QObject
{
    Q_OBJECT
private slots:
    void defaultScenarioIsNamedFromItsContent();
    void nameFollowsLayoutAndStrategy_data();
    void nameFollowsLayoutAndStrategy();
    void gpuNameDropsVendorNotesAndFormFactor();
    void typedNameWins();
    void fileRoundTripKeepsNamesGeneratedOrTyped();
};

void TestScenarioName::defaultScenarioIsNamedFromItsContent()
{
    const Scenario s = defaultScenario(sstest::catalog());
    QVERIFY(s.name.empty());
    QCOMPARE(QString::fromStdString(scenarioTitle(s)), QStringLiteral("Llama 3 70B, 4 x 8 H100 80GB, ZeRO-3"));
}

void TestScenarioName::nameFollowsLayoutAndStrategy_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("sharding");
    QTest::addColumn<int>("optimizerOffload");
    QTest::addColumn<int>("parameterOffload");
    QTest::addColumn<QString>("expected");
    const int none = int(OffloadTarget::None), cpu = int(OffloadTarget::Cpu), nvme = int(OffloadTarget::Nvme);
    QTest::newRow("8 nodes") << 8 << 1 << 1 << 1 << int(Sharding::Zero3) << none << none
                             << QStringLiteral("Llama 3 70B, 8 x 8 H100 80GB, ZeRO-3");
    QTest::newRow("tp pp") << 8 << 2 << 4 << 1 << int(Sharding::Zero1) << none << none
                           << QStringLiteral("Llama 3 70B, 8 x 8 H100 80GB, ZeRO-1, TP 2 x PP 4");
    QTest::newRow("cp only") << 4 << 1 << 1 << 4 << int(Sharding::FsdpFull) << none << none
                             << QStringLiteral("Llama 3 70B, 4 x 8 H100 80GB, FSDP full shard, CP 4");
    QTest::newRow("cpu optimizer") << 4 << 1 << 1 << 1 << int(Sharding::Zero3) << cpu << none
                                   << QStringLiteral("Llama 3 70B, 4 x 8 H100 80GB, ZeRO-3 + CPU optimizer offload");
    QTest::newRow("cpu both") << 4 << 1 << 1 << 1 << int(Sharding::Zero3) << cpu << cpu
                              << QStringLiteral("Llama 3 70B, 4 x 8 H100 80GB, ZeRO-3 + CPU offload");
    QTest::newRow("cpu + nvme")
        << 4 << 1 << 1 << 1 << int(Sharding::Zero3) << cpu << nvme
        << QStringLiteral("Llama 3 70B, 4 x 8 H100 80GB, ZeRO-3 + CPU optimizer offload + NVMe parameter offload");
}

void TestScenarioName::nameFollowsLayoutAndStrategy()
{
    QFETCH(int, nodes);
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, cp);
    QFETCH(int, sharding);
    QFETCH(int, optimizerOffload);
    QFETCH(int, parameterOffload);
    QFETCH(QString, expected);
    Scenario s = defaultScenario(sstest::catalog());
    s.cluster.nodes = nodes;
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    s.parallelism.cp = cp;
    s.parallelism.sharding = Sharding(sharding);
    s.offload.optimizer = OffloadTarget(optimizerOffload);
    s.offload.parameters = OffloadTarget(parameterOffload);
    QCOMPARE(QString::fromStdString(generatedName(s)), expected);
}

void TestScenarioName::gpuNameDropsVendorNotesAndFormFactor()
{
    Scenario s = sstest::presetScenario("mixtral-8x22b", 16, 8, "b200-180gb", "nvlink5");
    s.name.clear();
    s.parallelism.sharding = Sharding::Zero1;
    s.parallelism.tp = 2;
    s.parallelism.pp = 4;
    s.parallelism.ep = 8;
    // "NVIDIA B200 180GB (HGX B200)": vendor and the parenthesised note go.
    QCOMPARE(QString::fromStdString(scenarioTitle(s)),
        QStringLiteral("Mixtral 8x22B, 16 x 8 B200 180GB, ZeRO-1, TP 2 x PP 4 x EP 8"));
    s.cluster.gpu = sstest::gpu("mi300x"); // "AMD Instinct MI300X"
    QVERIFY(QString::fromStdString(generatedName(s)).contains(QStringLiteral(", 16 x 8 Instinct MI300X,")));
    s.cluster.gpu = sstest::gpu("h100-pcie-80gb"); // PCIe is not an SXM form factor word: it stays
    QVERIFY(QString::fromStdString(generatedName(s)).contains(QStringLiteral(" H100 PCIe 80GB,")));
    s.model.name.clear();
    s.model.id.clear();
    QVERIFY(QString::fromStdString(generatedName(s)).startsWith(QStringLiteral("Custom model, ")));
}

void TestScenarioName::typedNameWins()
{
    Scenario s = defaultScenario(sstest::catalog());
    s.name = "My plan";
    s.cluster.nodes = 16;
    QCOMPARE(QString::fromStdString(scenarioTitle(s)), QStringLiteral("My plan"));
}

void TestScenarioName::fileRoundTripKeepsNamesGeneratedOrTyped()
{
    const Catalog& cat = sstest::catalog();
    Scenario s = defaultScenario(cat);
    s.cluster.nodes = 8;
    // Saved unnamed, read back unnamed: it keeps following edits.
    const std::string text = scenarioToJson(s, cat);
    QVERIFY(QString::fromStdString(text).contains(QStringLiteral("\"name\": \"\"")));
    ScenarioParse back = parseScenario(text, cat);
    QVERIFY(back.ok());
    QCOMPARE(back.scenario, s);
    back.scenario.cluster.nodes = 2;
    QCOMPARE(
        QString::fromStdString(scenarioTitle(back.scenario)), QStringLiteral("Llama 3 70B, 2 x 8 H100 80GB, ZeRO-3"));
    // A file that carries the generated name of its own content (another tool wrote it) reads as unnamed.
    std::string named = text;
    named.replace(named.find("\"name\": \"\""), 10, "\"name\": \"Llama 3 70B, 8 x 8 H100 80GB, ZeRO-3\"");
    QVERIFY(parseScenario(named, cat).scenario.name.empty());
    // A typed name stays, even when it was the generated name of an older layout.
    s.name = "Llama 3 70B, 4 x 8 H100 80GB, ZeRO-3";
    const ScenarioParse typed = parseScenario(scenarioToJson(s, cat), cat);
    QCOMPARE(typed.scenario.name, s.name);
    // A file with no name at all gets the generated one.
    const ScenarioParse unnamed = parseScenario(R"({"schema": "shardscope.scenario/1", "cluster": {"nodes": 2}})", cat);
    QVERIFY(unnamed.ok());
    QVERIFY(unnamed.scenario.name.empty());
    QCOMPARE(QString::fromStdString(scenarioTitle(unnamed.scenario)),
        QStringLiteral("Llama 3 70B, 2 x 8 H100 80GB, ZeRO-3"));
}

QTEST_APPLESS_MAIN(TestScenarioName)
#include "tst_scenario_name.moc"
