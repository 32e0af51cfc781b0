// SPDX-License-Identifier: GPL-3.0-or-later
// Each catalog GPU names its own links (issue 13 item 2), and a scenario whose intra-node link is not the GPU's
// scale-up link carries a warning naming both.
#include "test_support.h"

#include <QTest>

using namespace shardscope::core;

class TestGpuLinks : public QObject
{
    Q_OBJECT
private slots:
    void everyGpuNamesCatalogLinksOfTheRightKind();
    void ownLinksByGeneration_data();
    void ownLinksByGeneration();
    void mismatchedScaleUpLinkWarns();
    void gpuWithoutScaleUpLinkNeverWarns();
    void linksSurviveTheCatalogJson();
};

void TestGpuLinks::everyGpuNamesCatalogLinksOfTheRightKind()
{
    for (const GpuSpec& g : sstest::catalog().gpus) {
        QVERIFY2(!g.scaleOutLink.empty(), g.id.c_str());
        QVERIFY2(!g.linksSource.empty(), g.id.c_str());
        const LinkSpec* out = sstest::catalog().link(g.scaleOutLink);
        QVERIFY2(out && out->kind == LinkKind::ScaleOut, g.id.c_str());
        if (g.scaleUpLink.empty())
            continue; // Gaudi 3: the on-chip RoCE ports are its scale-up fabric, held by scale_up_bandwidth
        const LinkSpec* up = sstest::catalog().link(g.scaleUpLink);
        QVERIFY2(up && (up->kind == LinkKind::ScaleUp || up->kind == LinkKind::Host), g.id.c_str());
        // A GPU with a scale-up fabric has a scale-up link; one without (PCIe only) names the host link.
        QCOMPARE(up->kind == LinkKind::ScaleUp, g.id != "h100-pcie-80gb" && g.id != "l40s");
    }
}

void TestGpuLinks::ownLinksByGeneration_data()
{
    // catalogs.md §2 (stas00 network/README.md): NVLink 3 on A100, 4 on H100/H200, 5 on B200/GB200/B300/GB300;
    // DGX A100 HDR 200, DGX H100 and DGX B200 ConnectX-7 NDR 400, DGX B300 and GB300 NVL72 ConnectX-8 XDR 800.
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("up");
    QTest::addColumn<QString>("out");
    QTest::newRow("a100") << "a100-sxm4-80gb"
                          << "nvlink3"
                          << "ib-hdr200";
    QTest::newRow("h100") << "h100-sxm5-80gb"
                          << "nvlink4"
                          << "ib-ndr400";
    QTest::newRow("h200") << "h200-sxm-141gb"
                          << "nvlink4"
                          << "ib-ndr400";
    QTest::newRow("b200") << "b200-180gb"
                          << "nvlink5"
                          << "ib-ndr400";
    QTest::newRow("gb200") << "gb200"
                           << "nvlink5"
                           << "ib-ndr400";
    QTest::newRow("b300") << "b300"
                          << "nvlink5"
                          << "ib-xdr800";
    QTest::newRow("gb300") << "gb300"
                           << "nvlink5"
                           << "ib-xdr800";
    QTest::newRow("mi300x") << "mi300x"
                            << "xgmi-mi300"
                            << "roce-400";
    QTest::newRow("mi355x") << "mi355x"
                            << "xgmi-mi355"
                            << "roce-400";
    QTest::newRow("h100 pcie") << "h100-pcie-80gb"
                               << "pcie5"
                               << "ib-ndr400";
}

void TestGpuLinks::ownLinksByGeneration()
{
    QFETCH(QString, gpu);
    QFETCH(QString, up);
    QFETCH(QString, out);
    const GpuSpec& g = sstest::gpu(gpu.toStdString());
    QCOMPARE(QString::fromStdString(g.scaleUpLink), up);
    QCOMPARE(QString::fromStdString(g.scaleOutLink), out);
}

