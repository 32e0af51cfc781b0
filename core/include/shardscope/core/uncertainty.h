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

/// The kinds of run the model's errors are grouped by (shared/reference/calibration.md: long context, FP8, MoE,
/// ZeRO-3/FSDP at scale). A run may be several kinds; one that is none is "plain".
struct RunKind {
    bool longContext = false; ///< training.seq_len ≥ 32,768 (32K), with or without context parallelism
    bool fp8 = false;         ///< training.precision fp8-mixed
    bool moe = false;         ///< the model has routed experts
    bool fsdpAtScale = false; ///< a sharded data-parallel strategy (ZeRO-1/2/3, FSDP) with dp ≥ 256
    [[nodiscard]] bool plain() const { return !longContext && !fp8 && !moe && !fsdpAtScale; }
    friend bool operator==(const RunKind&, const RunKind&) = default;
};
[[nodiscard]] RunKind runKind(const Scenario& s);
/// "plain", or the kinds separated by spaces ("long-context fp8"), in the order of the struct.
[[nodiscard]] std::string toString(const RunKind& k);

/// Which framework's runs a band was measured on: Megatron-LM (the calibration rows) or PyTorch FSDP stacks (the
/// torchtitan and llm-foundry rows). DeepSpeed scenarios use the PyTorch bands (no published DeepSpeed rows yet).
enum class FrameworkFamily { Megatron, PyTorch };
[[nodiscard]] FrameworkFamily frameworkFamily(Framework f);

/// The model's errors on the published runs of one kind: N runs, the median |predicted/measured − 1| and the 80% band of
/// measured/predicted (10th and 90th percentiles, widened to contain 1 so that a range always contains its point).
struct ErrorBand {
    FrameworkFamily family = FrameworkFamily::PyTorch;
    const char* kind = "";          ///< "plain", "long-context", "fp8", "moe" or "fsdp-at-scale"
    int runs = 0;                   ///< N published runs of this kind
    double medianAbsErrorPercent = 0; ///< median |predicted/measured − 1| × 100
    double lo = 1, hi = 1;          ///< measured/predicted at the 10th and 90th percentiles (or 1)
};

/// The measured table (core/src/uncertainty.cpp, regenerated from tst_published_runs): throughput (tokens/s per GPU;
/// a step time's band is its inverse) and memory (PyTorch's reserved peak, what torchtitan reports).
[[nodiscard]] std::span<const ErrorBand> throughputErrorTable();
[[nodiscard]] std::span<const ErrorBand> memoryErrorTable();

/// The summary of a set of measured/predicted ratios, as the table holds it (linear-interpolated percentiles).
[[nodiscard]] ErrorBand summarizeRatios(std::vector<double> measuredOverPredicted);

/// The band a scenario's figures get: the widest (largest hi/lo) of the bands of its kinds for its framework family;
/// a kind with fewer than kMinBandRuns runs of that family uses the other family's, then the widest band measured.
struct ChosenBand {
    ErrorBand band;
    std::string basis; ///< "cross-validated on 47 published runs", or why a wider band stands in
    bool standIn = false; ///< no published run of one of the run's kinds: the widest band measured stands in
    bool userCalibrated = false; ///< the profile's own fit (calibrate) gave a narrower band
};
[[nodiscard]] ChosenBand throughputBand(const Scenario& s);
[[nodiscard]] ChosenBand memoryBand(const Scenario& s);

/// The pessimistic end of a scenario's ranges, without building text (searches): the fewest tokens/s per GPU and the
/// most memory per GPU of the 80% ranges, from an evaluated result.
struct PessimisticEnd {
    double tokensPerSecondFactor = 1; ///< multiplies the point throughput (band lo)
    double memoryTotal = 0;           ///< top of memory.total()'s range
};
[[nodiscard]] PessimisticEnd pessimisticEnd(const Scenario& s, const Result& r);

/// Fewest runs a band is taken from: below it the 10th/90th percentiles are the extreme runs themselves.
inline constexpr int kMinBandRuns = 3;

/// Fills Result's ranges, verdict and uncertainty (evaluate() calls it on every valid result). A profile from
/// calibrate (FrameworkProfile::fit) with at least kMinBandRuns figures of a kind narrows that band to the fit's
/// residuals (their extremes), never below a floor (time: the Megatron-LM calibration rows' band; memory: ± the
/// profile's allocator slack), and only where that is narrower than the published band. The memory band was
/// measured on the reserved peak (MemoryBreakdown::reservedPeak); the CUDA context and NCCL buffers above it are
/// known sizes, so memory.total()'s range is total + reserved·(band − 1).
/// Verdict: fits when the range's top is within capacity, does-not-fit when its bottom exceeds it, else borderline.
void addUncertainty(const Scenario& s, Result& r);

/// A range around its point in whole percent: "± 5%" when both sides round alike, else both sides, "+17% / −0%"
/// (the bands are asymmetric: a one-sided range must not read as two-sided). Empty when the point is not positive.
[[nodiscard]] std::string rangePercent(double point, const Range& range);

} // namespace shardscope::core
