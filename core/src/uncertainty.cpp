// SPDX-License-Identifier: GPL-3.0-or-later
// Memory as the allocator reports it, and the 80% ranges of the headline figures (issues 11 and 21; docs/model.md
// §uncertainty). The ranges are the model's own leave-one-source-out errors on published runs of the same framework
// family, kind and GPU generation; core/src/uncertainty_bands.inc is generated from them by
// tests/core/tst_published_runs.cpp, which fails when the file and the data disagree.
#include "shardscope/core/uncertainty.h"

#include "assumed_hidden.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope::core {
namespace {

using FF = FrameworkFamily;

#include "uncertainty_bands.inc"

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

bool coversGeneration(const ErrorBand& b, std::string_view arch)
{
    std::string_view g = b.generations;
    while (!g.empty()) {
        const size_t space = g.find(' ');
        if (g.substr(0, space) == arch)
            return true;
        if (space == std::string_view::npos)
            break;
        g.remove_prefix(space + 1);
    }
    return false;
}

double width(const ErrorBand& b) { return b.hi / b.lo; }

std::vector<std::string> splitProvenance(const char* text)
{
    std::vector<std::string> out;
    std::string_view t = text;
    while (!t.empty()) {
        const size_t sep = t.find("; ");
        out.emplace_back(t.substr(0, sep));
        if (sep == std::string_view::npos)
            break;
        t.remove_prefix(sep + 2);
    }
    return out;
}

/// The band of a scenario from the published table (see ChosenBand): validated or extrapolated.
ChosenBand chooseBand(std::span<const ErrorBand> table, const Scenario& s, bool memory, bool withText)
{
    const FF family = frameworkFamily(s.training.framework);
    const std::string_view arch = s.cluster.gpu.arch;
    const KindNames kinds = kindNames(runKind(s));
    ChosenBand c;
    const ErrorBand* best = nullptr;
    const char* missingKind = nullptr; // a kind without a validated band
    const ErrorBand* missingOwn = nullptr; // its band on the scenario's family, measured on other GPU generations
    for (const char* kind : kinds) {
        const ErrorBand* b = find(table, family, kind);
        if (b && coversGeneration(*b, arch)) {
            if (!best || width(*b) > width(*best))
                best = b;
        } else if (!missingKind) {
            missingKind = kind;
            missingOwn = b;
        }
    }
    if (!missingKind) {
        c.band = *best;
        c.kind = BasisKind::Validated;
        c.coverage = best->coverage;
        if (withText) {
            c.basis = "validated: leave-one-source-out on " + std::to_string(best->runs) + " published "
                + toString(family) + " " + best->kind + " runs (" + std::to_string(best->sources)
                + (best->sources == 1 ? " source)" : " sources)");
            c.sources = splitProvenance(best->provenance);
        }
        return c;
    }
    // Extrapolated (docs/model.md §uncertainty): the union of every band of the run's kinds, on any framework family
    // and GPU generation, and of the widest band measured on any kind (what the model's error has been on the kind
    // of run it did worst on).
    ErrorBand u;
    u.family = family;
    u.kind = "extrapolated";
    const ErrorBand* widest = nullptr;
    for (const ErrorBand& e : table) {
        if (e.runs < kMinBandRuns)
            continue;
        if (!widest || width(e) > width(*widest))
            widest = &e;
        for (const char* kind : kinds)
            if (std::string_view(e.kind) == kind) {
                u.lo = std::min(u.lo, e.lo);
                u.hi = std::max(u.hi, e.hi);
            }
    }
    if (widest) {
        u.lo = std::min(u.lo, widest->lo);
        u.hi = std::max(u.hi, widest->hi);
        u.runs = widest->runs;
    }
    // Evidence for assumed overlap: the most any band folded in has (the union's, like lo and hi).
    for (const ErrorBand& e : table)
        if (e.runs >= kMinBandRuns && (&e == widest || std::ranges::any_of(kinds, [&](const char* kind) {
                return std::string_view(e.kind) == kind;
            })))
            u.maxHiddenShare = std::max(u.maxHiddenShare, e.maxHiddenShare);
    c.band = u;
    c.kind = BasisKind::Extrapolated;
    const ExtrapolatedCoverage e = extrapolatedCoverage();
    const int n = memory ? e.memoryRuns : e.throughputRuns, in = memory ? e.memoryInside : e.throughputInside;
    // No extrapolated run measured (memory: every measured run has a band): the coverage of the band that stands in.
    c.coverage = n > 0 ? double(in) / n : widest ? widest->coverage : 0;
    if (withText) {
        c.basis = std::string("extrapolated: no published run of this kind (") + missingKind + " on " + toString(family)
            + (missingOwn ? std::string(", ") + std::string(arch) + " GPUs; published on " + missingOwn->generations
                          : std::string())
            + ")";
        if (widest) {
            c.basis += "; widened to the widest published band (" + std::string(toString(widest->family)) + " "
                + widest->kind + ")";
            c.sources = splitProvenance(widest->provenance);
        }
    }
    return c;
}

/// The band of a profile fitted to the user's runs (calibrate's fit report), or nullopt when it has fewer than
/// kMinBandRuns figures of the kind: the 10th/90th percentiles of the leave-one-out residuals (each run predicted by
/// the fit without it; the in-sample residual where calibrate did not compute one), never inside their extremes (few
/// runs), never narrower than `floor`.
std::optional<ErrorBand> userBand(const ProfileFit& fit, bool memory, const ErrorBand& floor)
{
    std::vector<double> ratios; // measured/model, in throughput terms for time figures
    for (const FitFigure& f : fit.figures) {
        const double model = f.heldOut > 0 ? f.heldOut : f.after; // leave-one-out where calibrate computed it
        if (memory ? f.figure == "memory_allocated_peak" || f.figure == "memory_reserved_peak"
                   : f.figure == "tokens_per_second_per_gpu")
            ratios.push_back(f.measured / model);
        else if (!memory && f.figure == "step_time")
            ratios.push_back(model / f.measured);
    }
    if (static_cast<int>(ratios.size()) < kMinBandRuns)
        return std::nullopt;
    ErrorBand b = summarizeRatios(ratios);
    b.kind = "calibrated";
    b.lo = std::min({ b.lo, floor.lo, *std::min_element(ratios.begin(), ratios.end()) });
    b.hi = std::max({ b.hi, floor.hi, *std::max_element(ratios.begin(), ratios.end()) });
    b.coverage = 1; // its extremes are inside it
    return b;
}

/// A calibrated profile's band replaces the published one (its residuals are what the model does on the user's
/// cluster). True when it did.
bool useUserFit(const Scenario& s, bool memory, ErrorBand& band)
{
    if (s.profile.fit.figures.empty())
        return false;
    // Floors: time, the model's residuals on its own Megatron-LM calibration rows (no fit is better than that);
    // memory, the allocator slack the profile states (reserved − allocated varies by that much between runs).
    ErrorBand floor;
    if (memory) {
        floor.lo = 1 - s.profile.allocatorSlack;
        floor.hi = 1 + s.profile.allocatorSlack;
    } else {
        floor = calibrationTimeFloor();
    }
    const std::optional<ErrorBand> u = userBand(s.profile.fit, memory, floor);
    if (!u)
        return false;
    band = *u;
    return true;
}

/// One sentence and one source list for both ranges: throughput's, then memory's where they differ.
void mergeText(const ChosenBand& t, const ChosenBand& m, std::string& basis, SharedStrings& merged)
{
    std::vector<std::string> sources = t.sources;
    for (const std::string& src : m.sources)
        if (std::find(sources.begin(), sources.end(), src) == sources.end())
            sources.push_back(src);
    merged = SharedStrings(std::move(sources));
    if (t.basis == m.basis) {
        basis = t.basis;
    } else {
        basis.reserve(t.basis.size() + m.basis.size() + 11);
        basis.append(t.basis).append(" (memory: ").append(m.basis).append(")");
    }
}

/// The user's calibrated band in place of a published one (useUserFit), into `own`; the published one when the
/// profile has no fit of this figure.
const ChosenBand& calibrated(
    const ChosenBand& published, const Scenario& s, bool memory, bool withText, ChosenBand& own)
{
    if (s.profile.fit.figures.empty())
        return published;
    ErrorBand band = published.band;
    if (!useUserFit(s, memory, band))
        return published;
    own.band = band;
    own.band.maxHiddenShare = published.band.maxHiddenShare; // the user's runs do not say how much they hid
    own.kind = BasisKind::Calibrated;
    own.coverage = own.band.coverage;
    if (withText) {
        const std::string n = std::to_string(s.profile.fit.runs);
        own.basis = "calibrated on " + n + " of your runs (" + std::to_string(own.band.runs)
            + " measured figures, profile " + s.profile.id + ")";
        own.sources = { n + " of your runs" };
    }
    return own;
}

/// The throughput and memory bands of a scenario from the published tables, and their sentence and sources merged
/// as the result states them. They depend only on the framework family, the GPU generation and the kinds of run, and
/// a window or a sweep asks for the same few again and again: the last few are kept, per thread (evaluate stays safe
/// to call from several threads), so an evaluate builds no band text.
struct PublishedBands {
    ChosenBand throughput, memory;
    std::string basis; ///< throughput's sentence, then memory's when it differs
    SharedStrings sources; ///< both bands' sources, each once
    std::string kind; ///< toString(runKind(s))
};

const PublishedBands& publishedBands(const Scenario& s, bool withText)
{
    struct Entry {
        FF family {};
        std::string arch;
        RunKind kind;
        bool withText = false;
        PublishedBands bands;
    };
    static thread_local std::array<Entry, 8> memo;
    static thread_local size_t next = 0;
    const FF family = frameworkFamily(s.training.framework);
    const RunKind kind = runKind(s);
    for (const Entry& e : memo)
        if (e.family == family && e.kind == kind && e.withText == withText && e.arch == s.cluster.gpu.arch
            && !e.arch.empty())
            return e.bands;
    Entry& e = memo[next];
    next = (next + 1) % memo.size();
    e = { family, s.cluster.gpu.arch, kind, withText, {} };
    e.bands.throughput = chooseBand(kThroughputBands, s, false, withText);
    e.bands.memory = chooseBand(kMemoryBands, s, true, withText);
    mergeText(e.bands.throughput, e.bands.memory, e.bands.basis, e.bands.sources);
    e.bands.kind = toString(kind);
    return e.bands;
}

} // namespace

