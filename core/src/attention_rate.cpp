// SPDX-License-Identifier: GPL-3.0-or-later
// FlashAttention-2 measured throughput as a fraction of the GPU's dense BF16 peak, interpolated by sequence length
// and head dimension (docs/model.md §attention-rate).
#include "attention_rate.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core::detail {

namespace {
// Sequence lengths of the published benchmark (batch × seqlen = 16k tokens, hidden 2048).
constexpr double kSeqs[6] = { 512, 1024, 2048, 4096, 8192, 16384 };
// FlashAttention-2 forward + backward TFLOP/s, fp16/bf16, [head dim 64, 128][non-causal, causal][sequence]:
// Dao 2023 (arXiv 2307.08691) Fig. 4 (A100 80GB SXM4), Dao-AILab/flash-attention assets/flash2_a100_fwd_bwd_benchmark.png
// @ 0251105a; divided by the A100's 312 TFLOP/s dense BF16 peak (A100 datasheet).
constexpr double kA100[2][2][6] = {
    { { 132, 153, 162, 171, 175, 176 }, { 88, 119, 140, 156, 165, 171 } },
    { { 151, 173, 187, 196, 201, 203 }, { 99, 133, 155, 173, 182, 189 } },
};
constexpr double kA100Peak = 312;
// The same on H100 80GB SXM5: Dao 2023 Fig. 7, assets/flash2_h100_fwd_bwd_benchmark.png @ 0251105a; ÷ 989 TFLOP/s
// (H100 SXM datasheet).
constexpr double kH100[2][2][6] = {
    { { 215, 254, 274, 288, 294, 296 }, { 141, 192, 232, 257, 273, 284 } },
    { { 248, 294, 320, 326, 335, 338 }, { 163, 221, 265, 294, 308, 328 } },
};
constexpr double kH100Peak = 989;

double along(const double (&row)[6], double seq)
{
    // Linear in log2(seqlen) between the measured points; flat outside them (the curves have levelled off by 16k:
    // +1% from 8k to 16k; below 512 the kernel is launch-bound and we keep the 512 value).
    const double x = std::log2(std::clamp(seq, kSeqs[0], kSeqs[5]));
    const int i = std::min(4, static_cast<int>(std::floor(x - std::log2(kSeqs[0]))));
    const double f = x - std::log2(kSeqs[i]);
    return row[i] + (row[i + 1] - row[i]) * f;
}
} // namespace

double flashAttentionRate(const GpuSpec& gpu, double headDim, bool causal, double seqLen)
{
    const bool older = gpu.arch == "ampere" || gpu.arch == "ada" || gpu.arch == "volta";
    const auto& table = older ? kA100 : kH100;
    const double peak = older ? kA100Peak : kH100Peak;
    const int c = causal ? 1 : 0;
    // head dims between 64 and 128 interpolate; beyond, the nearest (FlashAttention-2's hd256 is no faster per FLOP)
    const double w = std::clamp((headDim - 64.0) / 64.0, 0.0, 1.0);
    const double tflops = (1 - w) * along(table[0][c], seqLen) + w * along(table[1][c], seqLen);
    return tflops / peak * gpu.bf16DenseFlops;
}

} // namespace shardscope::core::detail
