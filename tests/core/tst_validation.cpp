// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input: every problem is reported with the field it concerns, nothing crashes, evaluate() never computes
// figures for an invalid scenario. Shipped scenarios parse, evaluate and round-trip through scenarioToJson.
// Sources: issue #2 deliverable 4 and "Done when"; DESIGN.md "Scenario file".
#include "test_support.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <cmath>
#include <limits>

using namespace shardscope::core;

class TestValidation : public QObject
{
    Q_OBJECT
private slots:
    void minimalScenarioIsTheDefault();
    void tpMustDivideHeads();
    void tpMustDivideKvHeadsOrBeAMultiple();
    void oneTensorParallelRule();
    void dpMustBeWhole_data();
    void dpMustBeWhole();
    void globalBatchMultipleOfMicroTimesDp();
    void parameterOffloadNeedsFullSharding_data();
    void parameterOffloadNeedsFullSharding();
    void unknownIds_data();
    void unknownIds();
    void wrongTypes_data();
    void wrongTypes();
    void absurdOrNegativeNumbers_data();
    void absurdOrNegativeNumbers();
    void ownMemoryDropsTheDriverFigure();
    void nanAndInfinityInAScenario();
    void schemaRequired_data();
    void schemaRequired();
    void deepNestingRejected();
    void notAnObjectOrNotJson_data();
    void notAnObjectOrNotJson();
    void unknownFieldsAreWarnings();
    void pinsAreCapped();
    void invalidResultHasNoFigures();
    void shippedScenariosParseAndEvaluate_data();
    void shippedScenariosParseAndEvaluate();
    void moeOverlapRules();
    void cpCommTypeRules();
    void expertGridRules();
    void recomputeModulesRules();
    void activationOffloadRules_data();
    void activationOffloadRules();
    void pipelineLayoutRules_data();
    void pipelineLayoutRules();
    void slidingWindowAndMxfp8Rules();
    void roundTrip_data();
    void roundTrip();
};

namespace {

const char* kSchema = R"("schema":"shardscope.scenario/1")";

/// A scenario document: the schema plus the given members (JSON text without the outer braces).
std::string doc(const std::string& members)
{
    return "{" + std::string(kSchema) + (members.empty() ? "" : "," + members) + "}";
}

/// Parses (must succeed) and validates; returns the validator's issues.
std::vector<Issue> issuesOf(const std::string& members, bool* parsed = nullptr)
{
    const ScenarioParse p = sstest::parse(doc(members));
    if (parsed)
        *parsed = p.ok();
    return p.ok() ? validate(p.scenario) : p.errors;
}

} // namespace

void TestValidation::minimalScenarioIsTheDefault()
{
    // DESIGN.md: every field but schema is optional and defaults as in the app's default scenario.
    const ScenarioParse p = sstest::parse(doc(""));
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    QVERIFY(p.warnings.empty());
    QVERIFY(p.scenario == defaultScenario(sstest::catalog()));
    QVERIFY2(validate(p.scenario).empty(), qPrintable(sstest::issuesText(validate(p.scenario))));
}

void TestValidation::tpMustDivideHeads()
{
    // Llama 3 70B has 64 heads; tp 6 on 3 × 8 GPUs gives a whole dp (4) but splits no head evenly.
    bool parsed = false;
    const auto issues = issuesOf(R"("cluster":{"nodes":3,"gpus_per_node":8},"parallelism":{"tp":6})", &parsed);
    QVERIFY(parsed);
    QVERIFY2(sstest::hasIssue(issues, "parallelism.tp", "heads"), qPrintable(sstest::issuesText(issues)));
    // DESIGN.md's example message names both numbers
    QVERIFY2(sstest::hasIssue(issues, "parallelism.tp", "64"), qPrintable(sstest::issuesText(issues)));
}

void TestValidation::tpMustDivideKvHeadsOrBeAMultiple()
{
    // Custom GQA model: 24 heads, 8 KV heads. tp 3 divides the heads but neither divides nor is a multiple of 8.
    const std::string model
        = R"("model":{"layers":4,"hidden":1536,"heads":24,"kv_heads":8,"ffn_hidden":6144,"vocab":32000},)";
    const auto bad = issuesOf(model
        + R"("cluster":{"nodes":1,"gpus_per_node":3},"training":{"global_batch":3},)"
          R"("parallelism":{"tp":3})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.tp", "kv_heads"), qPrintable(sstest::issuesText(bad)));
    // tp 8 = kv_heads and tp 2 dividing it are fine (no issue at all).
    for (const char* tp : { "8", "2" }) {
        const auto ok = issuesOf(model
            + R"("cluster":{"nodes":1,"gpus_per_node":8},"training":{"global_batch":8},)"
              R"("parallelism":{"tp":)"
            + std::string(tp) + "}");
        QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    }
}