const char* toString(FrameworkFamily f)
{
    switch (f) {
    case FF::Megatron: return "Megatron-LM";
    case FF::PyTorch: return "PyTorch";
    case FF::DeepSpeed: return "DeepSpeed";
    }
    return "PyTorch";
}

const char* toString(BasisKind k)
{
    switch (k) {
    case BasisKind::Validated: return "validated";
    case BasisKind::Calibrated: return "calibrated";
    case BasisKind::Extrapolated: return "extrapolated";
    }
    return "extrapolated";
}

ExtrapolatedCoverage extrapolatedCoverage() { return kExtrapolated; }

RunKind runKind(const Scenario& s)
{
    RunKind k;
    // 32K: the long-context threshold (issue 10, "Long context (≥ 32K, with or without CP)").
    k.longContext = s.training.seqLen >= 32768;
    k.fp8 = isFp8(s.training.precision);
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

FrameworkFamily frameworkFamily(Framework f)
{
    return f == Framework::Megatron ? FF::Megatron : f == Framework::DeepSpeed ? FF::DeepSpeed : FF::PyTorch;
}

std::span<const ErrorBand> throughputErrorTable() { return kThroughputBands; }
std::span<const ErrorBand> memoryErrorTable() { return kMemoryBands; }
ErrorBand calibrationTimeFloor()
{
    ErrorBand b;
    b.family = FF::Megatron;
    b.kind = "plain";
    b.lo = kCalibrationFloorLo;
    b.hi = kCalibrationFloorHi;
    return b;
}

ErrorBand summarizeRatios(std::vector<double> r)
{
    ErrorBand b;
    b.runs = static_cast<int>(r.size());
    if (r.empty())
        return b;
    std::sort(r.begin(), r.end());
    // The p·(n + 1)-th order statistic, interpolated (Hyndman & Fan 1996, definition 6; numpy's "weibull"): a new
    // exchangeable run falls between the i-th and j-th of n with probability (j − i)/(n + 1); beyond the sample, the
    // extremes.
    auto quantile = [&r](double p) {
        const double h = std::clamp((r.size() + 1) * p - 1, 0.0, double(r.size() - 1));
        const size_t i = static_cast<size_t>(std::floor(h));
        const size_t j = std::min(i + 1, r.size() - 1);
        return r[i] + (h - i) * (r[j] - r[i]);
    };
    std::vector<double> abs;
    abs.reserve(r.size());
    for (double m : r)
        abs.push_back(std::fabs(1 / m - 1)); // |predicted/measured − 1|
    std::sort(abs.begin(), abs.end());
    const size_t n = abs.size();
    b.medianAbsErrorPercent = 100 * (n % 2 ? abs[n / 2] : 0.5 * (abs[n / 2 - 1] + abs[n / 2]));
    b.lo = std::min(1.0, quantile(0.1));
    b.hi = std::max(1.0, quantile(0.9));
    return b;
}

ChosenBand throughputBand(const Scenario& s)
{
    ChosenBand own;
    return calibrated(publishedBands(s, true).throughput, s, false, true, own);
}

ChosenBand memoryBand(const Scenario& s)
{
    ChosenBand own;
    return calibrated(publishedBands(s, true).memory, s, true, true, own);
}

double assumedHiddenShare(const Result& r)
{
    const double step = r.step.total();
    return step > 0 ? detail::assumedHidden<detail::Fast>(r.collectives).value() / step : 0.0;
}

namespace {
/// The excess over the band's evidence counted exposed: the step grows by (share − H)·step.
double slowEndFactorAt(const ErrorBand& band, double hiddenShare)
{
    return 1.0 / (1.0 + std::max(0.0, hiddenShare - band.maxHiddenShare));
}
} // namespace

double slowEndFactor(const ErrorBand& band, const Result& r) { return slowEndFactorAt(band, assumedHiddenShare(r)); }

PessimisticEnd pessimisticEnd(const Scenario& s, const Result& r)
{
    const PublishedBands& published = publishedBands(s, false);
    ChosenBand ownT, ownM;
    const ErrorBand& t = calibrated(published.throughput, s, false, false, ownT).band;
    const ErrorBand& m = calibrated(published.memory, s, true, false, ownM).band;
    return { t.lo * slowEndFactor(t, r), r.memory.total() + r.memory.reservedPeak * (m.hi - 1) };
}

void addUncertainty(const Scenario& s, Result& r)
{
    const PublishedBands& published = publishedBands(s, true);
    ChosenBand ownT, ownM;
    const ChosenBand& t = calibrated(published.throughput, s, false, true, ownT);
    const ChosenBand& m = calibrated(published.memory, s, true, true, ownM);
    const double tps = r.throughput.tokensPerSecondPerGpu, step = r.step.total();
    const double hidden = assumedHiddenShare(r);
    const double slow = t.band.lo * slowEndFactorAt(t.band, hidden); // assumed overlap beyond the evidence: exposed
    r.tokensPerGpuRange = { tps * slow, tps * t.band.hi };
    r.stepTimeRange = { step / t.band.hi, step / slow }; // measured step = predicted step × predicted/measured tps
    // The band was measured on the reserved peak; the scenario's reserve (misc) above it is a known size.
    const double total = r.memory.total(), reserved = r.memory.reservedPeak;
    r.memoryRange = { total + reserved * (m.band.lo - 1), total + reserved * (m.band.hi - 1) };
    // Fits: even the range's top stays within the usable memory (headroom kept). Does not fit: even its bottom is
    // above what the process can allocate at all (the headroom is a planning margin, not a physical limit, so a run
    // that ran is never called impossible because it used its headroom). Between the two: borderline.
    r.verdict = r.memoryRange.hi <= r.usable ? Verdict::Fits
        : r.memoryRange.lo > r.allocatable   ? Verdict::DoesNotFit
                                             : Verdict::Borderline;

    Uncertainty& u = r.uncertainty;
    u = {};
    u.kind = published.kind;
    u.throughputRuns = t.band.runs;
    u.memoryRuns = m.band.runs;
    // The weaker basis of the two: extrapolated over calibrated over validated.
    u.basisKind = toString(std::max(t.kind, m.kind, [](BasisKind a, BasisKind b) {
        auto rank = [](BasisKind k) { return k == BasisKind::Extrapolated ? 2 : k == BasisKind::Calibrated ? 1 : 0; };
        return rank(a) < rank(b);
    }));
    u.coverage = t.coverage;
    u.memoryCoverage = m.coverage;
    u.throughputRatio = { t.band.lo, t.band.hi };
    u.memoryRatio = { m.band.lo, m.band.hi };
    u.assumedHiddenShare = hidden;
    u.hiddenShareEvidence = t.band.maxHiddenShare;
    const bool widened = u.assumedHiddenShare > u.hiddenShareEvidence;
    if (&t == &published.throughput && &m == &published.memory) {
        u.basis.reserve(published.basis.size() + (widened ? 160 : 0)); // one allocation for the sentence
        u.basis = published.basis;
        u.sources = published.sources;
    } else {
        mergeText(t, m, u.basis, u.sources);
    }
    if (widened) {
        const auto pct = [&u](double x) {
            char digits[16];
            // a share in [0, 1] (anything else, never produced, prints 0)
            const int percent = x >= 0 && x <= 1 ? static_cast<int>(std::lround(100 * x)) : 0;
            u.basis.append(digits, std::to_chars(digits, digits + sizeof digits, percent).ptr) += '%';
        };
        u.basis += "; the slow end counts the communication assumed hidden beyond the published runs' ";
        pct(u.hiddenShareEvidence);
        u.basis += " of the step (here ";
        pct(u.assumedHiddenShare);
        u.basis += ") as exposed";
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
