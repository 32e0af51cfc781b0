// SPDX-License-Identifier: GPL-3.0-or-later
// Guided lessons (shardscope.lesson/1): parsing with merge-patched step scenarios, changed-field diffs, and
// placeholder rendering in human units. See lesson.h.
#include "shardscope/core/lesson.h"

#include "shardscope/core/evaluate.h"
#include "shardscope/core/file_io.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/term_keys.h"
#include "shardscope/core/catalog_files.h"

#include "json_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>

namespace shardscope::core {

using detail::json;

namespace {

constexpr const char* kLessonSchema = "shardscope.lesson/1";

// ---- Number formatting (locale-independent: the GUI runs with the user's locale set) ----

std::string fixed(double v, int decimals)
{
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
    if (res.ec != std::errc())
        return "?";
    std::string s(buf, res.ptr);
    if (!s.empty() && s[0] == '-') {
        // "-0.00" after rounding has no sign; other negatives get a typographic minus (U+2212), as in the prose
        const bool allZero = std::all_of(s.begin() + 1, s.end(), [](char c) { return c == '0' || c == '.'; });
        s.replace(0, 1, allZero ? "" : "\u2212");
    }
    return s;
}

std::string grouped(double v)
{
    std::string digits = fixed(std::fabs(v), 0);
    std::string out;
    const int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
        out += digits[static_cast<size_t>(i)];
        if ((n - 1 - i) % 3 == 0 && i != n - 1)
            out += ',';
    }
    return (v < 0 && out != "0" ? "\u2212" : "") + out;
}

constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;

std::string memoryText(double b, LessonBytes units = LessonBytes::Binary)
{
    const bool dec = units == LessonBytes::Decimal;
    const double k = dec ? 1e3 : kKiB, m = dec ? 1e6 : kMiB, g = dec ? 1e9 : kGiB;
    const char* gName = dec ? " GB" : " GiB";
    const double a = std::fabs(b);
    if (a == 0)
        return std::string("0") + gName;
    if (a >= 1000 * g)
        return fixed(b / g, 0) + gName;
    if (a >= 100 * g)
        return fixed(b / g, 1) + gName;
    if (a >= g)
        return fixed(b / g, 2) + gName;
    if (a >= m)
        return fixed(b / m, a >= 100 * m ? 0 : 1) + (dec ? " MB" : " MiB");
    if (a >= k)
        return fixed(b / k, 1) + (dec ? " kB" : " KiB");
    return fixed(b, 0) + " B";
}

std::string volumeText(double b, LessonBytes units)
{
    const double t = units == LessonBytes::Decimal ? 1e12 : kTiB;
    if (std::fabs(b) >= t)
        return fixed(b / t, 2) + (units == LessonBytes::Decimal ? " TB" : " TiB");
    return memoryText(b, units);
}

std::string secondsText(double s)
{
    const double a = std::fabs(s);
    if (a == 0)
        return "0 ms";
    if (a >= 100)
        return fixed(s, 0) + " s";
    if (a >= 1)
        return fixed(s, 2) + " s";
    if (a >= 0.1)
        return fixed(s * 1e3, 0) + " ms";
    if (a >= 1e-3)
        return fixed(s * 1e3, 1) + " ms";
    return fixed(s * 1e6, a >= 1e-5 ? 0 : 1) + " µs";
}

std::string countText(double n)
{
    const double a = std::fabs(n);
    if (a >= 1e12)
        return fixed(n / 1e12, 2) + " T";
    if (a >= 1e9)
        return fixed(n / 1e9, 1) + " B";
    if (a >= 1e6)
        return fixed(n / 1e6, 1) + " M";
    return grouped(n);
}

std::string flopsText(double f)
{
    const double a = std::fabs(f);
    if (a >= 1e15)
        return fixed(f / 1e15, 2) + " PFLOP";
    if (a >= 1e12)
        return fixed(f / 1e12, 2) + " TFLOP";
    if (a >= 1e9)
        return fixed(f / 1e9, 1) + " GFLOP";
    return grouped(f) + " FLOP";
}

std::string usdText(double v)
{
    std::string s(1, '$');
    s += fixed(v, std::fabs(v) >= 1 ? 2 : 4);
    return s;
}

enum class Unit { Memory, Volume, Seconds, Percent, Ratio, Count, Integer, TokensPerSecond, Tflops, Usd, Flop };

std::string format(Unit u, double v, LessonBytes bytes)
{
    switch (u) {
    case Unit::Memory: return memoryText(v, bytes);
    case Unit::Volume: return volumeText(v, bytes);
    case Unit::Seconds: return secondsText(v);
    case Unit::Percent: return fixed(100 * v, 1) + "%";
    case Unit::Ratio: return fixed(v, std::fabs(v) >= 10 ? 1 : 2) + "×";
    case Unit::Count: return countText(v);
    case Unit::Integer: return grouped(v);
    case Unit::TokensPerSecond: return grouped(v) + " tokens/s";
    case Unit::Tflops: return fixed(v, 1) + " TFLOP/s";
    case Unit::Usd: return usdText(v);
    case Unit::Flop: return flopsText(v);
    }
    return "?";
}

// ---- Placeholder tables ----

double groupSum(const Result& r, Group g, bool exposed)
{
    double t = 0;
    for (const auto& c : r.collectives)
        if (c.group == g)
            t += exposed ? c.exposedTime : c.time;
    return t;
}

std::string groupAlgo(const Result& r, Group g)
{
    const Collective* best = nullptr;
    for (const auto& c : r.collectives)
        if (c.group == g && (!best || c.bytes > best->bytes))
            best = &c;
    if (!best)
        return "none";
    return std::string(toString(best->algo)) + "/" + toString(best->proto);
}

struct NumericPlaceholder {
    std::string name;
    Unit unit;
    std::function<double(const Result&)> value;
    const char* zeroText = nullptr; ///< rendered instead of the number when the value is 0
};

const std::vector<NumericPlaceholder>& numericPlaceholders()
{
    static const std::vector<NumericPlaceholder> table = [] {
        std::vector<NumericPlaceholder> t = {
            { "memory.model_states", Unit::Memory,
                [](const Result& r) { return r.memory.parameters + r.memory.gradients + r.memory.optimizerStates; } },
            { "memory.total", Unit::Memory, [](const Result& r) { return r.memory.total(); } },
            { "memory.free", Unit::Memory, [](const Result& r) { return r.usable - r.memory.total(); } },
            { "memory.utilisation", Unit::Percent,
                [](const Result& r) { return r.capacity > 0 ? r.memory.total() / r.capacity : 0.0; } },
            { "memory.capacity_ratio", Unit::Ratio,
                [](const Result& r) { return r.capacity > 0 ? r.memory.total() / r.capacity : 0.0; } },
            { "capacity", Unit::Memory, [](const Result& r) { return r.capacity; } },
            { "usable", Unit::Memory, [](const Result& r) { return r.usable; } },
            { "host_memory_per_node", Unit::Memory, [](const Result& r) { return r.hostMemoryPerNode; } },
            { "nvme_per_node", Unit::Memory, [](const Result& r) { return r.nvmePerNode; } },
            { "step_time.total", Unit::Seconds, [](const Result& r) { return r.step.total(); } },
            { "step_time.bubble_share", Unit::Percent,
                [](const Result& r) { return r.step.total() > 0 ? r.step.pipelineBubble / r.step.total() : 0.0; } },
            { "step_time.recompute_share", Unit::Percent,
                [](const Result& r) { return r.step.total() > 0 ? r.step.recompute / r.step.total() : 0.0; } },
            { "step_time.communication_share", Unit::Percent,
                [](const Result& r) {
                    return r.step.total() > 0 ? r.step.exposedCommunication / r.step.total() : 0.0;
                } },
            { "step_time.offload_share", Unit::Percent,
                [](const Result& r) { return r.step.total() > 0 ? r.step.offload / r.step.total() : 0.0; } },
            // "Adds X%": the part over the rest of the step (the (p-1)/m bubble convention, offload overhead).
            { "step_time.bubble_overhead", Unit::Percent,
                [](const Result& r) {
                    const double rest = r.step.total() - r.step.pipelineBubble;
                    return rest > 0 ? r.step.pipelineBubble / rest : 0.0;
                } },
            { "step_time.offload_overhead", Unit::Percent,
                [](const Result& r) {
                    const double rest = r.step.total() - r.step.offload;
                    return rest > 0 ? r.step.offload / rest : 0.0;
                } },
            { "step_time.recompute_overhead", Unit::Percent,
                [](const Result& r) {
                    const double rest = r.step.total() - r.step.recompute;
                    return rest > 0 ? r.step.recompute / rest : 0.0;
                } },
            { "throughput.mfu", Unit::Percent, [](const Result& r) { return r.throughput.mfu; } },
            { "throughput.tokens_per_second", Unit::TokensPerSecond,
                [](const Result& r) { return r.throughput.tokensPerSecond; } },
            { "throughput.tokens_per_second_per_gpu", Unit::TokensPerSecond,
                [](const Result& r) { return r.throughput.tokensPerSecondPerGpu; } },
            { "throughput.model_tflops_per_gpu", Unit::Tflops,
                [](const Result& r) { return r.throughput.modelTflopsPerGpu; } },
            { "throughput.hardware_tflops_per_gpu", Unit::Tflops,
                [](const Result& r) { return r.throughput.hardwareTflopsPerGpu; } },
            { "throughput.cost_per_step", Unit::Usd, [](const Result& r) { return r.throughput.costPerStepUsd; },
                "n/a (no price in the catalog)" },
            { "params", Unit::Count, [](const Result& r) { return r.parameters; } },
            { "active_params", Unit::Count, [](const Result& r) { return r.activeParameters; } },
            { "flops_per_token", Unit::Flop, [](const Result& r) { return r.flopsPerToken; } },
            { "min_gpus", Unit::Integer, [](const Result& r) { return double(r.minGpus); },
                "none up to the search limit" },
            { "comm.total_bytes", Unit::Volume, [](const Result& r) { return r.totalCommBytes; } },
            { "layout.gpus", Unit::Integer, [](const Result& r) { return double(r.gpus); } },
            { "layout.dp", Unit::Integer, [](const Result& r) { return double(r.dp); } },
            { "layout.tp", Unit::Integer, [](const Result& r) { return double(r.tp); } },
            { "layout.pp", Unit::Integer, [](const Result& r) { return double(r.pp); } },
            { "layout.cp", Unit::Integer, [](const Result& r) { return double(r.cp); } },
            { "layout.ep", Unit::Integer, [](const Result& r) { return double(r.ep); } },
            { "layout.micro_batches", Unit::Integer, [](const Result& r) { return double(r.microBatches); } },
            { "layout.grad_accumulation", Unit::Integer, [](const Result& r) { return double(r.gradAccumulation); } },
            { "layout.peak_stage", Unit::Integer, [](const Result& r) { return double(r.peakStage); } },
        };
        // Every breakdown term under its key (term_keys.h), its value from the result's breakdown.
        for (const TermKey& k : termKeys()) {
            const TermKey* key = &k;
            t.push_back({ std::string(k.key), k.group == TermGroup::Memory ? Unit::Memory : Unit::Seconds,
                [key](const Result& r) { return key->memory ? r.memory.*(key->memory) : r.step.*(key->step); } });
        }
        const std::pair<const char*, Group> groups[] = { { "dp", Group::Dp }, { "tp", Group::Tp }, { "pp", Group::Pp },
            { "cp", Group::Cp }, { "ep", Group::Ep } };
        for (const auto& [g, group] : groups) {
            const Group gg = group;
            const std::string base = std::string("comm.") + g;
            t.push_back(
                { base, Unit::Volume, [gg](const Result& r) { return r.bytesByGroup[static_cast<size_t>(gg)]; } });
            t.push_back({ base + "_time", Unit::Seconds, [gg](const Result& r) { return groupSum(r, gg, false); } });
            t.push_back({ base + "_exposed", Unit::Seconds, [gg](const Result& r) { return groupSum(r, gg, true); } });
        }
        return t;
    }();
    return table;
}

struct TextPlaceholder {
    std::string name;
    std::function<std::string(const Scenario&, const Result&)> value;
    bool needsResult = false; ///< "n/a" when the result is not valid
};

const std::vector<TextPlaceholder>& textPlaceholders()
{
    static const std::vector<TextPlaceholder> table = {
        { "fits", [](const Scenario&, const Result& r) { return std::string(r.fits ? "yes" : "no"); }, true },
        { "warnings",
            [](const Scenario&, const Result& r) {
                if (r.warnings.empty())
                    return std::string("none");
                std::string s;
                for (const auto& w : r.warnings)
                    s += (s.empty() ? "" : "; ") + w.message;
                return s;
            },
            true },
        { "comm.dp_algo", [](const Scenario&, const Result& r) { return groupAlgo(r, Group::Dp); }, true },
        { "comm.tp_algo", [](const Scenario&, const Result& r) { return groupAlgo(r, Group::Tp); }, true },
        { "comm.pp_algo", [](const Scenario&, const Result& r) { return groupAlgo(r, Group::Pp); }, true },
        { "comm.cp_algo", [](const Scenario&, const Result& r) { return groupAlgo(r, Group::Cp); }, true },
        { "comm.ep_algo", [](const Scenario&, const Result& r) { return groupAlgo(r, Group::Ep); }, true },
        { "model.name",
            [](const Scenario& s, const Result&) { return s.model.name.empty() ? s.model.id : s.model.name; } },
        { "gpu.name",
            [](const Scenario& s, const Result&) {
                return s.cluster.gpu.name.empty() ? s.cluster.gpu.id : s.cluster.gpu.name;
            } },
        { "gpu.memory", [](const Scenario& s, const Result&) { return memoryText(s.cluster.gpu.memoryBytes); } },
        { "gpu.bf16_tflops",
            [](const Scenario& s, const Result&) {
                return fixed(s.cluster.gpu.bf16DenseFlops / 1e12, 0) + " TFLOP/s";
            } },
        { "gpu.hourly_price",
            [](const Scenario& s, const Result&) {
                return s.cluster.gpu.hourlyPriceUsd > 0 ? usdText(s.cluster.gpu.hourlyPriceUsd) + "/h"
                                                        : std::string("n/a (no price in the catalog)");
            } },
        { "cluster.nodes", [](const Scenario& s, const Result&) { return grouped(s.cluster.nodes); } },
        { "cluster.gpus_per_node", [](const Scenario& s, const Result&) { return grouped(s.cluster.gpusPerNode); } },
        { "seq_len", [](const Scenario& s, const Result&) { return grouped(double(s.training.seqLen)); } },
        { "micro_batch", [](const Scenario& s, const Result&) { return grouped(double(s.training.microBatch)); } },
        { "global_batch", [](const Scenario& s, const Result&) { return grouped(double(s.training.globalBatch)); } },
        { "tokens_per_step",
            [](const Scenario& s, const Result&) {
                return grouped(double(s.training.globalBatch) * double(s.training.seqLen));
            } },
    };
    return table;
}

const NumericPlaceholder* findNumeric(std::string_view name)
{
    for (const auto& p : numericPlaceholders())
        if (name == p.name)
            return &p;
    return nullptr;
}

const TextPlaceholder* findText(std::string_view name)
{
    for (const auto& p : textPlaceholders())
        if (name == p.name)
            return &p;
    return nullptr;
}

constexpr std::string_view kPrefixes[] = { "prev.", "change.", "ratio." };

// Optional unit suffix of byte figures: {memory.total:GB} (decimal, as papers and datasheets write them).
struct ByteUnit {
    std::string_view name;
    double bytes;
};
constexpr ByteUnit kByteUnits[]
    = { { "GB", 1e9 }, { "TB", 1e12 }, { "MB", 1e6 }, { "GiB", kGiB }, { "TiB", kTiB }, { "MiB", kMiB } };

const ByteUnit* findByteUnit(std::string_view name)
{
    for (const auto& u : kByteUnits)
        if (u.name == name)
            return &u;
    return nullptr;
}

std::string inByteUnit(double b, const ByteUnit& u)
{
    const double v = b / u.bytes;
    const double a = std::fabs(v);
    return fixed(v, a >= 100 ? 0 : (a >= 10 ? 1 : 2)) + " " + std::string(u.name);
}

// Splits "name:unit"; the unit must be a byte unit and the name a byte figure (with or without prev.).
bool splitUnit(std::string_view full, std::string_view& name, const ByteUnit*& unit)
{
    unit = nullptr;
    name = full;
    const size_t colon = full.find(':');
    if (colon == std::string_view::npos)
        return true;
    name = full.substr(0, colon);
    unit = findByteUnit(full.substr(colon + 1));
    if (!unit)
        return false;
    std::string_view base = name.substr(0, 5) == "prev." ? name.substr(5) : name;
    const auto* n = findNumeric(base);
    return n && (n->unit == Unit::Memory || n->unit == Unit::Volume);
}

bool knownPlaceholder(std::string_view full)
{
    std::string_view name;
    const ByteUnit* unit = nullptr;
    if (!splitUnit(full, name, unit))
        return false;
    if (findNumeric(name) || findText(name))
        return true;
    for (auto pre : kPrefixes)
        if (name.substr(0, pre.size()) == pre)
            return findNumeric(name.substr(pre.size())) != nullptr;
    return false;
}

bool placeholderChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
        || c == '-' || c == ':';
}