// The rule views and searches offer TP values with is validate()'s: Llama 3 70B has 64 heads, 8 KV heads and
// ffn_hidden 28672 = 2^12 · 7, so tp ∈ {1, 2, 4, 8, 16, 32, 64} (powers of two dividing 64; 16 and up replicate KV heads).
// parallelism.moe_overlap hides the expert all-to-all, so it needs ep > 1; Megatron-Core's overlap refuses full
// recomputation and, with pipelining, needs virtual stages (megatron/core/transformer/transformer_config.py).
// parallelism.cp_comm_type: all-to-all CP splits heads over the cp ranks (Transformer Engine's "num_heads % cp_size
// == 0 for Q, K, V"); DeepSpeed's only CP is Ulysses, torch's only CP is ring attention.
void TestValidation::cpCommTypeRules()
{
    // Llama 3 8B: 32 heads, 8 KV heads. 16 GPUs, seq 32768.
    auto with = [](const std::string& parallelism, const std::string& framework = "megatron") {
        return issuesOf(R"("model":{"preset":"llama3-8b"},"cluster":{"nodes":2,"gpus_per_node":8},)"
                        R"("training":{"seq_len":32768,"global_batch":16,"framework":")"
            + framework + R"("},"parallelism":)" + parallelism);
    };
    // tp 2, cp 4: 16 query and 4 KV heads per TP rank, both divisible by 4
    auto ok = with(R"({"tp":2,"cp":4,"cp_comm_type":"a2a"})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // tp 2, cp 8: 4 KV heads per rank do not divide by 8 (query heads 16 do)
    auto bad = with(R"({"tp":2,"cp":8,"cp_comm_type":"a2a"})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.cp_comm_type", "key/value heads per TP rank (4)"),
        qPrintable(sstest::issuesText(bad)));
    // tp 8, cp 2: 8 KV heads over 8 ranks, one each: 1 does not divide by 2
    bad = with(R"({"tp":8,"cp":2,"cp_comm_type":"a2a"})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.cp_comm_type", "key/value heads per TP rank (1)"),
        qPrintable(sstest::issuesText(bad)));
    // tp 1, cp 16: 32 query heads divide, 8 KV heads do not
    bad = with(R"({"tp":1,"cp":16,"cp_comm_type":"a2a"})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.cp_comm_type", "(8)"), qPrintable(sstest::issuesText(bad)));
    // the ring and the all-gather keep heads whole
    for (const char* type : { "p2p", "allgather" }) {
        ok = with(std::string(R"({"tp":1,"cp":16,"cp_comm_type":")") + type + R"("})");
        QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    }
    // DeepSpeed: Ulysses only (its query-head rule; its KV heads are its own launch configuration's check)
    bad = with(R"({"sharding":"zero1","cp":2})", "deepspeed");
    QVERIFY2(
        sstest::hasIssue(bad, "parallelism.cp_comm_type", "DeepSpeed-Ulysses"), qPrintable(sstest::issuesText(bad)));
    ok = with(R"({"sharding":"zero1","cp":2,"cp_comm_type":"a2a"})", "deepspeed");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // PyTorch: ring attention only
    for (const char* fw : { "pytorch", "pytorch-compile" }) {
        bad = with(R"({"cp":2,"cp_comm_type":"a2a"})", fw);
        QVERIFY2(
            sstest::hasIssue(bad, "parallelism.cp_comm_type", "ring attention"), qPrintable(sstest::issuesText(bad)));
        ok = with(R"({"cp":2,"cp_comm_type":"allgather"})", fw);
        QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    }
    // cp 1: the type is not used, whatever it is
    ok = with(R"({"tp":8,"cp":1,"cp_comm_type":"a2a"})", "pytorch");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
}

void TestValidation::moeOverlapRules()
{
    const std::string moe = R"("model":{"preset":"mixtral-8x7b"},"cluster":{"nodes":1,"gpus_per_node":8},)"
                            R"("training":{"global_batch":64,"recompute":"selective"},)";
    auto with = [&](const std::string& parallelism, const std::string& training = "") {
        std::string m = moe;
        if (!training.empty())
            m = R"("model":{"preset":"mixtral-8x7b"},"cluster":{"nodes":1,"gpus_per_node":8},"training":)" + training
                + ",";
        return issuesOf(m + R"("parallelism":)" + parallelism);
    };
    auto ok = with(R"({"sharding":"zero1","ep":8,"moe_overlap":"ep-overlap"})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    ok = with(R"({"sharding":"zero1","ep":8,"moe_overlap":"dualpipe"})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    auto bad = with(R"({"sharding":"zero1","ep":1,"moe_overlap":"dualpipe"})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.moe_overlap", "ep > 1"), qPrintable(sstest::issuesText(bad)));
    bad = with(
        R"({"sharding":"zero1","ep":8,"moe_overlap":"ep-overlap"})", R"({"global_batch":64,"recompute":"full"})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.moe_overlap", "recompute"), qPrintable(sstest::issuesText(bad)));
    bad = with(R"({"sharding":"zero1","ep":4,"pp":2,"pp_schedule":"1f1b","moe_overlap":"ep-overlap"})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.moe_overlap", "interleaved"), qPrintable(sstest::issuesText(bad)));
}

