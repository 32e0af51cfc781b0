// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel-level rates (issue 10): attention at its kernel's published forward and backward rates by GPU, sequence
// length and head dimension (FlashAttention-2, FlashAttention-3, cuDNN; Shah et al. 2024 Figs. 5 and 6, Dao 2023
// Figs. 4 and 7), the kernel a framework profile runs; FP8 linear layers at Transformer Engine's measured speed-up; a
// framework profile's host time per layer. Expected values are computed here from the published tables, read off the
// explained compute term's inputs.
#include "test_support.h"

#include <QObject>

using namespace shardscope::core;

class TestKernelRates : public QObject
{
    Q_OBJECT
private slots:
    void attentionRates_data();
    void attentionRates();
    void kernelNotOnThisGpuFallsBackToFa2();
    void blackwellAttentionRunsAtItsTileOccupancy();
    void blackwellMlaAttentionRunsAtItsMeasuredShare();
    void attentionKernelFollowsTheFramework();
    void attentionBackwardIsTwoAndAHalfForwards();
    void recomputedAttentionRunsAtTheForwardRate();
    void fp8LinearRate();
    void b200LinearRateIsSimuMaxsMeasuredGemmRate();
    void otherBlackwellRatesTakeTheB200sShareOfTheBestCase_data();
    void otherBlackwellRatesTakeTheB200sShareOfTheBestCase();
    void hostOverheadAddsPerLayer();
};

namespace {
double input(const Result& r, const char* key, const char* name)
{
    for (const Term& t : r.terms)
        if (t.key == key)
            for (const TermInput& in : t.inputs)
                if (in.name == name)
                    return in.value;
    return -1;
}

Scenario flashScenario(const std::string& gpu, double seq, int64_t headDim)
{
    Scenario s = sstest::presetScenario("llama3-8b", 1, 8, gpu, gpu.rfind("a100", 0) == 0 ? "nvlink3" : "nvlink4",
        gpu.rfind("a100", 0) == 0 ? "ib-hdr200" : "ib-ndr400");
    s.training.seqLen = static_cast<int64_t>(seq);
    s.training.flashAttention = true;
    s.training.precision = Precision::Bf16Mixed;
    s.model.maxSeq = std::max<int64_t>(s.model.maxSeq, s.training.seqLen);
    if (headDim != 128) { // keep hidden = heads × head_dim
        s.model.headDim = headDim;
        s.model.heads = static_cast<int>(s.model.hidden / headDim);
        s.model.kvHeads = s.model.heads;
    }
    return s;
}

const char* termText(const Result& r, const char* key, const char* name)
{
    for (const Term& t : r.terms)
        if (t.key == key)
            for (const TermInput& in : t.inputs)
                if (in.name == name)
                    return in.meaning.c_str();
    return "";
}

// Published TFLOP/s the rows below use (BF16/FP16, batch × length = 16K tokens, hidden 2048).
// H100 forward, causal, head dim 128 (Shah et al. 2024 Fig. 5d): FA2 / FA3 / cuDNN at 2K, 4K, 8K, 16K.
// H100 backward, non-causal (Fig. 6): hd128 FA2 291 318 at 2K, 8K; FA3 542 at 4K; cuDNN 499 518 516 at 4K, 8K, 16K;
// hd64 cuDNN 432 at 8K. FlashAttention-2 forward + backward on H100 (Dao 2023 Fig. 7), non-causal / causal: hd128
// 320/265 at 2K, 326/294 at 4K, 335/308 at 8K, 338/328 at 16K; hd64 294/273 at 8K. On A100 (Fig. 4), causal hd128:
// 133 at 1K, 182 at 8K.
double causalBwd(double nonCausalBwd, double fbNonCausal, double fbCausal)
{
    return nonCausalBwd * fbCausal / fbNonCausal;
}

/// A100: the forward + backward rate R split by the H100 FlashAttention-2 ratio r = fwd/bwd: 3.5/R = 1/f + 2.5/b.
std::pair<double, double> a100Split(double R, double h100Fwd, double h100Bwd)
{
    const double r = h100Fwd / h100Bwd;
    const double bwd = R * (1 / r + 2.5) / 3.5;
    return { r * bwd, bwd };
}
} // namespace

