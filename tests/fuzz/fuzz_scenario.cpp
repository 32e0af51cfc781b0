// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target over the whole input path of a scenario file: parseScenario -> validate -> evaluate -> resultToJson,
// plus the save/reopen round trip (scenarioToJson -> parseScenario -> evaluate gives the same result).
//
// Built two ways (tests/fuzz/CMakeLists.txt):
//  * with clang and SHARDSCOPE_FUZZ=ON: a libFuzzer binary (`./dev.sh fuzz [SECONDS]`);
//  * otherwise: a replay program (fuzz_main.h) that runs every file given on its command line through the same
//    checks; ctest runs it over resources/scenarios and tests/fuzz/regressions.
//
// Promises (fuzz_checks.h): no exception escapes parseScenario, evaluate, resultToJson or scenarioToJson; every
// parse error and validation issue has a message, every validation issue names its field;
// evaluate(s).valid == validate(s).empty(); valid results are finite, not negative and free of integer overflow;
// a saved valid scenario reopens to the same result.
#include "fuzz_checks.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace shardscope_fuzz;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ScenarioParse parsed = parseScenario(text, catalog());
    checkIssues("parse errors", parsed.errors, false);
    checkIssues("parse warnings", parsed.warnings, false); // an unknown key "" gives the field ""
    if (parsed.ok())
        checkScenario(parsed.scenario);
    return 0;
}

#include "fuzz_main.h"