// Calls f(begin, end, name) for every {identifier} span of text (begin at '{', end past '}').
template <class F> void forEachPlaceholder(const std::string& text, F f)
{
    size_t i = 0;
    while (i < text.size()) {
        const size_t open = text.find('{', i);
        if (open == std::string::npos)
            return;
        size_t j = open + 1;
        while (j < text.size() && placeholderChar(text[j]))
            ++j;
        const bool letterFirst = open + 1 < text.size()
            && ((text[open + 1] >= 'a' && text[open + 1] <= 'z') || (text[open + 1] >= 'A' && text[open + 1] <= 'Z')
                || text[open + 1] == '_');
        if (j < text.size() && text[j] == '}' && j > open + 1 && letterFirst) {
            f(open, j + 1, std::string_view(text).substr(open + 1, j - open - 1));
            i = j + 1;
        } else {
            i = open + 1;
        }
    }
}

std::string renderOne(
    std::string_view full, const Scenario& s, const Result& r, const Result* prev, LessonBytes bytes, bool& known)
{
    std::string_view name;
    const ByteUnit* unit = nullptr;
    known = splitUnit(full, name, unit);
    if (!known)
        return {};
    auto fmt = [unit, bytes](const NumericPlaceholder& n, double v) {
        if (v == 0 && n.zeroText)
            return std::string(n.zeroText);
        return unit ? inByteUnit(v, *unit) : format(n.unit, v, bytes);
    };
    if (const auto* t = findText(name)) {
        if (name == "gpu.memory") // the one text figure in bytes: in the caller's units too
            return memoryText(s.cluster.gpu.memoryBytes, bytes);
        return !t->needsResult || r.valid ? t->value(s, r) : std::string("n/a");
    }
    if (const auto* n = findNumeric(name)) {
        if (!r.valid)
            return "n/a";
        return fmt(*n, n->value(r));
    }
    for (auto pre : kPrefixes) {
        if (name.substr(0, pre.size()) != pre)
            continue;
        const auto* n = findNumeric(name.substr(pre.size()));
        if (!n)
            break;
        if (!prev || !prev->valid || !r.valid)
            return "n/a";
        const double before = n->value(*prev);
        if (pre == "prev.")
            return fmt(*n, before);
        const double now = n->value(r);
        if (before == 0 || !std::isfinite(before))
            return "n/a";
        if (pre == "ratio.")
            return fixed(now / before, 2) + "×";
        const double change = (now - before) / std::fabs(before);
        const std::string pct = fixed(100 * change, 1);
        return (pct.rfind("\u2212", 0) == 0 ? "" : "+") + pct + "%";
    }
    known = false;
    return {};
}

