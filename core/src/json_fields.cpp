// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_fields.h"

#include "checked_int.h"

#include "shardscope/core/scenario_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace shardscope::core::detail {

JsonExtent scanJsonExtent(std::string_view text)
{
    JsonExtent e;
    int depth = 0;
    size_t separators = 0;
    bool inString = false, escape = false;
    for (char ch : text) {
        if (inString) {
            if (escape)
                escape = false;
            else if (ch == '\\')
                escape = true;
            else if (ch == '"')
                inString = false;
            continue;
        }
        if (ch == '"') {
            inString = true;
        } else if (ch == '[' || ch == '{') {
            e.depth = std::max(e.depth, ++depth);
            ++separators;
        } else if (ch == ']' || ch == '}') {
            --depth;
        } else if (ch == ',') {
            ++separators;
        }
    }
    e.values = separators + 1;
    return e;
}

namespace {
/// nlohmann's DOM builder plus a duplicate-key check: one hash set of keys per open object, and the key path
/// to the first duplicate ("model.layers").
class DuplicateKeySax
{
public:
    explicit DuplicateKeySax(json& root)
        : m_dom(root)
    { }
    std::string duplicate; ///< dotted path of the first duplicate key, "" when none

    bool null() { return value(m_dom.null()); }
    bool boolean(bool v) { return value(m_dom.boolean(v)); }
    bool number_integer(json::number_integer_t v) { return value(m_dom.number_integer(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return value(m_dom.number_unsigned(v)); }
    bool number_float(json::number_float_t v, const json::string_t& s) { return value(m_dom.number_float(v, s)); }
    bool string(json::string_t& v) { return value(m_dom.string(v)); }
    bool binary(json::binary_t& v) { return value(m_dom.binary(v)); }
    bool start_object(std::size_t n)
    {
        m_objects.emplace_back();
        m_inObject.push_back(true);
        return m_dom.start_object(n);
    }
    bool key(json::string_t& k)
    {
        if (!m_objects.back().insert(k).second && duplicate.empty()) {
            for (const auto& p : m_path)
                duplicate += p + ".";
            duplicate += k;
        }
        m_path.push_back(k);
        return m_dom.key(k);
    }
    bool end_object()
    {
        m_objects.pop_back();
        m_inObject.pop_back();
        return value(m_dom.end_object());
    }
    bool start_array(std::size_t n)
    {
        m_inObject.push_back(false);
        return m_dom.start_array(n);
    }
    bool end_array()
    {
        m_inObject.pop_back();
        return value(m_dom.end_array());
    }
    bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e)
    {
        return m_dom.parse_error(position, token, e); // throws (allow_exceptions)
    }

private:
    /// A value (or a closed container) completes the member whose key is the last in m_path.
    bool value(bool ok)
    {
        if (!m_inObject.empty() && m_inObject.back() && !m_path.empty())
            m_path.pop_back();
        return ok;
    }

    nlohmann::detail::json_sax_dom_parser<json> m_dom;
    std::vector<std::unordered_set<std::string>> m_objects; ///< keys seen in each open object
    std::vector<bool> m_inObject; ///< for each open container: an object?
    std::vector<std::string> m_path; ///< keys from the root to the current member
};
} // namespace

bool parseJsonText(std::string_view text, json& out, std::string& error, std::string* field)
{
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // a UTF-8 byte-order mark (RFC 8259 §8.1: parsers may ignore it)
    if (text.size() > kMaxJsonBytes) {
        error = "the file is " + std::to_string(text.size()) + " bytes; the limit is " + std::to_string(kMaxJsonBytes);
        return false;
    }
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
        error = "the file contains a NUL byte at offset " + std::to_string(nul) + ": it is not JSON text";
        return false;
    }
    const JsonExtent extent = scanJsonExtent(text);
    if (extent.depth > kMaxJsonDepth) {
        error = "JSON nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels";
        return false;
    }
    if (extent.values > kMaxJsonValues) {
        error = "the document holds more than " + std::to_string(kMaxJsonValues)
            + " JSON values (a scenario has a few hundred)";
        return false;
    }
    // Duplicate keys are an error (RFC 8259 leaves them undefined; nlohmann would keep the last silently).
    // A SAX pass builds the document and keeps a hash set of the keys of every open object, so the check is
    // linear in the text (nlohmann's parse callback rescans the parent container after every value: quadratic).
    DuplicateKeySax sax(out);
    try {
        json::sax_parse(text.begin(), text.end(), &sax);
    } catch (const json::exception& e) {
        // e.what() starts with the library's "[json.exception.parse_error.101] ", which tells the user nothing.
        std::string what = e.what();
        if (const auto tag = what.find("] "); what.rfind("[json.exception.", 0) == 0 && tag != std::string::npos)
            what.erase(0, tag + 2);
        error = "not valid JSON: " + what;
        return false;
    }
    if (!sax.duplicate.empty()) {
        error = "the key appears twice in the same object";
        if (field)
            *field = sax.duplicate;
        else
            error = "'" + sax.duplicate + "': " + error;
        return false;
    }
    return true;
}

