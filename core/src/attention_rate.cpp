// SPDX-License-Identifier: GPL-3.0-or-later
// Fused attention kernels' measured forward and backward throughput as a fraction of the GPU's dense BF16 peak,
// interpolated by sequence length and head dimension (docs/model.md §attention-rate).
#include "attention_rate.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace shardscope::core::detail {

namespace {
// Sequence lengths of the published benchmarks (batch × seqlen = 16k tokens, hidden 2048: Dao-AILab/flash-attention
// benchmarks/benchmark_flash_attention.py and hopper/benchmark_attn.py @ 0251105a).
// They double from 512 to 16384 (512, 1K, 2K, 4K, 8K, 16K): the grid's index is log2(s / 512).
constexpr double kSeqMin = 512;
constexpr double kSeqMax = 16384;
enum KernelIndex : int { kFa2 = 0, kFa3 = 1, kCudnn = 2 }; // rows of the H100 tables (indices, not figures)

// H100 80GB SXM5, BF16/FP16 forward TFLOP/s, [FA2, FA3, cuDNN][head dim 64, 128, 256][non-causal, causal][sequence]:
// Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) Fig. 5, Dao-AILab/flash-attention assets/flash3_fp16_fwd.png
// @ 0251105a (tests/core/data/flash_attention.json).
constexpr double kH100Fwd[3][3][2][6] = {
    { { { 282, 306, 318, 321, 322, 324 }, { 180, 229, 262, 284, 295, 299 } },
        { { 309, 350, 362, 368, 370, 370 }, { 191, 260, 298, 319, 333, 335 } },
        { { 275, 313, 321, 323, 324, 326 }, { 208, 251, 278, 293, 297, 298 } } },
    { { { 333, 392, 460, 476, 496, 497 }, { 197, 265, 371, 420, 460, 473 } },
        { { 467, 565, 625, 638, 646, 648 }, { 292, 423, 521, 579, 602, 616 } },
        { { 482, 639, 707, 736, 746, 756 }, { 286, 427, 537, 612, 628, 642 } } },
    { { { 335, 373, 395, 408, 412, 413 }, { 225, 288, 334, 363, 379, 388 } },
        { { 497, 574, 617, 609, 600, 595 }, { 315, 410, 484, 518, 529, 539 } },
        { { 470, 546, 580, 581, 580, 581 }, { 308, 391, 450, 483, 497, 509 } } },
};
// H100 backward TFLOP/s without a causal mask, [FA2, FA3, cuDNN][head dim 64, 128][sequence]: Shah et al. 2024
// Fig. 6 (the paper publishes no causal and no head-dim-256 backward; rules below).
constexpr double kH100Bwd[3][2][6] = {
    { { 198, 238, 264, 279, 287, 291 }, { 214, 260, 291, 310, 318, 322 } },
    { { 272, 363, 422, 453, 472, 474 }, { 316, 424, 501, 542, 559, 561 } },
    { { 266, 348, 395, 417, 432, 433 }, { 305, 408, 465, 499, 518, 516 } },
};
// FlashAttention-2 forward + backward TFLOP/s, [head dim 64, 128][non-causal, causal][sequence]: Dao 2023
// (arXiv 2307.08691) Fig. 7 (H100 80GB SXM5, assets/flash2_h100_fwd_bwd_benchmark.png) and Fig. 4 (A100 80GB SXM4,
// assets/flash2_a100_fwd_bwd_benchmark.png) @ 0251105a. The A100's forward and backward alone are not published.
constexpr double kH100FwdBwd[2][2][6] = {
    { { 215, 254, 274, 288, 294, 296 }, { 141, 192, 232, 257, 273, 284 } },
    { { 248, 294, 320, 326, 335, 338 }, { 163, 221, 265, 294, 308, 328 } },
};
constexpr double kA100FwdBwd[2][2][6] = {
    { { 132, 153, 162, 171, 175, 176 }, { 88, 119, 140, 156, 165, 171 } },
    { { 151, 173, 187, 196, 201, 203 }, { 99, 133, 155, 173, 182, 189 } },
};
constexpr double kA100Peak = 312; // A100 SXM dense BF16 TFLOP/s (A100 datasheet)
constexpr double kH100Peak = 989; // H100 SXM dense BF16 TFLOP/s (H100 datasheet)

struct Pair {
    double fwd = 0, bwd = 0;
};
/// Forward and backward TFLOP/s of one kernel on one GPU, [head dim 64, 128, 256][non-causal, causal][sequence].
using Grid = std::array<std::array<std::array<Pair, 6>, 2>, 3>;

/// H100, kernel k: the forward as published; the backward at head dim 256 is the 128 value (not published;
/// FlashAttention-2's is no faster per FLOP). Causal backward (not published): the non-causal backward ×
/// FlashAttention-2's causal / non-causal forward + backward ratio on the same GPU, head dimension and length
/// (Dao 2023 Fig. 7) — the mask skips the same blocks in both passes, and the combined figure is mostly backward (2.5
/// of its 3.5 FLOP units).
constexpr Grid h100Grid(int k)
{
    Grid g {};
    for (int d = 0; d < 3; ++d)
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < 6; ++i) {
                const int d2 = d < 1 ? d : 1;
                const double causal = c ? kH100FwdBwd[d2][1][i] / kH100FwdBwd[d2][0][i] : 1.0;
                g[d][c][i] = { kH100Fwd[k][d][c][i], kH100Bwd[k][d2][i] * causal };
            }
    return g;
}

