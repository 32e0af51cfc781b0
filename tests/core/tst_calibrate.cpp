// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration (issue 11 items 1 and 4; docs/model.md §calibration): runs measured on a synthetic cluster (the model
// evaluated with a changed profile, or the default model's figures scaled or shifted by hand) are fitted from the
// default profile; the fitted profile recovers the constants and predicts a run it was not fitted on. Bad runs files
// are refused naming the field.
#include "test_support.h"

#include "shardscope/core/calibrate.h"
#include "shardscope/core/profile_json.h"

#include <QObject>

using namespace shardscope::core;

class TestCalibrate : public QObject
{
    Q_OBJECT
private slots:
    void recoversKnownConstants();
    void zeroSensitivityConstantsAreKept();
    void uniformlySlowerClusterFromThreeRuns();
    void leaveOneOutHoldsEachRunOut();
    void slowerByHandFromThreeRuns();
    void extraMemoryFromThreeRuns();
    void refusesTooFewMeasurements();
    void refusesAFitAtItsBound();
    void runsSlowerThanTheModelAllowsAreCalledSlower();
    void badRunsFilesNameTheField_data();
    void badRunsFilesNameTheField();
    void frameworkOverride();
    void profileRoundTrip();
    void applyProfileChecksFramework();
};

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Four different runs on one H100 cluster: a dense 8B with ZeRO-3 at 8K, a 13B with TP 2 and full recompute, a
/// 7B with DDP at 4K and micro-batch 2, and a 70B on 4 nodes with ZeRO-3 and TP 4. The fourth is held out.
std::vector<Scenario> clusterScenarios()
{
    Scenario a = sstest::presetScenario("llama3-8b", 1, 8);
    a.training.seqLen = 8192;
    a.parallelism.sharding = Sharding::Zero3;
    sstest::setBatch(a, 1, 4);

    Scenario b = sstest::presetScenario("llama2-13b", 1, 8);
    b.training.seqLen = 4096;
    b.training.recompute = Recompute::Full;
    b.parallelism.tp = 2;
    b.parallelism.sharding = Sharding::Zero1;
    sstest::setBatch(b, 2, 4);

    Scenario c = sstest::presetScenario("mistral-7b", 2, 8);
    c.training.seqLen = 4096;
    c.parallelism.sharding = Sharding::Zero2;
    sstest::setBatch(c, 2, 2);

    Scenario d = sstest::presetScenario("llama3-70b", 4, 8);
    d.training.seqLen = 8192;
    d.parallelism.sharding = Sharding::Zero3;
    d.parallelism.tp = 4;
    d.training.recompute = Recompute::Selective;
    sstest::setBatch(d, 1, 8);
    for (const Scenario* s : { &a, &b, &c, &d })
        if (!validate(*s).empty())
            qFatal("invalid test scenario: %s", qPrintable(sstest::issuesText(validate(*s))));
    return { a, b, c, d };
}

/// The run a cluster with `truth` as its profile would measure for `s`: every figure.
CalibrationRun measuredWith(const Scenario& s, const FrameworkProfile& truth)
{
    Scenario t = s;
    t.profile = truth;
    const Result r = evaluate(t);
    CalibrationRun run;
    run.scenario = s;
    for (Figure f : kFigures)
        run.measured[static_cast<int>(f)] = predictedFigure(r, f);
    return run;
}

double predicted(const Scenario& s, const FrameworkProfile& p, Figure f)
{
    Scenario t = s;
    t.profile = p;
    return predictedFigure(evaluate(t), f);
}

const FittedConstant* fitted(const Calibration& c, const std::string& key)
{
    for (const auto& f : c.fitted)
        if (f.key == key)
            return &f;
    return nullptr;
}

bool hasError(const std::vector<Issue>& errors, const std::string& field, const std::string& fragment)
{
    for (const auto& e : errors)
        if (e.field == field && e.message.find(fragment) != std::string::npos)
            return true;
    return false;
}

