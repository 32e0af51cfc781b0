// SPDX-License-Identifier: GPL-3.0-or-later
// Framework profiles: shardscope.profile/1 documents (resources/profiles/*.json and calibrate's output).
#include "shardscope/core/profile.h"

#include "checked_int.h"

#include "shardscope/core/result.h"
#include "shardscope/core/term.h"

#include "json_fields.h"

#include <algorithm>
#include <cmath>

namespace shardscope::core {

using detail::json;

namespace {
// ---- Megatron-Core's profile. The two fitted time-model constants: fit on Narayanan et al. SC'21 Table 1 and
// Korthikanti et al. MLSys'23 Table 5 only (grid search; tests/core/tst_calibration.cpp holds the rows,
// docs/model.md §validation); every other figure comes from a datasheet, NCCL's model or the framework's source.
// Fraction of the best-shape measured matmul rate (MAMF, stas00 ml-engineering compute/accelerator/README.md) that a
// training step's GEMMs sustain: real shapes, kernel launch gaps and host overhead. 0.80 × A100's 0.869 MAMF = 70%.
constexpr double kGemmRealized = 0.80;
// HBM traffic of the element-wise kernels (norms, GELU/SwiGLU, dropout, softmax, residual adds, casts) per byte of
// activation the layer stores, in each of forward and backward: unfused element-wise kernels read and write each
// stored tensor about three times. Korthikanti Table 4 (22B layer, 7.7 ms forward) pins it together with the above.
constexpr double kElementwiseTraffic = 3.0;
// Allocator slack: Megatron's theoretical_memory_usage multiplies activations by 1.05 for "optimizer and misc
// temporaries" (megatron/training/theoretical_memory_usage.py); applied to all transient memory.
constexpr double kAllocatorSlack = 0.05;
// Megatron's fused vocab-parallel cross-entropy keeps the bf16 logits and overwrites them with the fp32 softmax it
// returns as their gradient (megatron/core/tensor_parallel/cross_entropy.py): 2 + 4 bytes per logit.
// The same kernel runs on the vocabulary shard of each TP rank (VocabParallelCrossEntropy): 6 bytes per local logit.
constexpr double kMegatronLogitBytes = 6.0;
// FP8 linear layers with Transformer Engine's DelayedScaling recipe (Megatron's --fp8-recipe delayed default): 1.69×
// the BF16 GEMM time's speed, quantization included (TransformerEngine docs/examples/gemm_profiling/
// gemm_profiling.rst @ d0067d0, H200, hidden 4096: 32.014 / 18.978 ms per layer).
constexpr double kDelayedScalingSpeedup = 1.69;
// Megatron-Core's gradient (and distributed-optimizer parameter) buckets: max(40,000,000, 1,000,000 × dp) parameters,
// "to ensure that chunks used in NCCL ring-reduce implementations are large enough to remain bandwidth-bound"
// (megatron/core/distributed/distributed_data_parallel.py).
constexpr double kMegatronBucketElements = 40000000;
constexpr double kMegatronBucketElementsPerDpRank = 1000000;
} // namespace

FrameworkProfile megatronProfile()
{
    FrameworkProfile p;
    p.id = "megatron";
    p.name = "Megatron-Core";
    p.framework = Framework::Megatron;
    p.gemmEfficiency = kGemmRealized;
    p.elementwiseTraffic = kElementwiseTraffic;
    p.attentionEfficiency = 1;   // Megatron-Core's fused attention (cuDNN / FlashAttention) as published
    p.hostOverheadPerLayer = 0;  // launches run ahead of the GPU at these layer sizes (no host-bound gaps)
    p.collectiveEfficiency = 1;  // NCCL's own model (collective.cpp) as it stands
    p.overlapSlowdown = 0;       // the overlap model of the time stage as it stands
    p.memoryOverheadBytes = 0;   // everything Megatron holds is in the memory model
    p.allocatorSlack = kAllocatorSlack;
    p.logitBytes = kMegatronLogitBytes;
    p.logitBytesTp = kMegatronLogitBytes;
    p.fp8GemmSpeedup = kDelayedScalingSpeedup;
    // Megatron-Core's TEDotProductAttention: Transformer Engine picks cuDNN's fused attention on Hopper and newer,
    // FlashAttention-2 on Ampere (transformer_engine/pytorch/attention/dot_product_attention/utils.py
    // get_attention_backend @ d0067d0)
    p.attentionKernel = AttentionKernel::Cudnn;
    p.gatherBucketElements = 0; // FSDP-style: one gather per TransformerLayer
    p.gradBucketElements = kMegatronBucketElements;
    p.gradBucketElementsPerDpRank = kMegatronBucketElementsPerDpRank;
    p.gradBucketBytes = 0;
    p.sources = {
        { "gemm_efficiency", "fitted on Narayanan et al. SC'21 Table 1 and Korthikanti et al. MLSys'23 Table 5" },
        { "elementwise_traffic", "fitted on Korthikanti et al. MLSys'23 Table 4 and Table 5" },
        { "attention_efficiency", "the kernel's published rates as they are (Shah et al. 2024 Figs. 5 and 6; Dao 2023 "
                                  "Figs. 4 and 7)" },
        { "host_overhead_per_layer", "Megatron-Core launches ahead of the GPU (none measured at these layer sizes)" },
        { "collective_efficiency", "NCCL's tuning model (src/graph/tuning.cc) as is" },
        { "overlap_slowdown", "not modelled for Megatron-Core" },
        { "memory_overhead_bytes", "none beyond the memory model" },
        { "allocator_slack", "megatron/training/theoretical_memory_usage.py (activations × 1.05)" },
        { "logit_bytes", "megatron/core/tensor_parallel/cross_entropy.py (bf16 logits + fp32 softmax in place)" },
        { "logit_bytes_tp", "megatron/core/tensor_parallel/cross_entropy.py (VocabParallelCrossEntropy: bf16 logits + "
                            "fp32 softmax in place on each rank's vocabulary shard)" },
        { "fp8_gemm_speedup", "TransformerEngine docs/examples/gemm_profiling/gemm_profiling.rst (DelayedScaling, "
                              "H200: 32.014 / 18.978 ms per layer)" },
        { "attention_kernel", "Transformer Engine's get_attention_backend (transformer_engine/pytorch/attention/"
                              "dot_product_attention/utils.py): cuDNN fused attention on Hopper and newer, "
                              "FlashAttention-2 on Ampere" },
        { "gather_bucket_elements", "one all-gather per TransformerLayer (Megatron-Core's FSDP wraps each layer: "
                                    "megatron/core/distributed/torch_fully_sharded_data_parallel.py)" },
        { "grad_bucket_elements", "megatron/core/distributed/distributed_data_parallel.py (bucket_size = "
                                  "max(40000000, 1000000 * dp))" },
        { "grad_bucket_elements_per_dp_rank", "megatron/core/distributed/distributed_data_parallel.py (bucket_size "
                                              "= max(40000000, 1000000 * dp))" },
        { "grad_bucket_bytes", "Megatron-Core sizes buckets in parameters (not bytes)" },
    };
    return p;
}

double gradBucketElements(const FrameworkProfile& p, int dp, double bytesPerElement)
{
    const double bytes = bytesPerElement > 0 ? p.gradBucketBytes / bytesPerElement : 0.0;
    return std::max({ p.gradBucketElements, p.gradBucketElementsPerDpRank * dp, bytes });
}

const std::vector<ProfileConstant>& profileConstants()
{
    // Bounds are physical: a GEMM cannot beat its measured best shape (MAMF) nor fall under a fifth of it on
    // transformer shapes; an element-wise kernel moves each byte at least once, an unfused chain rarely > 12 times;
    // a layer's host work beyond 5 ms means the run is not GPU-bound; NCCL cannot beat its bus bandwidth by > 20%;
    // fragmentation beyond half the transient memory is an allocator failure, not a constant (docs/model.md §calibration).
    static const std::vector<ProfileConstant> all = {
        { "gemm_efficiency", 0.2, 1.0, &FrameworkProfile::gemmEfficiency, "fraction of the measured matmul rate" },
        { "attention_efficiency", 0.3, 1.2, &FrameworkProfile::attentionEfficiency,
            "fraction of the attention kernel's measured rates" },
        { "elementwise_traffic", 0.5, 12.0, &FrameworkProfile::elementwiseTraffic,
            "HBM passes per stored activation byte" },
        { "host_overhead_per_layer", 0.0, 5e-3, &FrameworkProfile::hostOverheadPerLayer,
            "host seconds per layer per micro-batch" },
        { "collective_efficiency", 0.2, 1.2, &FrameworkProfile::collectiveEfficiency,
            "achieved / modelled collective bandwidth" },
        { "overlap_slowdown", 0.0, 1.0, &FrameworkProfile::overlapSlowdown,
            "share of overlapped communication added to compute" },
        { "memory_overhead_bytes", 0.0, 64e9, &FrameworkProfile::memoryOverheadBytes, "bytes per GPU besides the model" },
        { "allocator_slack", 0.0, 0.5, &FrameworkProfile::allocatorSlack,
            "reserved beyond allocated, per byte of transient memory" },
    };
    return all;
}

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

const std::pair<AttentionKernel, const char*> kKernelNames[] = { { AttentionKernel::Fa2, "fa2" },
    { AttentionKernel::Fa3, "fa3" }, { AttentionKernel::Cudnn, "cudnn" } };
constexpr const char* kAttentionKernelKey = "attention_kernel";

const std::pair<Framework, const char*> kFrameworkNames[] = { { Framework::Megatron, "megatron" },
    { Framework::DeepSpeed, "deepspeed" }, { Framework::PyTorch, "pytorch" },
    { Framework::PyTorchCompile, "pytorch-compile" } };

/// The name of value in a {value, name} table (the first entry's when absent).
template <typename Enum, size_t N>
const char* nameIn(const std::pair<Enum, const char*> (&table)[N], Enum value)
{
    for (const auto& [v, n] : table)
        if (v == value)
            return n;
    return table[0].second;
}

/// Sets out to the value named name in a {value, name} table; false when no entry has that name.
template <typename Enum, size_t N>
bool valueIn(const std::pair<Enum, const char*> (&table)[N], std::string_view name, Enum& out)
{
    for (const auto& [v, n] : table)
        if (name == n) {
            out = v;
            return true;
        }
    return false;
}

std::string allowedFrameworks()
{
    std::string s;
    for (const auto& [f, n] : kFrameworkNames)
        s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}
} // namespace

