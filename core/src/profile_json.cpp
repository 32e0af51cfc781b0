// SPDX-License-Identifier: GPL-3.0-or-later
// Framework profiles as shardscope.profile/1 documents (resources/profiles/*.json and calibrate's output): read and write.
#include "shardscope/core/profile_json.h"

#include "shardscope/core/result.h"

#include "checked_int.h"
#include "json_fields.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core {

using detail::json;

namespace {
struct Fact {
    const char* key;
    double lo, hi;
    double FrameworkProfile::*member;
};
// Framework facts a profile states (bounds: bf16 logits alone are 2 bytes; bf16 logits with five fp32 copies 22).
// FP8 GEMMs at most twice the BF16 rate (the tensor cores' ratio, H100 datasheet), at least no slower.
// Buckets: 0 (none) up to 1e11 elements or bytes, beyond any model's gradient on one GPU (validate.cpp's model limits).
const Fact kFacts[] = { { "logit_bytes", 2.0, 22.0, &FrameworkProfile::logitBytes },
    { "logit_bytes_tp", 2.0, 22.0, &FrameworkProfile::logitBytesTp },
    { "fp8_gemm_speedup", 1.0, 2.0, &FrameworkProfile::fp8GemmSpeedup },
    { "gather_bucket_elements", 0.0, 1e11, &FrameworkProfile::gatherBucketElements },
    { "grad_bucket_elements", 0.0, 1e11, &FrameworkProfile::gradBucketElements },
    { "grad_bucket_elements_per_dp_rank", 0.0, 1e11, &FrameworkProfile::gradBucketElementsPerDpRank },
    { "grad_bucket_bytes", 0.0, 1e11, &FrameworkProfile::gradBucketBytes } };

constexpr const char* kAttentionKernelKey = "attention_kernel";

ProfileParse parseProfileUncapped(std::string_view text)
{
    ProfileParse out;
    FrameworkProfile& p = out.profile;
    p = megatronProfile(); // a value the document leaves out keeps Megatron-Core's (and its source)
    json root;
    std::string err, field;
    if (!detail::parseJsonText(text, root, err, &field)) {
        out.errors.push_back((field.empty() ? "" : field + ": ") + err);
        return out;
    }
    if (!root.is_object()) {
        out.errors.push_back("a profile must be a JSON object");
        return out;
    }
    auto str = [&](const char* key, std::string& into, bool required) {
        const auto it = root.find(key);
        if (it == root.end()) {
            if (required)
                out.errors.push_back(std::string(key) + ": is required");
            return;
        }
        if (!it->is_string())
            out.errors.push_back(std::string(key) + ": must be a string");
        else
            into = it->get<std::string>();
    };
    std::string schema, framework;
    str("schema", schema, true);
    if (!schema.empty() && schema != kProfileSchema)
        out.errors.push_back("schema: '" + schema + "' is not supported; expected \"" + kProfileSchema + "\"");
    str("id", p.id, true);
    str("name", p.name, false);
    str("framework", framework, true);
    if (!framework.empty() && !frameworkFromString(framework, p.framework))
        out.errors.push_back("framework: '" + framework + "' is not one of: " + allowedFrameworks());
    const auto values = root.find("values");
    if (values == root.end() || !values->is_object()) {
        out.errors.push_back("values: is required and must be an object of {\"value\": number, \"source\": text}");
        return out;
    }
    auto read = [&](const char* key, double lo, double hi, double FrameworkProfile::*member) {
        const auto it = values->find(key);
        if (it == values->end())
            return; // absent: Megatron-Core's value
        const std::string path = std::string("values.") + key;
        if (!it->is_object() || !it->contains("value") || !(*it)["value"].is_number()) {
            out.errors.push_back(path + ": must be {\"value\": number, \"source\": text}");
            return;
        }
        const double v = (*it)["value"].get<double>();
        if (!std::isfinite(v) || v < lo || v > hi) {
            out.errors.push_back(path + ".value: must be in [" + exprNumber(lo) + ", " + exprNumber(hi) + "]");
            return;
        }
        p.*member = v;
        const auto src = it->find("source");
        if (src == it->end() || !src->is_string() || src->get<std::string>().empty()) {
            out.errors.push_back(path + ".source: is required (the publication, datasheet or fit it comes from)");
            return;
        }
        for (auto& [k, said] : p.sources)
            if (k == key)
                said = src->get<std::string>();
    };
    for (const auto& c : profileConstants())
        read(c.key, c.lo, c.hi, c.member);
    for (const auto& f : kFacts)
        read(f.key, f.lo, f.hi, f.member);
    if (const auto it = values->find(kAttentionKernelKey); it != values->end()) {
        const std::string path = std::string("values.") + kAttentionKernelKey;
        if (!it->is_object() || !it->contains("value") || !(*it)["value"].is_string())
            out.errors.push_back(path + ": must be {\"value\": \"fa2\" | \"fa3\" | \"cudnn\", \"source\": text}");
        else if (!attentionKernelFromString((*it)["value"].get<std::string>(), p.attentionKernel))
            out.errors.push_back(
                path + ".value: '" + (*it)["value"].get<std::string>() + "' is not one of: fa2, fa3, cudnn");
        else if (const auto src = it->find("source");
                 src == it->end() || !src->is_string() || src->get<std::string>().empty())
            out.errors.push_back(path + ".source: is required (the publication, datasheet or fit it comes from)");
        else
            for (auto& [k, said] : p.sources)
                if (k == kAttentionKernelKey)
                    said = src->get<std::string>();
    }
    // calibrate's "fit" report: its figures (measured and after the fit) are what the ranges narrow to.
    if (const auto fit = root.find("fit"); fit != root.end() && fit->is_object()) {
        if (const auto runs = fit->find("runs"); runs != fit->end()) {
            int64_t n = 0;
            if (!runs->is_number() || !detail::wholeFromDouble(runs->get<double>(), 0, detail::kMaxIntCount, n))
                out.errors.push_back("fit.runs: " + detail::wholeRule(0, detail::kMaxIntCount, runs->dump()));
            else
                p.fit.runs = static_cast<int>(n);
        }
        if (const auto figures = fit->find("figures"); figures != fit->end() && figures->is_array())
            for (size_t i = 0; i < figures->size(); ++i) {
                const json& f = (*figures)[i];
                const std::string path = "fit.figures[" + std::to_string(i) + "]";
                if (!f.is_object() || !f.contains("figure") || !f["figure"].is_string() || !f.contains("measured")
                    || !f["measured"].is_number() || !f.contains("after") || !f["after"].is_number()) {
                    out.errors.push_back(
                        path + ": must be {\"figure\": text, \"measured\": number, \"after\": number}");
                    continue;
                }
                FitFigure ff { f["figure"].get<std::string>(), f["measured"].get<double>(), f["after"].get<double>() };
                if (const auto h = f.find("held_out"); h != f.end() && h->is_number())
                    ff.heldOut = h->get<double>();
                if (!(ff.measured > 0) || !(ff.after > 0) || !std::isfinite(ff.measured) || !std::isfinite(ff.after)
                    || !(ff.heldOut >= 0) || !std::isfinite(ff.heldOut))
                    out.errors.push_back(path + ": measured and after must be numbers > 0, held_out a number >= 0");
                else
                    p.fit.figures.push_back(ff);
            }
    }
    for (auto it = values->begin(); it != values->end(); ++it) {
        bool known = false;
        for (const auto& c : profileConstants())
            known = known || it.key() == c.key;
        for (const auto& f : kFacts)
            known = known || it.key() == f.key;
        known = known || it.key() == kAttentionKernelKey;
        if (!known)
            out.errors.push_back("values." + it.key() + ": unknown profile value");
    }
    return out;
}
} // namespace