void FieldReader::unknownKeys(const json& obj, const std::string& path, std::initializer_list<std::string_view> known)
{
    if (!obj.is_object())
        return;
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool found = false;
        for (auto k : known)
            found |= (k == it.key());
        if (!found)
            warning(join(path, it.key().c_str()), "unknown field, ignored");
    }
}

bool FieldReader::number(const json& obj, const char* key, const std::string& path, double& out)
{
    auto it = obj.find(key);
    if (it == obj.end())
        return false;
    if (!it->is_number()) {
        error(join(path, key), std::string("must be a number, not ") + it->type_name());
        return false;
    }
    const double v = it->get<double>();
    if (!std::isfinite(v)) {
        error(join(path, key), "must be a finite number");
        return false;
    }
    out = v;
    return true;
}

bool FieldReader::integer64(const json& obj, const char* key, const std::string& path, int64_t& out)
{
    double v = 0;
    auto it = obj.find(key);
    if (it == obj.end())
        return false;
    if (!number(obj, key, path, v))
        return false;
    if (v != std::floor(v)) {
        error(join(path, key), "must be a whole number, not " + std::to_string(v));
        return false;
    }
    if (!wholeFromDouble(v, -kMaxWhole, kMaxWhole, out)) {
        error(join(path, key), "is " + it->dump() + ", out of range: a whole number of at most 9e15 in size");
        return false;
    }
    return true;
}

bool FieldReader::integer(const json& obj, const char* key, const std::string& path, int& out)
{
    int64_t v = 0;
    auto it = obj.find(key);
    if (it == obj.end() || !integer64(obj, key, path, v))
        return false;
    if (!narrowInt(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), out)) {
        error(join(path, key),
            "is " + it->dump() + ", out of range: at most " + std::to_string(std::numeric_limits<int>::max())
                + " in size");
        return false;
    }
    return true;
}

bool FieldReader::boolean(const json& obj, const char* key, const std::string& path, bool& out)
{
    auto it = obj.find(key);
    if (it == obj.end())
        return false;
    if (!it->is_boolean()) {
        error(join(path, key), std::string("must be true or false, not ") + it->type_name());
        return false;
    }
    out = it->get<bool>();
    return true;
}

bool FieldReader::string(const json& obj, const char* key, const std::string& path, std::string& out)
{
    auto it = obj.find(key);
    if (it == obj.end())
        return false;
    if (!it->is_string()) {
        error(join(path, key), std::string("must be a string, not ") + it->type_name());
        return false;
    }
    out = it->get<std::string>();
    return true;
}

namespace {
template <class F>
void need(FieldReader& r, bool requireAll, const json& o, const char* key, const std::string& path, F&& read)
{
    if (!o.contains(key)) {
        if (requireAll)
            r.error(FieldReader::join(path, key), "is required");
        return;
    }
    read();
}
} // namespace

