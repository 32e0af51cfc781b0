// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target over calibrate's runs file (shardscope.runs/1, calibrate.h parseRuns) (issue 23).
// Promises: no crash, hang or exception; every issue has a message and the lists are capped (kMaxIssuesListed + 1);
// every run read is a valid scenario (parseRuns validates each) that keeps checkScenario's promises.
#include "fuzz_checks.h"

#include "shardscope/core/calibrate.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace shardscope_fuzz;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const RunsParse parsed = parseRuns(text, catalog());
    checkIssues("runs errors", parsed.errors, false);
    checkIssues("runs warnings", parsed.warnings, false);
    if (parsed.errors.size() > kMaxIssuesListed + 1 || parsed.warnings.size() > kMaxIssuesListed + 1)
        fail("an uncapped issue list");
    if (parsed.ok())
        for (const auto& run : parsed.runs)
            checkScenario(run.scenario);
    return 0;
}

#include "fuzz_main.h"