/// A100 FlashAttention-2 (head dim 256: the 128 values): the published forward + backward rate R split so that
/// forward / backward rate = r, FlashAttention-2's ratio on the H100 (Shah et al. 2024 Figs. 5, 6):
/// 3.5/R = 1/fwd + 2.5/bwd ⇒ bwd = R·(1/r + 2.5)/3.5, fwd = r·bwd.
constexpr Grid a100Grid()
{
    const Grid h = h100Grid(kFa2);
    Grid g {};
    for (int d = 0; d < 3; ++d)
        for (int c = 0; c < 2; ++c)
            for (int i = 0; i < 6; ++i) {
                const int d2 = d < 1 ? d : 1;
                const double r = h[d2][c][i].fwd / h[d2][c][i].bwd;
                const double bwd = kA100FwdBwd[d2][c][i] * (1.0 / r + 2.5) / 3.5;
                g[d][c][i] = { r * bwd, bwd };
            }
    return g;
}

// FlashAttention-2, FlashAttention-3 and cuDNN on the H100, FlashAttention-2 on the A100.
constexpr std::array<Grid, 4> kGrids = { h100Grid(kFa2), h100Grid(kFa3), h100Grid(kCudnn), a100Grid() };
} // namespace

AttentionKernel attentionKernelOn(const GpuSpec& gpu, AttentionKernel wanted)
{
    const bool hopper = gpu.arch == "hopper";
    // FlashAttention-3 is written for sm90 (Dao-AILab/flash-attention hopper/; Transformer Engine disables it on
    // compute capability != sm90); cuDNN's fused attention on sm90 and newer NVIDIA GPUs, where Transformer Engine
    // prefers it (transformer_engine/pytorch/attention/dot_product_attention/utils.py get_attention_backend @ d0067d0:
    // "give FusedAttention preference on Hopper+"), FlashAttention-2 below.
    if (wanted == AttentionKernel::Fa3 && hopper)
        return AttentionKernel::Fa3;
    if (wanted == AttentionKernel::Cudnn && (hopper || gpu.arch == "blackwell"))
        return AttentionKernel::Cudnn;
    return AttentionKernel::Fa2;
}

AttentionRates attentionRates(const GpuSpec& gpu, AttentionKernel wanted, double headDim, bool causal, double seqLen)
{
    AttentionRates out;
    out.kernel = attentionKernelOn(gpu, wanted);
    const bool older = gpu.arch == "ampere" || gpu.arch == "ada" || gpu.arch == "volta";
    const Grid& grid = older                   ? kGrids[3]
        : out.kernel == AttentionKernel::Fa3   ? kGrids[kFa3]
        : out.kernel == AttentionKernel::Cudnn ? kGrids[kCudnn]
                                               : kGrids[kFa2];
    // Sequence: linear in log2(seqlen) between the measured points, flat outside them (the curves have levelled off
    // by 16k; below 512 the kernel is launch-bound and we keep the 512 value).
    const double x = std::log2(std::clamp(seqLen, kSeqMin, kSeqMax) / kSeqMin);
    const int i = std::min(4, static_cast<int>(x));
    const double fs = x - i;
    // Head dimension: linear between the measured 64, 128 (and 256 on the H100), the nearest outside them.
    const double hd = std::clamp(headDim, 64.0, older ? 128.0 : 256.0);
    const int d = hd <= 128 ? 0 : 1;
    const double fd = d == 0 ? (hd - 64.0) / 64.0 : (hd - 128.0) / 128.0;
    const int c = causal ? 1 : 0;
    const Pair& p00 = grid[d][c][i];
    const Pair& p01 = grid[d][c][i + 1];
    const Pair& p10 = grid[d + 1][c][i];
    const Pair& p11 = grid[d + 1][c][i + 1];
    const double fwd = (1 - fd) * ((1 - fs) * p00.fwd + fs * p01.fwd) + fd * ((1 - fs) * p10.fwd + fs * p11.fwd);
    const double bwd = (1 - fd) * ((1 - fs) * p00.bwd + fs * p01.bwd) + fd * ((1 - fs) * p10.bwd + fs * p11.bwd);
    // The measured GPU's fraction of its own peak, times this GPU's peak (an extrapolation off A100/H100).
    const double scale = gpu.bf16DenseFlops / (older ? kA100Peak : kH100Peak);
    out.forward = fwd * scale;
    out.backward = bwd * scale;
    return out;
}

} // namespace shardscope::core::detail