QString errorsText(const std::vector<Issue>& errors) { return sstest::issuesText(errors); }

std::string runsJson(const std::string& runs) { return R"({"schema": "shardscope.runs/1", "runs": [)" + runs + "]}"; }
const char* kValidScenario = R"({"schema": "shardscope.scenario/1", "model": {"preset": "llama3-8b"},
    "cluster": {"gpu": "h100-sxm5-80gb", "nodes": 1, "gpus_per_node": 8}, "training": {"seq_len": 4096,
    "global_batch": 32}, "parallelism": {"sharding": "zero3"}})";
} // namespace

void TestCalibrate::recoversKnownConstants()
{
    // A cluster whose GEMMs run at 62% of MAMF (Megatron's 80%), whose element-wise kernels move 4.5 passes (3),
    // that holds 3 GiB besides the model (0) and fragments 12% of transient memory (5%): all four recovered.
    FrameworkProfile truth = megatronProfile();
    truth.gemmEfficiency = 0.62;
    truth.elementwiseTraffic = 4.5;
    truth.memoryOverheadBytes = 3 * kGiB;
    truth.allocatorSlack = 0.12;
    std::vector<CalibrationRun> runs;
    for (const Scenario& s : clusterScenarios())
        runs.push_back(measuredWith(s, truth));
    CalibrationOptions opts;
    opts.fit = { "gemm_efficiency", "elementwise_traffic", "memory_overhead_bytes", "allocator_slack" };
    const Calibration c = calibrate(runs, megatronProfile(), opts);
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    QCOMPARE(c.fitted.size(), size_t(4));
    QVERIFY(sstest::relClose(fitted(c, "gemm_efficiency")->after, 0.62, 1e-3));
    QVERIFY(sstest::relClose(fitted(c, "elementwise_traffic")->after, 4.5, 1e-2));
    QVERIFY(std::abs(fitted(c, "memory_overhead_bytes")->after - 3 * kGiB) < 1e-3 * kGiB);
    QVERIFY(sstest::relClose(fitted(c, "allocator_slack")->after, 0.12, 1e-3));
    QVERIFY(c.rmsLogErrorBefore > 0.05);
    QVERIFY2(c.rmsLogErrorAfter < 1e-4, qPrintable(QString::number(c.rmsLogErrorAfter)));
    QCOMPARE(c.figures.size(), size_t(4 * 4));
    QCOMPARE(c.profile.gemmEfficiency, fitted(c, "gemm_efficiency")->after);
}

void TestCalibrate::zeroSensitivityConstantsAreKept()
{
    // Every constant the default choice keeps for "zero sensitivity" indeed leaves every figure of the runs as it
    // was when moved to its other bound; every fitted one moves some figure.
    std::vector<CalibrationRun> runs;
    FrameworkProfile truth = megatronProfile();
    truth.gemmEfficiency = 0.7;
    for (const Scenario& s : clusterScenarios())
        runs.push_back(measuredWith(s, truth));
    const Calibration c = calibrate(runs, megatronProfile());
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    QCOMPARE(c.fitted.size() + c.fixed.size(), profileConstants().size());
    for (const auto& k : profileConstants()) {
        FrameworkProfile moved = megatronProfile();
        moved.*k.member = (moved.*k.member == k.hi) ? k.lo : k.hi;
        bool changes = false;
        for (const auto& run : runs)
            for (Figure f : kFigures)
                changes = changes || predicted(run.scenario, moved, f) != predicted(run.scenario, megatronProfile(), f);
        bool zero = false;
        for (const auto& f : c.fixed)
            zero = zero || (f.key == k.key && f.reason.find("zero sensitivity") != std::string::npos);
        QVERIFY2(zero != changes, k.key);
        if (fitted(c, k.key))
            QVERIFY2(changes, k.key);
    }
    QVERIFY(fitted(c, "gemm_efficiency"));
    QVERIFY(sstest::relClose(fitted(c, "gemm_efficiency")->after, 0.7, 1e-3));
}

