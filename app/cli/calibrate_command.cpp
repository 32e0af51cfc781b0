// SPDX-License-Identifier: GPL-3.0-or-later
// shardscope-cli calibrate and --profile (README "Command line"; docs/model.md §calibration).
#include "calibrate_command.h"

#include "format.h"

#include "shardscope/core/calibrate.h"
#include "shardscope/core/file_io.h"
#include "shardscope/core/scenario_name.h"
#include "shardscope/core/profile_json.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <vector>

namespace shardscope::cli {

namespace {

constexpr int kOk = 0, kInternal = 1, kInvalid = 2;
constexpr size_t kProfileLimit = 16u * 1024u * 1024u; // = the JSON parsers' limit (core json_fields.h)

std::string safe(const std::string& text) { return core::escapeForTerminal(text); }

std::string baseName(const std::string& path)
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The profile id a path gives: its file name without ".json" (and without ".profile" before it).
std::string idFromPath(const std::string& path)
{
    std::string id = baseName(path);
    for (const char* suffix : { ".json", ".profile" })
        if (id.size() > std::string(suffix).size() && id.ends_with(suffix))
            id.resize(id.size() - std::string(suffix).size());
    return id;
}

std::string figureValue(core::Figure f, double v)
{
    switch (f) {
    case core::Figure::TokensPerSecondPerGpu: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f tok/s", v);
        return buf;
    }
    case core::Figure::StepTime: return seconds(v);
    case core::Figure::AllocatedPeak:
    case core::Figure::ReservedPeak: return bytes(v);
    }
    return {};
}

/// A constant's value in its unit: bytes and seconds as the tables print them, others as numbers.
std::string constantValue(const std::string& key, double v)
{
    if (key == "memory_overhead_bytes")
        return bytes(v);
    if (key == "host_overhead_per_layer")
        return seconds(v);
    std::ostringstream os;
    os << v;
    return os.str();
}

std::string percent(double ratio)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * (ratio - 1));
    return buf;
}

void printTable(std::ostream& os, const core::Calibration& c, const std::vector<core::CalibrationRun>& runs,
    const std::string& runsPath)
{
    os << "calibration on " << runs.size() << " run" << (runs.size() == 1 ? "" : "s") << " (" << safe(runsPath) << "), "
       << c.iterations << " iteration" << (c.iterations == 1 ? "" : "s") << "\n\n";
    os << std::left << std::setw(4) << "run" << std::setw(27) << "figure" << std::setw(14) << "measured"
       << std::setw(24) << "model before"
       << "model after"
       << "\n";
    int last = -1;
    for (const auto& f : c.figures) {
        if (f.run != last)
            os << "  " << safe(core::scenarioTitle(runs[f.run].scenario)) << "\n";
        last = f.run;
        os << std::left << std::setw(4) << f.run << std::setw(27) << core::toString(f.figure) << std::setw(14)
           << figureValue(f.figure, f.measured) << std::setw(24)
           << (figureValue(f.figure, f.before) + " (" + percent(f.before / f.measured) + ")")
           << figureValue(f.figure, f.after) + " (" + percent(f.after / f.measured) + ")"
           << "\n";
    }
    char rms[96];
    std::snprintf(rms, sizeof rms, "%.1f%% before, %.1f%% after", 100 * (std::exp(c.rmsLogErrorBefore) - 1),
        100 * (std::exp(c.rmsLogErrorAfter) - 1));
    os << "\nrms error: " << rms << "\n\nfitted:\n";
    for (const auto& f : c.fitted)
        os << "  " << std::left << std::setw(26) << f.key << std::setw(14) << constantValue(f.key, f.before) << "-> "
           << std::setw(14) << constantValue(f.key, f.after) << "bounds [" << constantValue(f.key, f.lo) << ", "
           << constantValue(f.key, f.hi) << "]\n";
    os << "kept:\n";
    for (const auto& f : c.fixed)
        os << "  " << std::left << std::setw(26) << f.key << std::setw(14) << constantValue(f.key, f.value) << f.reason
           << "\n";
}

} // namespace

