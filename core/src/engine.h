// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal building blocks of evaluate(): the shape of a layout and its memory model.

#include "expr.h"
#include "model_counts.h"
#include "shardscope/core/layout.h"
#include "shardscope/core/pipeline_layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"
#include "shardscope/core/term.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace shardscope::core::detail {

// Framework bucket sizes: the memory model (engine.cpp), the time model (evaluate.cpp) and the launch configurations
// (launch_config.cpp writes the same values into DeepSpeed's config) read them here.
/// DeepSpeed ZeRO reduce_bucket_size and allgather_bucket_size, elements (deepspeed/runtime/zero/config.py).
inline constexpr double kDsReduceBucket = 5e8;
inline constexpr double kDsAllgatherBucket = 5e8;
/// DeepSpeed ZeRO-3 stage3_prefetch_bucket_size, elements (deepspeed/runtime/zero/config.py).
inline constexpr double kDsPrefetchBucket = 5e7;

/// Bytes per parameter of each model-state component (ZeRO paper §3.1; Megatron-LM dist_optimizer.md;
/// docs/model.md §model-state-bytes).
struct StateBytes {
    double w = 2; ///< compute-precision weights
    double gr = 2; ///< persistent gradient buffer (sharded at ZeRO-2/3)
    double grOpt = 0; ///< fp32 gradient partition sharded like the optimizer (DeepSpeed accounting)
    double mw = 4; ///< master weights
    double os = 8; ///< optimizer moments
    double fp8Cache = 0; ///< FP8 weight copy + transpose beside the high-precision weights
    double act = 2; ///< bytes per activation element (β)
    double reduce = 2; ///< bytes per gradient element in the data-parallel reduction
};
StateBytes stateBytes(const Training& t);

/// What one pipeline stage holds, per GPU (after TP/EP split, before data-parallel sharding).
struct StageShape {
    int layers = 0, denseLayers = 0, moeLayers = 0;
    bool embedding = false, head = false;
    double dense = 0; ///< parameters sharded over the dense data-parallel group
    double expert = 0; ///< routed-expert parameters sharded over the expert data-parallel group
    double denseLinear = 0; ///< the part of `dense` in the transformer layers' linear weights (what FP8 casts)
    friend bool operator==(const StageShape&, const StageShape&) = default;
};

/// Everything about a layout that does not depend on the data-parallel degree.
struct Shape {
    ModelCounts counts;
    StateBytes bytes;
    int tp = 1, pp = 1, cp = 1, ep = 1, v = 1;
    int etp = 1; ///< expert tensor parallelism (parallelism.expert_tp; tp for a dense model)
    double tokensPerMicroBatch = 0; ///< s·b/cp tokens a GPU processes per micro-batch (before SP)
    double layerActivation = 0; ///< stored bytes of one layer for one micro-batch (recompute applied)
    double layerActivationFull = 0; ///< the same without recompute (element-wise traffic and the working set)
    double layerInput = 0; ///< bytes of one layer's input (full recompute keeps only this)
    double linearInputBytes = 0; ///< β8: bytes per saved linear-layer input element (1 with TE FP8, else β)
    double gemmWeightBytes = 0; ///< bytes per weight element a GEMM reads: the FP8 cast under FP8, else w
    double moeLayerExtra = 0; ///< extra stored bytes of an MoE layer over a dense one
    double moeLayerExtraFull = 0;
    double layerCore = 0; ///< core attention's stored bytes of one layer on a GPU, A_core/t
    double embeddingActivation = 0; ///< first stage, per micro-batch: token ids + embedding dropout mask
    double headInputs = 0; ///< last stage, one micro-batch: final-norm and output-layer inputs (stored)
    double tpGatheredInput = 0; ///< PyTorch TP + SP: a column-parallel input saved gathered, beyond its shard
    double localLogits = 0; ///< logits of one micro-batch on one TP rank, T·V/t
    double lossPeak = 0; ///< last stage, one micro-batch: logits and loss intermediates at the loss peak
    double logitBytes = 0; ///< the profile's bytes per (local) logit at that peak (logit_bytes[_tp])
    double unitParams = 0; ///< largest ZeRO-3/FSDP unit on a GPU (a layer, or the root's embeddings)
    double layerUnitParams = 0; ///< one transformer layer's parameters on a GPU
    std::vector<PipelineChunk> chunks; ///< parallelism.pipeline_layout's virtual stages; empty: the even split
    int maxStageLayers = 0; ///< transformer layers on the pipeline stage with the most
};