void TestCalibrate::uniformlySlowerClusterFromThreeRuns()
{
    // A cluster at 60% of MAMF instead of 80%: three runs' tokens/s (nothing else) fitted, the fourth predicted.
    FrameworkProfile truth = megatronProfile();
    truth.gemmEfficiency = 0.6;
    const auto sc = clusterScenarios();
    std::vector<CalibrationRun> runs;
    for (int i = 0; i < 3; ++i) {
        CalibrationRun r = measuredWith(sc[i], truth);
        r.measured[static_cast<int>(Figure::StepTime)] = 0;
        r.measured[static_cast<int>(Figure::AllocatedPeak)] = 0;
        r.measured[static_cast<int>(Figure::ReservedPeak)] = 0;
        runs.push_back(r);
    }
    const Calibration c = calibrate(runs, megatronProfile());
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    QVERIFY(fitted(c, "gemm_efficiency"));
    QVERIFY(c.fitted.size() <= 2); // three time measurements fit at most two constants and check them
    const double truthTps = predicted(sc[3], truth, Figure::TokensPerSecondPerGpu);
    const double fitTps = predicted(sc[3], c.profile, Figure::TokensPerSecondPerGpu);
    const double defaultTps = predicted(sc[3], megatronProfile(), Figure::TokensPerSecondPerGpu);
    qInfo("held-out run: true %.1f tok/s/GPU, default profile %.1f (%+.1f%%), calibrated %.1f (%+.2f%%)", truthTps,
        defaultTps, 100 * (defaultTps / truthTps - 1), fitTps, 100 * (fitTps / truthTps - 1));
    QVERIFY(std::abs(defaultTps / truthTps - 1) > 0.10); // the default misses it by more than the target
    QVERIFY(std::abs(fitTps / truthTps - 1) < 0.10);
}

void TestCalibrate::leaveOneOutHoldsEachRunOut()
{
    // Four runs of a cluster at 60% of MAMF, tokens/s only, one of them measured 10% faster than that cluster would:
    // fitting gemm_efficiency alone, each run's held-out figure is the fit on the other three. Left out, the fast run is
    // predicted by the three exact runs, i.e. at 60% of MAMF: measured / held out = 1.1 (to the fit's tolerance).
    FrameworkProfile truth = megatronProfile();
    truth.gemmEfficiency = 0.6;
    std::vector<CalibrationRun> runs;
    for (const Scenario& s : clusterScenarios()) {
        CalibrationRun r = measuredWith(s, truth);
        for (Figure f : { Figure::StepTime, Figure::AllocatedPeak, Figure::ReservedPeak })
            r.measured[static_cast<int>(f)] = 0;
        runs.push_back(r);
    }
    runs[1].measured[static_cast<int>(Figure::TokensPerSecondPerGpu)] *= 1.1;
    CalibrationOptions opts;
    opts.fit = { "gemm_efficiency" };
    const Calibration c = calibrate(runs, megatronProfile(), opts);
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    QCOMPARE(c.figures.size(), size_t(4));
    for (const FigureFit& f : c.figures)
        QVERIFY2(f.heldOut > 0, "every run has a held-out figure");
    QVERIFY(sstest::relClose(c.figures[1].measured / c.figures[1].heldOut, 1.1, 2e-3));
    // The in-sample fit absorbed part of the fast run: its residual after the fit is smaller than held out.
    QVERIFY(c.figures[1].measured / c.figures[1].after < 1.1 - 0.01);
    // Held out by the other three (one of them fast), an exact run comes out below its measurement.
    QVERIFY(c.figures[0].measured / c.figures[0].heldOut < 1.0);
    // Without leaveOneOut nothing is held out.
    opts.leaveOneOut = false;
    for (const FigureFit& f : calibrate(runs, megatronProfile(), opts).figures)
        QCOMPARE(f.heldOut, 0.0);
}