bool applyProfileOption(const std::map<std::string, std::string>& options, core::Scenario& scenario, std::ostream& err)
{
    const auto it = options.find("--profile");
    if (it == options.end())
        return true;
    std::string text, error;
    if (!core::readRegularFile(it->second, kProfileLimit, text, error)) {
        err << "shardscope-cli: error: --profile: " << safe(error) << "\n";
        return false;
    }
    const core::ProfileParse parsed = core::parseProfile(text);
    if (!parsed.ok()) {
        for (const auto& e : parsed.errors)
            err << "shardscope-cli: error: " << safe(it->second) << ": " << safe(e) << "\n";
        return false;
    }
    const auto issues = core::applyProfile(scenario, parsed.profile);
    for (const auto& e : issues)
        err << "shardscope-cli: error: " << safe(e.field) << ": " << safe(e.message) << " (--profile "
            << safe(it->second) << ")\n";
    return issues.empty();
}

int runCalibrate(const std::string& runsText, const std::string& runsPath, const core::Catalog& catalog,
    const std::map<std::string, std::string>& options, const std::string& format, std::ostream& out, std::ostream& err)
{
    const auto outPath = options.find("--out");
    if (outPath == options.end() || outPath->second.empty()) {
        err << "shardscope-cli: calibrate: --out PROFILE.json is required (where the fitted profile is written)\n";
        return kInvalid;
    }
    if (!options.count("--force") && runsPath != "-" && core::sameExistingFile(runsPath, outPath->second)) {
        err << "shardscope-cli: calibrate: error: --out: '" << safe(outPath->second)
            << "' is the same file as the runs file '" << safe(runsPath)
            << "': writing would replace it; choose another --out, or pass --force\n";
        return kInvalid;
    }
    core::Framework override {};
    const auto fw = options.find("--framework");
    if (fw != options.end() && !core::frameworkFromString(fw->second, override)) {
        err << "shardscope-cli: calibrate: --framework must be megatron, deepspeed, pytorch or pytorch-compile, not '"
            << safe(fw->second) << "'\n";
        return kInvalid;
    }
    core::CalibrationOptions opts;
    if (const auto fit = options.find("--fit"); fit != options.end()) {
        std::stringstream keys(fit->second);
        for (std::string key; std::getline(keys, key, ',');)
            if (!key.empty())
                opts.fit.push_back(key);
    }

    const core::RunsParse parsed = core::parseRuns(runsText, catalog, fw != options.end() ? &override : nullptr);
    for (const auto& w : parsed.warnings)
        err << "shardscope-cli: warning: " << safe(w.field) << ": " << safe(w.message) << "\n";
    if (!parsed.ok()) {
        for (const auto& e : parsed.errors)
            err << "shardscope-cli: error: " << (e.field.empty() ? "(file)" : safe(e.field)) << ": " << safe(e.message)
                << "\n";
        return kInvalid;
    }
    if (fw != options.end())
        err << "shardscope-cli: calibrate: every run calibrated as " << core::toString(parsed.framework)
            << " (--framework)\n";

    const core::FrameworkProfile& start = parsed.runs.front().scenario.profile;
    const core::Calibration c = core::calibrate(parsed.runs, start, opts);
    if (!c.ok()) {
        for (const auto& e : c.errors)
            err << "shardscope-cli: error: " << safe(e.field) << ": " << safe(e.message) << "\n";
        return kInvalid;
    }
    const std::string file = baseName(runsPath == "-" ? std::string("standard input") : runsPath);
    const std::string id = idFromPath(outPath->second);
    const std::string name
        = start.name + ", calibrated on " + std::to_string(parsed.runs.size()) + " runs (" + file + ")";
    std::string error;
    if (!core::writeFileAtomically(
            outPath->second, core::calibratedProfileJson(c, parsed.runs, id, name, file), error)) {
        err << "shardscope-cli: calibrate: " << safe(error) << "\n";
        return kInternal;
    }
    if (format == "json")
        out << core::calibrationJson(c, parsed.runs, file);
    else {
        printTable(out, c, parsed.runs, runsPath);
        out << "\nwrote " << safe(outPath->second) << " (profile '" << safe(id) << "', framework "
            << core::toString(start.framework) << "); use it with --profile\n";
    }
    return kOk;
}

} // namespace shardscope::cli
