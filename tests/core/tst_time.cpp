// SPDX-License-Identifier: GPL-3.0-or-later
// Step time: pipeline bubbles, the assembly of step-time parts, optimizer step, throughput and MFU.
// Sources: formulas.md §6 (bubbles), §8.4 (GPU optimizer step), §9 (assembly), DESIGN.md (throughput, MFU).
#include "test_support.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

using namespace shardscope::core;

class TestTime : public QObject
{
    Q_OBJECT
private slots:
    void oneFOneBBubble();
    void interleavedBubbleDividesByV();
    void gpipeBubbleEqualsOneFOneB();
    void zeroBubbleH1();
    void noBubbleWithoutPipeline();
    void singleGpuStepIsMicroBatchesTimesStage();
    void pipelineStepAssembly();
    void optimizerStepIsMemoryBound();
    void stepPartsSumToTotal_data();
    void stepPartsSumToTotal();
    void throughputAndMfu_data();
    void throughputAndMfu();
    void oneGpuStepByHand();
    void groupedGemmsOfRoutedExperts();
    void slidingWindowAttentionByHand();
    void pipelineLayoutSlowestStageSetsTheStep();
    void cpuOffloadedOptimizerStep();
    void activationOffloadCopiesBeyondCompute();
    void recomputeModulesRunTheirForwardAgain();
};

namespace {

/// A 16-layer GPT (h 2048) on one node of 4 H100s, pp = 4, dp = 1, DDP, 16 micro-batches. Its small vocabulary
/// (1000) keeps the last stage's output layer light, so stages 0..p−2 are identical and the last is the slowest.
Scenario pipeScenario(PpSchedule sched, int v = 1, int pp = 4)
{
    Scenario s = sstest::presetScenario("gpt3-xl", 1, pp);
    s.model = sstest::gptModel(16, 2048, 16, 4 * 2048, 1000, 2048);
    s.training.seqLen = 2048;
    s.parallelism.sharding = Sharding::Ddp;
    s.parallelism.pp = pp;
    s.parallelism.schedule = sched;
    s.parallelism.virtualStages = v;
    sstest::setBatch(s, 1, 16);
    return s;
}

double stageTime(const StageInfo& st) { return st.forwardTime + st.backwardTime; }

} // namespace

void TestTime::oneFOneBBubble()
{
    // formulas.md §6: 1F1B bubble = (p − 1)(t_f + t_b), t_f and t_b one micro-batch through one stage
    // (Narayanan §2). The bottleneck stage runs every micro-batch; the other p − 1 stages each add one fill/drain.
    const int p = 4;
    SS_EVALUATE(r, pipeScenario(PpSchedule::OneFOneB));
    QCOMPARE(int(r.stages.size()), p);
    for (int i = 1; i + 1 < p; ++i) // no embedding or head compute: the first p − 1 stages take the same time
        SS_COMPARE_REL(stageTime(r.stages[i]), stageTime(r.stages[0]), 1e-12);
    QVERIFY(stageTime(r.stages[p - 1]) > stageTime(r.stages[0])); // the output layer makes the last stage slowest
    QVERIFY(r.stages[0].forwardTime > 0 && r.stages[0].backwardTime > r.stages[0].forwardTime);
    SS_COMPARE_REL(r.step.pipelineBubble, (p - 1) * (r.stages[0].forwardTime + r.stages[0].backwardTime), 1e-12);
}

void TestTime::interleavedBubbleDividesByV()
{
    // formulas.md §6: interleaved 1F1B with v chunks: (p − 1)(t_f + t_b)/v.
    const int p = 4;
    SS_EVALUATE(base, pipeScenario(PpSchedule::OneFOneB));
    for (int v : { 2, 4 }) {
        SS_EVALUATE(r, pipeScenario(PpSchedule::Interleaved, v));
        for (int i = 0; i < p; ++i) // a stage does the same work per micro-batch, in v chunks
            SS_COMPARE_REL(stageTime(r.stages[i]), stageTime(base.stages[i]), 1e-12);
        SS_COMPARE_REL(r.step.pipelineBubble, (p - 1) * stageTime(r.stages[0]) / v, 1e-12);
    }
}

void TestTime::gpipeBubbleEqualsOneFOneB()
{
    // formulas.md §6: GPipe and 1F1B have the same bubble, (p − 1)(t_f + t_b); 1F1B only saves memory.
    const int p = 4;
    SS_EVALUATE(g, pipeScenario(PpSchedule::GPipe));
    SS_COMPARE_REL(g.step.pipelineBubble, (p - 1) * stageTime(g.stages[0]), 1e-12);
    SS_EVALUATE(o, pipeScenario(PpSchedule::OneFOneB));
    SS_COMPARE_REL(g.step.pipelineBubble, o.step.pipelineBubble, 1e-12);
}