void readGpu(FieldReader& r, const json& o, const std::string& p, GpuSpec& g, bool all)
{
    r.unknownKeys(o, p,
        { "id", "name", "vendor", "arch", "bf16_dense_flops", "fp8_dense_flops", "memory_bytes",
            "reported_memory_bytes", "memory_bandwidth", "scale_up_bandwidth", "scale_up_domain", "nvls",
            "host_link_bandwidth", "achievable_matmul_fraction", "tdp_watts", "hourly_price_usd", "source",
            "scale_up_link", "scale_out_link", "links_source" });
    r.string(o, "id", p, g.id);
    r.string(o, "name", p, g.name);
    r.string(o, "vendor", p, g.vendor);
    r.string(o, "arch", p, g.arch);
    r.string(o, "source", p, g.source);
    need(r, all, o, "bf16_dense_flops", p, [&] { r.number(o, "bf16_dense_flops", p, g.bf16DenseFlops); });
    need(r, all, o, "memory_bytes", p, [&] { r.number(o, "memory_bytes", p, g.memoryBytes); });
    need(r, all, o, "memory_bandwidth", p, [&] { r.number(o, "memory_bandwidth", p, g.memoryBandwidth); });
    need(r, all, o, "scale_up_bandwidth", p, [&] { r.number(o, "scale_up_bandwidth", p, g.scaleUpBandwidth); });
    need(r, all, o, "host_link_bandwidth", p, [&] { r.number(o, "host_link_bandwidth", p, g.hostLinkBandwidth); });
    need(r, all, o, "achievable_matmul_fraction", p,
        [&] { r.number(o, "achievable_matmul_fraction", p, g.achievableMatmulFraction); });
    r.number(o, "fp8_dense_flops", p, g.fp8DenseFlops);
    // A memory_bytes of its own without a driver figure: the catalog entry's driver figure was for another memory.
    if (o.contains("memory_bytes") && !o.contains("reported_memory_bytes"))
        g.reportedMemoryBytes = 0;
    r.number(o, "reported_memory_bytes", p, g.reportedMemoryBytes);
    r.integer(o, "scale_up_domain", p, g.scaleUpDomain);
    r.boolean(o, "nvls", p, g.nvls);
    r.number(o, "tdp_watts", p, g.tdpWatts);
    r.number(o, "hourly_price_usd", p, g.hourlyPriceUsd);
    r.string(o, "scale_up_link", p, g.scaleUpLink);
    r.string(o, "scale_out_link", p, g.scaleOutLink);
    r.string(o, "links_source", p, g.linksSource);
}

void readLink(FieldReader& r, const json& o, const std::string& p, LinkSpec& l, bool all)
{
    r.unknownKeys(o, p, { "id", "name", "kind", "bandwidth", "latency", "efficiency", "source" });
    r.string(o, "id", p, l.id);
    r.string(o, "name", p, l.name);
    r.string(o, "source", p, l.source);
    need(r, all, o, "kind", p, [&] {
        r.enumeration(o, "kind", p, l.kind,
            { { "scale-up", LinkKind::ScaleUp }, { "scale-out", LinkKind::ScaleOut }, { "host", LinkKind::Host },
                { "storage", LinkKind::Storage } });
    });
    need(r, all, o, "bandwidth", p, [&] { r.number(o, "bandwidth", p, l.bandwidth); });
    need(r, all, o, "latency", p, [&] { r.number(o, "latency", p, l.latency); });
    r.number(o, "efficiency", p, l.efficiency);
}

