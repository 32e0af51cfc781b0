// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/timeline.h"

#include <algorithm>
#include <cmath>

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

Timeline buildTimeline(const Scenario& s, const Result& r)
{
    Timeline t;
    if (!r.valid || r.stages.empty())
        return t;
    const int p = static_cast<int>(r.stages.size());
    const int m = static_cast<int>(std::min<int64_t>(r.microBatches, 1 << 16));
    const PpSchedule schedule = p > 1 ? s.parallelism.schedule : PpSchedule::OneFOneB;
    const int v = schedule == PpSchedule::Interleaved ? std::max(1, s.parallelism.virtualStages) : 1;
    const bool zb = schedule == PpSchedule::ZeroBubble;
    t.stages = p;

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
    auto at = [&](std::vector<double>& d, int stage, int chunk, int mb) -> double& {
        return d[static_cast<size_t>(stage) * slots + static_cast<size_t>(chunk) * m + mb];
    };
    // Dependencies: forward of (chunk c, stage i) needs (c, i-1), or (c-1, last stage) at i = 0;
    // backward of (c, i) needs (c, i+1), or (c+1, stage 0) at the last stage, or its own forward at the very end.
    size_t remaining = 0;
    for (auto& o : orders)
        remaining += o.size();
    t.blocks.reserve(remaining + 8);
    // Zero-bubble (ZB-H1): weight-gradient work is deferred and run whenever the next forward/backward must wait.
    std::vector<std::vector<int>> pendingW(p);
    auto depOf = [&](int i, const Op& op) -> double {
        if (op.kind == BlockKind::Forward) {
            if (i > 0)
                return at(doneF, i - 1, op.chunk, op.mb);
            return op.chunk > 0 ? at(doneF, p - 1, op.chunk - 1, op.mb) : 0.0;
        }
        if (i < p - 1)
            return at(doneB, i + 1, op.chunk, op.mb);
        return op.chunk < v - 1 ? at(doneB, 0, op.chunk + 1, op.mb) : at(doneF, i, op.chunk, op.mb);
    };
    auto emit = [&](int i, BlockKind kind, int mb, int chunk, double start, double dur) {
        t.blocks.push_back({ i, kind, mb, chunk, start, start + dur, 0.0, Group::Tp });
        ready[i] = start + dur;
    };
    // Event order: always advance the stage that is free earliest; a dependency not yet computed will finish
    // later than that stage's free time, so a deferred weight gradient may run meanwhile.
    std::vector<char> blocked(p, 0);
    while (remaining > 0) {
        int i = -1;
        for (int k = 0; k < p; ++k)
            if (!blocked[k] && next[k] < orders[k].size() && (i < 0 || ready[k] < ready[i]))
                i = k;
        if (i < 0)
            break; // every stage waits: cannot happen for the orders above
        const Op op = orders[i][next[i]];
        const double dep = depOf(i, op);
        if (zb && !pendingW[i].empty() && (dep < 0 || dep > ready[i])) {
            const int mb = pendingW[i].front();
            pendingW[i].erase(pendingW[i].begin());
            emit(i, BlockKind::WeightGrad, mb, 0, ready[i], wDur[i]);
            std::fill(blocked.begin(), blocked.end(), 0);
            continue;
        }
        if (dep < 0) {
            blocked[i] = 1;
            continue;
        }
        emit(i, op.kind, op.mb, op.chunk, std::max(ready[i], dep), op.kind == BlockKind::Forward ? fDur[i] : bDur[i]);
        if (op.kind == BlockKind::Forward) {
            at(doneF, i, op.chunk, op.mb) = ready[i];
        } else {
            at(doneB, i, op.chunk, op.mb) = ready[i];
            if (zb)
                pendingW[i].push_back(op.mb);
        }
        ++next[i];
        --remaining;
        std::fill(blocked.begin(), blocked.end(), 0);
    }
    for (int i = 0; i < p; ++i)
        for (int mb : pendingW[i])
            emit(i, BlockKind::WeightGrad, mb, 0, ready[i], wDur[i]);
    t.pipelineEnd = *std::max_element(ready.begin(), ready.end());

    // Per-micro-batch communication of the slowest-stage accounting, drawn on each compute block's stream:
    // TP/CP/EP collectives are exposed inside the block; ZeRO-3/FSDP gathers overlap it.
    const size_t computeBlocks = t.blocks.size();
    const double mm = std::max(1.0, static_cast<double>(m));
    for (const auto& c : r.collectives) {
        if (c.group == Group::Pp || c.count <= 0)
            continue;
        if (!c.perMicroBatch)
            continue;
        const double perMb = c.time / mm / (2.0 * v);
        const double exposedPerMb = c.exposedTime / mm / (2.0 * v);
        for (size_t k = 0; k < computeBlocks; ++k) {
            const auto& b = t.blocks[k];
            if (b.kind == BlockKind::WeightGrad)
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
            t.blocks.push_back({ i, kind, -1, 0, tail, tail + dur, kind == BlockKind::Optimizer ? 0.0 : dur, Group::Dp });
        tail += dur;
    };
    addTail(BlockKind::PipelineP2p, p2pExposed);
    addTail(BlockKind::DataParallel, dpTail);
    addTail(BlockKind::Optimizer, r.step.optimizer);
    addTail(BlockKind::Offload, r.step.offload);
    t.total = tail;

    // Memory over time: static memory + activations of the micro-batches in flight (each forward adds a
    // micro-batch's share, each backward frees it).
    t.memory.resize(p);
    for (int i = 0; i < p; ++i) {
        const auto& st = r.stages[i];
        const double act = st.memory.activations;
        const double base = st.memory.total() - act;
        const double perMb = st.inFlight > 0 ? act / st.inFlight / v : 0.0;
        std::vector<std::pair<double, double>> deltas;
        for (size_t k = 0; k < computeBlocks; ++k) {
            const auto& b = t.blocks[k];
            if (b.stage != i)
                continue;
            if (b.kind == BlockKind::Forward)
                deltas.push_back({ b.start, +perMb });
            else if (b.kind == BlockKind::Backward)
                deltas.push_back({ b.end, -perMb });
        }
        std::stable_sort(deltas.begin(), deltas.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        double inUse = 0;
        auto& samples = t.memory[i];
        samples.push_back({ 0.0, base, 0.0 });
        for (const auto& [time, d] : deltas) {
            samples.push_back({ time, base + inUse, inUse });
            inUse = std::max(0.0, inUse + d);
            samples.push_back({ time, base + inUse, inUse });
            if (base + inUse > t.peakBytes) {
                t.peakBytes = base + inUse;
                t.peakStage = i;
                t.peakTime = time;
            }
        }
        samples.push_back({ t.total, base, 0.0 });
    }
    return t;
}

} // namespace shardscope::core