void TestKernelRates::attentionRates_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<double>("seq");
    QTest::addColumn<int>("headDim");
    QTest::addColumn<double>("fwd");
    QTest::addColumn<double>("bwd");
    // Causal, TFLOP/s as the benchmarks print them.
    QTest::newRow("H100 cuDNN hd128 8K") << "h100-sxm5-80gb"
                                         << "cudnn" << 8192.0 << 128 << 529.0 << causalBwd(518, 335, 308);
    QTest::newRow("H100 FA3 hd128 4K") << "h100-sxm5-80gb"
                                       << "fa3" << 4096.0 << 128 << 579.0 << causalBwd(542, 326, 294);
    QTest::newRow("H100 FA2 hd128 2K") << "h100-sxm5-80gb"
                                       << "fa2" << 2048.0 << 128 << 298.0 << causalBwd(291, 320, 265);
    QTest::newRow("H100 cuDNN hd64 8K") << "h100-sxm5-80gb"
                                        << "cudnn" << 8192.0 << 64 << 379.0 << causalBwd(432, 294, 273);
    // Head dim 256: forward measured (Fig. 5f: cuDNN 497 at 8K); backward not published, the 128 value.
    QTest::newRow("H100 cuDNN hd256 8K") << "h100-sxm5-80gb"
                                         << "cudnn" << 8192.0 << 256 << 497.0 << causalBwd(518, 335, 308);
    // Between measured lengths: linear in log2(s) between 4K and 8K.
    {
        const double f = std::log2(5792.0) - 12;
        QTest::newRow("H100 cuDNN hd128 5792") << "h100-sxm5-80gb"
                                               << "cudnn" << 5792.0 << 128 << 518.0 + (529.0 - 518.0) * f
                                               << causalBwd(499, 326, 294) * (1 - f) + causalBwd(518, 335, 308) * f;
    }
    // Beyond 16K: the 16K values.
    QTest::newRow("H100 cuDNN hd128 64K") << "h100-sxm5-80gb"
                                          << "cudnn" << 65536.0 << 128 << 539.0 << causalBwd(516, 338, 328);
    // A100: only FlashAttention-2's forward + backward is published; split by the H100 FA2 forward/backward ratio
    // (forward 333 at 8K, 260 at 1K; backward non-causal 318 at 8K, 260 at 1K; FA2 fwd+bwd on H100 at 1K 294/221).
    {
        const auto [f8, b8] = a100Split(182, 333, causalBwd(318, 335, 308));
        QTest::newRow("A100 FA2 hd128 8K") << "a100-sxm4-80gb"
                                           << "fa2" << 8192.0 << 128 << f8 << b8;
        const auto [f1, b1] = a100Split(133, 260, causalBwd(260, 294, 221));
        QTest::newRow("A100 FA2 hd128 1K") << "a100-sxm4-80gb"
                                           << "fa2" << 1024.0 << 128 << f1 << b1;
        // Megatron's cuDNN on an A100: Transformer Engine runs FlashAttention-2 there.
        QTest::newRow("A100 cuDNN → FA2 8K") << "a100-sxm4-80gb"
                                             << "cudnn" << 8192.0 << 128 << f8 << b8;
    }
}

void TestKernelRates::attentionRates()
{
    QFETCH(QString, gpu);
    QFETCH(QString, kernel);
    QFETCH(double, seq);
    QFETCH(int, headDim);
    QFETCH(double, fwd);
    QFETCH(double, bwd);
    Scenario s = flashScenario(gpu.toStdString(), seq, headDim);
    QVERIFY(attentionKernelFromString(kernel.toStdString(), s.profile.attentionKernel));
    s.profile.attentionEfficiency = 1;
    const Result r = explain(s);
    QVERIFY2(r.valid, r.issues.empty() ? "" : r.issues.front().message.c_str());
    // The GPUs here are the benchmark's own, so the fraction of peak times their peak gives the measured rate back.
    QVERIFY2(sstest::relClose(input(r, "step_time.compute", "R_attn"), fwd * 1e12, 1e-9),
        qPrintable(QString::number(input(r, "step_time.compute", "R_attn"), 'g', 12)));
    QVERIFY2(sstest::relClose(input(r, "step_time.compute", "R_attn,b"), bwd * 1e12, 1e-9),
        qPrintable(QString::number(input(r, "step_time.compute", "R_attn,b"), 'g', 12)));
}

