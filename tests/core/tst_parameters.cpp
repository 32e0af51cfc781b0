// SPDX-License-Identifier: GPL-3.0-or-later
// Parameter counts of the model presets and custom architectures, and model FLOPs per token.
// Sources: shared/reference/catalogs.md "Parameter-count check" (formulas and derived totals),
// formulas.md §3.1 (Narayanan P), §3.2 (Megatron num_floating_point_operations).
#include "test_support.h"

#include <QObject>

using namespace shardscope::core;

class TestParameters : public QObject
{
    Q_OBJECT
private slots:
    void presetCountsExact_data();
    void presetCountsExact();
    void moeActiveCounts_data();
    void moeActiveCounts();
    void catalogWithinThreePercent_data();
    void catalogWithinThreePercent();
    void gptFormulaCustomModel();
    void llamaFormulaCustomModel();
    void tiedVersusUntiedDiffersByOneEmbedding();
    void paramsOverrideReplacesTheCount();
    void evaluateReportsTheSameCount();
    void flopsPerTokenMegatronGpt();
    void flopsPerTokenMegatronGpt3Preset();
    void flopsPerTokenMegatronLlama();
    void flopsPerTokenMegatronMixtral();
    void flopsPerTokenMegatronMlaCoreAttention();
};

namespace {

// catalogs.md "Parameter-count check", dense untied SwiGLU RMSNorm:
//   L·[h·(n_h·d + 2·n_kv·d) + n_h·d·h + 3·h·ffn + 2·h] + 2·V·h + h
int64_t llamaFormula(int64_t L, int64_t h, int64_t nh, int64_t nkv, int64_t d, int64_t ffn, int64_t V)
{
    return L * (h * (nh * d + 2 * nkv * d) + nh * d * h + 3 * h * ffn + 2 * h) + 2 * V * h + h;
}

// catalogs.md "Parameter-count check", GPT/BLOOM style (tied, GELU 4h, LayerNorm with bias, biases):
//   L·(12·h² + 13·h) + V·h (+ s·h learned positions) + 2h
int64_t gptFormula(int64_t L, int64_t h, int64_t V, int64_t positions)
{
    return L * (12 * h * h + 13 * h) + V * h + positions * h + 2 * h;
}

} // namespace

