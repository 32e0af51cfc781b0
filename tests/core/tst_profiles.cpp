// SPDX-License-Identifier: GPL-3.0-or-later
// Framework profiles (resources/profiles/*.json, shardscope.profile/1) and what they change in the model:
// parsing with bounds and sources, the built-in Megatron-Core profile equal to the shipped file, the bytes per logit
// a framework keeps at the loss, and PyTorch's op-level selective checkpointing (recompute: selective-op).
#include "test_support.h"

#include "shardscope/core/profile.h"

#include "shardscope/core/calibrate.h"
#include "shardscope/core/catalog_files.h"
#include "shardscope/core/profile_json.h"

#include <nlohmann/json.hpp>

#include <QObject>

#include <functional>

using namespace shardscope::core;

class TestProfiles : public QObject
{
    Q_OBJECT
private slots:
    void shippedProfilesParse();
    void megatronFileEqualsBuiltIn();
    void badProfilesNameFieldAndRule_data();
    void badProfilesNameFieldAndRule();
    void jsonRoundTrip();
    void frameworkSelectsProfile();
    void calibratedProfileTravelsWithTheScenario();
    void logitBytesFollowTheFramework();
    void selectiveOpKeepsEveryOtherMatmul();
    void selectiveOpRecomputesUnsavedMatmuls();
};