void TestKernelRates::kernelNotOnThisGpuFallsBackToFa2()
{
    // FlashAttention-3 runs on Hopper only: on a B200 the term says so and FlashAttention-2's H100 rates run, as a
    // fraction of the H100's 989 TFLOP/s times the B200's own BF16 peak (causal hd128 8K: 333 forward).
    Scenario s = flashScenario("b200-180gb", 8192, 128);
    s.profile.attentionKernel = AttentionKernel::Fa3;
    s.profile.attentionEfficiency = 1;
    const Result r = explain(s);
    QVERIFY(r.valid);
    const double peak = s.cluster.gpu.bf16DenseFlops;
    // (R_k: the kernel's rate before Blackwell's tile occupancy, blackwellAttentionRunsAtItsTileOccupancy)
    QVERIFY(sstest::relClose(input(r, "step_time.compute", "R_k"), 333.0 / 989.0 * peak, 1e-9));
    QVERIFY(sstest::relClose(input(r, "step_time.compute", "R_k,b"), 318.0 * 308 / 335 / 989.0 * peak, 1e-9));
    const QString note = QString::fromUtf8(termText(r, "step_time.compute", "R_k"));
    QVERIFY2(note.contains(QLatin1String("FlashAttention-3 does not run on blackwell")), qPrintable(note));
    QVERIFY2(note.startsWith(QLatin1String("FlashAttention-2's measured forward rate")), qPrintable(note));
    // cuDNN does run on Blackwell (Transformer Engine prefers it on Hopper and newer).
    s.profile.attentionKernel = AttentionKernel::Cudnn;
    QVERIFY(sstest::relClose(input(explain(s), "step_time.compute", "R_k"), 529.0 / 989.0 * peak, 1e-9));
}

void TestKernelRates::blackwellMlaAttentionRunsAtItsMeasuredShare()
{
    // MLA's kernel (q/k head 192, v head 128) on Blackwell: SimuMax's six B200 measurements of it sit at 0.933
    // (forward) and 0.724 (backward) of what the head-dim-128 rate × tile occupancy gives for the same heads and
    // length (least squares in log, tests/tools/simumax_attention_tiles.py). A 32-head model with DeepSeek-V3's MLA at
    // s = 4096, micro-batch 1, t = 1 on B200, cuDNN: W = 32·⌈4096/128⌉ = 1,024 tiles; H100 causal head dim 128 at 4K,
    // 518 TFLOP/s forward, 499 × 294/326 backward (Shah et al. 2024 Figs. 5, 6; Dao 2023 Fig. 7).
    Scenario s = flashScenario("b200-180gb", 4096, 128);
    s.profile.attentionKernel = AttentionKernel::Cudnn;
    s.profile.attentionEfficiency = 1;
    s.model.mla = MlaSpec { 1536, 512, 128, 64, 128 };
    QVERIFY(s.model.isMla());
    const double peak = s.cluster.gpu.bf16DenseFlops, W = 32.0 * 32;
    const double fwd = 518.0 / 989.0 * peak, bwd = 499.0 * 294 / 326 / 989.0 * peak;
    const Result r = explain(s);
    QVERIFY2(r.valid, r.issues.empty() ? "" : r.issues.front().message.c_str());
    QVERIFY(sstest::relClose(input(r, "step_time.compute", "R_attn"), fwd * 0.933 * W / (W + 532), 1e-9));
    QVERIFY(sstest::relClose(input(r, "step_time.compute", "R_attn,b"), bwd * 0.724 * W / (W + 152), 1e-9));
    // Without MLA, and off Blackwell, no such factor.
    s.model.mla = MlaSpec {};
    const Result plain = explain(s);
    QVERIFY(sstest::relClose(input(plain, "step_time.compute", "R_attn"), fwd * W / (W + 532), 1e-9));
    QCOMPARE(input(plain, "step_time.compute", "ρ_MLA"), -1.0); // no such input
}

void TestKernelRates::blackwellAttentionRunsAtItsTileOccupancy()
{
    // On Blackwell a fused attention call of W 128-row query tiles runs at the H100's measured fraction of peak ×
    // W/(W + W½), W½ = 532 forward and 152 backward (fitted on SimuMax's B200 cuDNN measurements,
    // tests/tools/simumax_attention_tiles.py). Llama 3 8B (32 heads) at s = 4096 on 8 × B200, cuDNN: H100 causal
    // head dim 128 at 4K, 518 TFLOP/s forward, 499 × 294/326 backward (Shah et al. 2024 Figs. 5, 6; Dao 2023 Fig. 7).
    Scenario s = flashScenario("b200-180gb", 4096, 128);
    s.profile.attentionKernel = AttentionKernel::Cudnn;
    s.profile.attentionEfficiency = 1;
    s.parallelism.tp = 8;
    s.parallelism.sequenceParallel = true;
    s.training.microBatch = 1;
    s.training.globalBatch = 8;
    const double peak = s.cluster.gpu.bf16DenseFlops;
    const double fwd = 518.0 / 989.0 * peak, bwd = 499.0 * 294 / 326 / 989.0 * peak;
    const auto check = [&](double tiles) {
        const Result r = explain(s);
        QVERIFY2(r.valid, r.issues.empty() ? "" : r.issues.front().message.c_str());
        QVERIFY(sstest::relClose(input(r, "step_time.compute", "W"), tiles, 1e-12));
        QVERIFY(sstest::relClose(input(r, "step_time.compute", "R_attn"), fwd * tiles / (tiles + 532), 1e-9));
        QVERIFY(sstest::relClose(input(r, "step_time.compute", "R_attn,b"), bwd * tiles / (tiles + 152), 1e-9));
    };
    check(1 * 32.0 / 8 * (4096 / 128)); // b·a/t·⌈s/128⌉ = 128 tiles: 0.19 of the H100 fraction forward
    s.parallelism.tp = 1;
    s.parallelism.sequenceParallel = false;
    s.training.microBatch = 2;
    s.training.globalBatch = 16;
    check(2 * 32.0 * (4096 / 128)); // 2,048 tiles
    // The H100's own rates have no occupancy term: its benchmarks are the reference.
    Scenario h = flashScenario("h100-sxm5-80gb", 4096, 128);
    h.profile.attentionKernel = AttentionKernel::Cudnn;
    h.profile.attentionEfficiency = 1;
    const Result rh = explain(h);
    QVERIFY(sstest::relClose(input(rh, "step_time.compute", "R_attn"), 518e12, 1e-9));
    QCOMPARE(input(rh, "step_time.compute", "W"), -1.0); // no such input
}

