// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The output of evaluate(): every figure the views show (shardscope.result/1; docs/model.md).
/// Memory in bytes, time in seconds, volumes in bytes; figures are for the most loaded GPU unless named otherwise.

#include "shardscope/core/term.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shardscope::core {

/// A problem with the input: the field (dotted path, as in the scenario file) and the rule it breaks.
struct Issue {
    std::string field;
    std::string message;
    friend bool operator==(const Issue&, const Issue&) = default;
};

/// Most issues (and names in one issue's list) a reader reports: the rest are counted in one last line ("… and
/// 199,980 more"), so neither the CLI nor the window ever receives an unbounded list (issue 23).
inline constexpr size_t kMaxIssuesListed = 20;
/// Keeps the first kMaxIssuesListed issues and replaces the rest by one issue of field "(file)": "… and N more".
void capIssues(std::vector<Issue>& issues);
/// "a, b, c" of the first kMaxIssuesListed names, then "… and N more" when there are more.
std::string cappedList(const std::vector<std::string>& names, const char* separator = ", ");

/// Per-GPU memory by kind. Every byte the model counts is in exactly one item; total is their sum.
struct MemoryBreakdown {
    double parameters = 0; ///< resident (sharded or not) compute-precision weights + FP8 caches
    double gradients = 0; ///< persistent gradient buffers
    double optimizerStates = 0; ///< master weights + optimizer moments
    double activations = 0; ///< stored activations of in-flight micro-batches, incl. embeddings and logits peak
    double gatheredParameters
        = 0; ///< transient unsharded ZeRO-3/FSDP units (+ prefetch), unsharded grads being reduced
    double communicationBuffers = 0; ///< DDP/DeepSpeed buckets + NCCL channel buffers
    double frameworkOverhead = 0; ///< CUDA context, allocator slack, user reserve
    // What PyTorch reports at the peak, derived from the items above (not items themselves): reserved is the total
    // less the CUDA context and cluster.misc_bytes (memory outside the caching allocator); allocated is reserved less
    // the allocator slack (torch.cuda.max_memory_reserved / max_memory_allocated; docs/model.md §calibration).
    double reservedPeak = 0;
    double allocatedPeak = 0;
    [[nodiscard]] double total() const
    {
        return parameters + gradients + optimizerStates + activations + gatheredParameters + communicationBuffers
            + frameworkOverhead;
    }
};

struct StageInfo {
    int stage = 0;
    int layers = 0; ///< transformer layers on this stage (all virtual chunks)
    bool embedding = false; ///< holds the input embedding
    bool head = false; ///< holds the output layer (and loss)
    int inFlight = 0; ///< micro-batches whose activations are stored at the peak
    MemoryBreakdown memory;
    double forwardTime = 0; ///< one micro-batch through this stage, incl. exposed TP/CP/EP comm
    double backwardTime = 0; ///< one micro-batch, input + weight gradients, incl. recompute
    double weightGradTime = 0; ///< the weight-gradient part of backwardTime (zero-bubble schedules split it)
};

enum class Group { Dp, Tp, Pp, Cp, Ep };
enum class CollectiveOp { AllReduce, ReduceScatter, AllGather, AllToAll, SendRecv };
enum class Algo { Ring, Tree, Nvls, PointToPoint, Pat };
enum class Proto { Simple, LL, LL128 };

/// One kind of collective a GPU takes part in during one optimizer step.
struct Collective {
    Group group = Group::Dp;
    CollectiveOp op = CollectiveOp::AllReduce;
    int groupSize = 1;
    int64_t count = 0; ///< calls per optimizer step
    double messageBytes = 0; ///< S of one call (nccl-tests doc/PERFORMANCE.md convention)
    double bytes = 0; ///< bytes this GPU sends over the step, all calls
    double time = 0; ///< seconds over the step, all calls
    double latencyTime = 0; ///< of which NCCL's per-call latency (base + hops), once per call
    double exposedTime = 0; ///< part of time not hidden behind compute
    Algo algo = Algo::Ring;
    Proto proto = Proto::Simple;
    bool crossesNodes = false;
    bool perMicroBatch = false; ///< repeats with every micro-batch (its exposed time is inside the stage times)
    bool expertDataParallel = false; ///< group Dp over the expert data-parallel group (experts' gradients, weights)
    const char* purpose = ""; ///< static text: what the collective does ("gradient all-reduce", ...)
};

struct StepTime {
    double compute = 0; ///< model FLOPs time incl. memory-bound element-wise work
    double recompute = 0; ///< activation recomputation
    double exposedCommunication = 0; ///< communication not hidden behind compute
    double pipelineBubble = 0;
    double offload = 0; ///< exposed host/NVMe transfers and CPU optimizer
    double optimizer = 0; ///< GPU optimizer step (memory-bound)
    [[nodiscard]] double total() const
    {
        return compute + recompute + exposedCommunication + pipelineBubble + offload + optimizer;
    }
};