void TestTime::zeroBubbleH1()
{
    // formulas.md §6: ZB-H1 bubble (p − 1)(t_f + t_b − 2·t_w), t_b the full backward, t_w its weight-gradient part.
    // The program scales by the bottleneck stage's t_w share; with the light output layer the stages' shares agree
    // to well under 1%.
    const int p = 4;
    SS_EVALUATE(r, pipeScenario(PpSchedule::ZeroBubble));
    const StageInfo& st = r.stages[0];
    QVERIFY(st.weightGradTime > 0 && st.weightGradTime < st.backwardTime);
    SS_COMPARE_REL(r.step.pipelineBubble, (p - 1) * (st.forwardTime + st.backwardTime - 2 * st.weightGradTime), 0.01);
    SS_EVALUATE(o, pipeScenario(PpSchedule::OneFOneB));
    QVERIFY(r.step.pipelineBubble < o.step.pipelineBubble);
}

void TestTime::noBubbleWithoutPipeline()
{
    Scenario s = pipeScenario(PpSchedule::OneFOneB, 1, 1);
    SS_EVALUATE(r, s);
    QCOMPARE(r.step.pipelineBubble, 0.0);
}

void TestTime::singleGpuStepIsMicroBatchesTimesStage()
{
    // One GPU, pp = 1: no communication, no bubble; formulas.md §9: T_step = m·(t_f + t_b) + T_opt.
    Scenario s = sstest::presetScenario("gpt3-small", 1, 1);
    s.parallelism.sharding = Sharding::Ddp;
    s.training.seqLen = 2048;
    sstest::setBatch(s, 2, 4);
    SS_EVALUATE(r, s);
    QCOMPARE(r.microBatches, int64_t(4));
    QVERIFY(r.collectives.empty());
    QCOMPARE(r.step.exposedCommunication, 0.0);
    QCOMPARE(r.step.pipelineBubble, 0.0);
    QCOMPARE(r.step.offload, 0.0);
    const double perMb = stageTime(r.stages[0]);
    SS_COMPARE_REL(r.step.compute + r.step.recompute + r.step.exposedCommunication, 4 * perMb, 1e-12);
    SS_COMPARE_REL(r.step.total(), 4 * perMb + r.step.optimizer, 1e-12);
    QVERIFY(r.step.compute > 0);
}

void TestTime::pipelineStepAssembly()
{
    // formulas.md §9 with dp = 1: T_step = m·(t_f + t_b of the slowest stage) + bubble + exposed p2p + T_opt.
    SS_EVALUATE(r, pipeScenario(PpSchedule::OneFOneB));
    double slowest = 0;
    for (const StageInfo& st : r.stages)
        slowest = std::max(slowest, stageTime(st));
    const Collective* p2p = sstest::findCollective(r, Group::Pp, CollectiveOp::SendRecv);
    QVERIFY(p2p);
    QCOMPARE(r.bytesByGroup[int(Group::Dp)], 0.0); // dp = 1
    SS_COMPARE_REL(r.step.total(),
        16 * slowest + r.step.pipelineBubble + p2p->exposedTime + r.step.optimizer + r.step.offload, 1e-12);
}

void TestTime::optimizerStepIsMemoryBound()
{
    // The GPU optimizer step is memory-bound: each pass moves its bytes at HBM bandwidth (ZeRO-Offload §4.1).
    // PyTorch (torch.optim AdamW, fused): read the gradient and the fp32 master, momentum and variance, write the three
    // fp32 states and the half-precision weights, for the Ψ/N_opt parameters this GPU updates; zero-paper bf16 AdamW
    // 2 + 12 + 12 + 2 = 28 B/param.
    // Megatron-Core adds the passes its step runs (megatron/core/distributed/param_and_grad_buffer.py,
    // megatron/core/optimizer/clip_grads.py and distrib_optimizer.py): over the whole local gradient buffer (g B per
    // parameter, not sharded) zero it (write), take its norm for the NaN check (read) and scale it by 1/d before the
    // reduction (read + write) = 4·g; over the optimizer shard the fp32 main gradients' norm (4), Adam (4 + 2·12) and
    // the copy of the fp32 main weights into the bf16 ones (4 + 2) = 38 B/param.
    const double psi = 8'030'261'248.0, hbm = sstest::gpu("h100-sxm5-80gb").memoryBandwidth;
    Scenario s = sstest::presetScenario("llama3-8b", 1, 8);
    s.training.framework = Framework::PyTorch;
    s.parallelism.sharding = Sharding::Ddp;
    sstest::setBatch(s, 1, 1);
    SS_EVALUATE(ddp, s);
    SS_COMPARE_REL(ddp.step.optimizer, 28 * psi / hbm, 1e-12);
    s.parallelism.sharding = Sharding::Zero1;
    SS_EVALUATE(z1, s);
    SS_COMPARE_REL(z1.step.optimizer, 28 * psi / 8 / hbm, 1e-12);

    s.training.framework = Framework::Megatron;
    s.parallelism.sharding = Sharding::Ddp;
    SS_EVALUATE(mgDdp, s); // zero-paper bytes: g = 2
    SS_COMPARE_REL(mgDdp.step.optimizer, (4 * 2 * psi + 38 * psi) / hbm, 1e-12);
    s.parallelism.sharding = Sharding::Zero1;
    SS_EVALUATE(mgZ1, s);
    SS_COMPARE_REL(mgZ1.step.optimizer, (4 * 2 * psi + 38 * psi / 8) / hbm, 1e-12);
    s.training.accounting = Accounting::Megatron; // fp32 gradient buffer: g = 4
    SS_EVALUATE(mg, s);
    SS_COMPARE_REL(mg.step.optimizer, (4 * 4 * psi + 38 * psi / 8) / hbm, 1e-12);
    // ZeRO-3 shards the gradient buffer as well: its passes run over the eighth this GPU keeps.
    s.parallelism.sharding = Sharding::Zero3;
    SS_EVALUATE(mgZ3, s);
    SS_COMPARE_REL(mgZ3.step.optimizer, (4 * 4 * psi / 8 + 38 * psi / 8) / hbm, 1e-12);
    // One GPU: no data-parallel group, no 1/d scaling pass (gradient_scaling_factor 1).
    Scenario one = sstest::presetScenario("llama3-8b", 1, 1);
    one.training.accounting = Accounting::Megatron;
    sstest::setBatch(one, 1, 1);
    SS_EVALUATE(single, one);
    SS_COMPARE_REL(single.step.optimizer, (2 * 4 * psi + 38 * psi) / hbm, 1e-12);
}

