// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Calibration: fit a framework profile's free constants (profileConstants) to runs measured on the user's cluster
/// (`shardscope-cli calibrate`, shardscope.runs/1; docs/model.md §calibration). Pure: text and values in, values out.

#include "shardscope/core/catalog.h"
#include "shardscope/core/profile.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

inline constexpr const char* kRunsSchema = "shardscope.runs/1";

/// A figure a run may report, as torch / the training log gives it (0 = not measured).
enum class Figure { TokensPerSecondPerGpu, StepTime, AllocatedPeak, ReservedPeak };
inline constexpr Figure kFigures[]
    = { Figure::TokensPerSecondPerGpu, Figure::StepTime, Figure::AllocatedPeak, Figure::ReservedPeak };
/// The figure's key in RUNS.json `measured` ("tokens_per_second_per_gpu", "step_time", "memory_allocated_peak",
/// "memory_reserved_peak").
const char* toString(Figure f);
/// Time figures (tokens/s per GPU, step time) inform the time constants; memory figures the memory constants.
bool isTimeFigure(Figure f);

struct CalibrationRun {
    Scenario scenario;
    double measured[4] = { 0, 0, 0, 0 }; ///< by Figure; 0 = absent; tokens/s per GPU, seconds, bytes, bytes
    [[nodiscard]] double figure(Figure f) const { return measured[static_cast<int>(f)]; }
};

/// The model's value of a figure for an evaluated scenario (Result::throughput, step, memory peaks).
double predictedFigure(const Result& r, Figure f);

struct RunsParse {
    std::vector<CalibrationRun> runs;
    Framework framework = Framework::Megatron; ///< the runs' one framework (or the override)
    std::vector<Issue> errors; ///< "runs[2].measured.step_time: must be a number > 0" (the file cannot be used)
    std::vector<Issue> warnings; ///< unknown fields; runs whose training.framework the override replaced
    [[nodiscard]] bool ok() const { return errors.empty(); }
};
/// Parses a shardscope.runs/1 document: every run's scenario with parseScenario (its errors and validate()'s
/// issues under "runs[i].scenario."), every measured figure a finite number > 0, at least one per run. All runs
/// must name one training.framework; `frameworkOverride` (when given) sets every run's instead, with a warning for
/// each run it changes.
RunsParse parseRuns(std::string_view json, const Catalog& catalog, const Framework* frameworkOverride = nullptr);

/// A constant the fit moved, or kept, and why.
struct FittedConstant {
    std::string key;
    double before = 0, after = 0, lo = 0, hi = 0;
};
struct FixedConstant {
    std::string key;
    double value = 0;
    std::string reason; ///< "the model does not read it for these runs (zero sensitivity)"
};
/// One measured figure of one run with the model's value before and after the fit, and held out: with the constants
/// refitted on the other runs (leave-one-out; 0 when not computed).
struct FigureFit {
    int run = 0;
    Figure figure = Figure::TokensPerSecondPerGpu;
    double measured = 0, before = 0, after = 0, heldOut = 0;
};

struct CalibrationOptions {
    /// The constants to fit, by key; empty: chosen from the data (docs/model.md §calibration).
    std::vector<std::string> fit;
    int maxIterations = 100;
    /// Also refit the fitted constants without each run in turn (with at least 3 runs) and predict it: the held-out
    /// figures the ranges of a calibrated profile are made of (core/uncertainty.h).
    bool leaveOneOut = true;
};

struct Calibration {
    std::vector<Issue> errors; ///< a refused fit: field ("fit", "runs", a constant's key) and the reason
    FrameworkProfile profile; ///< the start profile with the fitted values (sources not yet rewritten)
    std::vector<FittedConstant> fitted; ///< in profileConstants() order
    std::vector<FixedConstant> fixed;
    std::vector<FigureFit> figures; ///< every measured figure, runs in order
    double rmsLogErrorBefore = 0, rmsLogErrorAfter = 0; ///< root mean square of ln(model / measured)
    int iterations = 0;
    [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// Fits `start`'s free constants to the runs: minimises Σ ln(model/measured)² over every measured figure, each run
/// evaluated with its scenario's profile replaced by the candidate, by a projected Levenberg–Marquardt search inside
/// the constants' bounds (log-parameterised where the lower bound is above zero; numeric derivatives). Refuses
/// (errors) when a kind has fewer figures than constants to fit, when no constant can be fitted, or when a fitted
/// value ends at a bound the data pushes against. Deterministic.
Calibration calibrate(
    const std::vector<CalibrationRun>& runs, const FrameworkProfile& start, const CalibrationOptions& options = {});

/// The fitted profile as a shardscope.profile/1 document: id and name as given, each fitted value's source
/// "fitted by shardscope-cli calibrate on N runs (RUNS), residual x% rms", and a "fit" report (constants before
/// and after, the ones kept and why, every figure before and after). parseProfile reads it back.
std::string calibratedProfileJson(const Calibration& c, const std::vector<CalibrationRun>& runs, const std::string& id,
    const std::string& name, const std::string& runsFile);

/// The fit report alone (shardscope.calibration/1), as `shardscope-cli calibrate --format json` prints it.
std::string calibrationJson(const Calibration& c, const std::vector<CalibrationRun>& runs, const std::string& runsFile);

/// Replaces the scenario's profile (`--profile`, a saved profile in the GUI). Refused, naming both, when the
/// profile's framework is not the scenario's training.framework.
std::vector<Issue> applyProfile(Scenario& s, const FrameworkProfile& profile);

} // namespace shardscope::core