// ---- Scenario documents, diffs and highlight names ----

void diffJson(const json& before, const json& after, const std::string& path, std::vector<std::string>& out)
{
    // A catalog reference written as an id on one side and as {"id": ..., overrides} on the other: compare the
    // overrides, so that the changed fields are "cluster.gpu.memory_bytes" rather than all of "cluster.gpu".
    if (before.is_string() && after.is_object() && after.value("id", json()) == before)
        return diffJson(json { { "id", before } }, after, path, out);
    if (before.is_object() && after.is_string() && before.value("id", json()) == after)
        return diffJson(before, json { { "id", after } }, path, out);
    if (before.is_object() && after.is_object()) {
        std::set<std::string> keys;
        for (auto it = before.begin(); it != before.end(); ++it)
            keys.insert(it.key());
        for (auto it = after.begin(); it != after.end(); ++it)
            keys.insert(it.key());
        for (const auto& k : keys) {
            if (path.empty() && (k == "schema" || k == "name"))
                continue;
            const std::string p = path.empty() ? k : path + "." + k;
            auto b = before.find(k);
            auto a = after.find(k);
            if (b == before.end() || a == after.end())
                out.push_back(p);
            else
                diffJson(*b, *a, p, out);
        }
        return;
    }
    if (before != after)
        out.push_back(path);
}