void TestCalibrate::slowerByHandFromThreeRuns()
{
    // Measured = the default model's step time × 1.3 on every run (a cluster 30% slower in everything, not a
    // profile's shape): tokens/s of the fourth run within 10% of default / 1.3.
    const auto sc = clusterScenarios();
    std::vector<CalibrationRun> runs;
    for (int i = 0; i < 3; ++i) {
        CalibrationRun r;
        r.scenario = sc[i];
        r.measured[static_cast<int>(Figure::StepTime)] = 1.3 * predicted(sc[i], megatronProfile(), Figure::StepTime);
        runs.push_back(r);
    }
    const Calibration c = calibrate(runs, megatronProfile());
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    const double truthTps = predicted(sc[3], megatronProfile(), Figure::TokensPerSecondPerGpu) / 1.3;
    const double fitTps = predicted(sc[3], c.profile, Figure::TokensPerSecondPerGpu);
    qInfo("held-out run (30%% slower by hand): true %.1f tok/s/GPU, calibrated %.1f (%+.2f%%)", truthTps, fitTps,
        100 * (fitTps / truthTps - 1));
    QVERIFY(std::abs(fitTps / truthTps - 1) < 0.10);
}

void TestCalibrate::extraMemoryFromThreeRuns()
{
    // A cluster that holds 3 GiB more per GPU than the model says (allocated and reserved, by hand): learnt from
    // three runs, the fourth's peaks predicted within 1.5 GiB.
    const auto sc = clusterScenarios();
    const double extra = 3 * kGiB;
    std::vector<CalibrationRun> runs;
    for (int i = 0; i < 3; ++i) {
        CalibrationRun r;
        r.scenario = sc[i];
        for (Figure f : { Figure::AllocatedPeak, Figure::ReservedPeak })
            r.measured[static_cast<int>(f)] = predicted(sc[i], megatronProfile(), f) + extra;
        runs.push_back(r);
    }
    const Calibration c = calibrate(runs, megatronProfile());
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    QVERIFY(fitted(c, "memory_overhead_bytes"));
    QVERIFY(std::abs(fitted(c, "memory_overhead_bytes")->after - extra) < 0.01 * kGiB);
    for (Figure f : { Figure::AllocatedPeak, Figure::ReservedPeak }) {
        const double truth = predicted(sc[3], megatronProfile(), f) + extra;
        const double fit = predicted(sc[3], c.profile, f);
        qInfo("held-out run %s: true %.2f GiB, calibrated %.2f GiB (%+.3f GiB)", toString(f), truth / kGiB, fit / kGiB,
            (fit - truth) / kGiB);
        QVERIFY(std::abs(fit - truth) < 1.5 * kGiB);
    }
}

void TestCalibrate::refusesTooFewMeasurements()
{
    const auto sc = clusterScenarios();
    CalibrationRun one;
    one.scenario = sc[0];
    one.measured[static_cast<int>(Figure::TokensPerSecondPerGpu)] = 1000;
    // One run, chosen constants: one time measurement fixes a constant but leaves nothing to check it.
    Calibration c = calibrate({ one }, megatronProfile());
    QVERIFY(hasError(c.errors, "runs", "1 time measurement cannot fix a constant and check it"));
    // Named: one time measurement cannot fix two.
    CalibrationOptions opts;
    opts.fit = { "gemm_efficiency", "elementwise_traffic" };
    c = calibrate({ one }, megatronProfile(), opts);
    QVERIFY2(
        hasError(c.errors, "fit", "1 time measurement cannot fix 2 constants (gemm_efficiency, elementwise_traffic)"),
        qPrintable(errorsText(c.errors)));
    // One reserved peak for both memory constants.
    CalibrationRun mem;
    mem.scenario = sc[0];
    mem.measured[static_cast<int>(Figure::ReservedPeak)] = 40 * kGiB;
    opts.fit = { "memory_overhead_bytes", "allocator_slack" };
    c = calibrate({ mem }, megatronProfile(), opts);
    QVERIFY(hasError(c.errors, "fit", "1 memory measurement cannot fix 2 constants"));
    // A constant the figures do not depend on: allocator slack from allocated peaks alone.
    mem.measured[static_cast<int>(Figure::ReservedPeak)] = 0;
    mem.measured[static_cast<int>(Figure::AllocatedPeak)] = 40 * kGiB;
    opts.fit = { "allocator_slack" };
    c = calibrate({ mem }, megatronProfile(), opts);
    QVERIFY(hasError(c.errors, "allocator_slack", "zero sensitivity"));
    opts.fit = { "gemm_efficency" };
    c = calibrate({ mem }, megatronProfile(), opts);
    QVERIFY(hasError(c.errors, "fit", "'gemm_efficency' is not a profile constant"));
}

