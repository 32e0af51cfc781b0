// SPDX-License-Identifier: GPL-3.0-or-later
// shardscope-cli: evaluate scenarios and list catalogs (README "Command line", shardscope-cli(1)).
// Exit codes: 0 done, 2 invalid input (stderr names the field), 1 internal error.
#include "calibrate_command.h"
#include "format.h"
#include "import_command.h"
#include "search_command.h"
#ifdef SHARDSCOPE_CLI_EXPORT
#include "export_command.h"
#endif

#include "shardscope/core/catalog_files.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/launch_config.h"
#include "shardscope/core/scenario_json.h"

#include "shardscope/core/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include <unistd.h>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int kOk = 0, kInternal = 1, kInvalid = 2;

const char* kUsage = R"(usage:
  shardscope-cli evaluate FILE.json [--format json|table] [--explain] [--profile PROFILE.json]
  shardscope-cli search FILE.json [--top K] [--format json|csv] [--gpus N | --min-gpus N --max-gpus N]
                 [--max-tp N] [--max-pp N] [--max-cp N] [--max-micro-batch N] [--headroom F]
                 [--objective tokens|cost|headroom] [--threads N] [--no-offload] [--guaranteed-fit]
                 [--overlap-efficiency F]
  shardscope-cli launch-config FILE.json --target deepspeed|fsdp|megatron|nccl-env
  shardscope-cli export FILE.json --out X.png|.svg|.pdf [--width W --height H] [--dpi D]
                 --chart memory|strategy|communication|time|timeline|search|sweep|sizing|rank-map|report
  shardscope-cli catalog gpus|interconnects|models [--format json|table]
  shardscope-cli import FILE --from hf-config|deepspeed|megatron-args|torchtitan|scenario [--base SCENARIO.json]
                 [--gpus N] [--gpu ID] [--out FILE [--force]]
  shardscope-cli calibrate RUNS.json --out PROFILE.json [--force] [--framework NAME] [--fit KEY,...] [--format table|json]
  --out never replaces the command's own input (FILE, --base, RUNS.json; links followed) unless --force is given.
  FILE may be - to read the scenario from standard input.
options:
  --catalog-dir DIR   read gpus.json, links.json, models.json from DIR
  --profile FILE      evaluate, search, launch-config, export: use this profile (from calibrate) for the scenario
exit codes: 0 done, 2 invalid input, 1 internal error
)";

struct Args {
    std::string command, target, format = "json", catalogDir;
    std::map<std::string, std::string> options; ///< every --name value (and --flag) as given
    bool help = false;
};

// Options that take a value; any other --name is a flag.
bool takesValue(const std::string& s)
{
    for (const char* k : { "--format", "--catalog-dir", "--top", "--gpus", "--min-gpus", "--max-gpus", "--max-tp",
             "--max-pp", "--max-cp", "--max-micro-batch", "--headroom", "--overlap-efficiency", "--objective",
             "--threads", "--target", "--chart", "--out", "--width", "--height", "--dpi", "--from", "--base", "--gpu",
             "--profile", "--framework", "--fit" })
        if (s == k)
            return true;
    return false;
}
bool isFlag(const std::string& s)
{
    return s == "--no-offload" || s == "--guaranteed-fit" || s == "--explain" || s == "--force";
}

bool parseArgs(int argc, char** argv, Args& a, std::string& err)
{
    std::vector<std::string> pos;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "-h" || s == "--help") {
            a.help = true;
        } else if (takesValue(s)) {
            if (i + 1 >= argc) {
                err = s + " needs a value";
                return false;
            }
            a.options[s] = argv[++i];
        } else if (isFlag(s)) {
            a.options[s] = "1";
        } else if (s.size() > 1 && s[0] == '-' && s != "-") {
            err = "unknown option " + s;
            return false;
        } else {
            pos.push_back(s);
        }
    }
    if (a.help)
        return true;
    if (pos.size() != 2) {
        err = "expected a command and one argument";
        return false;
    }
    a.command = pos[0];
    a.target = pos[1];
    if (a.options.count("--format"))
        a.format = a.options["--format"];
    if (a.options.count("--catalog-dir"))
        a.catalogDir = a.options["--catalog-dir"];
    if (a.command != "search" && a.format != "json" && a.format != "table") {
        err = "--format must be json or table, not '" + a.format + "'";
        return false;
    }
    return true;
}