void TestKernelRates::attentionKernelFollowsTheFramework()
{
    // Megatron-Core (Transformer Engine): cuDNN on the H100; PyTorch's SDPA flash backend: FlashAttention-2.
    Scenario s = flashScenario("h100-sxm5-80gb", 8192, 128);
    QCOMPARE(int(s.profile.attentionKernel), int(AttentionKernel::Cudnn));
    const Result mega = explain(s);
    QVERIFY(sstest::relClose(input(mega, "step_time.compute", "R_attn"), s.profile.attentionEfficiency * 529e12, 1e-9));
    for (Framework f : { Framework::PyTorch, Framework::PyTorchCompile, Framework::DeepSpeed }) {
        Scenario t = s;
        QVERIFY(applyFramework(t, f, sstest::catalog()));
        QCOMPARE(int(t.profile.attentionKernel), int(AttentionKernel::Fa2));
        QVERIFY(sstest::relClose(
            input(explain(t), "step_time.compute", "R_attn"), t.profile.attentionEfficiency * 333e12, 1e-9));
    }
}

void TestKernelRates::attentionBackwardIsTwoAndAHalfForwards()
{
    // FlashAttention counts backward as 2.5 × forward FLOPs (5 matmuls against the forward's 2): a change of the
    // attention efficiency alone moves forward + backward by F_core·(1/R_f + 2.5/R_b) per layer. With F_core = 2·T·s·q
    // (causal) and one micro-batch of 8192 tokens, t = 1: the H100's 8K step (cuDNN: 529 forward, 518 × 308/335
    // backward) at attention_efficiency 1 and 0.5.
    Scenario a = flashScenario("h100-sxm5-80gb", 8192, 128);
    a.training.recompute = Recompute::None;
    a.profile.attentionEfficiency = 1;
    Scenario b = a;
    b.profile.attentionEfficiency = 0.5;
    const Result ra = evaluate(a), rb = evaluate(b);
    QVERIFY(ra.valid && rb.valid);
    const double T = 8192, seq = 8192, q = 4096, L = 32, Rf = 529e12, Rb = 518e12 * 308 / 335;
    const double core = 2 * T * seq * q;
    const double expected = L * core * (1 / Rf + 2.5 / Rb) * (1 / 0.5 - 1);
    QVERIFY2(sstest::relClose(rb.step.compute - ra.step.compute, expected, 1e-9),
        qPrintable(QString::number(rb.step.compute - ra.step.compute, 'g', 12)));
}

void TestKernelRates::recomputedAttentionRunsAtTheForwardRate()
{
    // Full recompute runs each layer's forward again: its attention at the forward rate (cuDNN, H100, 8K: 529), so
    // halving the attention efficiency adds L·F_core/R_f to the recompute term.
    Scenario a = flashScenario("h100-sxm5-80gb", 8192, 128);
    a.training.recompute = Recompute::Full;
    a.profile.attentionEfficiency = 1;
    Scenario b = a;
    b.profile.attentionEfficiency = 0.5;
    const Result ra = evaluate(a), rb = evaluate(b);
    QVERIFY(ra.valid && rb.valid);
    const double core = 2.0 * 8192 * 8192 * 4096, L = 32, Rf = 529e12;
    QVERIFY2(sstest::relClose(rb.step.recompute - ra.step.recompute, L * core / Rf, 1e-9),
        qPrintable(QString::number(rb.step.recompute - ra.step.recompute, 'g', 12)));
}