void collectPaths(const json& j, const std::string& path, std::set<std::string, std::less<>>& out)
{
    if (!path.empty())
        out.insert(path);
    if (!j.is_object())
        return;
    for (auto it = j.begin(); it != j.end(); ++it)
        collectPaths(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
}

const std::set<std::string, std::less<>>& highlightNames()
{
    static const std::set<std::string, std::less<>> names = [] {
        std::set<std::string, std::less<>> n;
        // Every scenario field: a scenario with every optional part present, written without a catalog (full objects).
        Scenario s;
        s.model.moe = MoeSpec { 8, 2, 1, 1, 1, 1.0 };
        s.model.mla = MlaSpec { 1, 1, 1, 1, 1 };
        s.model.paramsOverride = 1;
        s.cluster.gpu.hourlyPriceUsd = 1;
        // fields a scenario file holds only when they differ from their defaults
        s.parallelism.cpCommType = CpCommType::A2a;
        s.parallelism.tpCommOverlap = true;
        s.parallelism.expertTp = 1;
        s.offload.activationLayers = 1;
        collectPaths(json::parse(scenarioToJson(s, Catalog {})), "", n);
        n.insert("model.preset");
        n.erase("schema");
        // Result figures and their prefixes ("memory", "step", "comm", ...).
        auto addWithPrefixes = [&n](const std::string& name) {
            n.insert(name);
            for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
                n.insert(name.substr(0, dot));
        };
        for (const auto& p : numericPlaceholders())
            addWithPrefixes(p.name);
        for (const auto& p : textPlaceholders())
            addWithPrefixes(p.name);
        for (const char* extra : { "pipeline_stages", "comm.collectives", "timeline" })
            addWithPrefixes(extra);
        return n;
    }();
    return names;
}

std::string stepPath(size_t i) { return "steps[" + std::to_string(i) + "]"; }

std::string joinField(const std::string& prefix, const std::string& field)
{
    return field.empty() ? prefix : prefix + "." + field;
}

} // namespace

