// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whole numbers from files, range-checked before they are narrowed or multiplied (issue 23 item 4): every reader
// (the importers, json_fields, the Megatron arguments, the TOML reader) parses through these, so 4294967328 is never
// read as 32, nor 2^32 + 2 as 2, and a product of degrees never wraps to 0.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace shardscope::core::detail {

/// Largest count narrowed into an int (layers, heads, experts, degrees, GPUs): far above any run, below INT_MAX.
inline constexpr int64_t kMaxIntCount = 1'000'000'000;
/// Largest whole number read from a JSON number: doubles hold whole numbers exactly up to 2^53 ≈ 9.007e15 (IEEE 754).
inline constexpr int64_t kMaxWhole = 9'000'000'000'000'000;

/// "must be a whole number from LO to HI, not TEXT": the rule every reader states.
inline std::string wholeRule(int64_t lo, int64_t hi, std::string_view given)
{
    return "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not "
        + std::string(given);
}

/// Decimal text (an optional '-', then digits only) as a whole number in [lo, hi]; false when it is not one or lies
/// outside (digits are accumulated with an overflow check, never wrapped).
inline bool parseWhole(std::string_view text, int64_t lo, int64_t hi, int64_t& out)
{
    const bool negative = !text.empty() && text.front() == '-';
    if (negative)
        text.remove_prefix(1);
    if (text.empty())
        return false;
    int64_t v = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
        if (v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10)
            return false;
        v = v * 10 + (c - '0');
    }
    v = negative ? -v : v;
    if (v < lo || v > hi)
        return false;
    out = v;
    return true;
}

/// A JSON number (as double) that is a whole number in [lo, hi]; both limits must be within ±2^53 (exact doubles).
inline bool wholeFromDouble(double d, int64_t lo, int64_t hi, int64_t& out)
{
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi))
        return false;
    out = static_cast<int64_t>(d);
    return true;
}

/// a × b into `out` when both are >= 0 and the product is at most `cap`; false otherwise (no wrap-around).
inline bool boundedProduct(int64_t a, int64_t b, int64_t cap, int64_t& out)
{
    if (a < 0 || b < 0 || (a != 0 && b > cap / a))
        return false;
    out = a * b;
    return true;
}

/// `v` as an int when it lies in [lo, hi] (hi at most INT_MAX); false otherwise.
inline bool narrowInt(int64_t v, int64_t lo, int64_t hi, int& out)
{
    if (v < lo || v > hi || v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min())
        return false;
    out = static_cast<int>(v);
    return true;
}

} // namespace shardscope::core::detail
