// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rates of fused attention kernels (FlashAttention-2, FlashAttention-3, cuDNN), forward and backward, from their
// published benchmarks (docs/model.md §attention-rate).

#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

/// The kernel a profile's attention_kernel runs as on `gpu`: FlashAttention-3 only on Hopper; cuDNN fused attention
/// on Hopper and newer NVIDIA GPUs (Transformer Engine prefers it there, FlashAttention below); FlashAttention-2
/// otherwise.
AttentionKernel attentionKernelOn(const GpuSpec& gpu, AttentionKernel wanted);

/// Forward and backward FLOP/s of a fused attention kernel on a GPU, counted as FlashAttention counts (forward
/// 4·s²·d per head, halved when causal; backward 2.5 × forward).
struct AttentionRates {
    double forward = 0, backward = 0;
    AttentionKernel kernel = AttentionKernel::Fa2; ///< the kernel measured (attentionKernelOn)
};

/// `wanted` on `gpu` for sequences of `seqLen` keys, heads of `headDim`, causal or not. Measured on A100 (FA2,
/// forward + backward only) and H100 (FA2, FA3, cuDNN; forward and non-causal backward); the rest derived by the
/// rules in attention_rate.cpp. Other GPUs take the fraction of their BF16 peak measured on the nearest generation.
AttentionRates attentionRates(const GpuSpec& gpu, AttentionKernel wanted, double headDim, bool causal, double seqLen);

} // namespace shardscope::core::detail