struct Throughput {
    double tokensPerSecond = 0;
    double tokensPerSecondPerGpu = 0;
    double modelTflopsPerGpu = 0; ///< model FLOPs (no recompute) per GPU per second / 1e12
    double hardwareTflopsPerGpu = 0; ///< incl. recompute
    double mfu = 0;
    double costPerStepUsd = 0; ///< 0 when the GPU has no price
};

/// memory_per_gpu.verdict: the usable memory against the memory's 80% range (core/uncertainty.h).
enum class Verdict { Fits, Borderline, DoesNotFit };

/// An 80% range [lo, hi] of a figure; it contains the figure.
struct Range {
    double lo = 0, hi = 0;
    friend bool operator==(const Range&, const Range&) = default;
};

/// A list of strings every result that states it shares: copying a result copies a pointer, not the strings (the
/// sources of a range are the same few lists for every scenario of a kind, and an evaluate must not allocate them).
class SharedStrings
{
public:
    SharedStrings() = default;
    explicit SharedStrings(std::vector<std::string> list)
        : list_(std::make_shared<const std::vector<std::string>>(std::move(list)))
    { }
    [[nodiscard]] const std::vector<std::string>& list() const
    {
        static const std::vector<std::string> none;
        return list_ ? *list_ : none;
    }
    [[nodiscard]] bool empty() const { return list().empty(); }
    [[nodiscard]] size_t size() const { return list().size(); }
    [[nodiscard]] const std::string& front() const { return list().front(); }
    [[nodiscard]] auto begin() const { return list().begin(); }
    [[nodiscard]] auto end() const { return list().end(); }
    friend bool operator==(const SharedStrings& a, const SharedStrings& b) { return a.list() == b.list(); }
    friend bool operator==(const SharedStrings& a, const std::vector<std::string>& b) { return a.list() == b; }

private:
    std::shared_ptr<const std::vector<std::string>> list_;
};

/// How sure the figures are (core/uncertainty.h, issue 11): the band, the run's kinds and what the ranges rest on.
struct Uncertainty {
    double band = 0.8; ///< the ranges' probability content
    std::string kind; ///< "plain", or the run's kinds: "long-context fp8"
    std::string basisKind = "validated"; ///< "validated", "calibrated" or "extrapolated" (core::BasisKind)
    std::string basis; ///< the sentence: "validated: leave-one-source-out on N published runs (S sources)", ...
    SharedStrings sources; ///< the published sources the ranges rest on, or "N of your runs"
    double coverage = 0; ///< share of leave-one-source-out throughput predictions of this kind inside their range
    double memoryCoverage = 0; ///< the same for the memory range
    int throughputRuns = 0; ///< runs behind the step-time and throughput ranges
    int memoryRuns = 0; ///< runs behind the memory range
    Range throughputRatio { 1, 1 }; ///< 80% band of measured/predicted tokens/s per GPU (step time: its inverse)
    Range memoryRatio { 1, 1 }; ///< 80% band of measured/predicted reserved peak (any stage's bar)
    double assumedHiddenShare = 0; ///< communication.assumed_hidden_seconds / step time
    double hiddenShareEvidence = 0; ///< the most any run behind the throughput band had; above it the slow end widens
};

struct Result {
    bool valid = false;
    std::vector<Issue> issues;
    std::vector<Issue> warnings;

    // model
    double parameters = 0;
    double activeParameters = 0;
    double flopsPerToken = 0; ///< model training FLOPs per token (3× forward, causal attention halved)

    // layout
    int gpus = 0, dp = 0, tp = 1, pp = 1, cp = 1, ep = 1;
    int64_t microBatches = 0; ///< per pipeline per step (= gradient accumulation steps)
    int64_t gradAccumulation = 0;

    MemoryBreakdown memory; ///< most loaded GPU
    double capacity = 0; ///< the GPU's memory as its driver reports it (datasheet when unknown)
    double usable = 0; ///< what fits compares against: capacity − CUDA context − headroom
    double allocatable = 0; ///< capacity − CUDA context: a memory range above it is does-not-fit
    bool fits = false; ///< memory.total() <= usable
    Verdict verdict = Verdict::DoesNotFit;
    Range memoryRange; ///< 80% range of memory.total()
    int peakStage = 0;
    std::vector<StageInfo> stages;
    double hostMemoryPerNode = 0;
    double nvmePerNode = 0;

    std::vector<Collective> collectives;
    std::array<double, 5> bytesByGroup {}; ///< indexed by Group
    double totalCommBytes = 0;

    StepTime step;
    Throughput throughput;
    Range stepTimeRange; ///< 80% range of step.total()
    Range tokensPerGpuRange; ///< 80% range of throughput.tokensPerSecondPerGpu
    Uncertainty uncertainty;
    int minGpus = 0; ///< fewest GPUs on which this strategy and settings fit (0 = none up to the limit)

    /// The figures as named terms (explain(); empty from evaluate()): memory terms add up to memory.total(),
    /// step-time terms to step.total().
    std::vector<Term> terms;
};

const char* toString(Group g);
const char* toString(CollectiveOp op);
const char* toString(Algo a);
const char* toString(Proto p);
const char* toString(Verdict v); ///< "fits", "borderline", "does-not-fit"

} // namespace shardscope::core
