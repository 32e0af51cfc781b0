// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/timeline.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>
#include <string>

namespace shardscope::core {
namespace {

struct Op {
    BlockKind kind;
    int mb, chunk;
};

// Per-stage operation order (Narayanan et al. SC'21 §2.2; Megatron schedules.py; zero-bubble README).
std::vector<Op> stageOrder(PpSchedule schedule, int p, int i, int m, int v)
{
    std::vector<Op> ops;
    if (schedule == PpSchedule::GPipe) {
        for (int k = 0; k < m; ++k)
            ops.push_back({ BlockKind::Forward, k, 0 });
        for (int k = 0; k < m; ++k)
            ops.push_back({ BlockKind::Backward, k, 0 });
        return ops;
    }
    if (schedule == PpSchedule::Interleaved && v > 1) {
        // Megatron: micro-batches in groups of p; forward walks chunks 0..v-1, backward v-1..0.
        std::vector<Op> fwd, bwd;
        for (int g = 0; g < m; g += p)
            for (int c = 0; c < v; ++c)
                for (int k = g; k < std::min(m, g + p); ++k) {
                    fwd.push_back({ BlockKind::Forward, k, c });
                    bwd.push_back({ BlockKind::Backward, k, v - 1 - c });
                }
        const int total = m * v;
        const int warmup = std::min(total, (p - i - 1) * 2 + (v - 1) * p);
        int f = 0, b = 0;
        for (; f < warmup; ++f)
            ops.push_back(fwd[f]);
        while (f < total) {
            ops.push_back(fwd[f++]);
            ops.push_back(bwd[b++]);
        }
        while (b < total)
            ops.push_back(bwd[b++]);
        return ops;
    }
    const int warmup = std::min(m, p - i - 1);
    int f = 0, b = 0;
    for (; f < warmup; ++f)
        ops.push_back({ BlockKind::Forward, f, 0 });
    while (f < m) {
        ops.push_back({ BlockKind::Forward, f++, 0 });
        ops.push_back({ BlockKind::Backward, b++, 0 });
    }
    while (b < m)
        ops.push_back({ BlockKind::Backward, b++, 0 });
    return ops;
}

} // namespace

Timeline buildTimeline(const Scenario& s, const Result& r, int64_t maxBlocks)
{
    Timeline t;
    if (!r.valid || r.stages.empty())
        return t;
    const int p = static_cast<int>(r.stages.size());
    const PpSchedule schedule = p > 1 ? s.parallelism.schedule : PpSchedule::OneFOneB;
    const int v = schedule == PpSchedule::Interleaved ? std::max(1, s.parallelism.virtualStages) : 1;
    const bool zb = schedule == PpSchedule::ZeroBubble;
    t.stages = p;
    t.microBatches = std::max<int64_t>(1, r.microBatches);

    // How many micro-batches to simulate one by one: every block of one micro-batch (forward, backward, weight
    // gradients, and a communication block per per-micro-batch collective on each forward and backward).
    int64_t commPerBlock = 0;
    for (const auto& c : r.collectives)
        commPerBlock += c.group != Group::Pp && c.count > 0 && c.perMicroBatch;
    const int64_t blocksPerMb = int64_t(p) * v * 2 * (1 + commPerBlock) + (zb ? p : 0);
    // The interleaved schedule runs micro-batches in groups of p (Megatron schedules.py), so whole groups are
    // elided; two groups (or two micro-batches) are the least that shows the schedule's start and end.
    const int64_t group = schedule == PpSchedule::Interleaved ? p : 1;
    const int64_t fewest = std::min(t.microBatches, 2 * group);
    if (fewest * blocksPerMb > maxBlocks) {
        t.notDrawn = std::to_string(p) + " stages x " + std::to_string(v) + " chunks x " + std::to_string(fewest)
            + " micro-batches need " + std::to_string(fewest * blocksPerMb) + " blocks, over the "
            + std::to_string(maxBlocks) + " a timeline holds";
        t.total = r.step.total();
        return t;
    }
    const int64_t fit = std::max(fewest, maxBlocks / blocksPerMb / group * group);
    const int m = static_cast<int>(std::min(t.microBatches, fit));
    t.microBatchesDrawn = m;

    // Durations per stage and chunk.
    std::vector<double> fDur(p), bDur(p), wDur(p);
    for (int i = 0; i < p; ++i) {
        const auto& st = r.stages[i];
        fDur[i] = st.forwardTime / v;
        wDur[i] = zb ? st.weightGradTime : 0.0;
        bDur[i] = (st.backwardTime - wDur[i]) / v;
    }
    // done[stage][kind][chunk*m + mb] = end time (or -1)
    const size_t slots = static_cast<size_t>(v) * m;
    std::vector<double> doneF(p * slots, -1), doneB(p * slots, -1);
    std::vector<std::vector<Op>> orders(p);
    std::vector<size_t> next(p, 0);
    std::vector<double> ready(p, 0);
    for (int i = 0; i < p; ++i)
        orders[i] = stageOrder(schedule, p, i, m, v);
    size_t remaining = 0;
    for (auto& o : orders)
        remaining += o.size();
    t.blocks.reserve(static_cast<size_t>(m * blocksPerMb) + size_t { 4 } * p + 8);
    // Zero-bubble (ZB-H1): weight-gradient work is deferred and run whenever the next forward/backward must wait.
    std::vector<std::deque<int>> pendingW(p);
    // The slot (index into doneF, doneB) an operation waits for, or none: forward of (chunk c, stage i) needs
    // (c, i-1), or (c-1, last stage) at i = 0; backward of (c, i) needs (c, i+1), or (c+1, stage 0) at the last
    // stage, or its own forward at the very end.
    struct Slot {
        std::vector<double>* done = nullptr;
        size_t index = 0;
    };
    auto slotOf = [&](std::vector<double>& d, int stage, int chunk, int mb) {
        return Slot { &d, static_cast<size_t>(stage) * slots + static_cast<size_t>(chunk) * m + mb };
    };
    auto depOf = [&](int i, const Op& op) -> Slot {
        if (op.kind == BlockKind::Forward) {
            if (i > 0)
                return slotOf(doneF, i - 1, op.chunk, op.mb);
            return op.chunk > 0 ? slotOf(doneF, p - 1, op.chunk - 1, op.mb) : Slot {};
        }
        if (i < p - 1)
            return slotOf(doneB, i + 1, op.chunk, op.mb);
        return op.chunk < v - 1 ? slotOf(doneB, 0, op.chunk + 1, op.mb) : slotOf(doneF, i, op.chunk, op.mb);
    };
    // Event order: always advance the stage that is free earliest (ties: the lowest stage); a dependency not yet
    // computed will finish later than that stage's free time, so a deferred weight gradient may run meanwhile.
    // `free` holds (ready time, stage) of every stage with work left that is not waiting; a stage waiting for a
    // block is set aside (waiterF, waiterB: the stage waiting for each slot) until that block is placed.
    std::set<std::pair<double, int>> free;
    std::vector<int> waiterF(doneF.size(), -1), waiterB(doneB.size(), -1);
    for (int i = 0; i < p; ++i)
        if (!orders[i].empty())
            free.insert({ 0.0, i });
    auto emit = [&](int i, BlockKind kind, int mb, int chunk, double start, double dur) {
        t.blocks.push_back({ i, kind, mb, chunk, start, start + dur, 0.0, Group::Tp });
        ready[i] = start + dur;
    };
    auto placed = [&](int i, double wasReady) {
        free.erase({ wasReady, i });
        if (next[i] < orders[i].size())
            free.insert({ ready[i], i });
    };
    auto finish = [&](std::vector<double>& done, std::vector<int>& waiter, size_t index, double end) {
        done[index] = end;
        if (waiter[index] >= 0)
            free.insert({ ready[waiter[index]], waiter[index] });
    };
    while (remaining > 0 && !free.empty()) {
        const int i = free.begin()->second;
        const double wasReady = ready[i];
        const Op op = orders[i][next[i]];
        const Slot slot = depOf(i, op);
        const double dep = slot.done ? (*slot.done)[slot.index] : 0.0;
        if (zb && !pendingW[i].empty() && (dep < 0 || dep > ready[i])) {
            const int mb = pendingW[i].front();
            pendingW[i].pop_front();
            emit(i, BlockKind::WeightGrad, mb, 0, ready[i], wDur[i]);
            placed(i, wasReady);
            continue;
        }
        if (dep < 0) {
            free.erase(free.begin());
            (slot.done == &doneF ? waiterF : waiterB)[slot.index] = i;
            continue;
        }
        emit(i, op.kind, op.mb, op.chunk, std::max(ready[i], dep), op.kind == BlockKind::Forward ? fDur[i] : bDur[i]);
        const Slot own
            = op.kind == BlockKind::Forward ? slotOf(doneF, i, op.chunk, op.mb) : slotOf(doneB, i, op.chunk, op.mb);
        finish(*own.done, own.done == &doneF ? waiterF : waiterB, own.index, ready[i]);
        if (op.kind == BlockKind::Backward && zb)
            pendingW[i].push_back(op.mb);
        ++next[i];
        --remaining;
        placed(i, wasReady);
    }
    for (int i = 0; i < p; ++i)
        for (int mb : pendingW[i])
            emit(i, BlockKind::WeightGrad, mb, 0, ready[i], wDur[i]);

    // Elided micro-batches: from the start of micro-batch h (its first forward on stage 0) every block moves
    // later by the elided micro-batches' steady-state time and takes their numbers; the gap on each stage is one
    // Elided block. In the steady state each micro-batch adds one period of the bottleneck stage to the step
    // (Narayanan et al. SC'21 §2.2: 1F1B and interleaved run one forward and one backward per micro-batch and
    // stage; GPipe runs all forwards, then all backwards, so its forward and backward bottlenecks may differ).
    if (m < t.microBatches) {
        const int64_t elided = t.microBatches - m;
        double period = 0, fMax = 0, bMax = 0;
        for (const auto& st : r.stages) {
            period = std::max(period, st.forwardTime + st.backwardTime);
            fMax = std::max(fMax, st.forwardTime);
            bMax = std::max(bMax, st.backwardTime);
        }
        if (schedule == PpSchedule::GPipe)
            period = fMax + bMax;
        const double shift = static_cast<double>(elided) * period;
        const int h = static_cast<int>(m / 2 / group * group);
        double cut = 0;
        for (const auto& b : t.blocks)
            if (b.stage == 0 && b.kind == BlockKind::Forward && b.microBatch == h && b.chunk == 0)
                cut = b.start;
        std::vector<double> lastBefore(p, cut);
        std::vector<char> moved(p, 0);
        for (auto& b : t.blocks) {
            if (b.start < cut) {
                lastBefore[b.stage] = std::max(lastBefore[b.stage], b.end);
                continue;
            }
            b.start += shift;
            b.end += shift;
            moved[b.stage] = 1;
            if (b.microBatch >= h)
                b.microBatch
                    += static_cast<int>(std::min<int64_t>(elided, std::numeric_limits<int>::max() - b.microBatch));
        }
        for (int i = 0; i < p; ++i) {
            if (moved[i])
                t.blocks.push_back({ i, BlockKind::Elided, h, 0, lastBefore[i], cut + shift, 0.0, Group::Tp });
            ready[i] = 0;
        }
        for (const auto& b : t.blocks)
            ready[b.stage] = std::max(ready[b.stage], b.end);
    }
    t.pipelineEnd = *std::max_element(ready.begin(), ready.end());

    // Per-micro-batch communication of the slowest-stage accounting, drawn on each compute block's stream:
    // TP/CP/EP collectives are exposed inside the block; ZeRO-3/FSDP gathers overlap it.
    const size_t computeBlocks = t.blocks.size();
    const double mm = static_cast<double>(t.microBatches);
    for (const auto& c : r.collectives) {
        if (c.group == Group::Pp || c.count <= 0)
            continue;
        if (!c.perMicroBatch)
            continue;
        const double perMb = c.time / mm / (2.0 * v);
        const double exposedPerMb = c.exposedTime / mm / (2.0 * v);
        for (size_t k = 0; k < computeBlocks; ++k) {
            const auto& b = t.blocks[k];
            if (b.kind != BlockKind::Forward && b.kind != BlockKind::Backward)
                continue;
            const double len = std::min(perMb, b.end - b.start);
            t.blocks.push_back({ b.stage, BlockKind::Communication, b.microBatch, b.chunk, b.end - len, b.end,
                std::min(exposedPerMb, len), c.group });
        }
    }

    // Step tail on every stage: exposed pipeline p2p, data-parallel tail, optimizer, offload.
    double tail = t.pipelineEnd;
    double p2pExposed = 0, dpTail = 0;
    for (const auto& c : r.collectives) {
        if (c.group == Group::Pp)
            p2pExposed += c.exposedTime;
    }
    // Whatever exposed communication the stage times do not already hold is the data-parallel tail.
    double inStages = 0;
    for (const auto& c : r.collectives)
        if (c.perMicroBatch)
            inStages += c.exposedTime;
    dpTail = std::max(0.0, r.step.exposedCommunication - inStages - p2pExposed);
    auto addTail = [&](BlockKind kind, double dur) {
        if (dur <= 0)
            return;
        for (int i = 0; i < p; ++i)
            t.blocks.push_back(
                { i, kind, -1, 0, tail, tail + dur, kind == BlockKind::Optimizer ? 0.0 : dur, Group::Dp });
        tail += dur;
    };
    addTail(BlockKind::PipelineP2p, p2pExposed);
    addTail(BlockKind::DataParallel, dpTail);
    addTail(BlockKind::Optimizer, r.step.optimizer);
    addTail(BlockKind::Offload, r.step.offload);
    t.total = tail;

    // Memory over time: static memory + activations of the micro-batches in flight (each forward adds a
    // micro-batch's share, each backward frees it). Inside an Elided block the stage runs its steady state with
    // every micro-batch it stores in flight (the Result's count at the peak), so its activations there are the
    // Result's; the drawn micro-batches after the gap start from the count they had before it.
    std::vector<std::vector<std::pair<double, int>>> events(p); // (time, +1 forward start / -1 backward end)
    std::vector<std::pair<double, double>> gap(p, { -1.0, -1.0 });
    for (size_t k = 0; k < computeBlocks; ++k) {
        const auto& b = t.blocks[k];
        if (b.kind == BlockKind::Forward)
            events[b.stage].push_back({ b.start, +1 });
        else if (b.kind == BlockKind::Backward)
            events[b.stage].push_back({ b.end, -1 });
        else if (b.kind == BlockKind::Elided)
            gap[b.stage] = { b.start, b.end };
    }
    t.memory.resize(p);
    for (int i = 0; i < p; ++i) {
        const auto& st = r.stages[i];
        const double act = st.memory.activations;
        const double base = st.memory.total() - act;
        const double perMb = st.inFlight > 0 ? act / st.inFlight / v : 0.0;
        auto& deltas = events[i];
        std::stable_sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        double inUse = 0;
        auto& samples = t.memory[i];
        samples.reserve(2 * deltas.size() + 6);
        samples.push_back({ 0.0, base, 0.0 });
        auto sample = [&](double time, double before, double after) {
            samples.push_back({ time, base + before, before });
            samples.push_back({ time, base + after, after });
            if (base + after > t.peakBytes) {
                t.peakBytes = base + after;
                t.peakStage = i;
                t.peakTime = time;
            }
        };
        bool gapDrawn = gap[i].first < 0;
        for (const auto& [time, sign] : deltas) {
            if (!gapDrawn && time >= gap[i].first) {
                sample(gap[i].first, inUse, std::max(inUse, act));
                sample(gap[i].second, std::max(inUse, act), inUse);
                gapDrawn = true;
            }
            const double before = inUse;
            inUse = std::max(0.0, inUse + sign * perMb);
            sample(time, before, inUse);
        }
        samples.push_back({ t.total, base, 0.0 });
    }
    return t;
}

} // namespace shardscope::core
