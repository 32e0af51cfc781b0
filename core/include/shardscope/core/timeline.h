// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One optimizer step as a Gantt chart, built from a Result: per pipeline stage the forward, backward and
/// weight-gradient blocks of every micro-batch under the scenario's schedule, the communication that goes with
/// them, the step's tail (data-parallel reduction, optimizer, offload), and memory in use over time.

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::core {

enum class BlockKind {
    Forward,
    Backward, ///< input gradients (and weight gradients unless the schedule splits them)
    WeightGrad, ///< zero-bubble schedules run weight gradients separately
    Communication, ///< a collective on the communication stream
    PipelineP2p, ///< exposed pipeline fill/drain send/recv
    DataParallel, ///< exposed data-parallel reduction / all-gather at the end of the step
    Optimizer,
    Offload,
    Elided ///< identical steady-state micro-batches not simulated one by one (Timeline::microBatchesDrawn)
};

struct TimelineBlock {
    int stage = 0;
    BlockKind kind = BlockKind::Forward;
    int microBatch = -1; ///< -1 for step-level blocks
    int chunk = 0; ///< virtual pipeline chunk (interleaved)
    double start = 0, end = 0;
    double exposed = 0; ///< communication: seconds not hidden behind compute
    Group group = Group::Tp;
};

struct MemorySample {
    double time = 0;
    double bytes = 0; ///< total in use on the stage's GPU
    double activations = 0; ///< of which stored activations
};

struct Timeline {
    int stages = 0;
    int64_t microBatches = 0; ///< per pipeline per step, as the Result counts them
    int64_t microBatchesDrawn = 0; ///< simulated one by one; the rest are one Elided block per stage
    std::string notDrawn; ///< why no block is drawn although the scenario is valid (too many to simulate)
    std::vector<TimelineBlock> blocks; ///< compute and communication, all stages
    std::vector<std::vector<MemorySample>> memory; ///< per stage
    double pipelineEnd = 0; ///< last backward of any stage
    double total = 0; ///< end of the step (matches Result step time; see tst_timeline)
    int peakStage = 0;
    double peakTime = 0, peakBytes = 0;
};

/// Simulates the schedule with the per-stage forward/backward times of `r` (stage order follows Megatron's
/// schedules.py for 1F1B and interleaved, all-forward-then-backward for GPipe, ZB-H1 for zero-bubble).
/// Bounded by `maxBlocks` (by default 200,000 blocks, about 10 MB): with more micro-batches than that allows,
/// the first and last ones are simulated and the identical steady-state micro-batches between them become one
/// Elided block per stage, one bottleneck period each (the schedule's length is linear in the micro-batch
/// count, so the total is unchanged); a layout whose smallest simulation is still over the bound gets no
/// blocks and says why in `notDrawn`.
Timeline buildTimeline(const Scenario& s, const Result& r, int64_t maxBlocks = 200'000);

} // namespace shardscope::core