void readModel(FieldReader& r, const json& o, const std::string& p, ModelSpec& m, bool all)
{
    r.unknownKeys(o, p,
        { "preset", "id", "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab", "max_seq",
            "mlp", "norm", "position_embedding", "tied_embeddings", "qkv_bias", "linear_bias", "embedding_norm", "moe",
            "mla", "params", "params_published", "source", "sliding_window", "sliding_window_pattern" });
    r.string(o, "id", p, m.id);
    r.string(o, "name", p, m.name);
    r.string(o, "source", p, m.source);
    need(r, all, o, "layers", p, [&] { r.integer(o, "layers", p, m.layers); });
    need(r, all, o, "hidden", p, [&] { r.integer64(o, "hidden", p, m.hidden); });
    need(r, all, o, "heads", p, [&] { r.integer(o, "heads", p, m.heads); });
    if (!r.integer(o, "kv_heads", p, m.kvHeads) && all)
        m.kvHeads = m.heads;
    r.integer64(o, "head_dim", p, m.headDim);
    need(r, all, o, "ffn_hidden", p, [&] { r.integer64(o, "ffn_hidden", p, m.ffnHidden); });
    need(r, all, o, "vocab", p, [&] { r.integer64(o, "vocab", p, m.vocab); });
    r.integer64(o, "max_seq", p, m.maxSeq);
    r.enumeration(o, "mlp", p, m.mlp, { { "gelu", Mlp::Gelu }, { "relu", Mlp::Relu }, { "swiglu", Mlp::SwiGlu } });
    r.enumeration(o, "norm", p, m.norm, { { "layernorm", Norm::LayerNorm }, { "rmsnorm", Norm::RmsNorm } });
    r.enumeration(o, "position_embedding", p, m.position,
        { { "learned", PositionEmbedding::Learned }, { "rope", PositionEmbedding::Rope },
            { "alibi", PositionEmbedding::Alibi } });
    r.boolean(o, "tied_embeddings", p, m.tiedEmbeddings);
    r.boolean(o, "qkv_bias", p, m.qkvBias);
    r.boolean(o, "linear_bias", p, m.linearBias);
    r.boolean(o, "embedding_norm", p, m.embeddingNorm);
    r.integer64(o, "sliding_window", p, m.slidingWindow);
    r.integer(o, "sliding_window_pattern", p, m.slidingWindowPattern);
    r.number(o, "params", p, m.paramsOverride);
    r.number(o, "params_published", p, m.paramsPublished);
    if (auto it = o.find("moe"); it != o.end()) {
        const std::string mp = FieldReader::join(p, "moe");
        if (it->is_null()) {
            m.moe = {};
        } else if (!it->is_object()) {
            r.error(mp, std::string("must be an object, not ") + it->type_name());
        } else {
            r.unknownKeys(*it, mp,
                { "experts", "top_k", "expert_ffn_hidden", "shared_experts", "dense_layers", "capacity_factor",
                    "max_nodes_per_token", "dispatcher" });
            r.integer(*it, "experts", mp, m.moe.experts);
            r.integer(*it, "top_k", mp, m.moe.topK);
            r.integer64(*it, "expert_ffn_hidden", mp, m.moe.expertFfnHidden);
            r.integer(*it, "shared_experts", mp, m.moe.sharedExperts);
            r.integer(*it, "dense_layers", mp, m.moe.denseLayers);
            r.number(*it, "capacity_factor", mp, m.moe.capacityFactor);
            r.integer(*it, "max_nodes_per_token", mp, m.moe.maxNodesPerToken);
            r.enumeration(*it, "dispatcher", mp, m.moe.dispatcher,
                { { "alltoall", MoeDispatcher::AllToAll }, { "deepep", MoeDispatcher::DeepEp },
                    { "allgather", MoeDispatcher::AllGather } });
        }
    }
    if (auto it = o.find("mla"); it != o.end()) {
        const std::string mp = FieldReader::join(p, "mla");
        if (it->is_null()) {
            m.mla = {};
        } else if (!it->is_object()) {
            r.error(mp, std::string("must be an object, not ") + it->type_name());
        } else {
            r.unknownKeys(
                *it, mp, { "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim" });
            r.integer64(*it, "q_lora_rank", mp, m.mla.qLoraRank);
            r.integer64(*it, "kv_lora_rank", mp, m.mla.kvLoraRank);
            r.integer64(*it, "qk_nope_head_dim", mp, m.mla.qkNopeHeadDim);
            r.integer64(*it, "qk_rope_head_dim", mp, m.mla.qkRopeHeadDim);
            r.integer64(*it, "v_head_dim", mp, m.mla.vHeadDim);
        }
    }
}