// ---- Public API ----

std::vector<std::string> unknownPlaceholders(const std::string& text)
{
    std::vector<std::string> out;
    forEachPlaceholder(text, [&](size_t, size_t, std::string_view name) {
        if (!knownPlaceholder(name))
            out.emplace_back(name);
    });
    return out;
}

std::vector<std::string> lessonPlaceholders()
{
    std::vector<std::string> out;
    for (const auto& p : numericPlaceholders())
        out.emplace_back(p.name);
    for (const auto& p : textPlaceholders())
        out.emplace_back(p.name);
    return out;
}

bool isLessonHighlight(std::string_view name)
{
    const auto& n = highlightNames();
    return n.find(name) != n.end();
}

std::string renderLessonText(
    const std::string& text, const Scenario& scenario, const Result& result, const Result* previous, LessonBytes bytes)
{
    std::string out;
    out.reserve(text.size() + 64);
    size_t copied = 0;
    forEachPlaceholder(text, [&](size_t begin, size_t end, std::string_view name) {
        bool known = false;
        std::string value = renderOne(name, scenario, result, previous, bytes, known);
        if (!known)
            return; // left verbatim
        out.append(text, copied, begin - copied);
        out += value;
        copied = end;
    });
    out.append(text, copied, std::string::npos);
    return out;
}

