// SPDX-License-Identifier: GPL-3.0-or-later
// Calibration to measured runs (docs/model.md §calibration): shardscope.runs/1 documents, the choice of constants the
// runs can determine, a bounded least-squares fit of log errors, and the calibrated profile.
#include "shardscope/core/calibrate.h"

#include "shardscope/core/evaluate.h"
#include "shardscope/core/profile_json.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/scenario_name.h"

#include "json_fields.h"
#include "evaluate_into.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardscope::core {

using detail::json;

namespace {

// The order each kind's constants are tried in: the one that usually explains most of a cluster's difference first
// (a GEMM rate moves every step; a bandwidth only exposed communication; host time small layers; element-wise
// traffic the memory-bound share), the fixed memory before the share of transient memory.
// Time constants a profile may add later are tried after these, in profileConstants() order.
const char* const kTimeOrder[] = { "gemm_efficiency", "collective_efficiency", "host_overhead_per_layer",
    "attention_efficiency", "elementwise_traffic", "overlap_slowdown" };
const char* const kMemoryConstants[] = { "memory_overhead_bytes", "allocator_slack" };

// A constant whose effect on the runs is within 5% (in norm) of a combination of those already chosen cannot be told
// apart from them by these runs: fitting it too would trade one against the other along the noise.
constexpr double kSeparableFraction = 0.05;
// A value within a millionth of its range from a bound is at the bound; the data pushes against it when one
// Newton step from there would move it outward by more than a thousandth of the range.
constexpr double kAtBound = 1e-6;
constexpr double kPushesOut = 1e-3;
// Numeric derivative step, as a fraction of the parameter's range (central differences inside the box).
constexpr double kDerivativeStep = 1e-5;
// A constant the model does not read moves no figure at all (the evaluation is deterministic): any derivative above
// rounding noise of ln(figure) counts as sensitivity.
constexpr double kZeroSensitivity = 1e-12;
// Largest runs file the fit takes: 10,000 runs keep a fit under a minute (about 2 µs per evaluation, 2 per constant
// per run per iteration).
constexpr size_t kMaxRuns = 10000;

const char* const kFigureKeys[]
    = { "tokens_per_second_per_gpu", "step_time", "memory_allocated_peak", "memory_reserved_peak" };
const char* const kFigureUnits[]
    = { "tokens/s per GPU", "seconds per optimizer step", "bytes per GPU", "bytes per GPU" };

/// Every constant is a time constant but the memory ones.
bool isTimeConstant(const std::string& key)
{
    for (const char* k : kMemoryConstants)
        if (key == k)
            return false;
    return true;
}

/// The time constants in the order the fit tries them.
std::vector<std::string> timeConstants()
{
    std::vector<std::string> keys;
    for (const char* k : kTimeOrder)
        for (const auto& c : profileConstants())
            if (k == std::string(c.key))
                keys.push_back(k);
    for (const auto& c : profileConstants())
        if (isTimeConstant(c.key) && std::find(keys.begin(), keys.end(), c.key) == keys.end())
            keys.push_back(c.key);
    return keys;
}

std::string allowedConstants()
{
    std::string s;
    for (const auto& c : profileConstants())
        s += (s.empty() ? "" : ", ") + std::string(c.key);
    return s;
}

std::string allowedFigures()
{
    std::string s;
    for (const char* k : kFigureKeys)
        s += (s.empty() ? "" : ", ") + std::string(k);
    return s;
}

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

/// A bound as a user reads it: 1.0, 0.2, 5 ms, 64 GB.
std::string boundText(const ProfileConstant& c, double v)
{
    const std::string key = c.key;
    if (key == "memory_overhead_bytes")
        return number(v / 1e9) + " GB";
    if (key == "host_overhead_per_layer")
        return number(v * 1e3) + " ms";
    std::string s = number(v);
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
    return s;
}

/// What running into a bound says about the runs, by constant and side.
std::string boundAdvice(const std::string& key, bool upper)
{
    struct Advice {
        const char* key;
        const char* low;
        const char* high;
    };
    static const Advice kAdvice[] = {
        { "gemm_efficiency",
            "the runs are slower than GEMMs at a fifth of the GPU's measured matmul rate would make them — check that "
            "each scenario matches its run (GPU, layout, micro-batch, recompute) and that tokens/s is per GPU",
            "the runs are faster than any GEMM rate allows — check tokens/s is per GPU" },
        { "elementwise_traffic",
            "the runs spend less time in element-wise kernels than one pass over the stored activations — check the "
            "recompute and flash_attention settings match the runs",
            "more than 12 passes per stored activation byte: the slowdown is not element-wise — check the GPU and "
            "precision of each scenario" },
        { "host_overhead_per_layer",
            "the runs are faster than the model with no host overhead at all — check tokens/s is per GPU and that the "
            "GPU and layout match the runs",
            "more than 5 ms of host time per layer: the runs are host-bound (data loading, logging, synchronisation), "
            "which no constant describes" },
        { "collective_efficiency",
            "collectives at under a fifth of NCCL's modelled bandwidth — check the interconnects and nics_per_node of "
            "each scenario",
            "collectives faster than NCCL's bus bandwidth allows — check the interconnects of each scenario" },
        { "overlap_slowdown", "overlapped communication that makes compute faster — check the runs' settings",
            "overlap that costs more than the whole communication time — check the runs overlap as the scenario says" },
        { "memory_overhead_bytes",
            "the runs use less memory than the model's states and activations alone — check that sharding, recompute "
            "and micro-batch match the runs and that the peaks are per GPU",
            "more than 64 GB per GPU beyond the model — check the peaks are per GPU and in bytes" },
        { "allocator_slack",
            "reserved is no larger than allocated — check memory_reserved_peak is torch.cuda.max_memory_reserved",
            "more than half of the transient memory is fragmentation — an allocator setting "
            "(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), not a constant" },
    };
    for (const auto& a : kAdvice)
        if (key == a.key)
            return upper ? a.high : a.low;
    return "check the runs";
}

/// Whether boundAdvice(key, upper) tells of runs faster than the model (a time constant at its speed-up side: GEMMs
/// or collectives at their fastest, no host overhead, element-wise traffic or overlap at their cheapest).
bool adviceSaysFaster(const std::string& key, bool upper)
{
    if (key == "gemm_efficiency" || key == "collective_efficiency" || key == "attention_efficiency")
        return upper;
    return !upper && (key == "host_overhead_per_layer" || key == "elementwise_traffic" || key == "overlap_slowdown");
}

/// A fitted constant in the optimiser's coordinates: ln(value) when its lower bound is above zero (a scale), else
/// (value − lo) / (hi − lo) (an amount that may be zero).
struct Param {
    const ProfileConstant* c = nullptr;
    bool logScale = false;
    double ulo = 0, uhi = 1;
    double toU(double x) const { return logScale ? std::log(x) : (x - c->lo) / (c->hi - c->lo); }
    double fromU(double u) const
    {
        const double x = logScale ? std::exp(u) : c->lo + u * (c->hi - c->lo);
        return std::clamp(x, c->lo, c->hi);
    }
};

Param makeParam(const ProfileConstant& c)
{
    Param p;
    p.c = &c;
    p.logScale = c.lo > 0;
    p.ulo = p.toU(c.lo);
    p.uhi = p.toU(c.hi);
    return p;
}

/// The runs with their scenarios' profiles set to the candidate, and the measured figures as one vector.
class Problem
{
public:
    Problem(const std::vector<CalibrationRun>& runs, const FrameworkProfile& start)
        : m_runs(runs)
    {
        m_scenarios.reserve(runs.size());
        for (const auto& r : runs) {
            m_scenarios.push_back(r.scenario);
            m_scenarios.back().profile = start;
            for (Figure f : kFigures)
                if (r.figure(f) > 0)
                    m_rows.push_back({ static_cast<int>(m_scenarios.size() - 1), f, std::log(r.figure(f)) });
        }
    }
    size_t rows() const { return m_rows.size(); }
    Figure figure(size_t row) const { return m_rows[row].figure; }
    int run(size_t row) const { return m_rows[row].run; }

