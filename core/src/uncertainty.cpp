// SPDX-License-Identifier: GPL-3.0-or-later
// Memory as the allocator reports it, and the 80% ranges of the headline figures (issue 11; docs/model.md
// §uncertainty). The ranges are the model's own errors on published runs of the same kind, as
// tests/core/tst_published_runs.cpp measures them; that test fails when this table and its measurement disagree.
#include "shardscope/core/uncertainty.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

namespace shardscope::core {
namespace {

using FF = FrameworkFamily;

// ---- The measured table: the only place these numbers live. ----
// Source: 10-fold cross-validated errors measured by tests/core/tst_published_runs.cpp (each row predicted by its
// profile refitted without the row's fold) on tests/core/data/torchtitan_runs.json (pytorch/torchtitan
// benchmarks/llama3_h100_202412_torchtitan.md @ b5bcd76, 18 rows), tests/core/data/llm_foundry_runs.json
// (mosaicml/llm-foundry scripts/train/benchmarking/README.md @ 8c8dd48, 216 rows) and, for Megatron-LM, the
// calibration rows of tests/core/megatron_rows.h (Narayanan et al. SC21 Table 1, Korthikanti et al. MLSys23 Table 5).
// When the model changes, the test prints the new rows to paste here.
// Columns: family, kind, N runs, median |error| %, 80% band of measured/predicted (lo, hi).
constexpr std::array kThroughput = {
    ErrorBand { FF::Megatron, "plain", 18, 2.9, 0.95, 1.05 },
    ErrorBand { FF::PyTorch, "plain", 175, 4.9, 0.91, 1.10 },
    ErrorBand { FF::PyTorch, "long-context", 36, 3.9, 0.95, 1.08 },
    ErrorBand { FF::PyTorch, "fp8", 21, 5.3, 0.93, 1.10 },
    ErrorBand { FF::PyTorch, "fsdp-at-scale", 12, 6.8, 0.86, 1.03 },
};
// Memory: PyTorch's reserved peak (torchtitan's Memory column); llm-foundry and the Megatron rows publish none.
constexpr std::array kMemory = {
    ErrorBand { FF::PyTorch, "plain", 4, 3.7, 0.96, 1.04 },
    ErrorBand { FF::PyTorch, "long-context", 8, 5.5, 1.00, 1.17 },
    ErrorBand { FF::PyTorch, "fp8", 14, 4.4, 0.98, 1.19 },
};

const char* familyName(FF f) { return f == FF::Megatron ? "Megatron-LM" : "PyTorch"; }

/// The kinds a scenario belongs to (plain when none), without allocating (evaluate's hot path).
struct KindNames {
    const char* names[4] = {};
    int count = 0;
    const char* const* begin() const { return names; }
    const char* const* end() const { return names + count; }
};

KindNames kindNames(const RunKind& k)
{
    KindNames out;
    if (k.longContext)
        out.names[out.count++] = "long-context";
    if (k.fp8)
        out.names[out.count++] = "fp8";
    if (k.moe)
        out.names[out.count++] = "moe";
    if (k.fsdpAtScale)
        out.names[out.count++] = "fsdp-at-scale";
    if (out.count == 0)
        out.names[out.count++] = "plain";
    return out;
}

const ErrorBand* find(std::span<const ErrorBand> table, FF family, const char* kind)
{
    for (const ErrorBand& b : table)
        if (b.family == family && std::string_view(b.kind) == kind && b.runs >= kMinBandRuns)
            return &b;
    return nullptr;
}

double width(const ErrorBand& b) { return b.hi / b.lo; }

std::string basisText(const ErrorBand& b)
{
    return "cross-validated on " + std::to_string(b.runs) + " published " + (b.family == FF::Megatron ? "Megatron-LM " : "")
        + "runs";
}

/// basisText of a band of kThroughput or kMemory, made once per band (evaluate's hot path asks for it every call).
const std::string& measuredBasis(const ErrorBand& b)
{
    static const auto texts = [] {
        std::array<std::string, kThroughput.size() + kMemory.size()> t;
        for (size_t i = 0; i < kThroughput.size(); ++i)
            t[i] = basisText(kThroughput[i]);
        for (size_t i = 0; i < kMemory.size(); ++i)
            t[kThroughput.size() + i] = basisText(kMemory[i]);
        return t;
    }();
    const std::less<const ErrorBand*> before; // a total order across the two arrays
    if (!before(&b, kThroughput.data()) && before(&b, kThroughput.data() + kThroughput.size()))
        return texts[static_cast<size_t>(&b - kThroughput.data())];
    return texts[kThroughput.size() + static_cast<size_t>(&b - kMemory.data())];
}

/// The band of a scenario (see throughputBand); `basis` (when given) receives what the band rests on.
ErrorBand chooseBand(std::span<const ErrorBand> table, const Scenario& s, std::string* basis, bool* standIn = nullptr)
{
    const FF family = frameworkFamily(s.training.framework);
    const FF other = family == FF::Megatron ? FF::PyTorch : FF::Megatron;
    const ErrorBand* best = nullptr;
    const ErrorBand* bestOwn = nullptr;   // the chosen band when measured on the scenario's framework
    const ErrorBand* bestOther = nullptr; // ... on the other framework
    const ErrorBand* bestWidest = nullptr; // ... or the widest band standing in for an unmeasured kind
    const char* bestKind = nullptr;
    for (const char* kind : kindNames(runKind(s))) {
        const ErrorBand* b = find(table, family, kind);
        const ErrorBand* o = b ? nullptr : find(table, other, kind);
        const ErrorBand* w = nullptr;
        if (!b && !o) {
            // No published run of this kind: the widest band measured on any kind stands in for it.
            for (const ErrorBand& e : table)
                if (e.runs >= kMinBandRuns && (!w || width(e) > width(*w)))
                    w = &e;
            if (!w)
                continue;
        }
        const ErrorBand* c = b ? b : o ? o : w;
        if (best && width(*c) <= width(*best))
            continue;
        best = c;
        bestOwn = b;
        bestOther = o;
        bestWidest = w;
        bestKind = kind;
    }
    if (standIn)
        *standIn = bestWidest != nullptr;
    if (!best) {
        if (basis)
            *basis = "no published runs measured";
        return ErrorBand {};
    }
    if (basis) { // one allocation (evaluate's hot path)
        if (bestOwn) {
            *basis = measuredBasis(*bestOwn);
        } else {
            std::string& t = *basis;
            t.clear();
            t.reserve(160);
            if (bestOther) {
                t.append(measuredBasis(*bestOther)).append(" (").append(familyName(other)).append(")");
            } else {
                t.append("no published ").append(bestKind).append(" run; the widest measured band (");
                t.append(bestWidest->kind).append(", ").append(measuredBasis(*bestWidest)).append(")");
            }
        }
    }
    return *best;
}

/// The band of a profile fitted to the user's runs (calibrate's fit report), or nullopt when it has fewer than
/// kMinBandRuns figures of the kind. Few runs: the extreme residuals, not percentiles; never narrower than `floor`.
std::optional<ErrorBand> userBand(const ProfileFit& fit, bool memory, const ErrorBand& floor)
{
    std::vector<double> ratios; // measured/model, in throughput terms for time figures
    for (const FitFigure& f : fit.figures) {
        if (memory && (f.figure == "memory_allocated_peak" || f.figure == "memory_reserved_peak"))
            ratios.push_back(f.measured / f.after);
        else if (!memory && f.figure == "tokens_per_second_per_gpu")
            ratios.push_back(f.measured / f.after);
        else if (!memory && f.figure == "step_time")
            ratios.push_back(f.after / f.measured);
    }
    if (static_cast<int>(ratios.size()) < kMinBandRuns)
        return std::nullopt;
    ErrorBand b = summarizeRatios(ratios);
    b.kind = "calibrated";
    b.lo = std::min({ b.lo, floor.lo, *std::min_element(ratios.begin(), ratios.end()) });
    b.hi = std::max({ b.hi, floor.hi, *std::max_element(ratios.begin(), ratios.end()) });
    return b;
}

/// A calibrated profile's band replaces the published one when it is narrower (the fit holds on the user's cluster).
/// True when it did.
bool narrowToUserFit(const Scenario& s, bool memory, ErrorBand& band)
{
    if (s.profile.fit.figures.empty())
        return false;
    // Floors: time, the model's residuals on its own Megatron-LM calibration rows (no fit is better than that);
    // memory, the allocator slack the profile states (reserved − allocated varies by that much between runs).
    ErrorBand floor;
    if (memory) {
        floor.lo = 1 - s.profile.allocatorSlack;
        floor.hi = 1 + s.profile.allocatorSlack;
    } else if (const ErrorBand* m = find(kThroughput, FF::Megatron, "plain")) {
        floor = *m;
    }
    const std::optional<ErrorBand> u = userBand(s.profile.fit, memory, floor);
    if (!u || width(*u) >= width(band))
        return false;
    band = *u;
    return true;
}

ChosenBand chosen(std::span<const ErrorBand> table, const Scenario& s, bool memory)
{
    ChosenBand c;
    c.band = chooseBand(table, s, &c.basis, &c.standIn);
    if (narrowToUserFit(s, memory, c.band)) {
        c.standIn = false;
        c.userCalibrated = true;
        c.basis = "fitted on " + std::to_string(c.band.runs) + " of your measured figures ("
            + std::to_string(s.profile.fit.runs) + " runs, profile " + s.profile.id + ")";
    }
    return c;
}

} // namespace

RunKind runKind(const Scenario& s)
{
    RunKind k;
    // 32K: the long-context threshold (issue 10, "Long context (≥ 32K, with or without CP)").
    k.longContext = s.training.seqLen >= 32768;
    k.fp8 = s.training.precision == Precision::Fp8Mixed;
    k.moe = s.model.isMoe();
    // dp ≥ 256: issue 10's "ZeRO-3 / FSDP at data-parallel ≥ 1,000" regime starts where a ring's latency term
    // (n − 1 steps) outweighs a unit's bandwidth term; the published rows reach dp 256 and 512 (llm-foundry).
    k.fsdpAtScale = s.parallelism.sharding != Sharding::Ddp && dataParallel(s) >= 256;
    return k;
}

std::string toString(const RunKind& k)
{
    std::string out;
    for (const char* n : kindNames(k)) {
        if (!out.empty())
            out += ' ';
        out += n;
    }
    return out;
}

FrameworkFamily frameworkFamily(Framework f) { return f == Framework::Megatron ? FF::Megatron : FF::PyTorch; }

std::span<const ErrorBand> throughputErrorTable() { return kThroughput; }
std::span<const ErrorBand> memoryErrorTable() { return kMemory; }

ErrorBand summarizeRatios(std::vector<double> r)
{
    ErrorBand b;
    b.runs = static_cast<int>(r.size());
    if (r.empty())
        return b;
    std::sort(r.begin(), r.end());
    // Linear interpolation between order statistics (Hyndman & Fan 1996, definition 7; numpy's default).
    auto quantile = [&r](double p) {
        const double h = (r.size() - 1) * p;
        const size_t i = static_cast<size_t>(std::floor(h));
        const size_t j = std::min(i + 1, r.size() - 1);
        return r[i] + (h - i) * (r[j] - r[i]);
    };
    std::vector<double> abs;
    for (double m : r)
        abs.push_back(std::fabs(1 / m - 1)); // |predicted/measured − 1|
    std::sort(abs.begin(), abs.end());
    const size_t n = abs.size();
    b.medianAbsErrorPercent = 100 * (n % 2 ? abs[n / 2] : 0.5 * (abs[n / 2 - 1] + abs[n / 2]));
    b.lo = std::min(1.0, quantile(0.1));
    b.hi = std::max(1.0, quantile(0.9));
    return b;
}

ChosenBand throughputBand(const Scenario& s) { return chosen(kThroughput, s, false); }

ChosenBand memoryBand(const Scenario& s) { return chosen(kMemory, s, true); }

PessimisticEnd pessimisticEnd(const Scenario& s, const Result& r)
{
    ErrorBand t = chooseBand(kThroughput, s, nullptr);
    ErrorBand m = chooseBand(kMemory, s, nullptr);
    narrowToUserFit(s, false, t);
    narrowToUserFit(s, true, m);
    return { t.lo, r.memory.total() + r.memory.reservedPeak * (m.hi - 1) };
}

void addUncertainty(const Scenario& s, Result& r)
{
    const ChosenBand t = throughputBand(s);
    const ChosenBand m = memoryBand(s);
    const double tps = r.throughput.tokensPerSecondPerGpu, step = r.step.total();
    r.tokensPerGpuRange = { tps * t.band.lo, tps * t.band.hi };
    r.stepTimeRange = { step / t.band.hi, step / t.band.lo }; // measured step = predicted step × predicted/measured tps
    // The band was measured on the reserved peak; the CUDA context and NCCL buffers above it are known sizes.
    const double total = r.memory.total(), reserved = r.memory.reservedPeak;
    r.memoryRange = { total + reserved * (m.band.lo - 1), total + reserved * (m.band.hi - 1) };
    r.verdict = r.memoryRange.hi <= r.capacity ? Verdict::Fits
        : r.memoryRange.lo > r.capacity        ? Verdict::DoesNotFit
                                               : Verdict::Borderline;

    Uncertainty& u = r.uncertainty;
    u = {};
    u.kind = toString(runKind(s));
    u.throughputRuns = t.band.runs;
    u.memoryRuns = m.band.runs;
    u.standIn = t.standIn || m.standIn;
    u.userCalibrated = t.userCalibrated || m.userCalibrated;
    u.throughputRatio = { t.band.lo, t.band.hi };
    u.memoryRatio = { m.band.lo, m.band.hi };
    if (t.basis == m.basis) {
        u.basis = t.basis;
    } else {
        u.basis.reserve(t.basis.size() + m.basis.size() + 11);
        u.basis.append(t.basis).append(" (memory: ").append(m.basis).append(")");
    }
}

std::string rangePercent(double point, const Range& range)
{
    if (point <= 0)
        return {};
    const long below = std::lround(100 * std::max(0.0, 1 - range.lo / point));
    const long above = std::lround(100 * std::max(0.0, range.hi / point - 1));
    char text[64];
    if (below == above)
        std::snprintf(text, sizeof text, "± %ld%%", above);
    else
        std::snprintf(text, sizeof text, "+%ld%% / −%ld%%", above, below);
    return text;
}

const char* toString(Verdict v)
{
    switch (v) {
    case Verdict::Fits: return "fits";
    case Verdict::Borderline: return "borderline";
    case Verdict::DoesNotFit: return "does-not-fit";
    }
    return "does-not-fit";
}

} // namespace shardscope::core