Shape makeShape(const Scenario& s);

/// One layer's stored activation bytes per micro-batch, and its parts (engine.cpp, layerActivation).
template <class X> struct LayerActivationOf {
    X full; ///< without recompute (A_full)
    X core; ///< core attention (A_core)
    X denseMlp; ///< the dense MLP's TP-split part (an MoE layer replaces it)
    X input; ///< the layer's input (all that full recompute keeps)
    X stored; ///< what the recompute policy keeps for the backward (A)
    const char* note; ///< what that policy keeps, in words ("" without recompute)
};
/// Computed with Fast for makeShape's figures, with Expr for the activations term: one formula for both.
template <class X> LayerActivationOf<X> layerActivation(const Scenario& s, const Shape& shape);

/// Layers on pipeline stage `i` of `pp` (uneven splits give the extra layers to the last stages).
inline int layersOnStage(int layers, int pp, int i)
{
    const int base = layers / pp;
    const int extra = layers % pp;
    return base + (i >= pp - extra ? 1 : 0);
}

/// The first transformer layer of stage `i` of the even split (the layers on the stages before it).
inline int firstLayerOnStage(int layers, int pp, int i)
{
    return i * (layers / pp) + std::max(0, i - (pp - layers % pp));
}

/// Transformer layers on pipeline stage `i`: its virtual stages' (chunk j runs on rank j mod pp,
/// pipeline_parallel_layer_layout.py) when the shape has a layout, else layersOnStage.
int stageLayers(const Scenario& s, const Shape& shape, int i);

/// Whether stage `i` (0 < i) has stage i − 1's shape `previous` without computing it: a middle stage of the even split
/// with as many layers, both past an MoE model's leading dense layers or both all dense (a dense model).
inline bool repeatsPrevious(const Scenario& s, const Shape& shape, int i, const StageShape& previous)
{
    // A stage's shape depends on it only through its layers, its leading dense layers, the embedding and the head.
    return i > 1 && i < shape.pp - 1 && shape.chunks.empty()
        && (previous.denseLayers == 0 || shape.counts.denseLayers == s.model.layers)
        && layersOnStage(s.model.layers, shape.pp, i) == previous.layers;
}

/// Parameters pipeline stage `i` holds per GPU (evaluate reuses stage i − 1's where repeatsPrevious says so).
StageShape stageShape(const Scenario& s, const Shape& shape, int i);

/// Micro-batches whose activations stage `i` holds at its peak, in units of "full stage micro-batches" (inline: evaluate
/// asks for every stage).
inline double inFlight(const Scenario& s, int i, int64_t m)
{
    const int p = s.parallelism.pp;
    const double mb = static_cast<double>(m);
    switch (s.parallelism.schedule) {
    case PpSchedule::GPipe: return mb; // all forwards before any backward (GPipe §2.3)
    case PpSchedule::Interleaved: {
        // Megatron schedules.py: warm-up (p − r − 1)·2 + (v − 1)·p chunk-micro-batches, +1 in flight, each 1/v of the stage.
        const int v = std::max(1, s.parallelism.virtualStages);
        const double chunks = std::min<double>((p - i - 1) * 2.0 + (v - 1.0) * p + 1.0, mb * v);
        return chunks / v;
    }
    case PpSchedule::OneFOneB:
    case PpSchedule::ZeroBubble: // ZB-H1 keeps 1F1B's activation memory (zero-bubble README)
        break;
    }
    return std::min<double>(p - i, mb); // 1F1B: stage r holds p − r micro-batches (Narayanan §2.2)
}