void TestCalibrate::refusesAFitAtItsBound()
{
    // Three runs measured at 3× the default model's tokens/s: GEMMs would have to beat their measured best rate.
    const auto sc = clusterScenarios();
    std::vector<CalibrationRun> runs;
    for (int i = 0; i < 3; ++i) {
        CalibrationRun r;
        r.scenario = sc[i];
        r.measured[static_cast<int>(Figure::TokensPerSecondPerGpu)]
            = 3 * predicted(sc[i], megatronProfile(), Figure::TokensPerSecondPerGpu);
        runs.push_back(r);
    }
    Calibration c = calibrate(runs, megatronProfile());
    QVERIFY2(hasError(c.errors, "gemm_efficiency",
                 "ran into its bound 1.0: the runs are faster than any GEMM rate allows — check tokens/s is per GPU"),
        qPrintable(errorsText(c.errors)));
    // Peaks far below the model's states: memory_overhead_bytes would go below zero.
    runs.clear();
    for (int i = 0; i < 3; ++i) {
        CalibrationRun r;
        r.scenario = sc[i];
        r.measured[static_cast<int>(Figure::AllocatedPeak)]
            = 0.5 * predicted(sc[i], megatronProfile(), Figure::AllocatedPeak);
        runs.push_back(r);
    }
    c = calibrate(runs, megatronProfile());
    QVERIFY2(hasError(c.errors, "memory_overhead_bytes", "ran into its bound 0 GB: the runs use less memory"),
        qPrintable(errorsText(c.errors)));
}

void TestCalibrate::runsSlowerThanTheModelAllowsAreCalledSlower()
{
    // Issue 23 item 8: a note said the runs were faster when they were slower. Every run at a third of the default
    // model's tokens/s (k = 3) or a twentieth (k = 20): GEMMs at a fifth of the measured matmul rate
    // (gemm_efficiency's lower bound 0.2 against the default 0.8) make a step at most about 4x slower, so at k = 20
    // gemm_efficiency is refused at that bound with the "slower" advice. At k = 3 with four runs the fit of the others
    // pushes collective_efficiency to its upper bound 1.2, whose advice reads "collectives faster than NCCL's bus
    // bandwidth allows": the note says instead that it makes up for the others and that the runs are 3x slower.
    const auto sc = clusterScenarios();
    auto slowed = [&](int n, double k) {
        std::vector<CalibrationRun> runs;
        for (int i = 0; i < n; ++i) {
            CalibrationRun r;
            r.scenario = sc[i];
            r.measured[static_cast<int>(Figure::TokensPerSecondPerGpu)]
                = predicted(sc[i], megatronProfile(), Figure::TokensPerSecondPerGpu) / k;
            runs.push_back(r);
        }
        return calibrate(runs, megatronProfile());
    };
    auto notes = [](const Calibration& c) {
        std::string text = sstest::issuesText(c.errors).toStdString();
        for (const auto& f : c.fixed)
            text += "\n" + f.key + ": " + f.reason;
        return text;
    };
    const Calibration twentieth = slowed(3, 20);
    QVERIFY2(hasError(twentieth.errors, "gemm_efficiency", "ran into its bound 0.2: the runs are slower than GEMMs"),
        notes(twentieth).c_str());
    QVERIFY2(notes(twentieth).find("faster") == std::string::npos, notes(twentieth).c_str());

    const Calibration third = slowed(4, 3);
    const auto set = std::find_if(third.fixed.begin(), third.fixed.end(),
        [](const FixedConstant& f) { return f.key == "collective_efficiency"; });
    QVERIFY2(set != third.fixed.end(), notes(third).c_str());
    QCOMPARE(set->reason,
        std::string("the runs pushed it to its bound 1.2 (it makes up for the other constants' fit: "
                    "the runs are 3x slower than the model overall): fitted without it"));
    QVERIFY2(notes(third).find("faster") == std::string::npos, notes(third).c_str());
}

