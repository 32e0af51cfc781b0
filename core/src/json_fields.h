// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Typed, checked reads from nlohmann::json objects. Every error names its field (dotted path) and the rule.

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope::core::detail {

using nlohmann::json;

/// What a linear pre-scan sees outside strings: the largest nesting depth of [ and {, and an upper bound on the
/// number of values (one per [, { and comma, plus one). Parsing refuses deeper or larger documents before building
/// anything (no deep recursion, no millions of allocations).
struct JsonExtent {
    int depth = 0;
    size_t values = 0;
};
JsonExtent scanJsonExtent(std::string_view text);
constexpr int kMaxJsonDepth = 64;
/// A scenario holds a few hundred values, a file with many pins some tens of thousands.
constexpr size_t kMaxJsonValues = size_t(1) << 20;
/// Largest document the parsers accept (bytes).
constexpr size_t kMaxJsonBytes = size_t { 16 } * 1024 * 1024;

/// Parses text into `out`, or returns an error message (size, NUL bytes, depth, syntax with byte offset, duplicate
/// keys). For a duplicate key, `field` (when given) receives its dotted path.
bool parseJsonText(std::string_view text, json& out, std::string& error, std::string* field = nullptr);

class FieldReader
{
public:
    FieldReader(std::vector<Issue>& errors, std::vector<Issue>* warnings)
        : m_errors(errors)
        , m_warnings(warnings)
    { }
    void error(const std::string& field, const std::string& message) { m_errors.push_back({ field, message }); }
    void warning(const std::string& field, const std::string& message)
    {
        if (m_warnings)
            m_warnings->push_back({ field, message });
    }
    /// Reports keys of `obj` that are not in `known` as warnings (unknown fields are kept as warnings, not errors).
    void unknownKeys(const json& obj, const std::string& path, std::initializer_list<std::string_view> known);
    bool number(const json& obj, const char* key, const std::string& path, double& out);
    bool integer(const json& obj, const char* key, const std::string& path, int& out);
    bool integer64(const json& obj, const char* key, const std::string& path, int64_t& out);
    bool boolean(const json& obj, const char* key, const std::string& path, bool& out);
    bool string(const json& obj, const char* key, const std::string& path, std::string& out);
    template <class E> bool enumeration(const json& obj, const char* key, const std::string& path, E& out,
        std::initializer_list<std::pair<std::string_view, E>> names)
    {
        std::string s;
        if (!string(obj, key, path, s))
            return false;
        for (const auto& [name, value] : names)
            if (name == s) {
                out = value;
                return true;
            }
        std::string allowed;
        for (const auto& [name, value] : names)
            allowed += (allowed.empty() ? "" : ", ") + std::string(name);
        error(join(path, key), "'" + s + "' is not one of: " + allowed);
        return false;
    }
    static std::string join(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

private:
    std::vector<Issue>& m_errors;
    std::vector<Issue>* m_warnings;
};

/// Field readers for catalog-shaped objects; `requireAll` demands every field (a catalog entry, or an object without id).
void readGpu(FieldReader& r, const json& o, const std::string& path, GpuSpec& g, bool requireAll);
void readLink(FieldReader& r, const json& o, const std::string& path, LinkSpec& l, bool requireAll);
void readModel(FieldReader& r, const json& o, const std::string& path, ModelSpec& m, bool requireAll);

json gpuToJson(const GpuSpec& g);
json linkToJson(const LinkSpec& l);
json modelToJson(const ModelSpec& m);

} // namespace shardscope::core::detail