json gpuToJson(const GpuSpec& g)
{
    json j = { { "id", g.id }, { "name", g.name }, { "vendor", g.vendor }, { "arch", g.arch },
        { "bf16_dense_flops", g.bf16DenseFlops }, { "fp8_dense_flops", g.fp8DenseFlops },
        { "memory_bytes", g.memoryBytes }, { "reported_memory_bytes", g.reportedMemoryBytes },
        { "memory_bandwidth", g.memoryBandwidth }, { "scale_up_bandwidth", g.scaleUpBandwidth },
        { "scale_up_domain", g.scaleUpDomain }, { "nvls", g.nvls }, { "host_link_bandwidth", g.hostLinkBandwidth },
        { "achievable_matmul_fraction", g.achievableMatmulFraction }, { "tdp_watts", g.tdpWatts },
        { "hourly_price_usd", g.hourlyPriceUsd }, { "source", g.source } };
    if (!g.scaleUpLink.empty())
        j["scale_up_link"] = g.scaleUpLink;
    if (!g.scaleOutLink.empty())
        j["scale_out_link"] = g.scaleOutLink;
    if (!g.linksSource.empty())
        j["links_source"] = g.linksSource;
    return j;
}

json linkToJson(const LinkSpec& l)
{
    static const char* kinds[] = { "scale-up", "scale-out", "host", "storage" };
    return { { "id", l.id }, { "name", l.name }, { "kind", kinds[static_cast<int>(l.kind)] },
        { "bandwidth", l.bandwidth }, { "latency", l.latency }, { "efficiency", l.efficiency },
        { "source", l.source } };
}

json modelToJson(const ModelSpec& m)
{
    json j = { { "name", m.name }, { "layers", m.layers }, { "hidden", m.hidden }, { "heads", m.heads },
        { "kv_heads", m.kvHeads }, { "head_dim", m.headDim }, { "ffn_hidden", m.ffnHidden }, { "vocab", m.vocab },
        { "max_seq", m.maxSeq }, { "mlp", toString(m.mlp) }, { "norm", toString(m.norm) },
        { "position_embedding", toString(m.position) }, { "tied_embeddings", m.tiedEmbeddings },
        { "qkv_bias", m.qkvBias }, { "linear_bias", m.linearBias }, { "embedding_norm", m.embeddingNorm } };
    if (m.isMoe())
        j["moe"]
            = { { "experts", m.moe.experts }, { "top_k", m.moe.topK }, { "expert_ffn_hidden", m.moe.expertFfnHidden },
                  { "shared_experts", m.moe.sharedExperts }, { "dense_layers", m.moe.denseLayers },
                  { "capacity_factor", m.moe.capacityFactor }, { "max_nodes_per_token", m.moe.maxNodesPerToken } };
    if (m.isMoe() && m.moe.dispatcher != MoeDispatcher::AllToAll) // written only when set: older files read back alike
        j["moe"]["dispatcher"] = toString(m.moe.dispatcher);
    if (m.isMla())
        j["mla"] = { { "q_lora_rank", m.mla.qLoraRank }, { "kv_lora_rank", m.mla.kvLoraRank },
            { "qk_nope_head_dim", m.mla.qkNopeHeadDim }, { "qk_rope_head_dim", m.mla.qkRopeHeadDim },
            { "v_head_dim", m.mla.vHeadDim } };
    if (m.paramsOverride > 0)
        j["params"] = m.paramsOverride;
    // Written only when set: files without a window read back unchanged.
    if (m.slidingWindow > 0)
        j["sliding_window"] = m.slidingWindow;
    if (m.slidingWindowPattern > 0)
        j["sliding_window_pattern"] = m.slidingWindowPattern;
    return j;
}

} // namespace shardscope::core::detail