// Reads the scenario from a regular file (size checked before reading; FIFOs, devices and directories refused at
// once) or, for "-", at most the parser's limit from standard input.
bool readInput(const std::string& path, std::string& text, std::string& err)
{
    constexpr size_t kLimit = 16u * 1024u * 1024u; // = the scenario parser's limit (core json_fields.h)
    if (path == "-")
        return shardscope::core::readStreamBounded(0, kLimit, "standard input", text, err);
    return shardscope::core::readRegularFile(path, kLimit, text, err);
}

/// Text from a file or the catalog for the terminal: control characters shown as escapes (core/file_io.h).
std::string safe(const std::string& text) { return shardscope::core::escapeForTerminal(text); }

/// Reads, parses and evaluates the scenario FILE (or -), printing warnings and errors (each naming its field).
/// On failure returns false and sets exitCode (2: invalid input). Search skips the evaluation (validate only).
struct Loaded {
    shardscope::core::Scenario scenario;
    shardscope::core::Result result;
    std::vector<shardscope::core::Issue> warnings;
};
bool loadScenario(
    const Args& a, const shardscope::core::Catalog& catalog, Loaded& out, int& exitCode, bool evaluate = true)
{
    namespace core = shardscope::core;
    exitCode = kInvalid;
    std::string text, err;
    if (!readInput(a.target, text, err)) {
        std::cerr << "shardscope-cli: error: (file): " << safe(err) << "\n";
        return false;
    }
    const auto parsed = core::parseScenario(text, catalog);
    for (const auto& w : parsed.warnings)
        std::cerr << "shardscope-cli: warning: " << safe(w.field) << ": " << safe(w.message) << "\n";
    if (!parsed.ok()) {
        for (const auto& e : parsed.errors)
            std::cerr << "shardscope-cli: error: " << (e.field.empty() ? "(file)" : safe(e.field)) << ": "
                      << safe(e.message) << "\n";
        return false;
    }
    out.scenario = parsed.scenario;
    out.warnings = parsed.warnings;
    if (!shardscope::cli::applyProfileOption(a.options, out.scenario, std::cerr))
        return false;
    const auto issues = evaluate ? std::vector<core::Issue> {} : core::validate(out.scenario);
    if (evaluate)
        out.result = core::explain(out.scenario); // with the terms the JSON and the tables list
    const auto& problems = evaluate ? out.result.issues : issues;
    if (!problems.empty() || (evaluate && !out.result.valid)) {
        for (const auto& e : problems)
            std::cerr << "shardscope-cli: error: " << safe(e.field) << ": " << safe(e.message) << "\n";
        return false;
    }
    exitCode = kOk;
    return true;
}

// launch-config FILE --target T: evaluates the scenario (invalid -> exit 2, as evaluate), then prints the
// DeepSpeed JSON, FSDP2 fragment, Megatron-LM arguments or NCCL exports (core/launch_config.h).
int runLaunchConfig(const Args& a, const shardscope::core::Catalog& catalog)
{
    namespace core = shardscope::core;
    const auto t = a.options.find("--target");
    core::LaunchTarget target {};
    if (t == a.options.end() || !core::parseLaunchTarget(t->second, target)) {
        std::cerr << "shardscope-cli: launch-config: --target must be deepspeed, fsdp, megatron or nccl-env"
                  << (t == a.options.end() ? std::string(" (missing)") : ", not '" + safe(t->second) + "'") << "\n";
        return kInvalid;
    }
    Loaded in;
    int code = kOk;
    if (!loadScenario(a, catalog, in, code))
        return code;
    if (const auto refused = core::launchConfigIssues(in.scenario, target); !refused.empty()) {
        for (const auto& e : refused)
            std::cerr << "shardscope-cli: error: " << e.field << ": " << e.message << "\n";
        return kInvalid;
    }
    std::cout << core::launchConfig(in.scenario, target);
    return kOk;
}