void TestValidation::pipelineLayoutRules_data()
{
    // Megatron-Core's rules for --pipeline-model-parallel-layout (megatron/core/transformer/
    // pipeline_parallel_layer_layout.py: parse_str_to_list, validate_layer_layout; megatron/training/arguments.py:
    // stages divisible by pp). Llama 3 8B has 32 layers; one node of 8 GPUs, pp 4, tp 2.
    QTest::addColumn<QString>("parallelism");
    QTest::addColumn<QString>("fragment"); // "" = valid
    QTest::newRow("uneven 7/9/9/7") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*7|t*9|t*9|t*7L"})"
                                    << "";
    QTest::newRow("repeat groups") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*8|(t*8|)*2,t*8L"})"
                                   << "";
    QTest::newRow("interleaved 8 chunks") << R"({"tp":2,"pp":4,"pp_schedule":"interleaved","virtual_stages":2,)"
                                             R"("pipeline_layout":"Et*4|(tttt|)*6t*4L"})"
                                          << "";
    QTest::newRow("3 stages for pp 4") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*10|t*11|t*11L"})"
                                       << "3 stages";
    QTest::newRow("virtual stages without interleaving") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*4|(tttt|)*6t*4L"})"
                                                         << "interleaved";
    QTest::newRow("31 layers") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*7|t*8|t*8|t*8L"})"
                               << "31 transformer layers";
    QTest::newRow("no embedding") << R"({"tp":2,"pp":4,"pipeline_layout":"t*8|t*8|t*8|t*8L"})"
                                  << "embedding (E)";
    QTest::newRow("embedding not first") << R"({"tp":2,"pp":4,"pipeline_layout":"tEt*7|t*8|t*8|t*8L"})"
                                         << "first";
    QTest::newRow("two losses") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*8|t*8L|t*8|t*8L"})"
                                << "loss (L)";
    QTest::newRow("loss not last") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*8|t*8|t*8|Lt*8"})"
                                   << "last";
    QTest::newRow("unknown character") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*8|t*8|x*8|t*8L"})"
                                       << "'x'";
    QTest::newRow("MTP layer, no MTP model") << R"({"tp":2,"pp":4,"pipeline_layout":"Et*8|t*8|t*8|t*8mL"})"
                                             << "multi-token";
    QTest::newRow("hostile repeat") << R"({"tp":2,"pp":4,"pipeline_layout":"E(t*99999|)*99999L"})"
                                    << "100000";
    QTest::newRow("unclosed parenthesis") << R"({"tp":2,"pp":4,"pipeline_layout":"E(t*8|t*8|t*8|t*8L"})"
                                          << "'('";
}

void TestValidation::pipelineLayoutRules()
{
    QFETCH(QString, parallelism);
    QFETCH(QString, fragment);
    const auto issues = issuesOf(R"("model":{"preset":"llama3-8b"},"cluster":{"nodes":1,"gpus_per_node":8},)"
                                 R"("training":{"global_batch":64},"parallelism":)"
        + parallelism.toStdString());
    if (fragment.isEmpty())
        QVERIFY2(issues.empty(), qPrintable(sstest::issuesText(issues)));
    else
        QVERIFY2(sstest::hasIssue(issues, "parallelism.pipeline_layout", fragment.toStdString()),
            qPrintable(sstest::issuesText(issues)));
}

void TestValidation::slidingWindowAndMxfp8Rules()
{
    auto bad = issuesOf(R"("model":{"preset":"llama3-8b","sliding_window":-1})");
    QVERIFY2(sstest::hasIssue(bad, "model.sliding_window"), qPrintable(sstest::issuesText(bad)));
    bad = issuesOf(R"("model":{"preset":"llama3-8b","sliding_window_pattern":6})");
    QVERIFY2(sstest::hasIssue(bad, "model.sliding_window_pattern", "needs model.sliding_window"),
        qPrintable(sstest::issuesText(bad)));
    bad = issuesOf(R"("model":{"preset":"llama3-8b","sliding_window":4096,"sliding_window_pattern":-2})");
    QVERIFY2(sstest::hasIssue(bad, "model.sliding_window_pattern"), qPrintable(sstest::issuesText(bad)));
    auto ok = issuesOf(R"("model":{"preset":"llama3-8b","sliding_window":1024,"sliding_window_pattern":6})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // MXFP8 needs Blackwell's MX block scaling (Transformer Engine check_mxfp8_support); Hopper has FP8 without it.
    bad = issuesOf(R"("cluster":{"gpu":"h100-sxm5-80gb"},"training":{"precision":"mxfp8"})");
    QVERIFY2(sstest::hasIssue(bad, "training.precision", "MX block scaling"), qPrintable(sstest::issuesText(bad)));
    bad = issuesOf(R"("cluster":{"gpu":"a100-sxm4-80gb"},"training":{"precision":"mxfp8"})");
    QVERIFY2(sstest::hasIssue(bad, "training.precision", "FP8 tensor cores"), qPrintable(sstest::issuesText(bad)));
    ok = issuesOf(R"("cluster":{"gpu":"b200-180gb","intra_node":"nvlink5"},"training":{"precision":"mxfp8"})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // GB200 NVL72: trays of 4 GPUs in one 72-GPU NVLink domain (NVIDIA GB200 NVL72 datasheet) is a valid cluster.
    ok = issuesOf(R"("cluster":{"gpu":"gb200","intra_node":"nvlink5","nodes":18,"gpus_per_node":4},)"
                  R"("training":{"precision":"mxfp8","global_batch":72},"parallelism":{"tp":8,"sharding":"zero1"})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
}

void TestValidation::oneTensorParallelRule()
{
    const ModelSpec& m = sstest::presetModel("llama3-70b");
    for (int tp = 1; tp <= 128; ++tp) {
        const bool allowed = tp <= 64 && 64 % tp == 0;
        QVERIFY2(tensorParallelIssues(m, tp).empty() == allowed, qPrintable(QString::number(tp)));
        Scenario s = sstest::presetScenario("llama3-70b", 128, 8);
        s.parallelism.tp = tp;
        s.training.globalBatch = 1024 * 1024;
        QCOMPARE(sstest::hasIssue(validate(s), "parallelism.tp"), !allowed);
    }
}

void TestValidation::dpMustBeWhole_data()
{
    QTest::addColumn<QString>("members");
    QTest::newRow("pp 3 on 32 GPUs") << R"("parallelism":{"pp":3})";
    QTest::newRow("tp 2 on 5 GPUs") << R"("cluster":{"nodes":1,"gpus_per_node":5},"parallelism":{"tp":2})";
    QTest::newRow("tp*pp*cp above the GPU count")
        << R"("cluster":{"nodes":1,"gpus_per_node":8},"parallelism":{"tp":8,"pp":2},"training":{"global_batch":8})";
}

void TestValidation::dpMustBeWhole()
{
    QFETCH(QString, members);
    const auto issues = issuesOf(members.toStdString());
    bool found = false;
    for (const Issue& i : issues)
        found |= i.field.rfind("parallelism.", 0) == 0 && i.message.find("dp") != std::string::npos;
    QVERIFY2(found, qPrintable(sstest::issuesText(issues)));
}

void TestValidation::globalBatchMultipleOfMicroTimesDp()
{
    // default: 32 GPUs, dp 32. 100 sequences are not a multiple of 2 × 32.
    const auto issues = issuesOf(R"("training":{"global_batch":100,"micro_batch":2})");
    QVERIFY2(sstest::hasIssue(issues, "training.global_batch", "multiple"), qPrintable(sstest::issuesText(issues)));
    QVERIFY(issuesOf(R"("training":{"global_batch":128,"micro_batch":2})").empty());
}

void TestValidation::parameterOffloadNeedsFullSharding_data()
{
    QTest::addColumn<QString>("sharding");
    QTest::addColumn<bool>("allowed");
    QTest::newRow("ddp") << "ddp" << false;
    QTest::newRow("zero1") << "zero1" << false;
    QTest::newRow("zero2") << "zero2" << false;
    QTest::newRow("fsdp-grad-op") << "fsdp-grad-op" << false;
    QTest::newRow("zero3") << "zero3" << true;
    QTest::newRow("fsdp-full") << "fsdp-full" << true;
}

void TestValidation::parameterOffloadNeedsFullSharding()
{
    QFETCH(QString, sharding);
    QFETCH(bool, allowed);
    const auto issues
        = issuesOf(R"("parallelism":{"sharding":")" + sharding.toStdString() + R"("},"offload":{"parameters":"cpu"})");
    QCOMPARE(sstest::hasIssue(issues, "offload.parameters"), !allowed);
    if (allowed)
        QVERIFY2(issues.empty(), qPrintable(sstest::issuesText(issues)));
}

void TestValidation::unknownIds_data()
{
    QTest::addColumn<QString>("members");
    QTest::addColumn<QString>("field");
    QTest::newRow("model preset") << R"("model":{"preset":"llama-99b"})"
                                  << "model.preset";
    QTest::newRow("gpu") << R"("cluster":{"gpu":"h900"})"
                         << "cluster.gpu";
    QTest::newRow("gpu object id") << R"("cluster":{"gpu":{"id":"h900","memory_bytes":1e11}})"
                                   << "cluster.gpu.id";
    QTest::newRow("intra-node link") << R"("cluster":{"intra_node":"nvlink9"})"
                                     << "cluster.intra_node";
    QTest::newRow("inter-node link") << R"("cluster":{"inter_node":"ib-zdr"})"
                                     << "cluster.inter_node";
    QTest::newRow("enum value") << R"("parallelism":{"sharding":"zero4"})"
                                << "parallelism.sharding";
    QTest::newRow("precision value") << R"("training":{"precision":"bf17"})"
                                     << "training.precision";
    QTest::newRow("moe_overlap value") << R"("parallelism":{"moe_overlap":"always"})"
                                       << "parallelism.moe_overlap";
    QTest::newRow("cp_comm_type value") << R"("parallelism":{"cp_comm_type":"ring"})"
                                        << "parallelism.cp_comm_type";
}

void TestValidation::unknownIds()
{
    QFETCH(QString, members);
    QFETCH(QString, field);
    const ScenarioParse p = sstest::parse(doc(members.toStdString()));
    QVERIFY(!p.ok());
    QVERIFY2(sstest::hasIssue(p.errors, field.toStdString()), qPrintable(sstest::issuesText(p.errors)));
}

void TestValidation::expertGridRules()
{
    // megatron/core/parallel_state.py (initialize_model_parallel): each stage's t·dp·cp GPUs form an
    // expert_tp × ep × expert_dp grid. Mixtral 8x7B on 2 × 8 GPUs at tp 4: dp 4.
    const std::string moe = R"("model":{"preset":"mixtral-8x7b"},"cluster":{"nodes":2,"gpus_per_node":8},)"
                            R"("training":{"global_batch":64},)";
    auto with = [&](const std::string& parallelism) { return issuesOf(moe + R"("parallelism":)" + parallelism); };
    // ep 8 spans tp × dp with expert_tp 1 (8 divides 16) ...
    auto ok = with(R"({"sharding":"zero1","tp":4,"sequence_parallel":true,"ep":8,"expert_tp":1})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // ... not with expert_tp = tp (ep must divide dp × cp = 4)
    auto bad = with(R"({"sharding":"zero1","tp":4,"sequence_parallel":true,"ep":8})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.ep", "dp × cp"), qPrintable(sstest::issuesText(bad)));
    // ep × expert_tp = 16 does not divide t·dp·cp = 8 at tp 2 (dp 8): refused naming both
    bad = with(R"({"sharding":"zero1","tp":2,"ep":8,"expert_tp":4})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.ep", "expert_tp"), qPrintable(sstest::issuesText(bad)));
    // expert_tp splits the expert's columns: 3 does not divide 14336
    bad = with(R"({"sharding":"zero1","tp":4,"ep":1,"expert_tp":3})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.expert_tp", "expert_ffn_hidden"), qPrintable(sstest::issuesText(bad)));
    // a dense model has no experts to split
    bad = issuesOf(R"("model":{"preset":"llama3-8b"},"parallelism":{"tp":2,"expert_tp":1})");
    QVERIFY2(sstest::hasIssue(bad, "parallelism.expert_tp", "no experts"), qPrintable(sstest::issuesText(bad)));
    // expert_tp equal to tp on a dense model says nothing new: accepted
    ok = issuesOf(R"("model":{"preset":"llama3-8b"},"parallelism":{"tp":2,"expert_tp":2})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // DeepEP needs GPUs to move tokens between (token_dispatcher.py: "requires TPxEP > 1")
    bad = issuesOf(
        R"("model":{"preset":"mixtral-8x7b","moe":{"dispatcher":"deepep"}},"cluster":{"nodes":2,"gpus_per_node":8},)"
        R"("training":{"global_batch":64},"parallelism":{"sharding":"zero1","ep":1})");
    QVERIFY2(sstest::hasIssue(bad, "model.moe.dispatcher", "ep × expert_tp"), qPrintable(sstest::issuesText(bad)));
}

void TestValidation::recomputeModulesRules()
{
    const std::string moe = R"("model":{"preset":"mixtral-8x7b"},"cluster":{"nodes":1,"gpus_per_node":8},)"
                            R"("parallelism":{"sharding":"zero1","ep":8},)";
    auto ok = issuesOf(moe + R"("training":{"recompute":"selective","recompute_modules":["core_attn","moe"]})");
    QVERIFY2(ok.empty(), qPrintable(sstest::issuesText(ok)));
    // Megatron reads --recompute-modules with selective granularity only
    auto bad = issuesOf(moe + R"("training":{"recompute":"full","recompute_modules":["moe"]})");
    QVERIFY2(sstest::hasIssue(bad, "training.recompute_modules", "selective"), qPrintable(sstest::issuesText(bad)));
    bad = issuesOf(moe + R"("training":{"recompute":"none","recompute_modules":[]})");
    QVERIFY2(sstest::hasIssue(bad, "training.recompute_modules", "selective"), qPrintable(sstest::issuesText(bad)));
    // transformer_config.py: moe is not recomputed under --overlap-moe-expert-parallel-comm
    bad = issuesOf(R"("model":{"preset":"mixtral-8x7b"},"cluster":{"nodes":1,"gpus_per_node":8},)"
                   R"("parallelism":{"sharding":"zero1","ep":8,"moe_overlap":"ep-overlap"},)"
                   R"("training":{"recompute":"selective","recompute_modules":["moe"]})");
    QVERIFY2(sstest::hasIssue(bad, "training.recompute_modules", "ep-overlap"), qPrintable(sstest::issuesText(bad)));
    // an unknown name is refused when read, listing the allowed ones
    const ScenarioParse p = sstest::parse(doc(R"("training":{"recompute_modules":["mla_up_proj"]})"));
    QVERIFY(!p.ok());
    QVERIFY2(sstest::hasIssue(p.errors, "training.recompute_modules", "shared_experts"),
        qPrintable(sstest::issuesText(p.errors)));
}

void TestValidation::activationOffloadRules_data()
{
    // megatron/core/transformer/transformer_config.py __post_init__: cpu_offloading_num_layers in [0, num_layers),
    // no pipeline parallelism, no activation recomputation; the model charges Transformer Engine's offload as
    // Megatron-Core drives it. Llama 3 8B has 32 layers.
    QTest::addColumn<QString>("members");
    QTest::addColumn<QString>("rule"); // empty: valid
    const QString base = R"("model":{"preset":"llama3-8b"},"cluster":{"nodes":1,"gpus_per_node":8},)";
    QTest::newRow("31 of 32 layers") << base + R"("training":{"recompute":"none"},"offload":{"activation_layers":31})"
                                     << "";
    QTest::newRow("every layer") << base + R"("training":{"recompute":"none"},"offload":{"activation_layers":32})"
                                 << "below the model's 32 layers";
    QTest::newRow("negative") << base + R"("training":{"recompute":"none"},"offload":{"activation_layers":-1})"
                              << "must be between 0 and 9999";
    QTest::newRow("with pp 2") << base
            + R"("training":{"recompute":"none"},"parallelism":{"pp":2},"offload":{"activation_layers":8})"
                               << "pp = 1";
    QTest::newRow("with selective recompute")
        << base + R"("training":{"recompute":"selective"},"offload":{"activation_layers":8})"
        << "recompute none";
    QTest::newRow("with DeepSpeed") << base
            + R"("training":{"recompute":"none","framework":"deepspeed"},"offload":{"activation_layers":8})"
                                    << "framework megatron";
}

void TestValidation::activationOffloadRules()
{
    QFETCH(QString, members);
    QFETCH(QString, rule);
    const auto issues = issuesOf(members.toStdString());
    if (rule.isEmpty())
        QVERIFY2(issues.empty(), qPrintable(sstest::issuesText(issues)));
    else
        QVERIFY2(sstest::hasIssue(issues, "offload.activation_layers", rule.toStdString()),
            qPrintable(sstest::issuesText(issues)));
}

void TestValidation::wrongTypes_data()
{
    QTest::addColumn<QString>("members");
    QTest::addColumn<QString>("field");
    QTest::newRow("nodes: \"four\"") << R"("cluster":{"nodes":"four"})"
                                     << "cluster.nodes";
    QTest::newRow("nodes: true") << R"("cluster":{"nodes":true})"
                                 << "cluster.nodes";
    QTest::newRow("nodes: 1e300") << R"("cluster":{"nodes":1e300})"
                                  << "cluster.nodes";
    QTest::newRow("nodes: 3.5") << R"("cluster":{"nodes":3.5})"
                                << "cluster.nodes";
    QTest::newRow("tp: \"2\"") << R"("parallelism":{"tp":"2"})"
                               << "parallelism.tp";
    QTest::newRow("tp: 5e9 (beyond int)") << R"("parallelism":{"tp":5e9})"
                                          << "parallelism.tp";
    QTest::newRow("global_batch: 2.5") << R"("training":{"global_batch":2.5})"
                                       << "training.global_batch";
    QTest::newRow("seq_len: null") << R"("training":{"seq_len":null})"
                                   << "training.seq_len";
    QTest::newRow("flash_attention: 1") << R"("training":{"flash_attention":1})"
                                        << "training.flash_attention";
    QTest::newRow("precision: 16") << R"("training":{"precision":16})"
                                   << "training.precision";
    QTest::newRow("model: []") << R"("model":[])"
                               << "model";
    QTest::newRow("training: \"x\"") << R"("training":"x")"
                                     << "training";
    QTest::newRow("gpu: 7") << R"("cluster":{"gpu":7})"
                            << "cluster.gpu";
    QTest::newRow("hidden: \"big\"") << R"("model":{"preset":"llama3-8b","hidden":"big"})"
                                     << "model.hidden";
    QTest::newRow("moe: 8") << R"("model":{"preset":"mixtral-8x7b","moe":8})"
                            << "model.moe";
    QTest::newRow("name: 3") << R"("name":3)"
                             << "name";
    QTest::newRow("expert_tp 0") << R"("parallelism":{"expert_tp":0})"
                                 << "parallelism.expert_tp";
    QTest::newRow("expert_tp -4") << R"("parallelism":{"expert_tp":-4})"
                                  << "parallelism.expert_tp";
    QTest::newRow("recompute_modules: \"moe\"") << R"("training":{"recompute_modules":"moe"})"
                                                << "training.recompute_modules";
    QTest::newRow("recompute_modules: unknown") << R"("training":{"recompute_modules":["core_attn","attn"]})"
                                                << "training.recompute_modules";
    QTest::newRow("recompute_modules: [1]") << R"("training":{"recompute_modules":[1]})"
                                            << "training.recompute_modules";
    QTest::newRow("dispatcher: nccl") << R"("model":{"preset":"mixtral-8x7b","moe":{"dispatcher":"nccl"}})"
                                      << "model.moe.dispatcher";
    QTest::newRow("custom gpu missing fields") << R"("cluster":{"gpu":{"name":"mine","bf16_dense_flops":1e15}})"
                                               << "cluster.gpu.memory_bytes";
}

void TestValidation::wrongTypes()
{
    QFETCH(QString, members);
    QFETCH(QString, field);
    const ScenarioParse p = sstest::parse(doc(members.toStdString()));
    QVERIFY(!p.ok());
    QVERIFY2(sstest::hasIssue(p.errors, field.toStdString()), qPrintable(sstest::issuesText(p.errors)));
}

void TestValidation::absurdOrNegativeNumbers_data()
{
    QTest::addColumn<QString>("members");
    QTest::addColumn<QString>("field");
    QTest::newRow("nodes -2") << R"("cluster":{"nodes":-2})"
                              << "cluster.nodes";
    QTest::newRow("nodes 0") << R"("cluster":{"nodes":0})"
                             << "cluster.nodes";
    QTest::newRow("nodes 1e9") << R"("cluster":{"nodes":1000000000})"
                               << "cluster.nodes";
    QTest::newRow("gpus_per_node -8") << R"("cluster":{"gpus_per_node":-8})"
                                      << "cluster.gpus_per_node";
    QTest::newRow("seq_len 0") << R"("training":{"seq_len":0})"
                               << "training.seq_len";
    QTest::newRow("micro_batch -1") << R"("training":{"micro_batch":-1})"
                                    << "training.micro_batch";
    QTest::newRow("global_batch -512") << R"("training":{"global_batch":-512})"
                                       << "training.global_batch";
    QTest::newRow("tp 0") << R"("parallelism":{"tp":0})"
                          << "parallelism.tp";
    QTest::newRow("pp -1") << R"("parallelism":{"pp":-1})"
                           << "parallelism.pp";
    QTest::newRow("layers -1") << R"("model":{"preset":"llama3-8b","layers":-1})"
                               << "model.layers";
    QTest::newRow("max_nodes_per_token -1")
        << R"("model":{"preset":"mixtral-8x7b","moe":{"experts":8,"top_k":2,"expert_ffn_hidden":14336,)"
           R"("max_nodes_per_token":-1}})"
        << "model.moe.max_nodes_per_token";
    QTest::newRow("hidden 0") << R"("model":{"preset":"llama3-8b","hidden":0})"
                              << "model.hidden";
    QTest::newRow("params 1e300") << R"("model":{"preset":"llama3-8b","params":1e300})"
                                  << "model.params";
    QTest::newRow("params -5") << R"("model":{"preset":"llama3-8b","params":-5})"
                               << "model.params";
    QTest::newRow("misc_bytes 1e300") << R"("cluster":{"misc_bytes":1e300})"
                                      << "cluster.misc_bytes";
    QTest::newRow("gpu memory -1") << R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","memory_bytes":-1}})"
                                   << "cluster.gpu.memory_bytes";
    QTest::newRow("link bandwidth 0") << R"("cluster":{"inter_node":{"id":"ib-ndr400","bandwidth":0}})"
                                      << "cluster.inter_node.bandwidth";
    QTest::newRow("min_channels 65") << R"("nccl":{"min_channels":65})"
                                     << "nccl.min_channels";
    QTest::newRow("expert_tp 1e6") << R"("parallelism":{"expert_tp":1000000})"
                                   << "parallelism.expert_tp";
    // Issue 12: an NVLink domain holds at least one GPU; power is not negative; a shard group holds dp x cp ranks
    // at most (default: 4 x 8 GPUs, dp 32).
    QTest::newRow("scale_up_domain 0") << R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","scale_up_domain":0}})"
                                       << "cluster.gpu.scale_up_domain";
    QTest::newRow("scale_up_domain -8") << R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","scale_up_domain":-8}})"
                                        << "cluster.gpu.scale_up_domain";
    QTest::newRow("tdp_watts -700") << R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","tdp_watts":-700}})"
                                    << "cluster.gpu.tdp_watts";
    QTest::newRow("tdp_watts 1e9") << R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","tdp_watts":1e9}})"
                                   << "cluster.gpu.tdp_watts";
    QTest::newRow("shard_group 64 > dp 32") << R"("parallelism":{"sharding":"fsdp-hybrid","shard_group":64})"
                                            << "parallelism.shard_group";
    QTest::newRow("top_k above experts") << R"("model":{"preset":"mixtral-8x7b","moe":{"top_k":9}})"
                                         << "model.moe.top_k";
    // Issue 21: the headroom is a share of the GPU (0 to 0.5); a driver reports at most the datasheet's memory; and
    // some memory must be left for the model: 1.5 GiB less the 1 GiB CUDA context less 50% (0.75 GiB) is below 0.
    QTest::newRow("memory_headroom -0.1") << R"("cluster":{"memory_headroom":-0.1})"
                                          << "cluster.memory_headroom";
    QTest::newRow("memory_headroom 0.6") << R"("cluster":{"memory_headroom":0.6})"
                                         << "cluster.memory_headroom";
    QTest::newRow("reported above datasheet")
        << R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","reported_memory_bytes":9e10}})"
        << "cluster.gpu.reported_memory_bytes";
    QTest::newRow("no usable memory")
        << R"("cluster":{"memory_headroom":0.5,"gpu":{"id":"h100-sxm5-80gb","memory_bytes":1610612736}})"
        << "cluster.gpu.memory_bytes";
}

void TestValidation::absurdOrNegativeNumbers()
{
    // These parse (the types are right); the validator rejects them and names the field.
    QFETCH(QString, members);
    QFETCH(QString, field);
    bool parsed = false;
    const auto issues = issuesOf(members.toStdString(), &parsed);
    QVERIFY2(parsed, qPrintable(sstest::issuesText(issues)));
    QVERIFY2(sstest::hasIssue(issues, field.toStdString()), qPrintable(sstest::issuesText(issues)));
    const Result r = evaluate(sstest::parse(doc(members.toStdString())).scenario);
    QVERIFY(!r.valid);
}

void TestValidation::ownMemoryDropsTheDriverFigure()
{
    // The catalog's driver figure (H100 SXM: 81559 MiB) belongs to the catalog's memory: a GPU given its own
    // memory_bytes and no reported_memory_bytes is judged on its own memory, and that survives a save.
    const ScenarioParse p = sstest::parse(doc(R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","memory_bytes":1e11}})"));
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    QCOMPARE(p.scenario.cluster.gpu.reportedMemoryBytes, 0.0);
    const Result r = evaluate(p.scenario);
    QCOMPARE(r.capacity, 1e11);
    QCOMPARE(r.usable, 1e11 - 1073741824.0 - 0.1 * 1e11);
    const ScenarioParse again = sstest::parse(scenarioToJson(p.scenario, sstest::catalog()));
    QCOMPARE(again.scenario.cluster.gpu, p.scenario.cluster.gpu);
    // The catalog GPU keeps its driver figure.
    QCOMPARE(sstest::parse(doc("")).scenario.cluster.gpu.reportedMemoryBytes, 81559.0 * 1048576);
    // A scenario built in code with the catalog's driver figure and more memory (the fuzzer's find, CI of 417afc6):
    // the saved file carries both, so reopening keeps the driver figure.
    Scenario s = sstest::parse(doc("")).scenario;
    s.cluster.gpu.memoryBytes = 1e11;
    const ScenarioParse reopened = sstest::parse(scenarioToJson(s, sstest::catalog()));
    QVERIFY2(reopened.ok(), qPrintable(sstest::issuesText(reopened.errors)));
    QCOMPARE(reopened.scenario.cluster.gpu, s.cluster.gpu);
}

void TestValidation::nanAndInfinityInAScenario()
{
    // JSON has no NaN: the text is rejected as JSON.
    QVERIFY(!sstest::parse(doc(R"("cluster":{"nodes":NaN})")).ok());
    QVERIFY(!sstest::parse(doc(R"("cluster":{"misc_bytes":Infinity})")).ok());
    // A Scenario built in code (the GUI) can hold them: validate() names each field.
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    Scenario s = defaultScenario(sstest::catalog());
    s.cluster.gpu.bf16DenseFlops = nan;
    s.cluster.gpu.memoryBytes = inf;
    s.cluster.intraNode.bandwidth = nan;
    s.cluster.miscBytes = nan;
    s.model.paramsOverride = nan;
    s.model.moe.capacityFactor = nan;
    s.model.moe.experts = 8;
    s.model.moe.topK = 2;
    s.model.moe.expertFfnHidden = 1024;
    const auto issues = validate(s);
    for (const char* f : { "cluster.gpu.bf16_dense_flops", "cluster.gpu.memory_bytes", "cluster.intra_node.bandwidth",
             "cluster.misc_bytes", "model.params", "model.moe.capacity_factor" })
        QVERIFY2(sstest::hasIssue(issues, f), qPrintable(QString::fromLatin1(f) + ": " + sstest::issuesText(issues)));
    const Result r = evaluate(s);
    QVERIFY(!r.valid);
}

void TestValidation::schemaRequired_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("missing") << R"({"name":"x"})";
    QTest::newRow("empty object") << "{}";
    QTest::newRow("wrong version") << R"({"schema":"shardscope.scenario/2"})";
    QTest::newRow("not a string") << R"({"schema":1})";
}

void TestValidation::schemaRequired()
{
    QFETCH(QString, text);
    const ScenarioParse p = sstest::parse(text.toStdString());
    QVERIFY(!p.ok());
    QVERIFY2(sstest::hasIssue(p.errors, "schema"), qPrintable(sstest::issuesText(p.errors)));
}

void TestValidation::deepNestingRejected()
{
    // 200 levels of arrays (and of objects) in an otherwise valid document: refused as input, no deep recursion.
    const std::string arrays = std::string(200, '[') + std::string(200, ']');
    std::string objects;
    for (int i = 0; i < 200; ++i)
        objects += R"({"a":)";
    objects += "1" + std::string(200, '}');
    for (const std::string& deep : { arrays, objects }) {
        for (const std::string& text :
            { doc(R"("name":)" + deep), doc(R"("model":{"preset":"llama3-8b","x":)" + deep + "}"), deep }) {
            const ScenarioParse p = sstest::parse(text);
            QVERIFY(!p.ok());
            QVERIFY2(!p.errors.front().message.empty(), "the error says why");
        }
    }
    // Moderate nesting in an unknown field is only a warning.
    const ScenarioParse ok = sstest::parse(doc(R"("extra":[[[[[1]]]]])"));
    QVERIFY2(ok.ok(), qPrintable(sstest::issuesText(ok.errors)));
    QVERIFY(sstest::hasIssue(ok.warnings, "extra"));
}

void TestValidation::notAnObjectOrNotJson_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("array") << QByteArray("[]");
    QTest::newRow("number") << QByteArray("42");
    QTest::newRow("string") << QByteArray(R"("shardscope.scenario/1")");
    QTest::newRow("null") << QByteArray("null");
    QTest::newRow("true") << QByteArray("true");
    QTest::newRow("empty text") << QByteArray("");
    QTest::newRow("whitespace") << QByteArray("   \n");
    QTest::newRow("unterminated") << QByteArray(R"({"schema":"shardscope.scenario/1")");
    QTest::newRow("trailing garbage") << QByteArray(R"({"schema":"shardscope.scenario/1"} x)");
    QTest::newRow("trailing comma") << QByteArray(R"({"schema":"shardscope.scenario/1",})");
    QTest::newRow("single quotes") << QByteArray(R"({'schema':'shardscope.scenario/1'})");
    QTest::newRow("bare word") << QByteArray("scenario");
    QTest::newRow("invalid UTF-8 in a string")
        << QByteArray("{\"schema\":\"shardscope.scenario/1\",\"name\":\"\xff\"}");
}

void TestValidation::notAnObjectOrNotJson()
{
    QFETCH(QByteArray, text);
    const ScenarioParse p = sstest::parse(text.toStdString());
    QVERIFY(!p.ok());
    QVERIFY(!p.errors.front().message.empty());
}

void TestValidation::unknownFieldsAreWarnings()
{
    // DESIGN/issue: unknown fields are kept as warnings, not errors.
    const ScenarioParse p
        = sstest::parse(doc(R"("colour":"blue","model":{"preset":"llama3-8b","bar":2},"training":{"foo":true},)"
                            R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","shiny":1},"nodes":1,"gpus_per_node":8},)"
                            R"("parallelism":{"zero":3},"nccl":{"NCCL_ALGO":"ring"},"offload":{"x":0})"));
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    for (const char* f : { "colour", "model.bar", "training.foo", "cluster.gpu.shiny", "parallelism.zero",
             "nccl.NCCL_ALGO", "offload.x" })
        QVERIFY2(sstest::hasIssue(p.warnings, f),
            qPrintable(QString::fromLatin1(f) + ": " + sstest::issuesText(p.warnings)));
    QCOMPARE(int(p.warnings.size()), 7);
    // the known fields beside them were read
    QVERIFY(p.scenario.model.id == "llama3-8b");
    QCOMPARE(p.scenario.cluster.nodes, 1);
    const Result r = evaluate(p.scenario);
    QVERIFY2(r.valid, qPrintable(sstest::issuesText(r.issues)));
}

void TestValidation::pinsAreCapped()
{
    // Issue 23 item 3: 320,000 empty pins took the window to 1 GB. The parser reads none of them (the window reads
    // the first kMaxPins = 64) and says so once, naming the field and the rule; 64 pins, or an empty list, say nothing.
    auto pins = [](size_t n) {
        std::string list;
        for (size_t i = 0; i < n; ++i)
            list += i ? ",{}" : "{}";
        return "\"pins\":[" + list + "]";
    };
    for (size_t n : { size_t(0), size_t(64) }) {
        const ScenarioParse p = sstest::parse(doc(pins(n)));
        QVERIFY2(p.ok() && p.warnings.empty(), qPrintable(sstest::issuesText(p.warnings)));
    }
    const ScenarioParse many = sstest::parse(doc(pins(320000)));
    QVERIFY2(many.ok(), qPrintable(sstest::issuesText(many.errors)));
    QCOMPARE(int(many.warnings.size()), 1);
    QCOMPARE(many.warnings.front().field, std::string("pins"));
    QCOMPARE(many.warnings.front().message,
        std::string("holds 320000 scenarios; at most 64 are read: the first 64 are kept, the other 319936 ignored"));
    const ScenarioParse notList = sstest::parse(doc(R"("pins":{"a":1})"));
    QVERIFY(notList.ok());
    QVERIFY2(sstest::hasIssue(notList.warnings, "pins"), qPrintable(sstest::issuesText(notList.warnings)));
    QCOMPARE(notList.warnings.front().message, std::string("must be an array of scenarios, not object; ignored"));
}

void TestValidation::invalidResultHasNoFigures()
{
    const ScenarioParse p = sstest::parse(doc(R"("parallelism":{"tp":6})"));
    QVERIFY(p.ok());
    const Result r = evaluate(p.scenario);
    QVERIFY(!r.valid);
    QVERIFY(!r.issues.empty());
    for (const Issue& i : r.issues) { // every rule names its field
        QVERIFY(!i.field.empty());
        QVERIFY(!i.message.empty());
    }
    QVERIFY(r.stages.empty());
    QVERIFY(r.collectives.empty());
    QCOMPARE(r.step.total(), 0.0);
    const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(resultToJson(r))).object();
    QCOMPARE(j.value(QLatin1String("schema")).toString(), QStringLiteral("shardscope.result/1"));
    QCOMPARE(j.value(QLatin1String("valid")).toBool(true), false);
    QVERIFY(!j.value(QLatin1String("issues")).toArray().isEmpty());
    QCOMPARE(j.value(QLatin1String("issues")).toArray().first().toObject().value(QLatin1String("field")).toString(),
        QString::fromStdString(r.issues.front().field));
    QVERIFY(!j.contains(QLatin1String("memory_per_gpu")));
    QVERIFY(!j.contains(QLatin1String("step_time")));
}