void TestTime::stepPartsSumToTotal_data()
{
    QTest::addColumn<QString>("file");
    for (const QString& f : sstest::shippedScenarioFiles())
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

void TestTime::stepPartsSumToTotal()
{
    // Through the result JSON: the step-time parts sum to step_time.total, every part is non-negative,
    // and the per-micro-batch parts fit in m × the slowest stage.
    QFETCH(QString, file);
    const ScenarioParse p = sstest::parse(sstest::readText(file));
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    SS_EVALUATE(r, p.scenario);
    const QJsonObject st = QJsonDocument::fromJson(QByteArray::fromStdString(resultToJson(r)))
                               .object()
                               .value(QLatin1String("step_time"))
                               .toObject();
    double sum = 0;
    for (const char* k :
        { "compute", "recompute", "exposed_communication", "pipeline_bubble", "offload", "optimizer" }) {
        const QJsonValue v = st.value(QLatin1String(k));
        QVERIFY2(v.isDouble() && v.toDouble() >= 0, k);
        sum += v.toDouble();
    }
    SS_COMPARE_REL(sum, st.value(QLatin1String("total")).toDouble(), 1e-12);
    QVERIFY(st.value(QLatin1String("compute")).toDouble() > 0);
    double slowest = 0;
    for (const StageInfo& s : r.stages)
        slowest = std::max(slowest, stageTime(s));
    QVERIFY(r.step.compute + r.step.recompute <= double(r.microBatches) * slowest * (1 + 1e-12));
}

void TestTime::throughputAndMfu_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("precision"); // -1: as in the file
    for (const QString& f : sstest::shippedScenarioFiles())
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f << -1;
    const QString dflt = QStringLiteral(SHARDSCOPE_TEST_RESOURCES "/scenarios/default.shardscope.json");
    QTest::newRow("default, fp8-mixed") << dflt << int(Precision::Fp8Mixed);
    QTest::newRow("default, bf16-mixed") << dflt << int(Precision::Bf16Mixed);
}

void TestTime::throughputAndMfu()
{
    // DESIGN.md: tokens/s = global_batch × seq_len / step time; model TFLOP/s per GPU = flops_per_token × tokens/s
    // / gpus / 1e12; MFU = flops_per_token × tokens/s / (gpus × dense peak), BF16 peak (FP8 peak for fp8-mixed).
    QFETCH(QString, file);
    QFETCH(int, precision);
    ScenarioParse p = sstest::parse(sstest::readText(file));
    QVERIFY2(p.ok(), qPrintable(sstest::issuesText(p.errors)));
    if (precision >= 0)
        p.scenario.training.precision = static_cast<Precision>(precision);
    const Scenario& s = p.scenario;
    SS_EVALUATE(r, s);
    const double total = r.step.total();
    QVERIFY(total > 0);
    const double gpus = double(s.cluster.nodes) * s.cluster.gpusPerNode;
    const double tokensPerSecond = double(s.training.globalBatch) * double(s.training.seqLen) / total;
    const GpuSpec& g = s.cluster.gpu;
    QVERIFY(s.training.precision == Precision::Bf16Mixed || s.training.precision == Precision::Fp8Mixed
        || s.training.precision == Precision::Fp16Mixed);
    const double peak = s.training.precision == Precision::Fp8Mixed ? g.fp8DenseFlops : g.bf16DenseFlops;
    SS_COMPARE_REL(r.throughput.tokensPerSecond, tokensPerSecond, 1e-12);
    SS_COMPARE_REL(r.throughput.tokensPerSecondPerGpu, tokensPerSecond / gpus, 1e-12);
    SS_COMPARE_REL(r.throughput.modelTflopsPerGpu, r.flopsPerToken * tokensPerSecond / gpus / 1e12, 1e-12);
    SS_COMPARE_REL(r.throughput.mfu, r.flopsPerToken * tokensPerSecond / (gpus * peak), 1e-12);
    QVERIFY(r.throughput.mfu > 0 && r.throughput.mfu < 1);
    // Hardware FLOP/s count the recompute too (Korthikanti et al. §6): model TFLOP/s × (compute + recompute)/compute.
    SS_COMPARE_REL(r.throughput.hardwareTflopsPerGpu,
        r.flopsPerToken * tokensPerSecond / gpus / 1e12 * (r.step.compute + r.step.recompute) / r.step.compute, 1e-12);
    // Cost of a step: GPUs × hourly price × step time / 3600, and the term the window shows has that value.
    SS_COMPARE_REL(r.throughput.costPerStepUsd, gpus * g.hourlyPriceUsd * total / 3600, 1e-12);
    if (g.hourlyPriceUsd > 0) {
        const Result x = explain(s);
        const auto cost = std::find_if(
            x.terms.begin(), x.terms.end(), [](const Term& t) { return t.key == "throughput.cost_per_step_usd"; });
        QVERIFY(cost != x.terms.end());
        SS_COMPARE_REL(cost->value, gpus * g.hourlyPriceUsd * total / 3600, 1e-12);
        QCOMPARE(cost->formula, std::string("N·p·T_step/3600"));
    }
}