    /// Sets constant `c` of every run's profile.
    void set(const ProfileConstant& c, double value)
    {
        for (auto& s : m_scenarios)
            s.profile.*c.member = value;
    }
    /// ln(model) − ln(measured) for every row; `model` (when given) receives the model's figures.
    void residuals(std::vector<double>& out, std::vector<double>* model = nullptr)
    {
        out.resize(m_rows.size());
        if (model)
            model->resize(m_rows.size());
        size_t row = 0;
        for (size_t i = 0; i < m_scenarios.size(); ++i) {
            evaluateInto(m_scenarios[i], m_result, false);
            for (; row < m_rows.size() && m_rows[row].run == static_cast<int>(i); ++row) {
                const double v = predictedFigure(m_result, m_rows[row].figure);
                if (model)
                    (*model)[row] = v;
                out[row] = std::log(std::max(v, 1e-300)) - m_rows[row].logMeasured;
            }
        }
    }

private:
    struct Row {
        int run;
        Figure figure;
        double logMeasured;
    };
    const std::vector<CalibrationRun>& m_runs;
    std::vector<Scenario> m_scenarios;
    std::vector<Row> m_rows;
    Result m_result;
};

double sumSquares(const std::vector<double>& r)
{
    double s = 0;
    for (double v : r)
        s += v * v;
    return s;
}

/// d residual / d u of one parameter at `u` (central differences, one-sided at a bound), `r0` being the residuals
/// at u; leaves the constant at u.
std::vector<double> derivative(Problem& pb, const Param& p, double u, const std::vector<double>& r0)
{
    const double h = kDerivativeStep * (p.uhi - p.ulo);
    const double hi = std::min(u + h, p.uhi), lo = std::max(u - h, p.ulo);
    std::vector<double> a = r0, b = r0;
    if (hi > u) {
        pb.set(*p.c, p.fromU(hi));
        pb.residuals(a);
    }
    if (lo < u) {
        pb.set(*p.c, p.fromU(lo));
        pb.residuals(b);
    }
    pb.set(*p.c, p.fromU(u));
    std::vector<double> d(r0.size());
    for (size_t i = 0; i < d.size(); ++i)
        d[i] = (a[i] - b[i]) / ((hi > u ? hi : u) - (lo < u ? lo : u));
    return d;
}

/// Solves A x = b for a small symmetric positive definite A (Cholesky); false when A is singular.
bool solve(std::vector<std::vector<double>> A, std::vector<double> b, std::vector<double>& x)
{
    const size_t n = b.size();
    for (size_t j = 0; j < n; ++j) {
        double d = A[j][j];
        for (size_t k = 0; k < j; ++k)
            d -= A[j][k] * A[j][k];
        if (!(d > 0))
            return false;
        A[j][j] = std::sqrt(d);
        for (size_t i = j + 1; i < n; ++i) {
            double s = A[i][j];
            for (size_t k = 0; k < j; ++k)
                s -= A[i][k] * A[j][k];
            A[i][j] = s / A[j][j];
        }
    }
    for (size_t i = 0; i < n; ++i) {
        for (size_t k = 0; k < i; ++k)
            b[i] -= A[i][k] * b[k];
        b[i] /= A[i][i];
    }
    for (size_t i = n; i-- > 0;) {
        for (size_t k = i + 1; k < n; ++k)
            b[i] -= A[k][i] * b[k];
        b[i] /= A[i][i];
    }
    x = b;
    return true;
}

double norm(const std::vector<double>& v) { return std::sqrt(sumSquares(v)); }

std::string countText(int n, const char* kind)
{
    return std::to_string(n) + " " + kind + " measurement" + (n == 1 ? "" : "s");
}

std::string keyList(const std::vector<const ProfileConstant*>& cs)
{
    std::string s;
    for (const auto* c : cs)
        s += (s.empty() ? "" : ", ") + std::string(c->key);
    return s;
}

/// The end of a fit: the parameters, the residuals there, and which parameter sits at a bound the runs push against
/// (one Newton step from there would move it outward by more than kPushesOut of its range), and at which: the upper
/// (pushedUp) or the lower. The side is the one the test found, not u compared with the bound again: within
/// kAtBound of the upper bound but short of it, `u >= uhi` called the upper bound the lower (issue 23 item 8).
struct Fit {
    std::vector<double> u, r;
    std::vector<bool> pushedOut, pushedUp;
    int iterations = 0;
};

/// Projected Levenberg–Marquardt (Moré 1978, "The Levenberg–Marquardt algorithm: implementation and theory", with
/// Marquardt's diagonal scaling): each step solves (JᵀJ + λ·diag JᵀJ) δ = −Jᵀr over the coordinates not held at a
/// bound by the gradient, clamps into the box, and keeps the step only when the sum of squares falls.
/// `r` holds the residuals at `u` on entry; the problem's constants are left at the result.
Fit levenbergMarquardt(
    Problem& pb, const std::vector<Param>& params, std::vector<double> u, std::vector<double> r, int maxIterations)
{
    const size_t k = params.size();
    double S = sumSquares(r);
    // Damping: Marquardt's start 1e-3, ÷3 after a step that lowers S, ×4 after one that does not, given up past 1e12
    // (the step is then shorter than rounding); 1e-12 on the diagonal keeps a flat direction solvable.
    double lambda = 1e-3;
    std::vector<std::vector<double>> J(k), H(k, std::vector<double>(k));
    std::vector<double> g(k), trial;
    auto linearise = [&] {
        for (size_t j = 0; j < k; ++j)
            J[j] = derivative(pb, params[j], u[j], r);
        for (size_t a = 0; a < k; ++a) {
            g[a] = 0;
            for (size_t i = 0; i < r.size(); ++i)
                g[a] += J[a][i] * r[i];
            for (size_t b = 0; b < k; ++b) {
                H[a][b] = 0;
                for (size_t i = 0; i < r.size(); ++i)
                    H[a][b] += J[a][i] * J[b][i];
            }
        }
    };
    auto span = [&](size_t j) { return params[j].uhi - params[j].ulo; };
    auto atLower = [&](size_t j) { return u[j] <= params[j].ulo + kAtBound * span(j); };
    auto atUpper = [&](size_t j) { return u[j] >= params[j].uhi - kAtBound * span(j); };
    Fit out;
    for (; out.iterations < maxIterations; ++out.iterations) {
        linearise();
        std::vector<size_t> freeSet;
        for (size_t j = 0; j < k; ++j)
            if (!((atLower(j) && g[j] > 0) || (atUpper(j) && g[j] < 0)))
                freeSet.push_back(j);
        bool improved = false, converged = freeSet.empty();
        while (!converged && lambda < 1e12) {
            const size_t f = freeSet.size();
            std::vector<std::vector<double>> A(f, std::vector<double>(f));
            std::vector<double> b(f), x;
            for (size_t a = 0; a < f; ++a) {
                for (size_t c = 0; c < f; ++c)
                    A[a][c] = H[freeSet[a]][freeSet[c]];
                A[a][a] += lambda * H[freeSet[a]][freeSet[a]] + 1e-12;
                b[a] = -g[freeSet[a]];
            }
            if (solve(A, b, x)) {
                std::vector<double> next = u;
                for (size_t a = 0; a < f; ++a)
                    next[freeSet[a]] = std::clamp(u[freeSet[a]] + x[a], params[freeSet[a]].ulo, params[freeSet[a]].uhi);
                for (size_t j = 0; j < k; ++j)
                    pb.set(*params[j].c, params[j].fromU(next[j]));
                pb.residuals(trial);
                const double St = sumSquares(trial);
                if (St < S) {
                    double step = 0;
                    for (size_t j = 0; j < k; ++j)
                        step = std::max(step, std::abs(next[j] - u[j]) / span(j));
                    converged = S - St <= 1e-12 * (1 + St) || step < 1e-9;
                    improved = true;
                    lambda = std::max(lambda / 3, 1e-9);
                    u = next;
                    r = trial;
                    S = St;
                    break;
                }
            }
            lambda *= 4;
        }
        for (size_t j = 0; j < k; ++j)
            pb.set(*params[j].c, params[j].fromU(u[j]));
        if (!improved || converged)
            break;
    }
    linearise();
    out.pushedOut.assign(k, false);
    out.pushedUp.assign(k, false);
    for (size_t j = 0; j < k; ++j) {
        if (!(H[j][j] > 0))
            continue;
        const double newton = -g[j] / H[j][j];
        out.pushedUp[j] = atUpper(j) && newton > kPushesOut * span(j);
        out.pushedOut[j] = (atLower(j) && newton < -kPushesOut * span(j)) || out.pushedUp[j];
    }
    out.u = u;
    out.r = r;
    ++out.iterations;
    return out;
}

} // namespace