std::string lessonStepText(const Lesson& lesson, std::size_t index, LessonBytes bytes)
{
    if (index >= lesson.steps.size())
        return {};
    const LessonStep& step = lesson.steps[index];
    const Result now = evaluate(step.scenario);
    if (index == 0)
        return renderLessonText(step.text, step.scenario, now, nullptr, bytes);
    const Result before = evaluate(lesson.steps[index - 1].scenario);
    return renderLessonText(step.text, step.scenario, now, &before, bytes);
}

LessonParse parseLesson(std::string_view text, const Catalog& catalog)
{
    LessonParse out;
    Lesson& lesson = out.lesson;
    json root;
    std::string err;
    if (!detail::parseJsonText(text, root, err)) {
        out.errors.push_back({ "", err });
        return out;
    }
    detail::FieldReader r(out.errors, &out.warnings);
    if (!root.is_object()) {
        r.error("", std::string("a lesson must be a JSON object, not ") + root.type_name());
        return out;
    }
    r.unknownKeys(root, "", { "schema", "id", "title", "summary", "steps" });
    std::string schema;
    if (!root.contains("schema"))
        r.error("schema", std::string("is required and must be \"") + kLessonSchema + "\"");
    else if (r.string(root, "schema", "", schema) && schema != kLessonSchema)
        r.error("schema", "'" + schema + "' is not supported; expected \"" + kLessonSchema + "\"");
    if (!root.contains("id"))
        r.error("id", "is required");
    else if (r.string(root, "id", "", lesson.id) && lesson.id.empty())
        r.error("id", "must not be empty");
    if (!root.contains("title"))
        r.error("title", "is required");
    else if (r.string(root, "title", "", lesson.title) && lesson.title.empty())
        r.error("title", "must not be empty");
    r.string(root, "summary", "", lesson.summary);
    if (!lesson.summary.empty())
        for (const auto& p : unknownPlaceholders(lesson.summary))
            r.error("summary", "unknown placeholder {" + p + "}");

    auto stepsIt = root.find("steps");
    if (stepsIt == root.end()) {
        r.error("steps", "is required: a non-empty array of steps");
        return out;
    }
    if (!stepsIt->is_array() || stepsIt->empty()) {
        r.error("steps",
            std::string("must be a non-empty array, not ")
                + (stepsIt->is_array() ? "an empty array" : stepsIt->type_name()));
        return out;
    }

    const Scenario base = defaultScenario(catalog);
    json doc = json::parse(scenarioToJson(base, catalog));
    json previousWritten = doc;
    for (size_t i = 0; i < stepsIt->size(); ++i) {
        const json& js = (*stepsIt)[i];
        const std::string sp = stepPath(i);
        LessonStep step;
        if (!js.is_object()) {
            r.error(sp, std::string("a step must be an object, not ") + js.type_name());
            lesson.steps.push_back(std::move(step));
            continue;
        }
        r.unknownKeys(js, sp, { "title", "text", "scenario", "highlight" });
        if (!js.contains("title"))
            r.error(sp + ".title", "is required");
        else if (r.string(js, "title", sp, step.title) && step.title.empty())
            r.error(sp + ".title", "must not be empty");
        if (!js.contains("text"))
            r.error(sp + ".text", "is required");
        else if (r.string(js, "text", sp, step.text)) {
            if (step.text.empty())
                r.error(sp + ".text", "must not be empty");
            for (const auto& p : unknownPlaceholders(step.text))
                r.error(sp + ".text", "unknown placeholder {" + p + "}");
        }
        if (auto h = js.find("highlight"); h != js.end()) {
            if (!h->is_array()) {
                r.error(sp + ".highlight", std::string("must be an array of names, not ") + h->type_name());
            } else {
                for (size_t k = 0; k < h->size(); ++k) {
                    const std::string hp = sp + ".highlight[" + std::to_string(k) + "]";
                    const json& item = (*h)[k];
                    if (!item.is_string()) {
                        r.error(hp, std::string("must be a string, not ") + item.type_name());
                        continue;
                    }
                    const std::string name = item.get<std::string>();
                    if (!isLessonHighlight(name))
                        r.error(hp, "'" + name + "' is neither a scenario field nor a result figure");
                    else
                        step.highlight.push_back(name);
                }
            }
        }
        if (auto patch = js.find("scenario"); patch != js.end()) {
            if (!patch->is_object())
                r.error(
                    sp + ".scenario", std::string("must be an object (a JSON merge patch), not ") + patch->type_name());
            else
                doc.merge_patch(*patch);
        }
        ScenarioParse parsed = parseScenario(doc.dump(), catalog);
        const std::string scenPath = sp + ".scenario";
        for (const auto& e : parsed.errors)
            out.errors.push_back({ joinField(scenPath, e.field), e.message });
        for (const auto& w : parsed.warnings)
            out.errors.push_back({ joinField(scenPath, w.field),
                "not a scenario field (a lesson may only set fields of shardscope.scenario/1): " + w.message });
        step.scenario = std::move(parsed.scenario);
        if (parsed.errors.empty())
            for (const auto& issue : validate(step.scenario))
                out.errors.push_back({ joinField(scenPath, issue.field), issue.message });
        const bool namedByPatch
            = js.contains("scenario") && js["scenario"].is_object() && js["scenario"].contains("name");
        if (!namedByPatch && !lesson.title.empty())
            step.scenario.name = lesson.title + ": " + step.title;
        const json written = json::parse(scenarioToJson(step.scenario, catalog));
        diffJson(previousWritten, written, "", step.changed);
        previousWritten = written;
        lesson.steps.push_back(std::move(step));
    }
    return out;
}

std::vector<std::string> lessonFiles(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return out;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fe;
        if (it->path().extension() == ".json" && it->is_regular_file(fe))
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string defaultLessonDirectory()
{
    if (const char* env = std::getenv("SHARDSCOPE_LESSON_DIR"); env && *env)
        return env;
    std::filesystem::path catalogDir(defaultCatalogDirectory());
    if (!catalogDir.has_filename())
        catalogDir = catalogDir.parent_path();
    return (catalogDir.parent_path() / "lessons").string();
}

LessonParse readLessonFile(const std::string& path, const Catalog& catalog)
{
    std::string text, error;
    if (!readRegularFile(path, detail::kMaxJsonBytes, text, error)) {
        LessonParse out;
        out.errors.push_back({ "", error });
        return out;
    }
    return parseLesson(text, catalog);
}

} // namespace shardscope::core