void TestCalibrate::badRunsFilesNameTheField_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("fragment");
    const std::string ok = std::string(R"({"scenario": )") + kValidScenario + R"(, "measured": {"step_time": 2.0}})";
    QTest::newRow("not json") << "{"
                              << ""
                              << "";
    QTest::newRow("wrong schema") << QString::fromStdString(R"({"schema": "shardscope.runs/2", "runs": [)" + ok + "]}")
                                  << "schema"
                                  << "must be \"shardscope.runs/1\", not 'shardscope.runs/2'";
    QTest::newRow("no runs") << R"({"schema": "shardscope.runs/1", "runs": []})"
                             << "runs"
                             << "non-empty array";
    QTest::newRow("invalid scenario") << QString::fromStdString(
        runsJson(ok + R"(, {"scenario": {"schema": "shardscope.scenario/1", "model":
               {"preset": "llama3-8b"}, "parallelism": {"tp": 3}}, "measured": {"step_time": 1}})"))
                                      << "runs[1].scenario.parallelism.tp"
                                      << "";
    QTest::newRow("unknown preset") << QString::fromStdString(
        runsJson(R"({"scenario": {"schema": "shardscope.scenario/1", "model":
               {"preset": "llama9"}}, "measured": {"step_time": 1}})"))
                                    << "runs[0].scenario.model.preset"
                                    << "unknown model id 'llama9'";
    QTest::newRow("negative") << QString::fromStdString(
        runsJson(std::string(R"({"scenario": )") + kValidScenario + R"(, "measured": {"step_time": -1.5}})"))
                              << "runs[0].measured.step_time"
                              << "must be a number > 0 (seconds per optimizer step)";
    QTest::newRow("zero") << QString::fromStdString(runsJson(
        ok + "," + std::string(R"({"scenario": )") + kValidScenario + R"(, "measured": {"memory_reserved_peak": 0}})"))
                          << "runs[1].measured.memory_reserved_peak"
                          << "must be a number > 0 (bytes per GPU)";
    QTest::newRow("text") << QString::fromStdString(runsJson(
        std::string(R"({"scenario": )") + kValidScenario + R"(, "measured": {"tokens_per_second_per_gpu": "9000"}})"))
                          << "runs[0].measured.tokens_per_second_per_gpu"
                          << "must be a number > 0";
    QTest::newRow("unknown figure") << QString::fromStdString(
        runsJson(std::string(R"({"scenario": )") + kValidScenario + R"(, "measured": {"tokens_per_second": 9000}})"))
                                    << "runs[0].measured.tokens_per_second"
                                    << "unknown figure";
    QTest::newRow("no figure") << QString::fromStdString(
        runsJson(std::string(R"({"scenario": )") + kValidScenario + R"(, "measured": {}})"))
                               << "runs[0].measured"
                               << "has no figure";
    QTest::newRow("no scenario") << QString::fromStdString(runsJson(R"({"measured": {"step_time": 1}})"))
                                 << "runs[0].scenario"
                                 << "is required";
    QTest::newRow("two frameworks") << QString::fromStdString(
        runsJson(ok + R"(, {"scenario": {"schema": "shardscope.scenario/1", "training":
               {"framework": "pytorch"}}, "measured": {"step_time": 1}})"))
                                    << "runs[1].scenario.training.framework"
                                    << "'pytorch' differs from runs[0]'s 'megatron'";
}

