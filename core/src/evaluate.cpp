// SPDX-License-Identifier: GPL-3.0-or-later
// evaluate(): Scenario → Layout → the stages (memory, compute, communication, timing, throughput, sizing) → Result
// (docs/model.md). Each stage is a pure function in its own file; this one composes them.
#include "shardscope/core/evaluate.h"
#include "shardscope/core/enum_names.h"

#include "shardscope/core/rank_map.h"
#include "shardscope/core/uncertainty.h"

#include "communication_stage.h"
#include "compute_stage.h"
#include "engine.h"
#include "sizing.h"
#include "step_terms.h"
#include "throughput_stage.h"
#include "timing_stage.h"
#include "usable_memory.h"
#include "evaluate_into.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace shardscope::core {

void evaluateInto(const Scenario& s, Result& r, bool computeMinGpus, std::vector<Term>* terms)
{
    evaluateInto(s, makeLayout(s), r, computeMinGpus, terms);
}

namespace {
/// evaluateInto's body; kPeakOnly: only `peakOnly`'s stages' memory (the search's), else every stage's.
template <bool kPeakOnly> void evaluateWith(const Scenario& s, const Layout& layout, const detail::Shape& sh,
    const detail::PeakCandidates* peakOnly, Result& r, bool computeMinGpus, std::vector<Term>* terms)
{
    using namespace detail;
    r.valid = true;
    r.collectives.clear();
    // Room for the usual kinds of collectives in one block small enough for glibc's per-thread cache (requests up to
    // 1032 bytes; malloc/malloc.c, MAX_TCACHE_SIZE): a larger block costs ten times as much to allocate and free.
    r.collectives.reserve(1032 / sizeof(Collective));
    r.bytesByGroup = {};
    r.totalCommBytes = 0;

    // Scenario → Layout → Shape: what every stage reads.
    const int pp = layout.pp;
    const int64_t m = layout.microBatches;
    r.parameters = sh.counts.total;
    r.activeParameters = sh.counts.active;
    r.gpus = layout.gpus;
    r.dp = layout.dp;
    r.tp = layout.tp;
    r.pp = pp;
    r.cp = layout.cp;
    r.ep = layout.ep;
    r.microBatches = m;
    r.gradAccumulation = m;

    // Compute and communication of one layer, one micro-batch; then its times.
    const LayerCompute compute = computeStage(s, sh);
    r.flopsPerToken = compute.flopsPerToken;
    const LayerComm comm = layerCommunication(s, sh, layout, compute.coreTime, compute.coreBwdTime);
    const LayerTimes denseL = layerTimes(s, sh, compute, comm, false, double(m));
    const LayerTimes moeL = layerTimes(s, sh, compute, comm, true, double(m));

    // Every pipeline stage: its memory and its micro-batch time; the peak stage and the slowest stage.
    // Every field of every stage is written below: a reused result (searches) keeps its stages, only resized.
    r.stages.resize(pp);
    // Each stage's shape and time, made once: the slowest stage's step and min_gpus' peak candidates read them again.
    // Per-thread buffers, as the stages (a search evaluates millions of layouts), each element written before it is read.
    thread_local std::vector<StageShape> shapes;
    thread_local std::vector<StageTime> times;
    shapes.resize(pp);
    times.resize(pp);
    StageStates states;
    [[maybe_unused]] bool statesMade = false; // peakOnly: `states` are those of the current run of stages of one shape
    double worstMem = -1, sumStage = 0, maxStage = 0, hostPerGpuMax = 0, nvmePerGpuMax = 0;
    int slow = 0;
    StageShape* const shapeOf = shapes.data(); // read through plain pointers: a thread_local's address is not cached
    StageTime* const timeOf = times.data();
    for (int i = 0; i < pp; ++i) {
        const bool repeats = i > 0 && repeatsPrevious(s, sh, i, shapeOf[i - 1]);
        const StageShape& st = shapeOf[i] = repeats ? shapeOf[i - 1] : stageShape(s, sh, i);
        StageInfo& si = r.stages[i];
        si.stage = i;
        si.layers = st.layers;
        si.embedding = st.embedding;
        si.head = st.head;
        const double inFlightMb = inFlight(s, i, m);
        si.inFlight = static_cast<int>(inFlightMb); // ⌈inFlightMb⌉ (positive): truncate, then round up a fraction
        si.inFlight += inFlightMb > si.inFlight ? 1 : 0;
        // Stages of one shape hold the same states and take the same time (stageTime depends on the stage only
        // through its shape).
        const bool sameShape = repeats || (i > 0 && st == shapeOf[i - 1]);
        const auto memoryHere = [&] {
            double host = 0, nvme = 0;
            si.memory = stageMemory(s, sh, st, inFlightMb, m, states, &host, &nvme);
            hostPerGpuMax = std::max(hostPerGpuMax, host);
            nvmePerGpuMax = std::max(nvmePerGpuMax, nvme);
        };
        // evaluate() keeps the plain path: the search's bookkeeping in it cost 1 M instructions in bench_evaluate.
        if constexpr (kPeakOnly) {
            statesMade = statesMade && sameShape;
            if (peakOnly->everyStage
                || std::find(peakOnly->index, peakOnly->index + peakOnly->count, i)
                    != peakOnly->index + peakOnly->count) {
                if (!statesMade)
                    states = stageStatesOf<Fast>(s, sh, st, layout);
                statesMade = true;
                memoryHere();
            } else {
                si.memory = {}; // below its run's first stage, which holds more in flight (peakCandidates)
            }
        } else {
            if (!sameShape)
                states = stageStatesOf<Fast>(s, sh, st, layout);
            memoryHere();
        }
        timeOf[i] = sameShape ? timeOf[i - 1] : stageTime(s, sh, layout, st, compute, comm, denseL, moeL);
        si.forwardTime = timeOf[i].forward;
        si.backwardTime = timeOf[i].backward;
        si.weightGradTime = timeOf[i].weightGrad;
        const double tStage = si.forwardTime + si.backwardTime;
        sumStage += tStage;
        if (tStage > maxStage) {
            maxStage = tStage;
            slow = i;
        }
        if (const double total = si.memory.total(); total > worstMem) {
            worstMem = total;
            r.peakStage = i;
        }
    }
    const double nccl = ncclBufferBytes(s, layout);
    for (auto& st : r.stages)
        st.memory.communicationBuffers += nccl;
    r.memory = r.stages[r.peakStage].memory;
    r.capacity = reportedCapacity(s.cluster.gpu);
    r.usable = usableMemory<Fast>(s).value();
    r.allocatable = allocatableMemory<Fast>(s).value();
    r.fits = r.memory.total() <= r.usable;
    r.hostMemoryPerNode = hostPerGpuMax * s.cluster.gpusPerNode;
    r.nvmePerNode = nvmePerGpuMax * s.cluster.gpusPerNode;
    if (s.training.accounting == Accounting::DeepSpeed && s.parallelism.sharding == Sharding::Zero3) {
        r.hostMemoryPerNode = deepspeedZero3HostPerNode(sh.counts.total / (layout.tp * pp), sh.unitParams,
            s.cluster.gpusPerNode, s.cluster.nodes, s.offload.optimizer != OffloadTarget::None,
            s.offload.parameters != OffloadTarget::None);
    }

    // The step on the slowest stage: micro-batches, bubble, step-level collectives, optimizer and offload.
    const StageInfo& S = r.stages[slow];
    const double tSlow = S.forwardTime + S.backwardTime;
    SlowStage slowStage;
    slowStage.shape = shapes[slow];
    slowStage.m = static_cast<double>(m);
    slowStage.lastBackward = S.backwardTime;
    slowStage.firstForward = S.forwardTime;
    slowStage.dpFwd = times[slow].dpFwd;
    slowStage.dpBwd = times[slow].dpBwd;
    // the forward all-to-alls run again under full recompute and under recompute_modules moe
    const bool moeAgain = s.training.recompute == Recompute::Full
        || (s.training.recompute == Recompute::Selective && s.training.effectiveRecomputeModules().moe);
    slowStage.epExposed = slowStage.shape.moeLayers * (moeL.epBwd + moeL.epFwd * (moeAgain ? 2.0 : 1.0));
    const double tpAll = comm.expertTpSplit ? slowStage.shape.denseLayers * (comm.tpFwd + comm.tpBwd)
            + slowStage.shape.moeLayers * (comm.tpFwdMoe + comm.tpBwdMoe)
                                            : double(slowStage.shape.layers) * (comm.tpFwd + comm.tpBwd);
    if (tpAll > 0)
        slowStage.tpExposedShare = (slowStage.shape.denseLayers * (denseL.tpFwd + denseL.tpBwd)
                                       + slowStage.shape.moeLayers * (moeL.tpFwd + moeL.tpBwd))
            / tpAll;
    std::vector<Expr> collectiveBytes; // with terms: each collective's bytes as recordCollectives computed them
    const StepCollectives collectives
        = recordCollectives(s, sh, layout, comm, slowStage, r, terms ? &collectiveBytes : nullptr);
    const OptimizerTimeOf<Fast> opt = optimizerTime<Fast>(s, sh, layout, slowStage, tSlow);
    const StepTimesOf<Fast> stepTimesOf
        = stepTimes<Fast>(s, sh, compute, comm, slowStage, denseL, moeL, collectives, times[slow].contention);
    StepTime& step = r.step;
    step = {};
    step.compute = stepTimesOf.compute.value();
    step.recompute = stepTimesOf.recompute.value();
    step.exposedCommunication = stepTimesOf.exposedCommunication.value();
    step.pipelineBubble = pipelineBubble<Fast>(s, layout.virtualStages, sumStage, tSlow, S.weightGradTime).value();
    step.optimizer = opt.optimizer.value();
    step.offload = opt.offload.value();
    r.throughput = throughputOf(s, step, r.flopsPerToken, compute.peak, layout.gpus);

    if (terms) {
        // Memory of the peak stage, from stageMemory's own computation, + NCCL's buffers in the communication term.
        stageMemoryTerms(s, sh, shapes[r.peakStage], r.peakStage, layout, m, nccl, *terms);
        Term usable = termOf("memory.usable", usableMemory<Expr>(s), "(fits: memory total ≤ usable)");
        usable.group = TermGroup::Capacity; // what the total is judged against, not a part of it
        usable.label = "Usable memory";
        usable.unit = "B";
        usable.anchor = "usable-memory";
        usable.source = s.cluster.gpu.reportedMemoryBytes > 0
            ? "GPU catalog reported_memory_bytes (the driver's total, nvidia-smi / rocm-smi; its source in the "
              "catalog); "
              "PyTorch CUDA semantics (the context is created before the caching allocator); headroom: the scenario's"
            : "GPU datasheet memory (the catalog has no driver-reported figure); PyTorch CUDA semantics (the context "
              "is "
              "created before the caching allocator); headroom: the scenario's";
        terms->push_back(std::move(usable));
        StepTerms st;
        st.times = stepTimes<Expr>(s, sh, compute, comm, slowStage, denseL, moeL, collectives, times[slow].contention);
        st.contention = times[slow].contention;
        st.collectiveBytes = std::move(collectiveBytes);
        st.sumStage = sumStage;
        st.tSlow = tSlow;
        st.weightGrad = S.weightGradTime;
        st.v = layout.virtualStages;
        st.layout = &layout;
        st.slowStage = &slowStage;
        st.compute = compute;
        addStepTerms(s, sh, r, st, *terms);
    }

    r.minGpus = computeMinGpus ? minGpus(s, sh, layout, r.fits, r.usable, nccl, r.peakStage, shapes) : 0;
}
} // namespace