void TestTime::oneGpuStepByHand()
{
    // One step of a small Llama-style model (2 layers, h 1024, 8 heads, SwiGLU f 4096, RMSNorm, RoPE, untied V 32000,
    // no biases) on one H100 SXM, s = 2048, b = 1, one micro-batch, bf16, FlashAttention, no recompute, no dropout.
    // Rates: GEMMs at 80% of the GPU's measured best-shape matmul rate (catalog bf16 peak × MAMF fraction), and
    // element-wise kernels moving 3 bytes of HBM traffic per byte a layer stores, in each of forward and backward:
    // the two fitted constants of README "Calibration" (fitted on Narayanan et al. SC'21 Table 1 and Korthikanti et al.
    // Table 5). FLOPs: 2 per weight per token forward and 4 backward (dgrad + wgrad; Megatron-LM
    // num_floating_point_operations); causal FlashAttention 2·s·q per token forward (half of 4·s·q), backward 2.5 times
    // that (FlashAttention-2's count, the scores recomputed), with Megatron-Core's kernel on H100 (cuDNN fused
    // attention) for head dimension 128, causal, s = 2048: forward 484 TFLOP/s (Shah et al. 2024 Fig. 5d), backward
    // 465 TFLOP/s non-causal (Fig. 6) × 265/320, FlashAttention-2's causal/non-causal forward + backward ratio
    // (Dao 2023 Fig. 7). Stored bytes per layer (Korthikanti et al. §4.1, generalised): two norm inputs,
    // the QKV and MLP inputs (2·sbh each), Q, K, V and the attention output (2·sbh each, MHA), the SwiGLU gate, up and
    // product (2·sbf each), FlashAttention's fp32 log-sum-exp (4·a·s·b). Output layer: 2·T·V·h FLOPs forward,
    // element-wise over 6 bytes per logit. Optimizer (Megatron-Core, one GPU, 2-byte gradients): zero and NaN-check the
    // gradient buffer (2 + 2) and 38 bytes per parameter on the shard (see optimizerStepIsMemoryBound).
    const double L = 2, h = 1024, a = 8, f = 4096, V = 32000, s = 2048, b = 1, T = s * b;
    Scenario sc = sstest::presetScenario("llama3-8b", 1, 1);
    ModelSpec m;
    m.name = "small llama";
    m.layers = int(L);
    m.hidden = int64_t(h);
    m.heads = int(a);
    m.kvHeads = int(a);
    m.ffnHidden = int64_t(f);
    m.vocab = int64_t(V);
    m.maxSeq = int64_t(s);
    sc.model = m; // SwiGLU, RMSNorm, RoPE, untied, no biases: the ModelSpec defaults
    sc.training.seqLen = int64_t(s);
    sc.training.recompute = Recompute::None;
    sc.training.flashAttention = true;
    sc.training.dropout = false;
    sc.parallelism.sharding = Sharding::Ddp;
    sstest::setBatch(sc, int64_t(b), 1);
    SS_EVALUATE(r, sc);

    const GpuSpec& g = sc.cluster.gpu;
    const double gemm = g.bf16DenseFlops * g.achievableMatmulFraction * 0.80, hbm = g.memoryBandwidth;
    const double linear = 2 * T * (4 * h * h + 3 * h * f) / gemm;
    const double core = 2 * T * s * h / 484e12, coreBackward = 2.5 * 2 * T * s * h / (465e12 * 265 / 320);
    const double stored = 2 * T * h * 4 + 2 * T * h * 4 + 2 * T * f * 3 + 4 * a * T;
    const double elementwise = 3 * stored / hbm;
    const double forward = linear + core + elementwise;
    const double backward = 2 * linear + coreBackward + elementwise;
    const double head = 2 * T * V * h / gemm, headElementwise = 3 * 6 * T * V / hbm;
    const double compute = L * (forward + backward) + 3 * head + 2 * headElementwise;
    const double psi = L * (4 * h * h + 3 * h * f + 2 * h) + 2 * V * h + h;
    SS_COMPARE_REL(r.parameters, psi, 1e-15);
    SS_COMPARE_REL(r.step.compute, compute, 1e-12);
    SS_COMPARE_REL(r.step.total(), compute + (2 * 2 + 38) * psi / hbm, 1e-12);
}

