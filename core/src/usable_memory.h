// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// memory_per_gpu.usable (docs/model.md §usable-memory): the one figure "fits" compares the memory total against, in
// every view (Explorer, Search, Sizing, min GPUs, Compare, lessons, CLI): the GPU's memory as its driver reports it,
// less the CUDA context (which the process holds before the framework allocates anything), less the user's headroom
// (cluster.memory_headroom, a share of the reported capacity kept free for fragmentation and spikes).

#include "expr.h"

#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

// CUDA context, cuBLAS/cuDNN workspaces and kernel images loaded at the first CUDA call: 0.5–2 GB
// (stas00 ml-engineering, training/performance); we take 1 GiB.
inline constexpr double kCudaContextBytes = 1024.0 * 1024.0 * 1024.0;

/// The GPU's memory as the driver reports it (catalog reported_memory_bytes), or its datasheet capacity when the
/// catalog knows no driver figure.
inline double reportedCapacity(const GpuSpec& g)
{
    return g.reportedMemoryBytes > 0 ? g.reportedMemoryBytes : g.memoryBytes;
}

/// C_gpu − C_cuda: what the process can allocate at all; a total above it cannot run, whatever the headroom.
template <class X> X allocatableMemory(const Scenario& s)
{
    const GpuSpec& g = s.cluster.gpu;
    return X::input("C_gpu", reportedCapacity(g), "B",
               g.reportedMemoryBytes > 0 ? "the GPU's memory as its driver reports it (nvidia-smi / rocm-smi total)"
                                         : "the GPU's datasheet memory (no driver-reported figure in the catalog)")
        - X::input("C_cuda", kCudaContextBytes, "B", "CUDA context, cuBLAS/cuDNN workspaces, kernel images");
}

/// C_gpu − C_cuda − h·C_gpu: the usable memory of one GPU.
template <class X> X usableMemory(const Scenario& s)
{
    const GpuSpec& g = s.cluster.gpu;
    return allocatableMemory<X>(s)
        - X::input("h", s.cluster.memoryHeadroom, "", "headroom kept free (cluster.memory_headroom)")
        * X::input("C_gpu", reportedCapacity(g), "B");
}

} // namespace shardscope::core::detail
