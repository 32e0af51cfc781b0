// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// How sure each headline figure is (issue 11; docs/model.md §uncertainty): 80% bands on step time, throughput and memory made from the errors the model makes on published runs of the
/// same kind (tests/core/tst_published_runs.cpp measures them; the table lives in core/src/uncertainty.cpp).

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <span>
#include <string>
#include <vector>

namespace shardscope::core {

/// The kinds of run the model's errors are grouped by (docs/model.md §uncertainty: long context, FP8, MoE,
/// ZeRO-3/FSDP at scale). A run may be several kinds; one that is none is "plain".
struct RunKind {
    bool longContext = false; ///< training.seq_len ≥ 32,768 (32K), with or without context parallelism
    bool fp8 = false; ///< training.precision fp8-mixed
    bool moe = false; ///< the model has routed experts
    bool fsdpAtScale = false; ///< a sharded data-parallel strategy (ZeRO-1/2/3, FSDP) with dp ≥ 256
    [[nodiscard]] bool plain() const { return !longContext && !fp8 && !moe && !fsdpAtScale; }
    friend bool operator==(const RunKind&, const RunKind&) = default;
};
[[nodiscard]] RunKind runKind(const Scenario& s);
/// "plain", or the kinds separated by spaces ("long-context fp8"), in the order of the struct.
[[nodiscard]] std::string toString(const RunKind& k);

/// Which framework's runs a band was measured on: Megatron-LM / NeMo (Megatron-Core), PyTorch FSDP stacks (torchtitan,
/// llm-foundry, the Llama 3 paper) or DeepSpeed (MT-NLG, BLOOM).
enum class FrameworkFamily { Megatron, PyTorch, DeepSpeed };
[[nodiscard]] FrameworkFamily frameworkFamily(Framework f);
[[nodiscard]] const char* toString(FrameworkFamily f);

/// The model's leave-one-source-out errors on the published runs of one framework family and kind: N runs from S
/// sources, the median |predicted/measured − 1| and the 80% band of measured/predicted, with where it comes from.
struct ErrorBand {
    FrameworkFamily family = FrameworkFamily::PyTorch;
    const char* kind = ""; ///< "plain", "long-context", "fp8", "moe" or "fsdp-at-scale"
    int runs = 0; ///< N published runs of this kind
    int sources = 0; ///< the papers / benchmark files they come from
    double medianAbsErrorPercent = 0; ///< median |predicted/measured − 1| × 100
    double lo = 1, hi = 1; ///< measured/predicted at the 10th and 90th percentiles (or 1)
    const char* generations = ""; ///< the GPU generations (GpuSpec::arch) of its runs, space-separated
    const char* provenance = ""; ///< "source (N runs); source (M runs)"
    double coverage = 0; ///< share of its runs whose held-out prediction fell inside the range they get
    /// Throughput bands: the largest share of the step any of its runs had of communication the model counts as
    /// hidden behind compute (communication.assumed_hidden_seconds / step time): how much assumed overlap the band
    /// has evidence for.
    double maxHiddenShare = 0;
};

/// The generated table (core/src/uncertainty_bands.inc, written by tests/core/tst_published_runs.cpp from the
/// leave-one-source-out predictions): throughput (tokens/s per GPU; a step time's band is its inverse) and memory
/// (PyTorch's reserved peak, what torchtitan reports).
[[nodiscard]] std::span<const ErrorBand> throughputErrorTable();
[[nodiscard]] std::span<const ErrorBand> memoryErrorTable();
/// The floor of a time range calibrated on the user's runs: the band of the Megatron-LM plain runs the shipped
/// profile was fitted on (generated with the table), lo and hi only.
[[nodiscard]] ErrorBand calibrationTimeFloor();
/// Runs whose range is extrapolated (no band of their family, kind and GPU generation) and how many of them fell
/// inside it, as the generated table states.
struct ExtrapolatedCoverage {
    int throughputRuns = 0, throughputInside = 0, memoryRuns = 0, memoryInside = 0;
};
[[nodiscard]] ExtrapolatedCoverage extrapolatedCoverage();

/// The summary of a set of measured/predicted ratios, as the table holds it: the 10th and 90th percentiles by
/// Hyndman & Fan's definition 6 (p·(n + 1)-th order statistic, the extremes beyond), the prediction interval a new
/// run falls in with probability 80% when the runs are exchangeable; widened to contain 1.
[[nodiscard]] ErrorBand summarizeRatios(std::vector<double> measuredOverPredicted);

/// Where a range comes from (result `uncertainty.basis_kind`).
enum class BasisKind { Validated, Calibrated, Extrapolated };
[[nodiscard]] const char* toString(BasisKind k);

/// The band a scenario's figures get. Validated: every kind of the run has a band of its framework family with at
/// least kMinBandRuns runs whose GPU generations include the scenario's; the widest (largest hi/lo) of them. Else
/// extrapolated: the union of the run's kinds' bands on any family and the widest band measured on any kind.
struct ChosenBand {
    ErrorBand band;
    BasisKind kind = BasisKind::Validated;
    std::string basis; ///< "validated: leave-one-source-out on 18 published runs (2 sources)", or the reason
    std::vector<std::string> sources; ///< the published sources, or "N of your runs"
    double coverage = 0; ///< share of held-out predictions of this kind inside their range
};
[[nodiscard]] ChosenBand throughputBand(const Scenario& s);
[[nodiscard]] ChosenBand memoryBand(const Scenario& s);

/// The pessimistic end of a scenario's ranges, without building text (searches): the fewest tokens/s per GPU and the
/// most memory per GPU of the 80% ranges, from an evaluated result.
struct PessimisticEnd {
    double tokensPerSecondFactor = 1; ///< multiplies the point throughput (band lo)
    double memoryTotal = 0; ///< top of memory.total()'s range
};
[[nodiscard]] PessimisticEnd pessimisticEnd(const Scenario& s, const Result& r);

/// communication.assumed_hidden_seconds over the step time: the share of the step the model counts as free because
/// its collectives are assumed hidden behind compute.
[[nodiscard]] double assumedHiddenShare(const Result& r);
/// Issue 21 item 5: the factor (≤ 1) on the slow end of the throughput range (tokens/s; the step time's slow end is
/// divided by it) when a scenario counts more of its step hidden than any published run of its band did: the excess
/// is counted exposed, 1 / (1 + max(0, share − band.maxHiddenShare)). 1 when the band covers the share.
[[nodiscard]] double slowEndFactor(const ErrorBand& band, const Result& r);

/// Fewest runs a band is taken from: below it the 10th/90th percentiles are the extreme runs themselves.
inline constexpr int kMinBandRuns = 3;

/// Fills Result's ranges, verdict and uncertainty (evaluate() calls it on every valid result). A profile from
/// calibrate (FrameworkProfile::fit) with at least kMinBandRuns figures of a kind replaces that band with the fit's
/// residuals (basis calibrated): their 10th/90th percentiles, never inside their extremes, never below a floor (time:
/// the Megatron-LM calibration rows' band; memory: ± the profile's allocator slack); the published band is not kept,
/// so a band the user's runs all fall outside moves to them. The memory band was
/// measured on the reserved peak (MemoryBreakdown::reservedPeak); the CUDA context and NCCL buffers above it are
/// known sizes, so memory.total()'s range is total + reserved·(band − 1).
/// Verdict: fits when the range's top is within the usable memory (Result::usable), does-not-fit when its bottom
/// exceeds what the process can allocate at all (capacity − CUDA context, headroom ignored), else borderline.
void addUncertainty(const Scenario& s, Result& r);

/// A range around its point in whole percent: "± 5%" when both sides round alike, else both sides, "+17% / −0%"
/// (the bands are asymmetric: a one-sided range must not read as two-sided). Empty when the point is not positive.
[[nodiscard]] std::string rangePercent(double point, const Range& range);

} // namespace shardscope::core