const char* toString(Framework f)
{
    return nameIn(kFrameworkNames, f);
}

const char* toString(AttentionKernel k)
{
    return nameIn(kKernelNames, k);
}

bool attentionKernelFromString(std::string_view name, AttentionKernel& out)
{
    return valueIn(kKernelNames, name, out);
}

const char* displayName(AttentionKernel k)
{
    switch (k) {
    case AttentionKernel::Fa3:
        return "FlashAttention-3";
    case AttentionKernel::Cudnn:
        return "cuDNN fused attention";
    default:
        return "FlashAttention-2";
    }
}

bool frameworkFromString(std::string_view name, Framework& out)
{
    return valueIn(kFrameworkNames, name, out);
}

namespace {
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
            out.errors.push_back(path + ".value: must be in [" + exprNumber(lo) + ", "
                + exprNumber(hi) + "]");
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
            out.errors.push_back(path + ".value: '" + (*it)["value"].get<std::string>() + "' is not one of: fa2, fa3, cudnn");
        else if (const auto src = it->find("source"); src == it->end() || !src->is_string() || src->get<std::string>().empty())
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
                    out.errors.push_back(path + ": must be {\"figure\": text, \"measured\": number, \"after\": number}");
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
    values[kAttentionKernelKey] = { { "value", toString(p.attentionKernel) }, { "source", sourceOf(kAttentionKernelKey) } };
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