ProfileParse parseProfile(std::string_view text)
{
    ProfileParse out = parseProfileUncapped(text);
    // At most kMaxIssuesListed errors (result.h), then one that counts the rest: no unbounded list reaches a view.
    if (out.errors.size() > kMaxIssuesListed) {
        std::vector<Issue> issues;
        for (auto& e : out.errors)
            issues.push_back({ "", std::move(e) });
        capIssues(issues);
        out.errors.clear();
        for (auto& i : issues)
            out.errors.push_back(std::move(i.message));
    }
    return out;
}

std::string profileJson(const FrameworkProfile& p)
{
    json values = json::object();
    auto sourceOf = [&](const char* key) {
        for (const auto& [k, s] : p.sources)
            if (k == key)
                return s;
        return std::string();
    };
    for (const auto& c : profileConstants())
        values[c.key] = { { "value", p.*c.member }, { "source", sourceOf(c.key) } };
    for (const auto& f : kFacts)
        values[f.key] = { { "value", p.*f.member }, { "source", sourceOf(f.key) } };
    values[kAttentionKernelKey]
        = { { "value", toString(p.attentionKernel) }, { "source", sourceOf(kAttentionKernelKey) } };
    json root = { { "schema", kProfileSchema }, { "id", p.id }, { "name", p.name },
        { "framework", toString(p.framework) }, { "values", values } };
    if (p.fit.runs > 0 || !p.fit.figures.empty()) {
        json figures = json::array();
        for (const FitFigure& f : p.fit.figures)
            figures.push_back({ { "figure", f.figure }, { "measured", f.measured }, { "after", f.after },
                { "held_out", f.heldOut } });
        root["fit"] = { { "runs", p.fit.runs }, { "figures", figures } };
    }
    return root.dump(2) + "\n";
}

} // namespace shardscope::core