void TestKernelRates::fp8LinearRate()
{
    // Megatron-Core (delayed scaling): BF16 sustained rate × 1.69 (TE gemm_profiling.rst, 32.014 / 18.978 ms) ×
    // (1979 / (2 × 989)) for the H100's FP8/BF16 peaks; PyTorch (current scaling): × 1.58 instead, and its own
    // GEMM efficiency.
    Scenario s = flashScenario("h100-sxm5-80gb", 8192, 128);
    s.training.precision = Precision::Fp8Mixed;
    const double bf16 = 989e12 * 0.803;
    QVERIFY(
        sstest::relClose(input(explain(s), "step_time.compute", "R_lin"), bf16 * 0.80 * 1.69 * 1979 / (2 * 989), 1e-9));
    QVERIFY(applyFramework(s, Framework::PyTorch, sstest::catalog()));
    QVERIFY(sstest::relClose(input(explain(s), "step_time.compute", "R_lin"),
        bf16 * s.profile.gemmEfficiency * 1.58 * 1979 / (2 * 989), 1e-9));
}

void TestKernelRates::b200LinearRateIsSimuMaxsMeasuredGemmRate()
{
    // Megatron-Core on a B200: R_lin = 2,250 TFLOP/s × the time-weighted efficiency of the 514 BF16 GEMMs SimuMax
    // timed there at training shapes (configs/system/b200_bf16_ceperm.json, matmul.accurate_efficient_factor:
    // Σ 2mkn / Σ (2mkn / efficiency) = 0.4770, tests/tools/simumax_gemm_fraction.py), not its best shape (0.655 × 0.80
    // = 0.524); the catalog's 0.596 is 0.4770 / 0.80 rounded to three places.
    Scenario s = flashScenario("b200-180gb", 4096, 128);
    QCOMPARE(s.profile.gemmEfficiency, 0.80);
    const double rLin = input(explain(s), "step_time.compute", "R_lin");
    QVERIFY2(sstest::relClose(rLin, 2250e12 * 0.4770, 1e-3), qPrintable(QString::number(rLin, 'g', 12)));
}

void TestKernelRates::otherBlackwellRatesTakeTheB200sShareOfTheBestCase_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<double>("mamf"); // stas00 mamf-finder, BF16 TFLOP/s
    QTest::addColumn<double>("peak"); // datasheet dense BF16 TFLOP/s
    QTest::newRow("gb200") << QStringLiteral("gb200") << 1822.0 << 2500.0;
    QTest::newRow("b300") << QStringLiteral("b300") << 1769.0 << 2250.0;
    QTest::newRow("gb300 (GB200's measurement)") << QStringLiteral("gb300") << 1822.0 << 2500.0;
}

void TestKernelRates::otherBlackwellRatesTakeTheB200sShareOfTheBestCase()
{
    // Blackwell GPUs without a training-shape measurement reach the same share of mamf-finder's best case as the
    // B200's training shapes do: 0.4770 / (1,745 / 2,250) (SimuMax's time-weighted efficiency over stas00's B200
    // mamf-finder), so R_lin = peak × (mamf / peak) × that share, whatever the profile's realisation (catalog
    // fractions rounded to three places).
    QFETCH(QString, gpu);
    QFETCH(double, mamf);
    QFETCH(double, peak);
    Scenario s = flashScenario(gpu.toStdString(), 4096, 128);
    QCOMPARE(s.profile.gemmEfficiency, 0.80);
    const double rLin = input(explain(s), "step_time.compute", "R_lin");
    const double expected = peak * 1e12 * (mamf / peak) * 0.4770 / (1745.0 / 2250.0);
    QVERIFY2(sstest::relClose(rLin, expected, 2e-3),
        qPrintable(QStringLiteral("%1 vs %2").arg(rLin, 0, 'g', 6).arg(expected, 0, 'g', 6)));
}

void TestKernelRates::hostOverheadAddsPerLayer()
{
    // 1 ms of host time per layer per micro-batch: 32 layers × 1 ms more compute, nothing else.
    Scenario a = flashScenario("h100-sxm5-80gb", 8192, 128);
    Scenario b = a;
    b.profile.hostOverheadPerLayer = 1e-3;
    const Result ra = evaluate(a), rb = evaluate(b);
    QVERIFY(sstest::relClose(rb.step.compute - ra.step.compute, 32 * 1e-3, 1e-9));
}

QTEST_APPLESS_MAIN(TestKernelRates)
#include "tst_kernel_rates.moc"