void TestTime::groupedGemmsOfRoutedExperts()
{
    // A small MoE model (2 MoE layers, h 1024, 8 heads MHA, 8 experts of f_e 1024, top-2, one shared expert, capacity
    // factor 1) on one H100 SXM, s = 2048, one micro-batch, no recompute, element-wise traffic and host time set to 0
    // so that only GEMMs, attention and the routed experts' own HBM traffic remain; Megatron's fp32 main grads.
    // Each grouped GEMM: its FLOPs at the GEMM rate plus its HBM bytes at the memory bandwidth (weights at 2 B, token
    // copies in and out at 2 B; the weight gradient read and written in the 4-byte main grad), and the token
    // permutation (permute + unpermute, sort + unsort chunks: 8 local experts; 2-byte activations) forward and again
    // backward
    // (docs/model.md §compute, routed experts); everything else as in oneGpuStepByHand.
    const double L = 2, h = 1024, a = 8, E = 8, k = 2, fe = 1024, shared = 1, V = 32000, s = 2048, T = s;
    Scenario sc = sstest::presetScenario("llama3-8b", 1, 1);
    ModelSpec m;
    m.name = "small moe";
    m.layers = int(L);
    m.hidden = int64_t(h);
    m.heads = int(a);
    m.kvHeads = int(a);
    m.ffnHidden = int64_t(4 * h);
    m.vocab = int64_t(V);
    m.maxSeq = int64_t(s);
    m.moe.experts = int(E);
    m.moe.topK = int(k);
    m.moe.expertFfnHidden = int64_t(fe);
    m.moe.sharedExperts = int(shared);
    sc.model = m;
    sc.training.seqLen = int64_t(s);
    sc.training.recompute = Recompute::None;
    sc.training.flashAttention = true;
    sc.training.accounting = Accounting::Megatron;
    sc.parallelism.sharding = Sharding::Ddp;
    sc.profile.elementwiseTraffic = 0;
    sc.profile.hostOverheadPerLayer = 0;
    sstest::setBatch(sc, 1, 1);
    SS_EVALUATE(r, sc);

    const GpuSpec& g = sc.cluster.gpu;
    const double gemm = g.bf16DenseFlops * g.achievableMatmulFraction * 0.80, H = g.memoryBandwidth;
    // SwiGLU experts: 3·h·f_e weights each; router h·E; attention 4·h² (MHA, no biases)
    const double dense = 2 * T * (4 * h * h + shared * 3 * h * fe + h * E) / gemm;
    const double C = T * k, W = E * 3 * h * fe; // token copies (T·k), all 8 experts' weights on the one GPU
    const double math = 2 * C * 3 * h * fe / gemm;
    const double tokenBytes = C * 2 * (h + 2 * fe + fe + h); // fc1 in h, out 2·f_e; fc2 in f_e, out h; 2 B each
    const double fwd = math + (2 * W + tokenBytes) / H, dgrad = fwd, wgrad = math + (2 * 4 * W + tokenBytes) / H;
    // permutation bytes at the permute kernels' measured share of HBM bandwidth on B200 (SimuMax
    // configs/system/b200_bf16_ceperm.json: permute_fwd 0.5008, permute_bwd 0.5108)
    const double permuteBytes = 2 * h * (2 * T + 2 * C + 4 * C);
    const double permute = permuteBytes / (0.5008 * H) + permuteBytes / (0.5108 * H);
    const double core = 2 * T * s * h / 484e12, coreBackward = 2.5 * 2 * T * s * h / (465e12 * 265 / 320);
    const double head = 2 * T * V * h / gemm;
    const double compute = L * (3 * dense + fwd + dgrad + wgrad + permute + core + coreBackward) + 3 * head;
    SS_COMPARE_REL(r.step.compute, compute, 1e-12);

    // FP8 (Transformer Engine): the layers' GEMMs at the FP8 rate, the weights and GEMM inputs read as their 1-byte casts,
    // outputs at 2 B; with grad_reduce_dtype bf16 the weight gradient accumulates in a 2-byte buffer.
    sc.training.precision = Precision::Fp8Mixed;
    sc.training.gradReduce = GradReduce::Bf16;
    SS_EVALUATE(f8, sc);
    const double rate8 = g.bf16DenseFlops * g.achievableMatmulFraction * 0.80 * sc.profile.fp8GemmSpeedup
        * (g.fp8DenseFlops / (2 * g.bf16DenseFlops));
    const double math8 = 2 * C * 3 * h * fe / rate8;
    const double fwd8 = math8 + (1 * W + C * (1 * (h + fe) + 2 * (2 * fe + h))) / H;
    const double dgrad8 = math8 + (1 * W + C * (1 * (h + 2 * fe) + 2 * (fe + h))) / H;
    const double wgrad8 = math8 + (2 * 2 * W + C * 1 * (2 * h + 2 * fe + fe)) / H;
    const double dense8 = 2 * T * (4 * h * h + shared * 3 * h * fe + h * E) / rate8;
    // the output layer stays BF16 under FP8 (Megatron-Core's output_layer is outside Transformer Engine's
    // fp8_autocast, megatron/core/models/gpt/gpt_model.py)
    const double head8 = 2 * T * V * h / gemm;
    SS_COMPARE_REL(
        f8.step.compute, L * (3 * dense8 + fwd8 + dgrad8 + wgrad8 + permute + core + coreBackward) + 3 * head8, 1e-12);

    // BF16 again on 2 GPUs at TP 2 = expert TP 2 with sequence parallelism: each GPU computes half of every GEMM and
    // of attention, runs all T·k = 4,096 copies (its expert-TP group gathers them) through half of each expert, and
    // permutes its sequence share T/2 into k·T/2 copies before the dispatch; sorting still moves the 4,096.
    sc.training.precision = Precision::Bf16Mixed;
    sc.training.gradReduce = GradReduce::Framework;
    sc.cluster.gpusPerNode = 2;
    sc.parallelism.tp = 2;
    sc.parallelism.sequenceParallel = true;
    SS_EVALUATE(tp2, sc);
    const double t = 2, W2 = W / t, fe2 = fe / t;
    const double math2 = math / t;
    const double tokenBytes2 = C * 2 * (h + 2 * fe2 + fe2 + h);
    const double fwd2 = math2 + (2 * W2 + tokenBytes2) / H, wgrad2 = math2 + (2 * 4 * W2 + tokenBytes2) / H;
    const double permuteBytes2 = 2 * h * (2 * (T / t + k * T / t) + 4 * C);
    const double permute2 = permuteBytes2 / (0.5008 * H) + permuteBytes2 / (0.5108 * H);
    SS_COMPARE_REL(tp2.step.compute,
        L * (3 * dense / t + 2 * fwd2 + wgrad2 + permute2 + (core + coreBackward) / t) + 3 * head / t, 1e-12);
}

