// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target over framework profiles (shardscope.profile/1, profile.h parseProfile) (issue 23).
// Promises: no crash, hang or exception; every error has a message; a profile that parses is written back
// (profileJson) and reads again without error.
#include "fuzz_checks.h"

#include "shardscope/core/profile.h"
#include "shardscope/core/profile_json.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace shardscope_fuzz;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const ProfileParse parsed = parseProfile(text);
    for (const auto& e : parsed.errors)
        if (e.empty())
            fail("profile errors", "an error without a message");
    if (parsed.ok()) {
        const ProfileParse again = parseProfile(profileJson(parsed.profile));
        if (!again.ok())
            fail("a profile written back does not read again", again.errors.front());
    }
    return 0;
}

#include "fuzz_main.h"