void TestGpuLinks::mismatchedScaleUpLinkWarns()
{
    // The issue's walkthrough: Llama 3 70B on 8 x 8 H100, then the GPU changed to B200 and NVLink 4 kept.
    Scenario s = sstest::presetScenario("llama3-70b", 8, 8, "h100-sxm5-80gb", "nvlink4", "ib-ndr400");
    s.parallelism.sharding = Sharding::Zero3;
    const auto linkWarnings = [](const Result& r) {
        return std::count_if(
            r.warnings.begin(), r.warnings.end(), [](const Issue& i) { return i.field == "cluster.intra_node"; });
    };
    const Result h100 = evaluate(s);
    QVERIFY(h100.valid);
    QCOMPARE(linkWarnings(h100), 0);

    s.cluster.gpu = sstest::gpu("b200-180gb");
    const Result b200 = evaluate(s);
    QVERIFY(b200.valid);
    QCOMPARE(linkWarnings(b200), 1);
    const auto it = std::find_if(
        b200.warnings.begin(), b200.warnings.end(), [](const Issue& i) { return i.field == "cluster.intra_node"; });
    QCOMPARE(QString::fromStdString(it->message),
        QStringLiteral("NVIDIA B200 180GB (HGX B200) comes with nvlink5, not nvlink4"));

    s.cluster.intraNode = sstest::link("nvlink5");
    QCOMPARE(linkWarnings(evaluate(s)), 0);
    // The scale-out link is a choice (IB, RoCE, EFA all ship with B200 servers): never a warning.
    s.cluster.interNode = sstest::link("roce-400");
    QCOMPARE(linkWarnings(evaluate(s)), 0);
}

void TestGpuLinks::gpuWithoutScaleUpLinkNeverWarns()
{
    Scenario s = sstest::presetScenario("llama3-8b", 1, 8, "gaudi3", "nvlink4", "gaudi3-roce");
    QVERIFY(evaluate(s).valid);
    for (const Issue& w : evaluate(s).warnings)
        QVERIFY2(w.field != "cluster.intra_node", w.message.c_str());
    // A custom GPU (no catalog links) cannot be checked either.
    s.cluster.gpu = sstest::gpu("h100-sxm5-80gb");
    s.cluster.gpu.id.clear();
    s.cluster.gpu.scaleUpLink.clear();
    s.cluster.intraNode = sstest::link("pcie4");
    for (const Issue& w : evaluate(s).warnings)
        QVERIFY2(w.field != "cluster.intra_node", w.message.c_str());
}

void TestGpuLinks::linksSurviveTheCatalogJson()
{
    // A scenario with a fully custom GPU object that names links reads them back.
    const std::string text
        = R"({"schema":"shardscope.scenario/1","cluster":{"gpu":{"name":"mine","arch":"hopper",)"
          R"("bf16_dense_flops":5e14,"memory_bytes":6e10,"memory_bandwidth":2e12,"scale_up_bandwidth":2e11,)"
          R"("host_link_bandwidth":3e10,"achievable_matmul_fraction":0.7,"scale_up_link":"nvlink3",)"
          R"("scale_out_link":"roce-200","links_source":"my vendor"},"intra_node":"nvlink4"}})";
    const ScenarioParse p = sstest::parse(text);
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    QCOMPARE(QString::fromStdString(p.scenario.cluster.gpu.scaleUpLink), QStringLiteral("nvlink3"));
    QCOMPARE(QString::fromStdString(p.scenario.cluster.gpu.scaleOutLink), QStringLiteral("roce-200"));
    const Result r = evaluate(p.scenario);
    QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [](const Issue& i) {
        return i.field == "cluster.intra_node" && i.message == "mine comes with nvlink3, not nvlink4";
    }));
    const ScenarioParse again = sstest::parse(scenarioToJson(p.scenario, sstest::catalog()));
    QVERIFY(again.ok());
    QVERIFY(again.scenario.cluster.gpu == p.scenario.cluster.gpu);
}

QTEST_APPLESS_MAIN(TestGpuLinks)
#include "tst_gpu_links.moc"