const char* toString(Figure f) { return kFigureKeys[static_cast<int>(f)]; }

bool isTimeFigure(Figure f) { return f == Figure::TokensPerSecondPerGpu || f == Figure::StepTime; }

double predictedFigure(const Result& r, Figure f)
{
    switch (f) {
    case Figure::TokensPerSecondPerGpu: return r.throughput.tokensPerSecondPerGpu;
    case Figure::StepTime: return r.step.total();
    case Figure::AllocatedPeak: return r.memory.allocatedPeak;
    case Figure::ReservedPeak: return r.memory.reservedPeak;
    }
    return 0;
}

RunsParse parseRuns(std::string_view text, const Catalog& catalog, const Framework* frameworkOverride)
{
    RunsParse out;
    json root;
    std::string err, field;
    if (!detail::parseJsonText(text, root, err, &field)) {
        out.errors.push_back({ field, err });
        return out;
    }
    if (!root.is_object()) {
        out.errors.push_back({ "", std::string("a runs file must be a JSON object, not ") + root.type_name() });
        return out;
    }
    detail::FieldReader r(out.errors, &out.warnings);
    r.unknownKeys(root, "", { "schema", "runs" });
    const auto schema = root.find("schema");
    if (schema == root.end() || !schema->is_string() || schema->get<std::string>() != kRunsSchema) {
        r.error("schema",
            std::string("must be \"") + kRunsSchema + "\""
                + (schema != root.end() && schema->is_string() ? ", not '" + schema->get<std::string>() + "'" : ""));
        return out;
    }
    const auto runs = root.find("runs");
    if (runs == root.end() || !runs->is_array() || runs->empty()) {
        r.error("runs", "is required: a non-empty array of {\"scenario\": {...}, \"measured\": {...}}");
        return out;
    }
    if (runs->size() > kMaxRuns) {
        r.error("runs", "at most " + std::to_string(kMaxRuns) + " runs, not " + std::to_string(runs->size()));
        return out;
    }
    for (size_t i = 0; i < runs->size(); ++i) {
        const json& run = (*runs)[i];
        const std::string path = "runs[" + std::to_string(i) + "]";
        if (!run.is_object()) {
            r.error(path, "must be an object {\"scenario\": {...}, \"measured\": {...}}");
            continue;
        }
        r.unknownKeys(run, path, { "scenario", "measured" });
        CalibrationRun cr;
        bool usable = true;
        const auto sc = run.find("scenario");
        if (sc == run.end() || !sc->is_object()) {
            r.error(path + ".scenario", "is required: a scenario object (shardscope.scenario/1)");
            usable = false;
        } else {
            const ScenarioParse ps = parseScenario(sc->dump(), catalog);
            const std::string sp = path + ".scenario";
            for (const auto& w : ps.warnings)
                r.warning(w.field.empty() ? sp : sp + "." + w.field, w.message);
            for (const auto& e : ps.errors)
                r.error(e.field.empty() ? sp : sp + "." + e.field, e.message);
            usable = ps.ok();
            cr.scenario = ps.scenario;
            if (usable && frameworkOverride && cr.scenario.training.framework != *frameworkOverride) {
                r.warning(sp + ".training.framework",
                    std::string("'") + toString(cr.scenario.training.framework) + "' replaced by --framework "
                        + toString(*frameworkOverride));
                if (!applyFramework(cr.scenario, *frameworkOverride, catalog)) {
                    r.error(sp + ".training.framework",
                        std::string("no profile '") + toString(*frameworkOverride) + "' in the catalog");
                    usable = false;
                }
            }
            if (usable)
                for (const auto& e : validate(cr.scenario)) {
                    r.error(sp + "." + e.field, e.message);
                    usable = false;
                }
        }
        const auto me = run.find("measured");
        if (me == run.end() || !me->is_object()) {
            r.error(path + ".measured", "is required: an object with one or more of " + allowedFigures());
            continue;
        }
        int figures = 0;
        for (auto it = me->begin(); it != me->end(); ++it) {
            const std::string mp = path + ".measured." + it.key();
            int index = -1;
            for (int f = 0; f < 4; ++f)
                if (it.key() == kFigureKeys[f])
                    index = f;
            if (index < 0) {
                r.error(mp, "unknown figure (one of: " + allowedFigures() + ")");
                continue;
            }
            const double v = it->is_number() ? it->get<double>() : 0.0;
            if (!it->is_number() || !std::isfinite(v) || v <= 0) {
                r.error(mp, std::string("must be a number > 0 (") + kFigureUnits[index] + "), not " + it->dump());
                continue;
            }
            cr.measured[index] = v;
            ++figures;
        }
        if (figures == 0 && me->empty())
            r.error(path + ".measured", "has no figure: give one or more of " + allowedFigures());
        if (usable)
            out.runs.push_back(std::move(cr));
    }
    capIssues(out.warnings);
    if (!out.ok()) {
        capIssues(out.errors);
        return out;
    }
    out.framework = out.runs.front().scenario.training.framework;
    for (size_t i = 1; i < out.runs.size(); ++i) {
        const Framework f = out.runs[i].scenario.training.framework;
        if (f != out.framework)
            r.error("runs[" + std::to_string(i) + "].scenario.training.framework",
                std::string("'") + toString(f) + "' differs from runs[0]'s '" + toString(out.framework)
                    + "': calibrate one framework at a time (--framework NAME picks one for all runs)");
    }
    capIssues(out.errors);
    return out;
}

