// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz targets over the importers (issue 23): one binary per source, chosen by SHARDSCOPE_FUZZ_IMPORT
// (HfConfig, DeepSpeed, MegatronArgs, TorchTitan; tests/fuzz/CMakeLists.txt): importConfig on the bytes, then, when
// the import succeeds, the same promises as a scenario file (fuzz_checks.h checkScenario).
//
// Promises: no crash, hang or exception (a division by zero, a wrapped product, deep recursion); every error and
// warning has a message; the lists are capped (at most kMaxIssuesListed + 1 issues, result.h); an imported scenario
// keeps checkScenario's promises.
#include "fuzz_checks.h"

#include "shardscope/core/import.h"

#include <cstddef>
#include <cstdint>

#ifndef SHARDSCOPE_FUZZ_IMPORT
#error "SHARDSCOPE_FUZZ_IMPORT must name an ImportSource (HfConfig, DeepSpeed, MegatronArgs, TorchTitan)"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace shardscope_fuzz;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ImportResult r
        = importConfig(ImportSource::SHARDSCOPE_FUZZ_IMPORT, text, defaultScenario(catalog()), true, {}, catalog());
    checkIssues("import errors", r.errors, false);
    checkIssues("import warnings", r.warnings, false);
    if (r.errors.size() > kMaxIssuesListed + 1 || r.warnings.size() > kMaxIssuesListed + 1)
        fail("an uncapped issue list",
            std::to_string(r.errors.size()) + " errors, " + std::to_string(r.warnings.size()) + " warnings");
    if (r.ok())
        checkScenario(r.scenario);
    return 0;
}

#include "fuzz_main.h"