namespace {
std::string readProfile(const char* name)
{
    QFile f(QStringLiteral(SHARDSCOPE_TEST_RESOURCES "/profiles/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

bool hasError(const ProfileParse& p, const std::string& needle)
{
    for (const auto& e : p.errors)
        if (e.find(needle) != std::string::npos)
            return true;
    return false;
}

Scenario llama8b()
{
    Scenario s = sstest::presetScenario("llama3-8b", 1, 8);
    s.training.seqLen = 8192;
    s.training.flashAttention = true;
    s.training.dropout = false;
    s.parallelism.sharding = Sharding::Zero3;
    return s;
}
} // namespace

void TestProfiles::shippedProfilesParse()
{
    for (const std::string& name : profileFileNames()) {
        const std::string text = readProfile(name.c_str());
        QVERIFY2(!text.empty(), name.c_str());
        const ProfileParse p = parseProfile(text);
        QVERIFY2(p.ok(), (name + ": " + (p.errors.empty() ? "" : p.errors.front())).c_str());
        QCOMPARE(p.profile.id + ".json", name);
        // every value states where it comes from
        for (const auto& c : profileConstants()) {
            bool sourced = false;
            for (const auto& [k, src] : p.profile.sources)
                sourced = sourced || (k == c.key && !src.empty());
            QVERIFY2(sourced, (name + ": " + c.key).c_str());
        }
    }
}

void TestProfiles::megatronFileEqualsBuiltIn()
{
    // A scenario without training.framework uses the built-in profile; the shipped file must say the same.
    const ProfileParse p = parseProfile(readProfile("megatron.json"));
    QVERIFY(p.ok());
    const FrameworkProfile built = megatronProfile();
    for (const auto& c : profileConstants())
        QCOMPARE(p.profile.*c.member, built.*c.member);
    QCOMPARE(p.profile.logitBytes, built.logitBytes);
    QCOMPARE(int(p.profile.attentionKernel), int(built.attentionKernel));
    QCOMPARE(p.profile.fp8GemmSpeedup, built.fp8GemmSpeedup);
    QCOMPARE(p.profile.gatherBucketElements, built.gatherBucketElements);
    QCOMPARE(p.profile.gradBucketElements, built.gradBucketElements);
    QCOMPARE(p.profile.gradBucketElementsPerDpRank, built.gradBucketElementsPerDpRank);
    QCOMPARE(p.profile.gradBucketBytes, built.gradBucketBytes);
    // Megatron's fused cross-entropy: bf16 logits (2 B) + the fp32 softmax written over their gradient (4 B).
    QCOMPARE(built.logitBytes, 2.0 + 4.0);
    // Megatron-Core's buckets (megatron/core/distributed/distributed_data_parallel.py): max(40,000,000,
    // 1,000,000 × dp) parameters: 4e7 up to dp 40, then 1e6 per rank; PyTorch DDP's 25 MiB of bf16 gradients are
    // 13,107,200 elements; DeepSpeed's 5e8 elements whatever dp.
    QCOMPARE(gradBucketElements(built, 16, 2), 4e7);
    QCOMPARE(gradBucketElements(built, 1024, 2), 1.024e9);
    const FrameworkProfile torch = parseProfile(readProfile("pytorch.json")).profile;
    QCOMPARE(gradBucketElements(torch, 1024, 2), 25.0 * 1024 * 1024 / 2);
    QCOMPARE(gradBucketElements(torch, 8, 4), 25.0 * 1024 * 1024 / 4);
    const FrameworkProfile ds = parseProfile(readProfile("deepspeed.json")).profile;
    QCOMPARE(gradBucketElements(ds, 1024, 2), 5e8);
    QCOMPARE(ds.gatherBucketElements, 5e7);
}

void TestProfiles::badProfilesNameFieldAndRule_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("needle");
    const QString head = QStringLiteral(R"({"schema": "shardscope.profile/1", "id": "x", "framework": "pytorch", )");
    QTest::newRow("above bound") << head + R"("values": {"gemm_efficiency": {"value": 1.5, "source": "s"}}})"
                                 << "values.gemm_efficiency.value: must be in [0.2, 1]";
    QTest::newRow("negative") << head + R"("values": {"host_overhead_per_layer": {"value": -1, "source": "s"}}})"
                              << "values.host_overhead_per_layer.value: must be in [0, ";
    QTest::newRow("no source") << head + R"("values": {"allocator_slack": {"value": 0.1}}})"
                               << "values.allocator_slack.source: is required";
    QTest::newRow("bare number") << head + R"("values": {"allocator_slack": 0.1}})"
                                 << "values.allocator_slack: must be {\"value\": number";
    QTest::newRow("unknown value") << head + R"("values": {"magic": {"value": 1, "source": "s"}}})"
                                   << "values.magic: unknown profile value";
    QTest::newRow("attention kernel") << head + R"("values": {"attention_kernel": {"value": "fa4", "source": "s"}}})"
                                      << "values.attention_kernel.value: 'fa4' is not one of: fa2, fa3, cudnn";
    QTest::newRow("attention kernel number") << head + R"("values": {"attention_kernel": {"value": 2, "source": "s"}}})"
                                             << "values.attention_kernel: must be {\"value\": \"fa2\"";
    QTest::newRow("attention kernel source") << head + R"("values": {"attention_kernel": {"value": "fa3"}}})"
                                             << "values.attention_kernel.source: is required";
    QTest::newRow("framework") << R"({"schema": "shardscope.profile/1", "id": "x", "framework": "jax", "values": {}})"
                               << "framework: 'jax' is not one of: megatron, deepspeed, pytorch, pytorch-compile";
    QTest::newRow("schema") << R"({"schema": "shardscope.profile/9", "id": "x", "framework": "pytorch", "values": {}})"
                            << "schema: 'shardscope.profile/9' is not supported";
    QTest::newRow("not json") << "{\"schema\": "
                              << "";
    QTest::newRow("no values") << R"({"schema": "shardscope.profile/1", "id": "x", "framework": "pytorch"})"
                               << "values: is required";
}

void TestProfiles::badProfilesNameFieldAndRule()
{
    QFETCH(QString, text);
    QFETCH(QString, needle);
    const ProfileParse p = parseProfile(text.toStdString());
    QVERIFY(!p.ok());
    QVERIFY2(hasError(p, needle.toStdString()), p.errors.front().c_str());
}

void TestProfiles::jsonRoundTrip()
{
    FrameworkProfile p = parseProfile(readProfile("pytorch.json")).profile;
    p.id = "my-cluster";
    p.gemmEfficiency = 0.6125;
    p.memoryOverheadBytes = 1.5 * 1024 * 1024 * 1024;
    const ProfileParse back = parseProfile(profileJson(p));
    QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().c_str());
    QVERIFY(back.profile == p);
}

void TestProfiles::frameworkSelectsProfile()
{
    Scenario s = llama8b();
    QCOMPARE(s.profile.id, std::string("megatron"));
    QVERIFY(applyFramework(s, Framework::PyTorch, sstest::catalog()));
    QCOMPARE(s.profile.id, std::string("pytorch"));
    // the file keeps the framework, and reading it back selects the same profile
    const ScenarioParse back = parseScenario(scenarioToJson(s, sstest::catalog()), sstest::catalog());
    QVERIFY(back.errors.empty());
    QVERIFY(back.scenario.training.framework == Framework::PyTorch);
    QVERIFY(back.scenario.profile == s.profile);
    // a catalog without that profile refuses, naming the field
    Catalog noProfiles = sstest::catalog();
    noProfiles.profiles.clear();
    const ScenarioParse missing = parseScenario(scenarioToJson(s, sstest::catalog()), noProfiles);
    QCOMPARE(missing.errors.size(), size_t(1));
    QCOMPARE(missing.errors.front().field, std::string("training.framework"));
}

void TestProfiles::calibratedProfileTravelsWithTheScenario()
{
    // A calibrated profile is part of the scenario document (`calibration`): saved with it, restored on open, and the
    // numbers after reopening are the calibrated ones. A stock profile writes no `calibration`.
    using nlohmann::json;
    Scenario s = llama8b();
    QVERIFY(applyFramework(s, Framework::PyTorch, sstest::catalog()));
    QVERIFY(!json::parse(scenarioToJson(s, sstest::catalog())).contains("calibration"));
    FrameworkProfile p = s.profile;
    p.id = "cluster-x";
    p.name = "cluster-x";
    p.gemmEfficiency = 0.6125;
    p.fit.runs = 4;
    p.fit.figures = { { "tokens_per_second_per_gpu", 3100, 3050, 2990 } };
    QVERIFY(applyProfile(s, p).empty());
    const std::string text = scenarioToJson(s, sstest::catalog());
    const json doc = json::parse(text);
    QCOMPARE(doc["calibration"]["name"].get<std::string>(), std::string("cluster-x"));
    QCOMPARE(doc["calibration"]["runs"].get<int>(), 4);
    const std::string checksum = doc["calibration"]["checksum"].get<std::string>();
    QCOMPARE(checksum.size(), size_t(8 + 16)); // "fnv1a64:" + 64 bits in hex
    QCOMPARE(checksum.substr(0, 8), std::string("fnv1a64:"));
    const ScenarioParse back = parseScenario(text, sstest::catalog());
    QVERIFY(back.ok() && back.warnings.empty());
    QVERIFY(back.scenario.profile == p);
    QCOMPARE(evaluate(back.scenario).throughput.tokensPerSecondPerGpu, evaluate(s).throughput.tokensPerSecondPerGpu);

    auto edited = [&](const std::function<void(json&)>& change) {
        json j = doc;
        change(j);
        return parseScenario(j.dump(), sstest::catalog());
    };
    // A value edited by hand: used as written, with a warning that the checksum no longer matches.
    const ScenarioParse tampered
        = edited([](json& j) { j["calibration"]["profile"]["values"]["gemm_efficiency"]["value"] = 0.7; });
    QVERIFY(tampered.ok());
    QCOMPARE(tampered.scenario.profile.gemmEfficiency, 0.7);
    QCOMPARE(tampered.warnings.size(), size_t(1));
    QCOMPARE(tampered.warnings.front().field, std::string("calibration.checksum"));
    // A profile of another framework, a missing profile and a value out of bounds are refused, naming the field.
    const ScenarioParse other = edited([](json& j) { j["training"]["framework"] = "megatron"; });
    QCOMPARE(other.errors.size(), size_t(1));
    QCOMPARE(other.errors.front().field, std::string("calibration.profile.framework"));
    const ScenarioParse missing = edited([](json& j) { j["calibration"].erase("profile"); });
    QCOMPARE(missing.errors.size(), size_t(1));
    QCOMPARE(missing.errors.front().field, std::string("calibration.profile"));
    const ScenarioParse bounds
        = edited([](json& j) { j["calibration"]["profile"]["values"]["gemm_efficiency"]["value"] = 5; });
    QVERIFY(!bounds.ok());
    QCOMPARE(bounds.errors.front().field, std::string("calibration.profile"));
    QVERIFY(bounds.errors.front().message.find("gemm_efficiency") != std::string::npos);
}

void TestProfiles::logitBytesFollowTheFramework()
{
    // Same layout, Megatron-Core vs PyTorch: only the loss's bytes per logit differ. torchtitan's loss
    // (cross_entropy(pred.float()), pred deleted before backward) peaks in log_softmax's backward with the saved fp32
    // log-softmax (4 B), nll_loss's fp32 gradient (4 B) and log_softmax's fp32 gradient (4 B): 12 B against 6 B.
    Scenario mega = llama8b();
    Scenario torch = mega;
    QVERIFY(applyFramework(torch, Framework::PyTorch, sstest::catalog()));
    QCOMPARE(torch.profile.logitBytes, 4.0 + 4.0 + 4.0);
    const Result a = evaluate(mega), b = evaluate(torch);
    QVERIFY(a.valid && b.valid);
    const double s = 8192, batch = 1, V = 128256, t = 1;
    const double expected = (12.0 - 6.0) * s * batch * V / t; // one micro-batch's logits at the loss
    QVERIFY2(sstest::relClose(b.memory.activations - a.memory.activations, expected, 1e-9),
        qPrintable(QString::number(b.memory.activations - a.memory.activations, 'g', 12)));
}

void TestProfiles::selectiveOpKeepsEveryOtherMatmul()
{
    // Llama 3 8B, one micro-batch of 8192 tokens, t = 1, FlashAttention, no dropout (β = 2 bytes).
    // Stored per layer without recompute (Korthikanti et al. 2022 Eq. 2 generalised): two norm inputs, QKV and fc1
    // inputs 4βTh; Q, K, V and out-projection input βT(2q + 2kv); SwiGLU gate, up and product 3βTf; log-sum-exp 4aT.
    // torchtitan's op policy keeps the layer input βTh, the outputs of wq, wv, w1 and w2 (the 1st, 3rd, 5th and 7th
    // aten.mm: βT(q + kv + f) + βTh) and the attention output and log-sum-exp (βTq + 4aT).
    const double T = 8192, beta = 2, h = 4096, q = 4096, kv = 8 * 128, f = 14336, a = 32, L = 32;
    const double full = 4 * beta * T * h + beta * T * (2 * q + 2 * kv) + 3 * beta * T * f + 4 * a * T;
    const double op = beta * T * h + beta * T * (q + kv + f) + beta * T * h + beta * T * q + 4 * a * T;
    Scenario none = llama8b();
    none.training.recompute = Recompute::None;
    Scenario sel = none;
    sel.training.recompute = Recompute::SelectiveOp;
    const Result rn = evaluate(none), rs = evaluate(sel);
    QVERIFY(rn.valid && rs.valid);
    QVERIFY2(sstest::relClose(rn.memory.activations - rs.memory.activations, L * (full - op), 1e-9),
        qPrintable(QString::number(rn.memory.activations - rs.memory.activations, 'g', 12)));
}

void TestProfiles::selectiveOpRecomputesUnsavedMatmuls()
{
    // Backward re-runs the three unsaved matmuls (wk: h×kv, wo: q×h, w3: h×f), 2·T·h·(kv + q + f) FLOPs, at the
    // sustained GEMM rate (H100 989 TFLOP/s × MAMF 0.803 × Megatron's 0.80), and the element-wise kernels over the
    // bytes not kept (k_e = 3 passes over A_full − A at 3.35 TB/s). One micro-batch, 32 layers.
    const double T = 8192, beta = 2, h = 4096, q = 4096, kv = 1024, f = 14336, a = 32, L = 32;
    const double full = 4 * beta * T * h + beta * T * (2 * q + 2 * kv) + 3 * beta * T * f + 4 * a * T;
    const double op = beta * T * h + beta * T * (q + kv + f) + beta * T * h + beta * T * q + 4 * a * T;
    const double rate = 989e12 * 0.803 * 0.80;
    const double perLayer = 2 * T * h * (kv + q + f) / rate + 3.0 * (full - op) / 3.35e12;
    Scenario s = llama8b();
    s.training.recompute = Recompute::SelectiveOp;
    const Result r = evaluate(s);
    QVERIFY(r.valid);
    QCOMPARE(r.microBatches, int64_t(1));
    QVERIFY2(
        sstest::relClose(r.step.recompute, L * perLayer, 1e-9), qPrintable(QString::number(r.step.recompute, 'g', 12)));
}

QTEST_APPLESS_MAIN(TestProfiles)
#include "tst_profiles.moc"