void TestTime::slidingWindowAttentionByHand()
{
    // oneGpuStepByHand's small Llama (2 layers, h 1024, 8 heads, f 4096, s 2048) with element-wise traffic and host
    // time set to 0, and a sliding window of w = 512 keys on every layer but each 2nd (model.sliding_window_pattern 2:
    // layer 2 global). Query i of a causal layer attends to i keys, through the window to min(i, w) (Mistral 7B,
    // Jiang et al. 2023 §2): summed over the s queries, s(s+1)/2 pairs full, w·s − w(w−1)/2 windowed. Attention
    // FLOPs and model FLOPs per token scale by the layers' mean share κ = (1 + ρ)/2.
    const double L = 2, h = 1024, a = 8, f = 4096, V = 32000, s = 2048, T = s, w = 512;
    Scenario sc = sstest::presetScenario("llama3-8b", 1, 1);
    ModelSpec m;
    m.name = "small llama, windowed";
    m.layers = int(L);
    m.hidden = int64_t(h);
    m.heads = int(a);
    m.kvHeads = int(a);
    m.ffnHidden = int64_t(f);
    m.vocab = int64_t(V);
    m.maxSeq = int64_t(s);
    m.slidingWindow = int64_t(w);
    m.slidingWindowPattern = 2;
    sc.model = m;
    sc.training.seqLen = int64_t(s);
    sc.training.recompute = Recompute::None;
    sc.training.flashAttention = true;
    sc.training.dropout = false;
    sc.parallelism.sharding = Sharding::Ddp;
    sc.profile.elementwiseTraffic = 0;
    sc.profile.hostOverheadPerLayer = 0;
    sstest::setBatch(sc, 1, 1);
    SS_EVALUATE(r, sc);

    const double rho = (w * s - w * (w - 1) / 2) / (s * (s + 1) / 2);
    const double kappa = (1 + rho) / 2;
    const GpuSpec& g = sc.cluster.gpu;
    const double gemm = g.bf16DenseFlops * g.achievableMatmulFraction * 0.80;
    const double linear = 2 * T * (4 * h * h + 3 * h * f) / gemm;
    const double core = 2 * T * s * h / 484e12, coreBackward = 2.5 * 2 * T * s * h / (465e12 * 265 / 320);
    const double head = 2 * T * V * h / gemm;
    SS_COMPARE_REL(r.step.compute, L * (3 * linear + kappa * (core + coreBackward)) + 3 * head, 1e-12);
    // Megatron's count: 6 per matmul weight (+ V·h output GEMM) and 6·L·s·q of attention, here × κ.
    SS_COMPARE_REL(r.flopsPerToken, 6 * (L * (4 * h * h + 3 * h * f) + V * h) + 6 * L * s * h * kappa, 1e-12);
    // A window at least the sequence long is full attention.
    sc.model.slidingWindow = int64_t(s);
    SS_EVALUATE(full, sc);
    SS_COMPARE_REL(full.step.compute, L * (3 * linear + core + coreBackward) + 3 * head, 1e-12);
}

