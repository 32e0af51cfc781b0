// SPDX-License-Identifier: GPL-3.0-or-later
// The throughput stage (docs/model.md §throughput).
#include "throughput_stage.h"

namespace shardscope::core::detail {

template <class X> ThroughputOf<X> throughputFigures(
    const Scenario& s, const StepTime& step, double flopsPerToken, double mfuPeak, int gpus)
{
    const double stepTotal = step.total();
    // Tokens per step over the step time (Narayanan et al. SC'21 §5.1).
    const X tokensPerSecond = X::input("B", static_cast<double>(s.training.globalBatch), "sequences", "global batch")
        * X::input("s", static_cast<double>(s.training.seqLen), "tokens", "sequence length")
        / X::input("T_step", stepTotal, "s", "step time");
    const X n = X::input("N", double(gpus), "GPUs", "");
    const X fTok = X::input("F_tok", flopsPerToken, "FLOP", "model FLOPs per token (no recompute)");
    ThroughputOf<X> t { tokensPerSecond, X::named("R_tok", tokensPerSecond, "tokens/s", "tokens per second") / n, {},
        {}, {}, {} };
    // Model TFLOP/s: model FLOPs per token × tokens per second per GPU, in units of 10^12.
    t.modelTflopsPerGpu = fTok * X::named("R_gpu", t.tokensPerSecondPerGpu, "tokens/s", "tokens per second per GPU")
        / X::constant(1e12);
    // MFU: model FLOP/s over the datasheet peak (PaLM, Chowdhery et al. 2022, App. B).
    t.mfu = fTok * X::named("R_tok", tokensPerSecond, "tokens/s", "tokens per second")
        / (n * X::input("peak", mfuPeak, "FLOP/s", "dense BF16 peak (FP8 peak with fp8-mixed; TF32 with fp32)"));
    // Hardware FLOPs count the recomputed work too (Korthikanti et al. 2022 §6: HFU vs MFU): the model TFLOP/s scaled
    // by (compute + recompute) / compute.
    if (step.compute > 0) {
        const X compute = X::input("T_comp", step.compute, "s", "compute time of the step");
        t.hardwareTflopsPerGpu = X::named("M", t.modelTflopsPerGpu, "TFLOP/s", "model TFLOP/s per GPU")
            * (compute + X::input("T_rec", step.recompute, "s", "recompute time of the step")) / compute;
    } else {
        t.hardwareTflopsPerGpu = t.modelTflopsPerGpu;
    }
    // Rental cost of one step: GPUs × hourly price × step time / 3600 s per hour.
    if (s.cluster.gpu.hourlyPriceUsd > 0)
        t.costPerStepUsd = n * X::input("p", s.cluster.gpu.hourlyPriceUsd, "USD/h", "hourly price of one GPU (catalog)")
            * X::input("T_step", stepTotal, "s", "step time") / X::constant(3600);
    return t;
}
template ThroughputOf<Fast> throughputFigures<Fast>(const Scenario&, const StepTime&, double, double, int);
template ThroughputOf<Expr> throughputFigures<Expr>(const Scenario&, const StepTime&, double, double, int);

Throughput throughputOf(const Scenario& s, const StepTime& step, double flopsPerToken, const Peak& peak, int gpus)
{
    Throughput t;
    if (step.total() <= 0)
        return t;
    const ThroughputOf<Fast> f = throughputFigures<Fast>(s, step, flopsPerToken, peak.mfuPeak, gpus);
    t.tokensPerSecond = f.tokensPerSecond.value();
    t.tokensPerSecondPerGpu = f.tokensPerSecondPerGpu.value();
    t.modelTflopsPerGpu = f.modelTflopsPerGpu.value();
    t.hardwareTflopsPerGpu = f.hardwareTflopsPerGpu.value();
    t.mfu = f.mfu.value();
    t.costPerStepUsd = f.costPerStepUsd.value();
    return t;
}

} // namespace shardscope::core::detail
