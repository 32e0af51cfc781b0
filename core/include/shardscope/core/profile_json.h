// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Framework profiles as shardscope.profile/1 documents (resources/profiles/*.json, `shardscope-cli calibrate`).

#include "shardscope/core/profile.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

inline constexpr const char* kProfileSchema = "shardscope.profile/1";

struct ProfileParse {
    FrameworkProfile profile;
    std::vector<std::string> errors; ///< "values.gemm_efficiency: must be in [0.2, 1]"
    [[nodiscard]] bool ok() const { return errors.empty(); }
};
/// Parses a shardscope.profile/1 document; every value is checked against its bounds.
ProfileParse parseProfile(std::string_view json);
/// The profile as a shardscope.profile/1 document (what calibrate writes); parseProfile reads it back equal.
std::string profileJson(const FrameworkProfile& p);

} // namespace shardscope::core