void TestTime::pipelineLayoutSlowestStageSetsTheStep()
{
    // pipeScenario with the layout "Et*3|t*5|t*4|t*4L" (Megatron-Core --pipeline-model-parallel-layout). A stage's
    // time is its layers × one layer's (DDP, no TP: nothing else per layer; the embedding has no GEMM, the small
    // output layer adds little), one layer = a quarter of the even split's stage 1. Stage 1's five layers set the step:
    // 1F1B bubble = Σ_i t_i − t_slow (one micro-batch crosses every stage, the rest queue behind the slowest;
    // Narayanan et al. SC'21 §2.2).
    SS_EVALUATE(even, pipeScenario(PpSchedule::OneFOneB));
    const double layer = stageTime(even.stages[1]) / 4;
    Scenario s = pipeScenario(PpSchedule::OneFOneB);
    s.parallelism.pipelineLayout = "Et*3|t*5|t*4|t*4L";
    SS_EVALUATE(r, s);
    SS_COMPARE_REL(stageTime(r.stages[0]), 3 * layer, 1e-12);
    SS_COMPARE_REL(stageTime(r.stages[1]), 5 * layer, 1e-12);
    SS_COMPARE_REL(stageTime(r.stages[2]), 4 * layer, 1e-12);
    const double sum
        = stageTime(r.stages[0]) + stageTime(r.stages[1]) + stageTime(r.stages[2]) + stageTime(r.stages[3]);
    SS_COMPARE_REL(r.step.pipelineBubble, sum - 5 * layer, 1e-12);
    QVERIFY(r.step.total() > even.step.total());
}

void TestTime::cpuOffloadedOptimizerStep()
{
    // ZeRO-Offload (Ren et al., USENIX ATC'21, §4): each GPU copies its bf16 gradient shard to the host (hidden
    // behind the backward), the node's CPUs run Adam on every GPU's shard, and the updated bf16 parameters come back.
    // Host copies run at NCCL's rating of PCIe: width × speed / 80 GB/s (nccl src/graph/topo.cc), 16 × 240 / 80 = 48 of
    // the 16 × 32 GT/s / 8 = 64 GB/s of an x16 Gen5 link. CPU Adam: the scenario's parameters per second per node.
    // Llama 2 7B, ZeRO-2 over one node of 8 H100s, s = 4096, one micro-batch.
    const double psi = 6'738'415'616.0, n = 8;
    Scenario sc = sstest::presetScenario("llama2-7b", 1, 8);
    sc.training.seqLen = 4096;
    sc.parallelism.sharding = Sharding::Zero2;
    sc.offload.optimizer = OffloadTarget::Cpu;
    sstest::setBatch(sc, 1, 1);
    SS_EVALUATE(r, sc);
    const double pcie = sc.cluster.gpu.hostLinkBandwidth * (16 * 240 / 80.0) / (16 * 32.0 / 8);
    const double shard = psi / n;
    const double toHost = 2 * shard / pcie, cpuAdam = shard * n / sc.cluster.cpuAdamParamsPerSecond,
                 toGpu = 2 * shard / pcie;
    QVERIFY(toHost < r.stages[0].backwardTime); // the gradient copy hides behind the last backward
    QCOMPARE(r.step.optimizer, 0.0);
    SS_COMPARE_REL(r.step.offload, cpuAdam + toGpu, 1e-12);
}

void TestTime::activationOffloadCopiesBeyondCompute()
{
    // Transformer Engine pytorch/cpu_offload.py (AsyncDoubleBufferGroupOffloadHandler): the N offloaded layers'
    // saved tensors go to the host on a side stream during the forward and come back during the backward, spread
    // evenly over the layers, so each direction waits only beyond the compute it runs beside:
    //   offload = m · (max(0, N·A/P − t_f) + max(0, N·A/P − t_b))
    // A: a layer's stored bytes, TP + SP t = 2, no recompute, eager attention with dropout, bf16:
    // sbh(34/t + 5as/(ht)) (Korthikanti Table 2); P: the host link at NCCL's PCIe rating, 16 × 240 / 80 of 16 × 32 / 8 GB/s
    // (nccl src/graph/topo.cc). A 4-layer GPT (h 1024) on one H100 node: the copies outrun the tiny layers' compute.
    const double s = 2048, b = 2, h = 1024, a = 16, t = 2, N = 3;
    Scenario sc = sstest::presetScenario("gpt3-xl", 1, 8);
    sc.model = sstest::gptModel(4, int(h), int(a), int(4 * h), 1000, int64_t(s));
    sc.training.seqLen = int64_t(s);
    sc.training.precision = Precision::Bf16Mixed;
    sc.training.flashAttention = false;
    sc.training.dropout = true;
    sc.training.recompute = Recompute::None;
    sc.parallelism.sharding = Sharding::Ddp;
    sc.parallelism.tp = int(t);
    sc.parallelism.sequenceParallel = true;
    sstest::setBatch(sc, int64_t(b), 2);
    sc.offload.activationLayers = int(N);
    SS_EVALUATE(r, sc);
    const double perLayer = s * b * h * (34 / t + 5 * a * s / (h * t));
    const double pcie = sc.cluster.gpu.hostLinkBandwidth * (16 * 240 / 80.0) / (16 * 32.0 / 8);
    const double copy = N * perLayer / pcie, tf = r.stages[0].forwardTime, tb = r.stages[0].backwardTime;
    QVERIFY(copy > tf); // the forward waits for its copies
    const double m = double(sc.training.globalBatch) / (b * r.dp);
    QCOMPARE(m, 2.0);
    SS_COMPARE_REL(r.step.offload, m * (std::max(0.0, copy - tf) + std::max(0.0, copy - tb)), 1e-12);
}

