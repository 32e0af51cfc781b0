// SPDX-License-Identifier: GPL-3.0-or-later
#include "import_command.h"

#include "shardscope/core/file_io.h"
#include "shardscope/core/import.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/evaluate.h"

#include <map>
#include <vector>

namespace shardscope::cli {

namespace {
constexpr int kOk = 0, kInternal = 1, kInvalid = 2;

std::string safe(const std::string& text) { return core::escapeForTerminal(text); }

bool readFile(const std::string& path, std::string& text, std::string& err)
{
    if (path == "-")
        return core::readStreamBounded(0, core::kMaxImportBytes, "standard input", text, err);
    return core::readRegularFile(path, core::kMaxImportBytes, text, err);
}

/// A whole number from 1 to 10^7 (validation's GPU limit).
bool parseGpus(const std::string& text, int& out)
{
    if (text.empty() || text.size() > 8 || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    out = std::stoi(text);
    return out >= 1 && out <= 10'000'000;
}
} // namespace

int runImport(const std::string& file, const core::Catalog& catalog, const std::map<std::string, std::string>& options,
    std::ostream& out, std::ostream& err)
{
    const auto opt = [&](const char* k) -> const std::string* {
        const auto it = options.find(k);
        return it == options.end() ? nullptr : &it->second;
    };
    core::ImportSource source {};
    const std::string* from = opt("--from");
    if (!from || !core::parseImportSource(*from, source)) {
        err << "shardscope-cli: import: --from must be one of: " << core::importSourceNames()
            << (from ? ", not '" + safe(*from) + "'" : std::string(" (missing)")) << "\n";
        return kInvalid;
    }
    core::ImportOptions io;
    if (const std::string* g = opt("--gpus"); g && !parseGpus(*g, io.gpus)) {
        err << "shardscope-cli: import: --gpus must be a whole number from 1 to 10000000, not '" << safe(*g) << "'\n";
        return kInvalid;
    }
    if (const std::string* g = opt("--gpu"))
        io.gpu = *g;

    core::Scenario base = core::defaultScenario(catalog);
    const std::string* basePath = opt("--base");
    if (const std::string* o = opt("--out"); o && !opt("--force"))
        for (const std::string* input : { &file, basePath })
            if (input && *input != "-" && core::sameExistingFile(*input, *o)) {
                err << "shardscope-cli: import: error: --out: '" << safe(*o) << "' is the same file as the input '"
                    << safe(*input) << "': writing would replace it; choose another --out, or pass --force\n";
                return kInvalid;
            }
    if (basePath) {
        std::string text, e;
        if (!core::readRegularFile(*basePath, core::kMaxImportBytes, text, e)) {
            err << "shardscope-cli: import: --base: " << safe(e) << "\n";
            return kInvalid;
        }
        const core::ScenarioParse parsed = core::parseScenario(text, catalog);
        for (const auto& w : parsed.warnings)
            err << "shardscope-cli: import: warning: --base " << safe(w.field) << ": " << safe(w.message) << "\n";
        if (!parsed.ok()) {
            for (const auto& e2 : parsed.errors)
                err << "shardscope-cli: import: error: --base " << (e2.field.empty() ? "(file)" : safe(e2.field))
                    << ": " << safe(e2.message) << "\n";
            return kInvalid;
        }
        base = parsed.scenario;
    }

    std::string text, e;
    if (!readFile(file, text, e)) {
        err << "shardscope-cli: import: error: (file): " << safe(e) << "\n";
        return kInvalid;
    }
    core::ImportResult r = core::importConfig(source, text, base, basePath == nullptr, io, catalog);
    for (const auto& w : r.warnings)
        err << "shardscope-cli: import: warning: " << (w.field.empty() ? "(file)" : safe(w.field)) << ": "
            << safe(w.message) << "\n";
    if (!r.ok()) {
        for (const auto& x : r.errors)
            err << "shardscope-cli: import: error: " << (x.field.empty() ? "(file)" : safe(x.field)) << ": "
                << safe(x.message) << "\n";
        return kInvalid;
    }
    if (source != core::ImportSource::Scenario)
        r.scenario.name.clear(); // named from its content (scenario_name.h), not after the base

    // Where each field came from, one line per origin.
    std::vector<std::string> order;
    std::map<std::string, std::string> byOrigin;
    for (const auto& f : r.fromWhere) {
        if (!byOrigin.count(f.origin))
            order.push_back(f.origin);
        auto& list = byOrigin[f.origin];
        list += (list.empty() ? "" : ", ") + f.field;
    }
    for (const auto& origin : order)
        err << "shardscope-cli: import: from " << origin << ": " << byOrigin[origin] << "\n";
    for (const auto& issue : core::validate(r.scenario))
        err << "shardscope-cli: import: warning: the imported scenario does not validate yet: " << safe(issue.field)
            << ": " << safe(issue.message) << "\n";

    const std::string json = core::scenarioToJson(r.scenario, catalog);
    if (const std::string* path = opt("--out")) {
        std::string we;
        if (!core::writeFileAtomically(*path, json, we)) {
            err << "shardscope-cli: import: error: " << safe(we) << "\n";
            return kInternal;
        }
        return kOk;
    }
    out << json;
    return kOk;
}

} // namespace shardscope::cli