Calibration calibrate(
    const std::vector<CalibrationRun>& runs, const FrameworkProfile& start, const CalibrationOptions& options)
{
    Calibration out;
    out.profile = start;
    if (runs.empty()) {
        out.errors.push_back({ "runs", "no run to calibrate on" });
        return out;
    }
    Problem pb(runs, start);
    std::vector<double> r0, model0;
    pb.residuals(r0, &model0);

    // Figures of each kind: a run's tokens/s and step time are one measurement (tokens/s = batch tokens / step time /
    // GPUs), its allocated and reserved peaks two (they differ by the allocator's slack).
    int timeRuns = 0, memoryFigures = 0;
    for (const auto& run : runs) {
        timeRuns += (run.figure(Figure::TokensPerSecondPerGpu) > 0 || run.figure(Figure::StepTime) > 0) ? 1 : 0;
        memoryFigures
            += (run.figure(Figure::AllocatedPeak) > 0 ? 1 : 0) + (run.figure(Figure::ReservedPeak) > 0 ? 1 : 0);
    }

    // Sensitivity of every figure to every constant at the start.
    std::vector<Param> all;
    std::vector<std::vector<double>> columns;
    for (const auto& c : profileConstants()) {
        all.push_back(makeParam(c));
        const Param& p = all.back();
        columns.push_back(derivative(pb, p, p.toU(start.*c.member), r0));
    }
    auto indexOf = [&](const std::string& key) {
        for (size_t i = 0; i < all.size(); ++i)
            if (key == all[i].c->key)
                return static_cast<int>(i);
        return -1;
    };
    auto sensitive = [&](int i) {
        double m = 0;
        for (double v : columns[i])
            m = std::max(m, std::abs(v));
        return m > kZeroSensitivity;
    };

    // Choose the constants: named ones (options.fit), or by kind, in order, those the runs move, can tell apart from
    // the ones already chosen, and leave a figure to check (each kind fits at most its measurements − 1).
    std::vector<int> chosen;
    std::vector<std::vector<double>> basis; // orthonormal span of the chosen columns
    auto separable = [&](int i, std::string& like) {
        std::vector<double> v = columns[i];
        for (const auto& q : basis) {
            double d = 0;
            for (size_t k = 0; k < v.size(); ++k)
                d += q[k] * v[k];
            for (size_t k = 0; k < v.size(); ++k)
                v[k] -= d * q[k];
        }
        if (norm(v) < kSeparableFraction * norm(columns[i])) {
            for (int j : chosen)
                like += (like.empty() ? "" : ", ") + std::string(all[j].c->key);
            return false;
        }
        const double n = norm(v);
        for (double& x : v)
            x /= n;
        basis.push_back(std::move(v));
        return true;
    };
    std::vector<bool> isChosen(all.size(), false);
    std::vector<int> primary; // the first chosen constant of each kind
    if (!options.fit.empty()) {
        std::vector<int> named;
        std::vector<const ProfileConstant*> time, memory;
        for (const auto& key : options.fit) {
            const int i = indexOf(key);
            if (i < 0) {
                out.errors.push_back(
                    { "fit", "'" + key + "' is not a profile constant (one of: " + allowedConstants() + ")" });
                continue;
            }
            if (std::find(named.begin(), named.end(), i) != named.end())
                continue;
            if (!sensitive(i)) {
                out.errors.push_back({ key,
                    "the model does not read it for these runs (zero sensitivity): it cannot "
                    "be fitted on them" });
                continue;
            }
            named.push_back(i);
            (isTimeConstant(key) ? time : memory).push_back(all[i].c);
        }
        if (static_cast<int>(time.size()) > timeRuns)
            out.errors.push_back({ "fit",
                countText(timeRuns, "time") + " cannot fix " + std::to_string(time.size()) + " constants ("
                    + keyList(time)
                    + "): add runs with tokens_per_second_per_gpu or step_time, or "
                      "fit fewer constants (--fit)" });
        if (static_cast<int>(memory.size()) > memoryFigures)
            out.errors.push_back({ "fit",
                countText(memoryFigures, "memory") + " cannot fix " + std::to_string(memory.size()) + " constants ("
                    + keyList(memory)
                    + "): add runs with "
                      "memory_allocated_peak or memory_reserved_peak, or fit fewer constants (--fit)" });
        if (out.ok())
            for (int i : named) {
                std::string like;
                if (!separable(i, like)) {
                    out.errors.push_back({ all[i].c->key,
                        "its effect on these runs is that of " + like
                            + ": the runs cannot tell them apart — add runs that differ in layout or size, or fit "
                              "fewer" });
                    continue;
                }
                chosen.push_back(i);
                isChosen[i] = true;
            }
        for (size_t i = 0; i < all.size(); ++i)
            if (!isChosen[i])
                out.fixed.push_back({ all[i].c->key, start.*all[i].c->member, "not named by --fit" });
    } else {
        auto chooseKind = [&](const std::vector<std::string>& keys, int measurements, const char* kind) {
            int taken = 0;
            bool anySensitive = false;
            for (size_t k = 0; k < keys.size(); ++k) {
                const int i = indexOf(keys[k]);
                const double value = start.*all[i].c->member;
                if (measurements == 0) {
                    out.fixed.push_back({ keys[k], value, std::string("no ") + kind + " figure was measured" });
                    continue;
                }
                if (!sensitive(i)) {
                    out.fixed.push_back(
                        { keys[k], value, "the model does not read it for these runs (zero sensitivity)" });
                    continue;
                }
                anySensitive = true;
                if (taken + 1 > measurements - 1) {
                    out.fixed.push_back({ keys[k], value,
                        countText(measurements, kind) + " fix at most " + std::to_string(std::max(0, measurements - 1))
                            + " constant(s) and check them: add runs to "
                              "fit it" });
                    continue;
                }
                std::string like;
                if (!separable(i, like)) {
                    out.fixed.push_back({ keys[k], value,
                        "its effect on these runs is that of " + like + " (the runs cannot tell them apart)" });
                    continue;
                }
                if (taken == 0)
                    primary.push_back(i);
                chosen.push_back(i);
                isChosen[i] = true;
                ++taken;
            }
            if (measurements > 0 && anySensitive && taken == 0)
                out.errors.push_back({ "runs",
                    countText(measurements, kind)
                        + " cannot fix a constant and check it: "
                          "add runs, or name the constant to fit (--fit "
                        + keys[0] + ")" });
        };
        chooseKind(timeConstants(), timeRuns, "time");
        chooseKind({ kMemoryConstants[0], kMemoryConstants[1] }, memoryFigures, "memory");
        if (out.ok() && chosen.empty())
            out.errors.push_back({ "runs", "no profile constant moves the measured figures of these runs" });
    }
    std::sort(chosen.begin(), chosen.end());
    if (!out.ok())
        return out;

    // Fit. A chosen constant other than the first of its kind that the runs push against a bound is set aside (an
    // amount pushed below zero reads as none, 0; a scale keeps its value) and the rest refitted: the leading
    // constant explains the runs better alone. The first of a kind, or a constant named with --fit, at a bound the
    // runs push against is refused: it stands in for something the scenarios do not describe.
    // The runs against the start profile, as the mean log ratio of their time figures (> 0: slower). A constant
    // that the fit of the others pushes to its speed-up bound while the runs are slower overall (or the reverse)
    // makes up for the others; its advice would tell the user the opposite of what the runs show (issue 23 item 8:
    // runs 3x slower than the model read "collectives faster than NCCL's bus bandwidth allows").
    double slowdown = 0;
    int timeRows = 0;
    for (size_t i = 0; i < pb.rows(); ++i)
        if (isTimeFigure(pb.figure(i))) {
            slowdown += pb.figure(i) == Figure::StepTime ? -r0[i] : r0[i];
            ++timeRows;
        }
    slowdown = timeRows > 0 ? slowdown / timeRows : 0;
    auto advice = [&](const ProfileConstant& c, bool upper) {
        const bool faster = adviceSaysFaster(c.key, upper);
        if (!isTimeConstant(c.key) || slowdown == 0 || faster == (slowdown < 0))
            return boundAdvice(c.key, upper);
        return std::string("it makes up for the other constants' fit: the runs are ")
            + number(std::exp(std::abs(slowdown))) + "x " + (slowdown > 0 ? "slower" : "faster")
            + " than the model overall";
    };
    std::vector<Param> params;
    Fit fit;
    for (;;) {
        params.clear();
        std::vector<double> u;
        for (int i : chosen) {
            params.push_back(all[i]);
            u.push_back(all[i].toU(start.*all[i].c->member));
            pb.set(*all[i].c, start.*all[i].c->member);
        }
        std::vector<double> r;
        pb.residuals(r);
        fit = levenbergMarquardt(pb, params, u, r, options.maxIterations);
        out.iterations += fit.iterations;
        int setAside = -1;
        for (size_t j = 0; j < params.size() && setAside < 0; ++j)
            if (fit.pushedOut[j] && options.fit.empty()
                && std::find(primary.begin(), primary.end(), chosen[j]) == primary.end())
                setAside = static_cast<int>(j);
        if (setAside >= 0) {
            const Param& p = params[setAside];
            const bool upper = fit.pushedUp[setAside];
            const double value = (p.c->lo == 0 && !upper) ? 0.0 : start.*p.c->member;
            out.fixed.push_back({ p.c->key, value,
                "the runs pushed it to its bound " + boundText(*p.c, upper ? p.c->hi : p.c->lo) + " ("
                    + advice(*p.c, upper) + "): fitted without it" });
            out.profile.*p.c->member = value;
            pb.set(*p.c, value);
            chosen.erase(chosen.begin() + setAside);
            continue;
        }
        for (size_t j = 0; j < params.size(); ++j)
            if (fit.pushedOut[j]) {
                const Param& p = params[j];
                const bool upper = fit.pushedUp[j];
                out.errors.push_back({ p.c->key,
                    "ran into its bound " + boundText(*p.c, upper ? p.c->hi : p.c->lo) + ": " + advice(*p.c, upper) });
            }
        break;
    }
    std::stable_sort(out.fixed.begin(), out.fixed.end(),
        [&](const FixedConstant& a, const FixedConstant& b) { return indexOf(a.key) < indexOf(b.key); });

    for (size_t j = 0; j < params.size(); ++j) {
        const Param& p = params[j];
        const double after = p.fromU(fit.u[j]);
        out.profile.*p.c->member = after;
        out.fitted.push_back({ p.c->key, start.*p.c->member, after, p.c->lo, p.c->hi });
    }
    std::vector<double> rAfter, modelAfter;
    pb.residuals(rAfter, &modelAfter);
    for (size_t i = 0; i < rAfter.size(); ++i)
        out.figures.push_back(
            { pb.run(i), pb.figure(i), runs[pb.run(i)].figure(pb.figure(i)), model0[i], modelAfter[i] });
    // Leave-one-out: each run predicted by the same constants refitted on the others (the user's out-of-sample
    // error, what the ranges of the calibrated profile rest on). A run whose refit fails keeps no held-out figure.
    if (options.leaveOneOut && out.ok() && runs.size() >= 3) {
        CalibrationOptions loo = options;
        loo.leaveOneOut = false;
        loo.fit.clear();
        for (const auto& f : out.fitted)
            loo.fit.push_back(f.key);
        for (size_t k = 0; k < runs.size(); ++k) {
            std::vector<CalibrationRun> others;
            for (size_t j = 0; j < runs.size(); ++j)
                if (j != k)
                    others.push_back(runs[j]);
            const Calibration c = calibrate(others, start, loo);
            if (!c.ok())
                continue;
            const std::vector<CalibrationRun> one { runs[k] };
            Problem held(one, c.profile);
            std::vector<double> r, model;
            held.residuals(r, &model);
            size_t row = 0;
            for (FigureFit& f : out.figures)
                if (f.run == static_cast<int>(k) && row < model.size())
                    f.heldOut = model[row++];
        }
    }
    out.rmsLogErrorBefore = std::sqrt(sumSquares(r0) / static_cast<double>(r0.size()));
    out.rmsLogErrorAfter = std::sqrt(sumSquares(rAfter) / static_cast<double>(rAfter.size()));
    return out;
}

