// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The rate of fused (FlashAttention) attention kernels, from the published FlashAttention-2 benchmarks
// (docs/model.md §attention-rate).

#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

/// FLOP/s a FlashAttention-2 forward + backward sustains on `gpu` for sequences of `seqLen` keys, heads of `headDim`,
/// causal or not, counted as FlashAttention counts (forward 4·s²·d per head, halved when causal; backward 2.5×
/// forward). Measured on A100 and H100; other GPUs take the fraction of their BF16 peak measured on the nearest
/// (Ampere and older: A100; Hopper and newer: H100).
double flashAttentionRate(const GpuSpec& gpu, double headDim, bool causal, double seqLen);

} // namespace shardscope::core::detail