void TestValidation::shippedScenariosParseAndEvaluate_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = sstest::shippedScenarioFiles();
    QVERIFY(files.size() >= 6); // issue #2: at least six example scenarios
    for (const QString& f : files)
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

void TestValidation::shippedScenariosParseAndEvaluate()
{
    QFETCH(QString, file);
    const std::string text = sstest::readText(file);
    QVERIFY(!text.empty());
    const ScenarioParse p = sstest::parse(text);
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    QVERIFY2(p.warnings.empty(), qPrintable(sstest::issuesText(p.warnings)));
    const Result r = evaluate(p.scenario);
    QVERIFY2(r.valid, qPrintable(sstest::issuesText(r.issues)));
    QVERIFY(r.parameters > 0 && r.flopsPerToken > 0);
    QVERIFY(r.memory.total() > 0 && r.step.total() > 0 && r.throughput.tokensPerSecond > 0);
    QCOMPARE(r.gpus, p.scenario.cluster.nodes * p.scenario.cluster.gpusPerNode);
    QCOMPARE(r.dp * r.tp * r.pp * r.cp, r.gpus);
    const QJsonDocument j = QJsonDocument::fromJson(QByteArray::fromStdString(resultToJson(r)));
    QVERIFY(j.isObject());
    QCOMPARE(j.object().value(QLatin1String("valid")).toBool(), true);
}

