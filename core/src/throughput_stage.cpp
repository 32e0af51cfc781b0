// SPDX-License-Identifier: GPL-3.0-or-later
// The throughput stage (docs/model.md §throughput).
#include "throughput_stage.h"

namespace shardscope::core::detail {

Throughput throughputOf(const Scenario& s, const StepTime& step, double flopsPerToken, const Peak& peak, int gpus)
{
    Throughput t;
    const double total = step.total();
    if (total <= 0)
        return t;
    const double tokens = static_cast<double>(s.training.globalBatch) * static_cast<double>(s.training.seqLen);
    t.tokensPerSecond = tokens / total;
    t.tokensPerSecondPerGpu = t.tokensPerSecond / gpus;
    t.modelTflopsPerGpu = flopsPerToken * t.tokensPerSecondPerGpu / 1e12;
    // Hardware FLOPs count the recomputed work too (Korthikanti et al. 2022 §6: HFU vs MFU).
    const double hwFactor = (step.compute + step.recompute) > 0 ? (step.compute + step.recompute) / step.compute : 1.0;
    t.hardwareTflopsPerGpu = t.modelTflopsPerGpu * hwFactor;
    // MFU: model FLOP/s over the datasheet peak (PaLM, Chowdhery et al. 2022, App. B).
    t.mfu = flopsPerToken * t.tokensPerSecond / (gpus * peak.mfuPeak);
    if (s.cluster.gpu.hourlyPriceUsd > 0)
        t.costPerStepUsd = s.cluster.gpu.hourlyPriceUsd * gpus * total / 3600.0;
    return t;
}

} // namespace shardscope::core::detail