void TestTime::recomputeModulesRunTheirForwardAgain()
{
    // megatron/core/transformer/transformer_config.py recompute_modules: each named module's forward runs again in
    // backward. Llama 3 8B (32 layers, h 4096, f 14336, SwiGLU) on one H100 SXM, s = 2048, one micro-batch, bf16,
    // FlashAttention: Megatron's default (core_attn) costs nothing beyond FlashAttention's own backward; mlp adds the
    // MLP's GEMMs 2·T·3·h·f at the GEMM rate and its element-wise kernels, k_e × the 3·β·T·f bytes it dropped, at
    // HBM bandwidth.
    const double L = 32, h = 4096, f = 14336, T = 2048, beta = 2;
    Scenario sc = sstest::presetScenario("llama3-8b", 1, 1);
    sc.training.seqLen = int64_t(T);
    sc.training.recompute = Recompute::Selective;
    sc.parallelism.sharding = Sharding::Ddp;
    sstest::setBatch(sc, 1, 1);
    SS_EVALUATE(core, sc);
    QCOMPARE(core.step.recompute, 0.0);
    sc.training.recomputeModules = RecomputeModules { .coreAttn = true, .mlp = true };
    SS_EVALUATE(mlp, sc);
    const GpuSpec& g = sc.cluster.gpu;
    const double gemm = g.bf16DenseFlops * g.achievableMatmulFraction * sc.profile.gemmEfficiency;
    const double ke = sc.profile.elementwiseTraffic, H = g.memoryBandwidth;
    SS_COMPARE_REL(mlp.step.recompute, L * (2 * T * 3 * h * f / gemm + ke * 3 * beta * T * f / H), 1e-12);

    // moe on the small MoE model of groupedGemmsOfRoutedExperts (2 MoE layers, h 1024, 8 experts of f_e 1024, top-2,
    // one shared expert, EP 1, element-wise traffic 0): the MoE block's GEMMs again, shared and router at the GEMM
    // rate, the routed experts' grouped GEMMs with their HBM bytes.
    const double Lm = 2, hm = 1024, E = 8, k = 2, fe = 1024, shared = 1;
    ModelSpec m;
    m.name = "small moe";
    m.layers = int(Lm);
    m.hidden = int64_t(hm);
    m.heads = 8;
    m.kvHeads = 8;
    m.ffnHidden = int64_t(4 * hm);
    m.vocab = 32000;
    m.maxSeq = int64_t(T);
    m.moe.experts = int(E);
    m.moe.topK = int(k);
    m.moe.expertFfnHidden = int64_t(fe);
    m.moe.sharedExperts = int(shared);
    sc.model = m;
    sc.profile.elementwiseTraffic = 0;
    sc.training.recomputeModules = RecomputeModules { .coreAttn = true, .moe = true };
    SS_EVALUATE(moe, sc);
    // the routed experts' forward grouped GEMMs and the forward token permutation (8 local experts, at SimuMax's
    // measured B200 permute bandwidth 0.5008) as in groupedGemmsOfRoutedExperts
    const double C = T * k, W = E * 3 * hm * fe, Hm = g.memoryBandwidth;
    const double routedFwd = 2 * C * 3 * hm * fe / gemm + (2 * W + C * 2 * (hm + 2 * fe + fe + hm)) / Hm;
    const double permuteFwd = 2 * hm * (2 * T + 2 * C + 4 * C) / (0.5008 * Hm);
    SS_COMPARE_REL(
        moe.step.recompute, Lm * (2 * T * (shared * 3 * hm * fe + hm * E) / gemm + routedFwd + permuteFwd), 1e-12);
    // shared_experts: their GEMMs only
    sc.training.recomputeModules = RecomputeModules { .coreAttn = true, .sharedExperts = true };
    SS_EVALUATE(sharedOnly, sc);
    SS_COMPARE_REL(sharedOnly.step.recompute, Lm * 2 * T * shared * 3 * hm * fe / gemm, 1e-12);
}

QTEST_APPLESS_MAIN(TestTime)
#include "tst_time.moc"