namespace {
json fitReport(const Calibration& c, const std::vector<CalibrationRun>& runs, const std::string& runsFile)
{
    json fitted = json::array(), fixed = json::array(), figures = json::array();
    for (const auto& f : c.fitted)
        fitted.push_back(
            { { "key", f.key }, { "before", f.before }, { "after", f.after }, { "lo", f.lo }, { "hi", f.hi } });
    for (const auto& f : c.fixed)
        fixed.push_back({ { "key", f.key }, { "value", f.value }, { "reason", f.reason } });
    for (const auto& f : c.figures)
        figures.push_back({ { "run", f.run },
            { "name", f.run < static_cast<int>(runs.size()) ? scenarioTitle(runs[f.run].scenario) : std::string() },
            { "figure", toString(f.figure) }, { "measured", f.measured }, { "before", f.before }, { "after", f.after },
            { "error_before", f.before / f.measured - 1 }, { "error_after", f.after / f.measured - 1 },
            { "held_out", f.heldOut } });
    return { { "runs", runs.size() }, { "runs_file", runsFile },
        { "objective", "sum over measured figures of ln(model / measured)^2" },
        { "rms_log_error_before", c.rmsLogErrorBefore }, { "rms_log_error_after", c.rmsLogErrorAfter },
        { "iterations", c.iterations }, { "fitted", fitted }, { "fixed", fixed }, { "figures", figures } };
}
} // namespace