void TestCalibrate::badRunsFilesNameTheField()
{
    QFETCH(QString, text);
    QFETCH(QString, field);
    QFETCH(QString, fragment);
    const RunsParse p = parseRuns(text.toStdString(), sstest::catalog());
    QVERIFY(!p.ok());
    if (!field.isEmpty() || !fragment.isEmpty())
        QVERIFY2(hasError(p.errors, field.toStdString(), fragment.toStdString()), qPrintable(errorsText(p.errors)));
}

void TestCalibrate::frameworkOverride()
{
    const std::string text = runsJson(std::string(R"({"scenario": )") + kValidScenario
        + R"(, "measured": {"step_time": 2}}, {"scenario": {"schema": "shardscope.scenario/1", "training":
            {"framework": "pytorch"}}, "measured": {"step_time": 3}})");
    const Framework pytorch = Framework::PyTorch;
    const RunsParse p = parseRuns(text, sstest::catalog(), &pytorch);
    QVERIFY2(p.ok(), qPrintable(errorsText(p.errors)));
    QCOMPARE(p.framework, Framework::PyTorch);
    QCOMPARE(p.runs.size(), size_t(2));
    QVERIFY(hasError(p.warnings, "runs[0].scenario.training.framework", "'megatron' replaced by --framework pytorch"));
    QCOMPARE(p.warnings.size(), size_t(1));
    for (const auto& r : p.runs) {
        QCOMPARE(r.scenario.training.framework, Framework::PyTorch);
        QCOMPARE(r.scenario.profile, *sstest::catalog().profile("pytorch"));
    }
    QCOMPARE(p.runs[1].figure(Figure::StepTime), 3.0);
}

void TestCalibrate::profileRoundTrip()
{
    FrameworkProfile truth = megatronProfile();
    truth.gemmEfficiency = 0.66;
    std::vector<CalibrationRun> runs;
    for (const Scenario& s : clusterScenarios())
        runs.push_back(measuredWith(s, truth));
    const Calibration c = calibrate(runs, megatronProfile());
    QVERIFY2(c.ok(), qPrintable(errorsText(c.errors)));
    const std::string doc = calibratedProfileJson(c, runs, "my-cluster", "Megatron-Core, calibrated", "runs.json");
    const ProfileParse back = parseProfile(doc);
    QVERIFY2(back.ok(), back.errors.empty() ? "" : back.errors.front().c_str());
    QCOMPARE(back.profile.id, std::string("my-cluster"));
    QCOMPARE(back.profile.framework, Framework::Megatron);
    for (const auto& k : profileConstants())
        QCOMPARE(back.profile.*k.member, c.profile.*k.member);
    for (const auto& [key, source] : back.profile.sources) {
        const bool wasFitted = fitted(c, key) != nullptr;
        QCOMPARE(
            source.rfind("fitted by shardscope-cli calibrate on 4 runs (runs.json), residual ", 0) == 0, wasFitted);
    }
    QVERIFY(doc.find("\"fit\"") != std::string::npos);
    QVERIFY(doc.find("\"rms_log_error_after\"") != std::string::npos);
}

void TestCalibrate::applyProfileChecksFramework()
{
    Scenario s = clusterScenarios()[0];
    const FrameworkProfile before = s.profile;
    FrameworkProfile p = *sstest::catalog().profile("pytorch");
    const auto issues = applyProfile(s, p);
    QVERIFY(sstest::hasIssue(issues, "training.framework",
        "the profile 'pytorch' is for framework 'pytorch', the scenario's training.framework is 'megatron'"));
    QCOMPARE(s.profile, before);
    p.framework = Framework::Megatron;
    p.gemmEfficiency = 0.5;
    QVERIFY(applyProfile(s, p).empty());
    QCOMPARE(s.profile.gemmEfficiency, 0.5);
}

QTEST_APPLESS_MAIN(TestCalibrate)
#include "tst_calibrate.moc"