/// A stage's model states, gathered units and buckets as figures of type X: what its memory holds whatever its
/// micro-batches in flight, so stages of one shape share them (engine.cpp computes them once per shape).
template <class X> struct StageStatesOf {
    X parameters, gradients, grad32, optimizerStates, gatheredLoss, gatheredBwd, buckets;
    X shardedGrads; ///< g·Ψ/N: the gradients sharded whatever the mode (DeepSpeed's ZeRO-3 estimator drops them)
    double host = 0, nvme = 0; ///< offloaded model states per GPU
    double stepGrads = 0; ///< fp32 main gradients that exist only at the optimizer step (Megatron fp16)
};
using StageStates = StageStatesOf<Fast>;
template <class X> StageStatesOf<X> stageStatesOf(
    const Scenario& s, const Shape& shape, const StageShape& st, const ShardDegrees& degrees);

/// Per-GPU memory of one stage of a layout (min_gpus varies its data-parallel degree), NCCL buffers excepted.
MemoryBreakdown stageMemory(const Scenario& s, const Shape& shape, const StageShape& st, int stageIndex,
    const ShardDegrees& degrees, int64_t microBatches, double* hostPerGpu, double* nvmePerGpu);
/// The same from the stage's states (stageStatesOf<Fast> of this shape and the layout's degrees) and its micro-batches
/// in flight (inFlight of the stage).
MemoryBreakdown stageMemory(const Scenario& s, const Shape& shape, const StageShape& st, double inFlightMb,
    int64_t microBatches, const StageStates& states, double* hostPerGpu, double* nvmePerGpu);

/// The memory terms of that stage, from the same computation as stageMemory (docs/model.md §memory); `nccl` is added
/// to the communication buffers (evaluate's NCCL buffers of every communicator).
void stageMemoryTerms(const Scenario& s, const Shape& shape, const StageShape& st, int stageIndex,
    const ShardDegrees& degrees, int64_t microBatches, double nccl, std::vector<Term>& out);

/// The stages that can hold a layout's memory peak: the first stage of each run of stages of one shape, since a later
/// stage of a run holds no more micro-batches in flight (inFlight). With the even split these are the first
/// (embedding), the second, the one holding an MoE model's first MoE layer and the one after it (where its leading
/// dense layers end), the first stage with an extra layer, and the last (output layer); with a pipeline layout any
/// stage can, and everyStage says to try them all.
struct PeakCandidates {
    int count = 0;
    int index[6] = {};
    StageShape shape[6];
    bool everyStage = false;
};
PeakCandidates peakCandidates(const Scenario& s, const Shape& shape);
/// The same from the stage shapes already made (stageShape of stage i at index i, one per stage).
PeakCandidates peakCandidates(const Scenario& s, const Shape& shape, std::span<const StageShape> stageShapes);

/// Whether every candidate stage's per-GPU memory (without NCCL buffers) is within `budget` for a layout (min_gpus
/// varies its dp; search skips layouts that do not fit); stops at the first stage over it.
bool candidatesFit(const Scenario& s, const Shape& shape, const PeakCandidates& c, const ShardDegrees& degrees,
    int64_t microBatches, double budget);

/// NCCL buffer bytes of one communicator: channels × peers × 3 protocols × NCCL_BUFFSIZE (NCCL user guide,
/// environment variables).
double ncclCommunicatorBytes(int channels, int peers);

/// NCCL send/recv buffers towards `peers` peers: one Simple-protocol buffer per peer and direction.
double ncclPointToPointBytes(int peers);

/// NCCL buffers of every communicator a GPU of this layout belongs to (defined in communication_stage.cpp).
double ncclBufferBytes(const Scenario& s, const Layout& layout);

/// DeepSpeed's estimate_zero3_model_states_mem_needs host bytes per node, zero_init = True
/// (deepspeed/runtime/zero/stage3.py).
double deepspeedZero3HostPerNode(
    double psi, double largestLayer, int gpusPerNode, int nodes, bool offOpt, bool offParam);

} // namespace shardscope::core::detail