std::string calibratedProfileJson(const Calibration& c, const std::vector<CalibrationRun>& runs, const std::string& id,
    const std::string& name, const std::string& runsFile)
{
    FrameworkProfile p = c.profile;
    p.id = id;
    p.name = name;
    char residual[64];
    std::snprintf(residual, sizeof residual, "%.1f%% rms", 100 * (std::exp(c.rmsLogErrorAfter) - 1));
    for (const auto& f : c.fitted)
        for (auto& [key, source] : p.sources)
            if (key == f.key)
                source = "fitted by shardscope-cli calibrate on " + std::to_string(runs.size()) + " runs (" + runsFile
                    + "), residual " + residual;
    json doc = json::parse(profileJson(p));
    doc["fit"] = fitReport(c, runs, runsFile);
    return doc.dump(2) + "\n";
}

std::string calibrationJson(const Calibration& c, const std::vector<CalibrationRun>& runs, const std::string& runsFile)
{
    json doc = { { "schema", "shardscope.calibration/1" } };
    doc.update(fitReport(c, runs, runsFile));
    return doc.dump(2) + "\n";
}

std::vector<Issue> applyProfile(Scenario& s, const FrameworkProfile& profile)
{
    if (profile.framework != s.training.framework)
        return { { "training.framework",
            std::string("the profile '") + profile.id + "' is for framework '" + toString(profile.framework)
                + "', the scenario's training.framework is '" + toString(s.training.framework) + "'" } };
    s.profile = profile;
    return {};
}

} // namespace shardscope::core