// export FILE --chart K --out PATH: evaluates the scenario (invalid -> exit 2, as evaluate), then renders the chart
// with the GUI's chart classes on the offscreen platform (export_command.cpp; GUI builds only).
int runExportCommand(const Args& a, const shardscope::core::Catalog& catalog)
{
    namespace core = shardscope::core;
    Loaded in;
    int code = kOk;
    if (!loadScenario(a, catalog, in, code))
        return code;
#ifdef SHARDSCOPE_CLI_EXPORT
    return shardscope::cli::runExport(in.scenario, in.result, catalog, a.options, std::cerr, std::cerr);
#else
    std::cerr << "shardscope-cli: export: this shardscope-cli was built without the GUI (SHARDSCOPE_BUILD_GUI=OFF)\n";
    return kInternal;
#endif
}

int run(int argc, char** argv)
{
    Args a;
    std::string err;
    if (!parseArgs(argc, argv, a, err)) {
        std::cerr << "shardscope-cli: " << safe(err) << "\n" << kUsage;
        return kInvalid;
    }
    if (a.help) {
        std::cout << kUsage;
        return kOk;
    }
    shardscope::core::Catalog catalog;
    const std::string dir = a.catalogDir.empty() ? shardscope::core::defaultCatalogDirectory() : a.catalogDir;
    if (auto errors = shardscope::core::loadCatalogDirectory(dir, catalog); !errors.ok()) {
        for (const auto& e : errors.errors)
            std::cerr << "shardscope-cli: catalog: " << safe(e) << "\n";
        return a.catalogDir.empty() ? kInternal : kInvalid;
    }

    if (a.command == "catalog") {
        if (a.target != "gpus" && a.target != "interconnects" && a.target != "models") {
            std::cerr << "shardscope-cli: catalog: expected gpus, interconnects or models, not '" << safe(a.target)
                      << "'\n";
            return kInvalid;
        }
        if (a.format == "json")
            std::cout << shardscope::core::catalogToJson(catalog, a.target);
        else
            shardscope::cli::printCatalogTable(std::cout, catalog, a.target);
        return kOk;
    }
    if (a.command == "evaluate" || a.command == "search") {
        const bool search = a.command == "search";
        Loaded in;
        int code = kOk;
        if (!loadScenario(a, catalog, in, code, !search))
            return code;
        if (search)
            return shardscope::cli::runSearch(in.scenario, catalog, a.options, std::cout, std::cerr);
        auto& result = in.result;
        for (const auto& w : in.warnings)
            result.warnings.push_back(w);
        if (a.options.count("--explain"))
            shardscope::cli::printExplanation(std::cout, result);
        else if (a.format == "json")
            std::cout << shardscope::core::resultToJson(result);
        else
            shardscope::cli::printResultTable(std::cout, in.scenario, result);
        return kOk;
    }
    if (a.command == "launch-config")
        return runLaunchConfig(a, catalog);
    if (a.command == "calibrate") {
        std::string text;
        if (!readInput(a.target, text, err)) {
            std::cerr << "shardscope-cli: error: (file): " << safe(err) << "\n";
            return kInvalid;
        }
        const std::string format = a.options.count("--format") ? a.format : "table"; // a table unless asked
        return shardscope::cli::runCalibrate(text, a.target, catalog, a.options, format, std::cout, std::cerr);
    }
    if (a.command == "import")
        return shardscope::cli::runImport(a.target, catalog, a.options, std::cout, std::cerr);
    if (a.command == "export")
        return runExportCommand(a, catalog);
    std::cerr << "shardscope-cli: unknown command '" << safe(a.command) << "'\n" << kUsage;
    return kInvalid;
}

} // namespace

/// Every byte of standard output reached its destination (a full disk, /dev/full, a closed pipe): otherwise
/// the command failed, whatever it computed.
int checkedExit(int code)
{
    std::cout.flush();
    if (std::cout.fail() || std::fflush(stdout) != 0) {
        // The stream keeps no errno of its first failure: ask the descriptor itself why (ENOSPC, EPIPE, EIO).
        errno = 0;
        const int err = ::write(STDOUT_FILENO, "\n", 1) < 0 ? errno : 0;
        std::cerr << "shardscope-cli: error: cannot write standard output"
                  << (err ? std::string(": ") + std::strerror(err) : "") << "\n";
        return kInternal;
    }
    return code;
}

int main(int argc, char** argv)
{
    try {
        return checkedExit(run(argc, argv));
    } catch (const std::exception& e) {
        std::cerr << "shardscope-cli: internal error: " << e.what() << "\n";
        return kInternal;
    } catch (...) {
        std::cerr << "shardscope-cli: internal error\n";
        return kInternal;
    }
}