void TestParameters::presetCountsExact_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("byFormula"); // the catalogs.md formula evaluated here
    QTest::addColumn<qint64>("published"); // the catalogs.md "Derived params" column, as printed
    // Llama 2 7B: 32 layers, h 4096, 32 heads (MHA), d 128, ffn 11008, V 32000
    QTest::newRow("llama2-7b") << "llama2-7b" << qint64(llamaFormula(32, 4096, 32, 32, 128, 11008, 32000))
                               << qint64(6'738'415'616);
    // Llama 3.1 8B: 32 layers, h 4096, 32 heads / 8 KV, ffn 14336, V 128256 (Llama 3 8B is the same architecture)
    QTest::newRow("llama3.1-8b") << "llama3.1-8b" << qint64(llamaFormula(32, 4096, 32, 8, 128, 14336, 128256))
                                 << qint64(8'030'261'248);
    QTest::newRow("llama3-8b") << "llama3-8b" << qint64(llamaFormula(32, 4096, 32, 8, 128, 14336, 128256))
                               << qint64(8'030'261'248);
    // Llama 3 70B: 80 layers, h 8192, 64 heads / 8 KV, ffn 28672
    QTest::newRow("llama3-70b") << "llama3-70b" << qint64(llamaFormula(80, 8192, 64, 8, 128, 28672, 128256))
                                << qint64(70'553'706'496);
    QTest::newRow("llama3.1-70b") << "llama3.1-70b" << qint64(llamaFormula(80, 8192, 64, 8, 128, 28672, 128256))
                                  << qint64(70'553'706'496);
    // Llama 3.1 405B: 126 layers, h 16384, 128 heads / 8 KV, ffn 53248
    QTest::newRow("llama3.1-405b") << "llama3.1-405b" << qint64(llamaFormula(126, 16384, 128, 8, 128, 53248, 128256))
                                   << qint64(405'853'388'800);
    // GPT-3 175B: 96 layers, h 12288, V 50257, learned positions 2048
    QTest::newRow("gpt3-175b") << "gpt3-175b" << qint64(gptFormula(96, 12288, 50257, 2048)) << qint64(174'604'259'328);
    // BLOOM 176B: 70 layers, h 14336, V 250880 (padded), ALiBi (no position table), plus the embedding LayerNorm (2h)
    QTest::newRow("bloom-176b") << "bloom-176b" << qint64(gptFormula(70, 14336, 250880, 0) + 2 * 14336)
                                << qint64(176'247'271'424);
}

void TestParameters::presetCountsExact()
{
    QFETCH(QString, preset);
    QFETCH(qint64, byFormula);
    QFETCH(qint64, published);
    // The formula reproduces catalogs.md's derived total (checks this test's arithmetic, not the program).
    QCOMPARE(byFormula, published);
    const ModelSize n = modelSize(sstest::presetModel(preset.toStdString()));
    QCOMPARE(static_cast<qint64>(n.total), published);
    QCOMPARE(static_cast<double>(static_cast<qint64>(n.total)), n.total); // a whole number
    QCOMPARE(n.active, n.total); // dense: every parameter is active
}

void TestParameters::moeActiveCounts_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("active");
    QTest::addColumn<qint64>("publishedTotal");
    QTest::addColumn<qint64>("publishedActive");
    {
        // Mixtral 8x7B (catalogs.md MoE table): 32 layers, h 4096, 32 heads / 8 KV, d 128, experts 8 × SwiGLU 14336,
        // top-2, router h·E per layer (Megatron router_params, formulas.md §1.6), untied, RMSNorm.
        const int64_t L = 32, h = 4096, V = 32000, fe = 14336, E = 8, k = 2;
        const int64_t attn = h * (32 * 128 + 2 * 8 * 128) + 32 * 128 * h;
        const int64_t common = attn + h * E + 2 * h; // attention, router, two RMSNorms
        const int64_t total = L * (common + E * 3 * h * fe) + 2 * V * h + h;
        const int64_t active = L * (common + k * 3 * h * fe) + 2 * V * h + h;
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << qint64(total) << qint64(active) << qint64(46'702'792'704)
                                      << qint64(12'879'925'248);
    }
    {
        // DeepSeek-V3 (catalogs.md MoE table, config_671B.json): 61 layers, h 7168, 128 heads, MLA projections
        //   7168·1536 + 1536·128·192 + 7168·576 + 512·128·256 + 128·128·7168, q/kv latent RMSNorms (1536 + 512),
        // first 3 layers dense SwiGLU 18432, 58 MoE layers of 256 routed + 1 shared SwiGLU 2048 experts, top-8,
        // router h·256 + a 256-entry score-correction bias, untied V 129280.
        const int64_t h = 7168, V = 129280;
        const int64_t mla = 7168LL * 1536 + 1536LL * 128 * 192 + 7168LL * 576 + 512LL * 128 * 256 + 128LL * 128 * 7168;
        const int64_t common = mla + (1536 + 512) + 2 * h;
        const int64_t dense = 3 * h * 18432;
        const int64_t expert = 3 * h * 2048;
        const int64_t router = h * 256 + 256;
        const int64_t total = 61 * common + 3 * dense + 58 * ((256 + 1) * expert + router) + 2 * V * h + h;
        const int64_t active = 61 * common + 3 * dense + 58 * ((8 + 1) * expert + router) + 2 * V * h + h;
        QTest::newRow("deepseek-v3") << "deepseek-v3" << qint64(total) << qint64(active) << qint64(671'026'419'200)
                                     << qint64(37'552'297'472);
    }
    {
        // Qwen3 30B-A3B (HF config.json, qwen3_moe): 48 layers, h 2048, 32 query heads of 128, 4 KV heads, 128 experts of
        // SwiGLU 768, top-8, router h·E, two RMSNorms per layer, untied V 151936, no biases (QK norms not counted).
        const int64_t L = 48, h = 2048, V = 151936, fe = 768, E = 128, k = 8;
        const int64_t attn = h * (32 * 128 + 2 * 4 * 128) + 32 * 128 * h;
        const int64_t common = attn + h * E + 2 * h;
        const int64_t total = L * (common + E * 3 * h * fe) + 2 * V * h + h;
        const int64_t active = L * (common + k * 3 * h * fe) + 2 * V * h + h;
        QTest::newRow("qwen3-30b-a3b") << "qwen3-30b-a3b" << qint64(total) << qint64(active) << qint64(30'532'110'336)
                                       << qint64(3'353'020'416);
    }
    {
        // gpt-oss-120b (HF config.json, gpt_oss): 36 layers, h 2880, 64 query heads of 64, 8 KV heads, biases on Q/K/V
        // and the output projection, 128 SwiGLU experts of 2880 with biases on gate and up (2·fe) and down (h), top-4,
        // router h·E, two RMSNorms, untied V 201088. Its model card: 116.83B total (sinks and the router's bias, E per
        // layer, are not counted here).
        const int64_t L = 36, h = 2880, V = 201088, fe = 2880, E = 128, k = 4, q = 64 * 64, kv = 8 * 64;
        const int64_t attn = h * (q + 2 * kv) + (q + 2 * kv) + q * h + h;
        const int64_t common = attn + h * E + 2 * h;
        const int64_t expert = 3 * h * fe + 2 * fe + h;
        const int64_t total = L * (common + E * expert) + 2 * V * h + h;
        const int64_t active = L * (common + k * expert) + 2 * V * h + h;
        QTest::newRow("gpt-oss-120b") << "gpt-oss-120b" << qint64(total) << qint64(active) << qint64(116'829'149'760)
                                      << qint64(5'711'976'000);
    }
}

void TestParameters::moeActiveCounts()
{
    QFETCH(QString, preset);
    QFETCH(qint64, total);
    QFETCH(qint64, active);
    QFETCH(qint64, publishedTotal);
    QFETCH(qint64, publishedActive);
    QCOMPARE(total, publishedTotal);
    QCOMPARE(active, publishedActive);
    const ModelSize n = modelSize(sstest::presetModel(preset.toStdString()));
    QCOMPARE(static_cast<qint64>(n.total), publishedTotal);
    QCOMPARE(static_cast<qint64>(n.active), publishedActive);
}

void TestParameters::catalogWithinThreePercent_data()
{
    QTest::addColumn<QString>("preset");
    int rows = 0;
    for (const auto& m : sstest::catalog().models) {
        if (m.paramsPublished > 0) {
            QTest::newRow(m.id.c_str()) << QString::fromStdString(m.id);
            ++rows;
        }
    }
    QVERIFY(rows >= 25); // DESIGN.md lists 25 model ids that must exist
}

void TestParameters::catalogWithinThreePercent()
{
    // issue #2 deliverable 2: "their derived parameter counts match the published totals". Published totals are
    // rounded (GPT-3 "2.7B", Megatron "1.7B"), so 3% is the acceptance band. No exceptions are needed with the
    // shipped catalog; the closest are megatron-1.7b (−2.8%: Narayanan's own P formula, §3.1, also gives 1.65B
    // for that row) and gpt3-2.7b (−1.8%: the GPT-3 paper rounds 2.65B up).
    QFETCH(QString, preset);
    const ModelSpec& m = sstest::presetModel(preset.toStdString());
    const ModelSize n = modelSize(m);
    const double err = n.total / m.paramsPublished - 1.0;
    QVERIFY2(std::fabs(err) <= 0.03,
        qPrintable(QStringLiteral("%1: derived %2, published %3 (%4%)")
                       .arg(preset)
                       .arg(n.total, 0, 'f', 0)
                       .arg(m.paramsPublished, 0, 'f', 0)
                       .arg(err * 100, 0, 'f', 2)));
}

void TestParameters::gptFormulaCustomModel()
{
    // A small GPT: 4 layers, h 256, 4 heads, ffn 4h, V 1000, 128 learned positions, tied, biases everywhere.
    // catalogs.md: L·(12h² + 13h) + V·h + s·h + 2h, with
    //   12h² = QKV 3h² + out-proj h² + fc1 4h² + fc2 4h²; 13h = QKV bias 3h + out bias h + fc1 bias 4h + fc2 bias h
    //   + 2 LayerNorms × (scale + bias) 4h; 2h = final LayerNorm.
    const int64_t L = 4, h = 256, V = 1000, s = 128;
    const int64_t expected = 12 * L * h * h + 13 * L * h + V * h + s * h + 2 * h;
    QCOMPARE(expected, int64_t(3'145'728 + 13'312 + 256'000 + 32'768 + 512));
    const ModelSize n = modelSize(sstest::gptModel(int(L), h, 4, 4 * h, V, s));
    QCOMPARE(static_cast<qint64>(n.total), qint64(expected));

    // Without biases (linear_bias false): 13h → 4h (only the LayerNorms' scale and bias).
    ModelSpec noBias = sstest::gptModel(int(L), h, 4, 4 * h, V, s);
    noBias.linearBias = false;
    QCOMPARE(static_cast<qint64>(modelSize(noBias).total), qint64(12 * L * h * h + 4 * L * h + V * h + s * h + 2 * h));

    // Rotary positions instead of learned: no s·h table.
    ModelSpec rope = sstest::gptModel(int(L), h, 4, 4 * h, V, s);
    rope.position = PositionEmbedding::Rope;
    QCOMPARE(static_cast<qint64>(modelSize(rope).total), qint64(expected - s * h));
}

void TestParameters::llamaFormulaCustomModel()
{
    // A small Llama: 3 layers, h 512, 8 heads of 64, 2 KV heads (GQA), SwiGLU ffn 1376, V 3000, untied, RMSNorm.
    ModelSpec m;
    m.layers = 3;
    m.hidden = 512;
    m.heads = 8;
    m.kvHeads = 2;
    m.ffnHidden = 1376;
    m.vocab = 3000;
    m.mlp = Mlp::SwiGlu;
    m.norm = Norm::RmsNorm;
    m.position = PositionEmbedding::Rope;
    const int64_t expected = llamaFormula(3, 512, 8, 2, 64, 1376, 3000);
    // by hand: per layer 512·(512 + 256) + 512·512 + 3·512·1376 + 1024 = 393216 + 262144 + 2113536 + 1024
    QCOMPARE(expected, int64_t(3 * (393'216 + 262'144 + 2'113'536 + 1'024) + 2 * 3000 * 512 + 512));
    QCOMPARE(static_cast<qint64>(modelSize(m).total), qint64(expected));

    // An explicit head_dim that differs from hidden/heads (Gemma-style q size ≠ h): d = 128 → q = 1024, kv = 256.
    m.headDim = 128;
    QCOMPARE(static_cast<qint64>(modelSize(m).total), qint64(llamaFormula(3, 512, 8, 2, 128, 1376, 3000)));

    // Qwen-style QKV bias adds q + 2·kv per layer.
    m.headDim = 0;
    m.qkvBias = true;
    QCOMPARE(static_cast<qint64>(modelSize(m).total), qint64(expected + 3 * (512 + 2 * 128)));
}

void TestParameters::tiedVersusUntiedDiffersByOneEmbedding()
{
    ModelSpec m = sstest::presetModel("llama3-8b");
    const double untied = modelSize(m).total;
    m.tiedEmbeddings = true;
    QCOMPARE(untied - modelSize(m).total, 128256.0 * 4096.0); // the LM head V·h
}

void TestParameters::paramsOverrideReplacesTheCount()
{
    ModelSpec m = sstest::presetModel("llama2-7b");
    m.paramsOverride = 7.5e9; // the ZeRO paper's Ψ = 7.5B example
    QCOMPARE(modelSize(m).total, 7.5e9);
}

void TestParameters::evaluateReportsTheSameCount()
{
    Scenario s = sstest::presetScenario("mixtral-8x7b", 1, 8);
    SS_EVALUATE(r, s);
    QCOMPARE(static_cast<qint64>(r.parameters), qint64(46'702'792'704));
    QCOMPARE(static_cast<qint64>(r.activeParameters), qint64(12'879'925'248));
}

namespace {
// formulas.md §3.2, Megatron training.py num_floating_point_operations, per token (unpacked sequences of length s,
// Σ L_i² = B·s², so the attention term per token is s × attn_core_per_layer × L):
//   fb = 3, fma = 2, ffn_exp = 3 if SwiGLU else 2
//   fb·fma·h·f·ffn_exp·L + fb·fma·(h·(q + 2·kv) + q·h)·L + fb·fma·h·V + s·(fb·fma·q/2·2)·L
double megatronFlopsPerToken(double L, double h, double q, double kv, double f, double ffnExp, double V, double s)
{
    const double fb = 3, fma = 2;
    return fb * fma * h * f * ffnExp * L + fb * fma * (h * (q + 2 * kv) + q * h) * L + fb * fma * h * V
        + s * (fb * fma * q / 2 * 2) * L;
}
} // namespace

void TestParameters::flopsPerTokenMegatronGpt()
{
    // A bias-free GPT (f = 4h, MHA): Megatron's count reduces to 72·l·h²·(1 + s/(12h) + V/(12·l·h)) per token.
    const double L = 24, h = 2048, V = 51200, s = 2048;
    Scenario sc = sstest::presetScenario("gpt3-xl", 1, 8);
    sc.model = sstest::gptModel(int(L), int64_t(h), 16, int64_t(4 * h), int64_t(V), int64_t(s));
    sc.model.linearBias = false;
    sc.training.seqLen = int64_t(s);
    SS_EVALUATE(r, sc);
    const double megatron = megatronFlopsPerToken(L, h, h, h, 4 * h, 2, V, s);
    const double reduced = 72 * L * h * h * (1 + s / (12 * h) + V / (12 * L * h));
    SS_COMPARE_REL(megatron, reduced, 1e-12);
    SS_COMPARE_REL(r.flopsPerToken, megatron, 1e-12);

    // Sequence length enters only through the causal attention term 6·q·s·L (formulas.md §3.2).
    sc.training.seqLen = 1024;
    SS_EVALUATE(r2, sc);
    SS_COMPARE_REL(r.flopsPerToken - r2.flopsPerToken, 6 * h * (2048 - 1024) * L, 1e-9);
}

void TestParameters::flopsPerTokenMegatronGpt3Preset()
{
    // GPT-3 175B has biases on every linear layer, which Megatron's formula ignores: the program counts them as
    // 6 FLOPs per bias parameter, 9h per layer (formulas above) = 54·L·h, i.e. 0.75/h ≈ 6e-5 relative. Tolerance 1e-4.
    const double L = 96, h = 12288, V = 50257, s = 2048;
    Scenario sc = sstest::presetScenario("gpt3-175b", 8, 8);
    sc.training.seqLen = int64_t(s);
    SS_EVALUATE(r, sc);
    const double megatron = megatronFlopsPerToken(L, h, h, h, 4 * h, 2, V, s);
    SS_COMPARE_REL(r.flopsPerToken, megatron, 1e-4);
    SS_COMPARE_REL(r.flopsPerToken, megatron + 6 * 9 * h * L, 1e-12);
}

void TestParameters::flopsPerTokenMegatronLlama()
{
    // Llama 3 8B: h 4096, q = 32·128 = 4096, kv = 8·128 = 1024, SwiGLU f 14336 (ffn_exp 3), V 128256, s 8192.
    const double L = 32, h = 4096, q = 4096, kv = 1024, f = 14336, V = 128256, s = 8192;
    Scenario sc = sstest::presetScenario("llama3-8b", 1, 8);
    sc.training.seqLen = int64_t(s);
    SS_EVALUATE(r, sc);
    const double expected = megatronFlopsPerToken(L, h, q, kv, f, 3, V, s);
    // by hand: 6·4096·14336·3·32 + 6·(4096·6144 + 4096²)·32 + 6·4096·128256 + 6·4096·8192·32
    QCOMPARE(expected, 33'822'867'456.0 + 8'053'063'680.0 + 3'152'019'456.0 + 6'442'450'944.0);
    SS_COMPARE_REL(r.flopsPerToken, expected, 1e-12);
}

void TestParameters::flopsPerTokenMegatronMixtral()
{
    // Mixtral 8x7B: routed experts count top-k (formulas.md §3.2 "use top-k routed experts"), moe_f 14336, k 2.
    // Megatron's formula has no router term; the program counts the router GEMM (h·E per layer, 6·h·E·L FLOPs),
    // about 8e-5 of the total, so compare exactly after adding it.
    const double L = 32, h = 4096, q = 4096, kv = 1024, fe = 14336, V = 32000, s = 4096, E = 8, k = 2;
    Scenario sc = sstest::presetScenario("mixtral-8x7b", 1, 8);
    sc.training.seqLen = int64_t(s);
    SS_EVALUATE(r, sc);
    const double megatron = megatronFlopsPerToken(L, h, q, kv, fe * k, 3, V, s);
    SS_COMPARE_REL(r.flopsPerToken, megatron, 2e-4);
    SS_COMPARE_REL(r.flopsPerToken, megatron + 6 * h * E * L, 1e-12);
}

void TestParameters::flopsPerTokenMegatronMlaCoreAttention()
{
    // DeepSeek-V3's multi-head latent attention: scores over the q/k head (nope 128 + rope 64 = 192), values over the
    // v head (128). Megatron's count (training.py num_floating_point_operations, MLA "core attn"), per token and layer:
    // 3·2·(s·a·(qk_head_dim + qk_pos_emb_head_dim)/2 + s·a·v_head_dim/2). The sequence length enters only there, so
    // the difference between two lengths is 6·L·Δs·a·(192 + 128)/2 — with the value head dim for both, 6·L·Δs·a·128
    // (the count before), it would be 0.8 of that.
    const double L = 61, a = 128, qk = 128 + 64, v = 128;
    Scenario sc = sstest::presetScenario("deepseek-v3", 32, 8);
    sc.training.seqLen = 4096;
    SS_EVALUATE(r4k, sc);
    sc.training.seqLen = 2048;
    SS_EVALUATE(r2k, sc);
    SS_COMPARE_REL(r4k.flopsPerToken - r2k.flopsPerToken, 6 * L * 2048 * a * (qk + v) / 2, 1e-9);
}

QTEST_APPLESS_MAIN(TestParameters)
#include "tst_parameters.moc"