void TestValidation::roundTrip_data()
{
    QTest::addColumn<QString>("text");
    for (const QString& f : sstest::shippedScenarioFiles())
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << QString::fromStdString(sstest::readText(f));
    QTest::newRow("gpu override") << QString::fromStdString(
        doc(R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","memory_bytes":103079215104}})"));
    QTest::newRow("custom gpu and link") << QString::fromStdString(doc(
        R"("cluster":{"gpu":{"name":"my accelerator","arch":"hopper","bf16_dense_flops":5e14,"memory_bytes":6e10,)"
        R"("memory_bandwidth":2e12,"scale_up_bandwidth":2e11,"host_link_bandwidth":3e10,"achievable_matmul_fraction":0.7},)"
        R"("inter_node":{"name":"my nic","kind":"scale-out","bandwidth":2.5e10,"latency":2e-5}})"));
    QTest::newRow("custom MoE model") << QString::fromStdString(doc(
        R"("model":{"name":"tiny moe","layers":6,"hidden":1024,"heads":16,"kv_heads":4,"ffn_hidden":4096,"vocab":32000,)"
        R"("moe":{"experts":8,"top_k":2,"expert_ffn_hidden":1408,"shared_experts":1,"dense_layers":1,"capacity_factor":1.25,)"
        R"("max_nodes_per_token":2}},"parallelism":{"ep":4,"moe_overlap":"dualpipe"})"));
    QTest::newRow("preset with overrides") << QString::fromStdString(
        doc(R"("model":{"preset":"llama3-8b","layers":16,"params":7.5e9},"training":{"seq_len":4096})"));
    QTest::newRow("MoE preset made dense")
        << QString::fromStdString(doc(R"("model":{"preset":"mixtral-8x7b","moe":null})"));
    QTest::newRow("gradient reduce dtype and FP8 parameters") << QString::fromStdString(
        doc(R"("cluster":{"gpu":"h100-sxm5-80gb"},"parallelism":{"sharding":"zero1"},)"
            R"("training":{"precision":"fp8-mixed","grad_reduce_dtype":"bf16","fp8_param_gather":true})"));
    QTest::newRow("expert TP, dispatcher, recompute modules") << QString::fromStdString(
        doc(R"("model":{"preset":"mixtral-8x7b","moe":{"dispatcher":"deepep"}},)"
            R"("parallelism":{"tp":4,"ep":8,"expert_tp":1},)"
            R"("training":{"recompute":"selective","recompute_modules":["moe_act","layernorm"]})"));
    QTest::newRow("empty recompute modules")
        << QString::fromStdString(doc(R"("training":{"recompute":"selective","recompute_modules":[]})"));
    QTest::newRow("pipeline layout, sliding window, mxfp8") << QString::fromStdString(
        doc(R"("model":{"preset":"llama3-8b","sliding_window":4096,"sliding_window_pattern":2},)"
            R"("cluster":{"gpu":"b200-180gb","intra_node":"nvlink5"},"training":{"precision":"mxfp8"},)"
            R"("parallelism":{"tp":2,"pp":4,"pipeline_layout":"Et*7|t*9|t*9|t*7L"})"));
    QTest::newRow("priced GPU made unpriced")
        << QString::fromStdString(doc(R"("cluster":{"gpu":{"id":"h100-sxm5-80gb","hourly_price_usd":0}})"));
}

void TestValidation::roundTrip()
{
    // scenarioToJson → parseScenario gives back an equal Scenario (every field, catalog entries included).
    QFETCH(QString, text);
    const ScenarioParse first = sstest::parse(text.toStdString());
    QVERIFY2(first.ok(), qPrintable(sstest::issuesText(first.errors)));
    const std::string written = scenarioToJson(first.scenario, sstest::catalog());
    const ScenarioParse second = sstest::parse(written);
    QVERIFY2(second.ok(),
        qPrintable(sstest::issuesText(second.errors) + QStringLiteral("\n") + QString::fromStdString(written)));
    QVERIFY2(second.warnings.empty(), qPrintable(sstest::issuesText(second.warnings)));
    QVERIFY2(second.scenario == first.scenario, written.c_str());
    // and writing again gives the same text
    QVERIFY(scenarioToJson(second.scenario, sstest::catalog()) == written);
}

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