void evaluateInto(const Scenario& s, const Layout& layout, Result& r, bool computeMinGpus, std::vector<Term>* terms)
{
    const detail::Shape shape = detail::makeShape(s);
    evaluateWith<false>(s, layout, shape, nullptr, r, computeMinGpus, terms);
}

void evaluateInto(const Scenario& s, const Layout& layout, const detail::Shape& shape,
    const detail::PeakCandidates& peakOnly, Result& r, bool computeMinGpus, std::vector<Term>* terms)
{
    evaluateWith<true>(s, layout, shape, &peakOnly, r, computeMinGpus, terms);
}

double usableMemory(const Scenario& scenario) { return detail::usableMemory<detail::Fast>(scenario).value(); }

ModelSize modelSize(const ModelSpec& model)
{
    const auto c = detail::countParameters(model);
    return { c.total, c.active };
}

namespace {
// Advice that is not an error: the layout is valid but probably not what the user wants.
void addWarnings(const Scenario& s, const Layout& layout, Result& r)
{
    r.warnings.reserve(4); // one allocation for the usual few (a vector grows 1 → 2 → 4)
    const auto& p = s.parallelism;
    if (p.sequenceParallel && p.tp == 1)
        r.warnings.push_back({ "parallelism.sequence_parallel", "sequence parallelism has no effect with tp = 1" });
    // ZeRO-2 reduces every micro-batch's gradients and ZeRO-3 / FSDP each unit's, inside the backward
    // (deepspeed/runtime/zero/stage_1_and_2.py, torch/distributed/fsdp): no per-step reduction to overlap or not
    if (!p.overlapGradReduce && !p.reducesGradientsOncePerStep())
        r.warnings.push_back({ "parallelism.overlap_grad_reduce",
            std::string("overlap_grad_reduce false has no effect with ") + toString(p.sharding)
                + ": it reduces the gradients inside the backward" });
    // Only Megatron-LM's distributed optimizer (zero1) defers its post-step all-gather into the next forward
    // (megatron/core/distributed/distributed_data_parallel.py); DDP keeps whole parameters, ZeRO-2 gathers inside
    // DeepSpeed's step() (stage_1_and_2.py) and ZeRO-3 / FSDP gather per unit
    if (p.overlapParamGather && p.sharding != Sharding::Zero1)
        r.warnings.push_back({ "parallelism.overlap_param_gather",
            std::string("overlap_param_gather has no effect with ") + toString(p.sharding)
                + ": only zero1 (Megatron-LM's distributed optimizer) defers its parameter all-gather" });
    if (p.tp > s.model.kvHeads)
        r.warnings.push_back({ "parallelism.tp", "tp exceeds kv_heads: KV heads are replicated across TP ranks" });
    appendPlacementWarnings(s, layout, r.warnings);
    if (p.schedule == PpSchedule::Interleaved && p.pp == 1)
        r.warnings.push_back({ "parallelism.pp_schedule", "a pipeline schedule has no effect with pp = 1" });
    if (s.model.layers % p.pp != 0 && p.pipelineLayout.empty())
        r.warnings.push_back(
            { "parallelism.pp", "layers do not divide evenly over pipeline stages; the last stages get one more" });
    // A GPU ships with one scale-up fabric (the catalog's scale_up_link): another one is a scenario that cannot be built,
    // e.g. a B200 with NVLink 4, usually left over from a GPU change.
    const auto& c = s.cluster;
    if (!c.gpu.scaleUpLink.empty() && !c.intraNode.id.empty() && c.intraNode.id != c.gpu.scaleUpLink)
        r.warnings.push_back(
            { "cluster.intra_node", c.gpu.name + " comes with " + c.gpu.scaleUpLink + ", not " + c.intraNode.id });
}
} // namespace

namespace {
Result validateAndEvaluate(const Scenario& s, bool withTerms)
{
    Result r;
    r.issues = validate(s);
    if (!r.issues.empty()) {
        r.valid = false;
        return r;
    }
    const Layout layout = makeLayout(s);
    evaluateInto(s, layout, r, true, withTerms ? &r.terms : nullptr);
    addUncertainty(s, r);
    addWarnings(s, layout, r);
    return r;
}
} // namespace

Result evaluate(const Scenario& s) { return validateAndEvaluate(s, false); }

Result explain(const Scenario& s) { return validateAndEvaluate(s, true); }

} // namespace shardscope::core
