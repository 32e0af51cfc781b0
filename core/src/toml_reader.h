// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small, strict, bounded reader for the TOML subset job files use (torchtitan's train_configs/*.toml): tables,
// dotted keys, basic and literal strings, integers, floats, booleans, arrays and inline tables (TOML v1.0.0,
// https://toml.io/en/v1.0.0). Refused, with the line: multi-line strings, dates and times, arrays of tables,
// duplicate keys, nesting deeper than kMaxTomlDepth. Nothing is evaluated (internal to the torchtitan importer).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope::core::detail {

inline constexpr int kMaxTomlDepth = 16;
inline constexpr size_t kMaxTomlValues = 100'000;

struct TomlMember; // a table's key and value (defined below: a vector may hold an incomplete type, a pair may not)

struct TomlValue {
    enum class Kind { String, Integer, Float, Boolean, Array, Table };
    Kind kind = Kind::Table;
    std::string string;
    int64_t integer = 0;
    double number = 0; ///< Float, and Integer converted
    bool boolean = false;
    std::vector<TomlValue> array;
    std::vector<TomlMember> table; ///< in file order
    int line = 0;

    /// The member `key` of a table, or nullptr.
    [[nodiscard]] const TomlValue* find(std::string_view key) const;
    [[nodiscard]] const char* kindName() const { return kindName(kind); }
    [[nodiscard]] static const char* kindName(Kind kind);
};

struct TomlMember {
    std::string name;
    TomlValue value;
};

struct TomlParse {
    TomlValue root;
    std::string error; ///< "line 12: ..." when the text is not in the subset
    [[nodiscard]] bool ok() const { return error.empty(); }
};

TomlParse parseToml(std::string_view text);

} // namespace shardscope::core::detail
