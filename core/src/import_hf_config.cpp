// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json → ModelSpec (issue 14). Each family's keys and the defaults of keys a config.json leaves
// out are those of its transformers configuration class (huggingface/transformers src/transformers/models/<family>/
// configuration_<family>.py: LlamaConfig, MistralConfig, MixtralConfig, Qwen2Config, Qwen2MoeConfig, Qwen3Config,
// Qwen3MoeConfig, GemmaConfig, Phi3Config, DeepseekV2Config, DeepseekV3Config, GPT2Config, GPTNeoXConfig,
// FalconConfig, BloomConfig, OPTConfig); which layers carry biases and norms is their modeling_<family>.py.
// The parameter count is core's (model_counts.cpp); tests/core/tst_import.cpp checks it against published totals.
#include "checked_int.h"
#include "import_common.h"
#include "json_fields.h"

#include <cmath>
#include <map>
#include <set>

namespace shardscope::core::detail {

namespace {

/// Typed reads of config.json keys; every key read is remembered so that the rest can be listed as unknown.
class HfKeys
{
public:
    HfKeys(const json& root, ImportContext& cx)
        : m_root(root)
        , m_cx(cx)
    { }

    /// A whole number from 0 to `hi`; `fallback` when the key is absent or null (the configuration class's default).
    int64_t count(const char* key, int64_t fallback, int64_t hi = 1'000'000'000'000)
    {
        m_used.insert(key);
        const auto it = m_root.find(key);
        if (it == m_root.end() || it->is_null())
            return fallback;
        int64_t v = 0;
        if (!it->is_number() || !wholeFromDouble(it->get<double>(), 0, hi, v)) {
            m_cx.error(key, wholeRule(0, hi, it->dump()));
            return fallback;
        }
        return v;
    }
    /// count() for the fields held as int (layers, heads, experts): at most kMaxIntCount, never wrapped.
    int small(const char* key, int64_t fallback) { return static_cast<int>(count(key, fallback, kMaxIntCount)); }
    bool flag(const char* key, bool fallback)
    {
        m_used.insert(key);
        const auto it = m_root.find(key);
        if (it == m_root.end() || it->is_null())
            return fallback;
        if (!it->is_boolean()) {
            m_cx.error(key, std::string("must be true or false, not ") + it->dump());
            return fallback;
        }
        return it->get<bool>();
    }
    std::string text(const char* key, const std::string& fallback)
    {
        m_used.insert(key);
        const auto it = m_root.find(key);
        if (it == m_root.end() || it->is_null())
            return fallback;
        if (!it->is_string()) {
            m_cx.error(key, std::string("must be a string, not ") + it->type_name());
            return fallback;
        }
        return it->get<std::string>();
    }
    /// A list of layer indices (Qwen MoE mlp_only_layers).
    std::vector<int64_t> indices(const char* key)
    {
        m_used.insert(key);
        std::vector<int64_t> v;
        const auto it = m_root.find(key);
        if (it == m_root.end() || it->is_null())
            return v;
        if (!it->is_array()) {
            m_cx.error(key, std::string("must be a list of layer indices, not ") + it->type_name());
            return v;
        }
        for (const auto& e : *it) {
            if (!e.is_number_integer() || e.get<int64_t>() < 0) {
                m_cx.error(key, "must be a list of layer indices, not " + it->dump());
                return {};
            }
            v.push_back(e.get<int64_t>());
        }
        return v;
    }
    /// A list of strings (layer_types); empty when absent or null.
    std::vector<std::string> strings(const char* key)
    {
        m_used.insert(key);
        std::vector<std::string> v;
        const auto it = m_root.find(key);
        if (it == m_root.end() || it->is_null())
            return v;
        if (!it->is_array()) {
            m_cx.error(key, std::string("must be a list of strings, not ") + it->type_name());
            return v;
        }
        for (const auto& e : *it) {
            if (!e.is_string()) {
                m_cx.error(key, "must be a list of strings, not " + it->dump());
                return {};
            }
            v.push_back(e.get<std::string>());
        }
        return v;
    }
    /// The key is in the file (null included).
    bool present(const char* key) const { return m_root.contains(key); }
    /// The key is in the file with a value other than null.
    bool has(const char* key) const
    {
        const auto it = m_root.find(key);
        return it != m_root.end() && !it->is_null();
    }
    /// Marks keys as known but without effect on the memory and time model.
    void known(std::initializer_list<const char*> keys)
    {
        for (const char* k : keys)
            m_used.insert(k);
    }
    /// Keys present in the file that nothing read or marked known.
    std::vector<std::string> unknown() const
    {
        std::vector<std::string> v;
        for (auto it = m_root.begin(); it != m_root.end(); ++it)
            if (!m_used.count(it.key()))
                v.push_back(it.key());
        return v;
    }

private:
    const json& m_root;
    ImportContext& m_cx;
    std::set<std::string> m_used;
};

/// Keys of transformers' PretrainedConfig and of tokenizers, generation, initialisation, numerics and RoPE scaling:
/// none changes the parameter count, the memory or the step time of a training run.
void knownWithoutEffect(HfKeys& k)
{
    k.known({ "architectures", "model_type", "_name_or_path", "name_or_path", "transformers_version", "torch_dtype",
        "dtype", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id",
        "initializer_range", "initializer_factor", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "rope_theta",
        "rope_scaling", "rope_parameters", "rope_interleave", "use_cache", "attention_dropout", "hidden_dropout",
        "resid_pdrop", "embd_pdrop", "attn_pdrop", "hidden_dropout_prob", "attention_probs_dropout_prob",
        "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout",
        "task_specific_params", "id2label", "label2id", "pretraining_tp", "output_router_logits",
        "router_aux_loss_coef", "router_jitter_noise", "aux_loss_alpha", "seq_aux", "norm_topk_prob",
        "routed_scaling_factor", "scoring_func", "topk_method", "n_group", "topk_group", "ep_size", "sliding_window",
        "use_sliding_window", "max_window_layers", "layer_types", "original_max_position_embeddings",
        "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "n_ctx", "is_decoder",
        "use_return_dict", "output_attentions", "output_hidden_states", "return_dict", "torchscript",
        "gradient_checkpointing", "attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar",
        "hidden_activation", "rotary_emb_base", "rotary_pct", "use_parallel_residual", "classifier_dropout",
        "layer_norm_elementwise_affine", "do_layer_norm_before", "_remove_final_layer_norm",
        "apply_residual_connection_post_layernorm", "slow_but_exact", "offset_alibi", "masked_softmax_fusion",
        "bias_dropout_fusion", "skip_bias_add", "skip_bias_add_qkv", "attention_softmax_in_fp32", "unk_token_id",
        "prefix", "parallel_attn", "num_ln_in_parallel_attn", "qk_layernorm", "moe_layer_freq", "first_k_dense_replace",
        "decoder_sparse_step", "use_qk_norm", "max_position_embeddings", "n_positions", "hidden_act",
        "activation_function", "head_dim", "swiglu_limit", "initial_context_length", "experts_per_token" });
}

struct Family {
    const char* modelType;
    const char* configClass; ///< transformers' configuration class, for messages and comments
};
constexpr Family kFamilies[] = { { "llama", "LlamaConfig" }, { "mistral", "MistralConfig" },
    { "mixtral", "MixtralConfig" }, { "qwen2", "Qwen2Config" }, { "qwen2_moe", "Qwen2MoeConfig" },
    { "qwen3", "Qwen3Config" }, { "qwen3_moe", "Qwen3MoeConfig" }, { "gemma", "GemmaConfig" }, { "phi3", "Phi3Config" },
    { "deepseek_v2", "DeepseekV2Config" }, { "deepseek_v3", "DeepseekV3Config" }, { "gpt2", "GPT2Config" },
    { "gpt_neox", "GPTNeoXConfig" }, { "falcon", "FalconConfig" }, { "bloom", "BloomConfig" }, { "opt", "OPTConfig" },
    { "gpt_oss", "GptOssConfig" } };

std::string supportedTypes()
{
    std::string s;
    for (const Family& f : kFamilies)
        s += (s.empty() ? "" : ", ") + std::string(f.modelType);
    return s;
}

/// Defaults of the Llama-shaped families (LlamaConfig.__init__ and its siblings): vocab, hidden, intermediate,
/// layers, heads, kv heads (0 = heads), head_dim (0 = hidden / heads), tied.
struct LlamaDefaults {
    int64_t vocab, hidden, intermediate, layers, heads, kvHeads, headDim;
    bool tied;
};
const std::map<std::string, LlamaDefaults>& llamaDefaults()
{
    static const std::map<std::string, LlamaDefaults> d = {
        { "llama", { 32000, 4096, 11008, 32, 32, 0, 0, false } }, // configuration_llama.py
        { "mistral", { 32000, 4096, 14336, 32, 32, 8, 0, false } }, // configuration_mistral.py
        { "mixtral", { 32000, 4096, 14336, 32, 32, 8, 0, false } }, // configuration_mixtral.py
        { "qwen2", { 151936, 4096, 22016, 32, 32, 32, 0, false } }, // configuration_qwen2.py
        { "qwen2_moe", { 151936, 2048, 5632, 24, 16, 16, 0, false } }, // configuration_qwen2_moe.py
        { "qwen3", { 151936, 4096, 22016, 32, 32, 32, 128, false } }, // configuration_qwen3.py
        { "qwen3_moe", { 151936, 2048, 6144, 24, 32, 4, 128, false } }, // configuration_qwen3_moe.py
        { "gemma", { 256000, 3072, 24576, 28, 16, 16, 256, true } }, // configuration_gemma.py
        { "phi3", { 32064, 3072, 8192, 32, 32, 0, 0, false } }, // configuration_phi3.py
        { "deepseek_v2", { 102400, 5120, 12288, 30, 32, 32, 0, false } }, // configuration_deepseek_v2.py
        { "deepseek_v3", { 129280, 7168, 18432, 61, 128, 128, 0, false } }, // configuration_deepseek_v3.py
        { "gpt_oss", { 201088, 2880, 2880, 36, 64, 8, 64, false } }, // configuration_gpt_oss.py
    };
    return d;
}

/// Qwen MoE's dense layers: mlp_only_layers must be the first k layers (what ModelSpec's dense_layers expresses),
/// and decoder_sparse_step 1 (modeling_qwen2_moe.py / modeling_qwen3_moe.py Qwen*DecoderLayer: a layer is sparse
/// when it is not in mlp_only_layers and (idx + 1) % decoder_sparse_step == 0).
int leadingDenseLayers(HfKeys& k, ImportContext& cx)
{
    const int64_t step = k.count("decoder_sparse_step", 1);
    if (step != 1)
        cx.error("decoder_sparse_step",
            "only 1 (every layer an MoE layer) is supported, not " + std::to_string(step)
                + ": ShardScope's models have dense layers only before the MoE layers");
    const std::vector<int64_t> only = k.indices("mlp_only_layers");
    for (size_t i = 0; i < only.size(); ++i)
        if (only[i] != static_cast<int64_t>(i)) {
            cx.error("mlp_only_layers", "only leading layers [0, 1, ..., k-1] are supported as dense layers");
            return 0;
        }
    return static_cast<int>(only.size());
}

/// Sliding-window attention: sliding_window (MistralConfig, MixtralConfig, Phi3Config; null = full attention; Qwen2/
/// Qwen3 only with use_sliding_window, on the layers from max_window_layers on: configuration_qwen2.py) and which
/// layers attend globally: layer_types ("sliding_attention" | "full_attention" per layer, transformers 4.53+), else
/// every layer windowed. model.sliding_window_pattern n says every n-th layer is global.
void slidingWindow(const std::string& type, HfKeys& k, ImportContext& cx, ModelSpec& m)
{
    const bool qwen = type.rfind("qwen", 0) == 0;
    const bool use = !qwen || k.flag("use_sliding_window", false);
    // Defaults of the classes: MistralConfig sliding_window 4096; Mixtral, Phi-3 None; Qwen 4096 but unused.
    const bool nulled = k.present("sliding_window") && !k.has("sliding_window"); // null: None, full attention
    // GptOssConfig sliding_window 128.
    const int64_t w = nulled ? 0 : k.count("sliding_window", type == "mistral" ? 4096 : type == "gpt_oss" ? 128 : 0);
    std::vector<std::string> types = k.strings("layer_types");
    if (!use || w == 0 || m.layers <= 0)
        return;
    if (types.empty() && qwen) {
        const int64_t firstWindowed = k.count("max_window_layers", m.layers);
        for (int i = 0; i < m.layers; ++i)
            types.push_back(i >= firstWindowed ? "sliding_attention" : "full_attention");
    }
    m.slidingWindow = w;
    if (types.empty())
        return;
    if (types.size() != size_t(m.layers)) {
        cx.error("layer_types",
            "has " + std::to_string(types.size()) + " entries for " + std::to_string(m.layers) + " layers");
        return;
    }
    int global = 0, first = 0;
    for (size_t i = 0; i < types.size(); ++i) {
        if (types[i] != "sliding_attention" && types[i] != "full_attention") {
            cx.error("layer_types", "'" + types[i] + "' is not sliding_attention or full_attention");
            return;
        }
        if (types[i] == "full_attention" && global++ == 0)
            first = int(i) + 1;
    }
    if (global == 0)
        return;
    bool periodic = true; // global exactly at layers first, 2·first, … (1-based)
    for (size_t i = 0; i < types.size(); ++i)
        periodic = periodic && ((types[i] == "full_attention") == ((int(i) + 1) % first == 0));
    m.slidingWindowPattern = periodic ? first : std::max(1, int(std::lround(double(m.layers) / global)));
    if (!periodic)
        cx.warning("layer_types",
            std::to_string(global) + " full-attention layers, not every n-th: modelled as every "
                + std::to_string(m.slidingWindowPattern) + "-th (the same share of global layers)");
}

void llamaFamily(const std::string& type, HfKeys& k, ImportContext& cx, ModelSpec& m)
{
    const LlamaDefaults d = llamaDefaults().at(type);
    m.hidden = k.count("hidden_size", d.hidden);
    m.ffnHidden = k.count("intermediate_size", d.intermediate);
    m.layers = k.small("num_hidden_layers", d.layers);
    m.heads = k.small("num_attention_heads", d.heads);
    // num_key_value_heads None means multi-head attention (LlamaConfig: "If it is not specified, will default to
    // num_attention_heads").
    m.kvHeads = k.small("num_key_value_heads", d.kvHeads > 0 ? d.kvHeads : m.heads);
    m.headDim = k.count("head_dim", d.headDim);
    m.vocab = k.count("vocab_size", d.vocab);
    m.tiedEmbeddings = k.flag("tie_word_embeddings", d.tied);
    m.mlp = Mlp::SwiGlu;
    m.norm = Norm::RmsNorm;
    m.position = PositionEmbedding::Rope;

    slidingWindow(type, k, cx, m);
    const std::string act = k.text("hidden_act", type == "gemma" ? "gelu_pytorch_tanh" : "silu");
    if (type == "gemma" || act.rfind("gelu", 0) == 0)
        cx.warning("hidden_act",
            "the gated MLP (gate, up, down) with " + act
                + " is counted as SwiGLU: the same three matrices; only the activation differs");
    // Biases. Qwen2/Qwen2-MoE put a bias on q, k and v (modeling_qwen2.py Qwen2Attention: q_proj/k_proj/v_proj
    // bias=True, o_proj bias=False). Llama-shaped configs use attention_bias (q, k, v and o; modeling_llama.py) and
    // mlp_bias.
    if (type == "qwen2" || type == "qwen2_moe") {
        m.qkvBias = true;
    } else if (type == "gpt_oss") {
        // modeling_gpt_oss.py: q, k, v and o take attention_bias (default true); the experts' gate_up_proj and
        // down_proj always have biases.
        m.qkvBias = k.flag("attention_bias", true);
        m.linearBias = m.qkvBias;
        if (!m.qkvBias)
            cx.warning("attention_bias", "false: the experts' biases are not counted either");
        cx.warning("num_attention_heads",
            "the attention sinks (one learned logit per head and layer) and the router's bias are not counted");
    } else {
        m.qkvBias = k.flag("attention_bias", false);
        const bool mlpBias = k.flag("mlp_bias", false);
        if (mlpBias)
            cx.warning("mlp_bias", "MLP biases are counted only together with attention biases (linear_bias)");
        m.linearBias = m.qkvBias && mlpBias;
        if (m.qkvBias && !mlpBias)
            cx.warning("attention_bias", "the output projection's bias (hidden_size values per layer) is not counted");
    }
    if (type == "qwen3" || type == "qwen3_moe")
        cx.warning("head_dim", "the per-head q/k RMSNorm weights (2 x head_dim per layer) are not counted");

    if (type == "mixtral") {
        // MixtralSparseMoeBlock: num_local_experts experts of intermediate_size, top num_experts_per_tok, no shared.
        m.moe.experts = k.small("num_local_experts", 8);
        m.moe.topK = k.small("num_experts_per_tok", 2);
        m.moe.expertFfnHidden = m.ffnHidden;
    } else if (type == "gpt_oss") {
        // GptOssMLP: num_local_experts experts of intermediate_size (SwiGLU with clamping), top num_experts_per_tok
        // (experts_per_token in OpenAI's own config), no shared experts, every layer MoE.
        m.moe.experts = k.small("num_local_experts", 128);
        m.moe.topK
            = k.present("num_experts_per_tok") ? k.small("num_experts_per_tok", 4) : k.small("experts_per_token", 4);
        m.moe.expertFfnHidden = m.ffnHidden;
    } else if (type == "qwen2_moe") {
        // Qwen2MoeSparseMoeBlock: num_experts experts of moe_intermediate_size, plus one shared expert of
        // shared_expert_intermediate_size behind a sigmoid gate (h weights, not counted).
        m.moe.experts = k.small("num_experts", 60);
        m.moe.topK = k.small("num_experts_per_tok", 4);
        m.moe.expertFfnHidden = k.count("moe_intermediate_size", 1408);
        const int64_t shared = k.count("shared_expert_intermediate_size", 5632);
        // narrowInt sets sharedExperts only when the quotient fits
        if (m.moe.expertFfnHidden <= 0 || shared % m.moe.expertFfnHidden != 0
            || !narrowInt(shared / m.moe.expertFfnHidden, 0, kMaxIntCount, m.moe.sharedExperts)) {
            cx.error("shared_expert_intermediate_size",
                "must be a multiple of moe_intermediate_size (" + std::to_string(m.moe.expertFfnHidden)
                    + "): ShardScope counts shared experts in expert units");
        }
        m.moe.denseLayers = leadingDenseLayers(k, cx);
    } else if (type == "qwen3_moe") {
        m.moe.experts = k.small("num_experts", 128);
        m.moe.topK = k.small("num_experts_per_tok", 8);
        m.moe.expertFfnHidden = k.count("moe_intermediate_size", 768);
        m.moe.denseLayers = leadingDenseLayers(k, cx);
    } else if (type == "deepseek_v2" || type == "deepseek_v3") {
        // DeepseekV3MoE: n_routed_experts of moe_intermediate_size (top num_experts_per_tok) plus n_shared_experts of
        // the same size; the first first_k_dense_replace layers have a dense MLP of intermediate_size, then every
        // moe_layer_freq-th layer is MoE (modeling_deepseek_v3.py DeepseekV3DecoderLayer).
        const bool v3 = type == "deepseek_v3";
        m.moe.experts = k.small("n_routed_experts", v3 ? 256 : 0);
        m.moe.topK = k.small("num_experts_per_tok", v3 ? 8 : 0);
        m.moe.expertFfnHidden = k.count("moe_intermediate_size", v3 ? 2048 : 1407);
        m.moe.sharedExperts = k.small("n_shared_experts", v3 ? 1 : 0);
        m.moe.denseLayers = k.small("first_k_dense_replace", v3 ? 3 : 0);
        if (const int64_t freq = k.count("moe_layer_freq", 1); freq != 1)
            cx.error("moe_layer_freq",
                "only 1 (every layer after first_k_dense_replace is MoE) is supported, not " + std::to_string(freq));
        // Multi-head latent attention; q_lora_rank null = a plain q projection (DeepSeek-V2-Lite).
        // Absent: the class default 1536; null: no query compression (DeepSeek-V2-Lite's q_proj).
        m.mla.qLoraRank = k.present("q_lora_rank") && !k.has("q_lora_rank") ? 0 : k.count("q_lora_rank", 1536);
        m.mla.kvLoraRank = k.count("kv_lora_rank", 512);
        m.mla.qkNopeHeadDim = k.count("qk_nope_head_dim", 128);
        m.mla.qkRopeHeadDim = k.count("qk_rope_head_dim", 64);
        m.mla.vHeadDim = k.count("v_head_dim", 128);
        if (m.moe.experts == 0)
            m.moe = {};
        if (const int64_t mtp = k.count("num_nextn_predict_layers", 0); mtp > 0)
            cx.warning("num_nextn_predict_layers",
                std::to_string(mtp)
                    + " multi-token-prediction module(s) not counted: "
                      "the main model only (DeepSeek-V3 README_WEIGHTS.md: 671B main + 14B MTP)");
    }
}

} // namespace

void importHfConfig(std::string_view text, ImportContext& cx)
{
    json root;
    if (!parseJsonObject(text, "config.json", root, cx))
        return;
    HfKeys k(root, cx);
    knownWithoutEffect(k);
    const std::string type = k.text("model_type", "");
    bool supported = false;
    for (const Family& f : kFamilies)
        supported |= type == f.modelType;
    if (!supported) {
        cx.error("model_type",
            (type.empty() ? std::string("is missing") : "'" + type + "' is not supported")
                + "; supported: " + supportedTypes());
        return;
    }

    ModelSpec m;
    if (llamaDefaults().count(type)) {
        llamaFamily(type, k, cx, m);
    } else if (type == "gpt2") {
        // GPT2Config: n_embd 768, n_layer 12, n_head 12, n_inner None (= 4 n_embd), n_positions 1024, vocab 50257;
        // Conv1D layers with biases, LayerNorm, learned positions, lm_head tied to wte (GPT2LMHeadModel).
        m.hidden = k.count("n_embd", 768);
        m.layers = k.small("n_layer", 12);
        m.heads = k.small("n_head", 12);
        m.ffnHidden = k.count("n_inner", 4 * m.hidden);
        m.maxSeq = k.count("n_positions", 1024);
        m.vocab = k.count("vocab_size", 50257);
        m.mlp = Mlp::Gelu;
        m.norm = Norm::LayerNorm;
        m.position = PositionEmbedding::Learned;
        m.tiedEmbeddings = k.flag("tie_word_embeddings", true);
        m.linearBias = true;
    } else if (type == "gpt_neox") {
        // GPTNeoXConfig: hidden 6144, layers 44, heads 64, intermediate 24576, vocab 50432, untied embed_out,
        // attention_bias True; dense_h_to_4h / dense_4h_to_h always have biases (modeling_gpt_neox.py); rotary.
        m.hidden = k.count("hidden_size", 6144);
        m.layers = k.small("num_hidden_layers", 44);
        m.heads = k.small("num_attention_heads", 64);
        m.ffnHidden = k.count("intermediate_size", 24576);
        m.vocab = k.count("vocab_size", 50432);
        m.tiedEmbeddings = k.flag("tie_word_embeddings", false);
        m.linearBias = k.flag("attention_bias", true);
        if (!m.linearBias)
            cx.warning("attention_bias", "false: the MLP biases are still counted with none on attention");
        m.mlp = Mlp::Gelu;
        m.norm = Norm::LayerNorm;
        m.position = PositionEmbedding::Rope;
    } else if (type == "falcon") {
        // FalconConfig: hidden 4544, layers 32, heads 71, multi_query True, new_decoder_architecture False,
        // bias False, alibi False, ffn_hidden_size None (= 4 h), vocab 65024, tied. KV heads: num_kv_heads with the
        // new decoder architecture, 1 with multi-query, else heads (modeling_falcon.py FalconAttention).
        m.hidden = k.count("hidden_size", 4544);
        m.layers = k.small("num_hidden_layers", 32);
        m.heads = k.small("num_attention_heads", 71);
        const bool newArch = k.flag("new_decoder_architecture", false);
        const bool multiQuery = k.flag("multi_query", true);
        const int kv = k.small("num_kv_heads", m.heads);
        m.kvHeads = newArch ? kv : multiQuery ? 1 : m.heads;
        m.ffnHidden = k.count("ffn_hidden_size", 4 * m.hidden);
        m.vocab = k.count("vocab_size", 65024);
        m.tiedEmbeddings = k.flag("tie_word_embeddings", true);
        m.linearBias = k.flag("bias", false);
        m.position = k.flag("alibi", false) ? PositionEmbedding::Alibi : PositionEmbedding::Rope;
        m.mlp = Mlp::Gelu;
        m.norm = Norm::LayerNorm;
        if (!newArch)
            cx.warning("parallel_attn",
                "Falcon's single input LayerNorm per layer is counted as two (2 x hidden_size "
                "values per layer more)");
    } else if (type == "bloom") {
        // BloomConfig: hidden_size (alias n_embed) 64, n_layer 2, n_head 8, vocab 250880; biases everywhere, ALiBi,
        // word_embeddings_layernorm, tied lm_head, 4h GELU MLP (modeling_bloom.py).
        m.hidden = k.count("hidden_size", k.count("n_embed", 64));
        m.layers = k.small("n_layer", k.small("num_hidden_layers", 2));
        m.heads = k.small("n_head", k.small("num_attention_heads", 8));
        m.ffnHidden = 4 * m.hidden;
        m.vocab = k.count("vocab_size", 250880);
        m.tiedEmbeddings = k.flag("tie_word_embeddings", true);
        m.linearBias = true;
        m.embeddingNorm = true;
        m.mlp = Mlp::Gelu;
        m.norm = Norm::LayerNorm;
        m.position = PositionEmbedding::Alibi;
    } else if (type == "opt") {
        // OPTConfig: hidden 768, layers 12, ffn_dim 3072, heads 12, max_position_embeddings 2048, vocab 50272,
        // enable_bias True, ReLU, tied; OPTLearnedPositionalEmbedding holds max_position_embeddings + 2 rows.
        m.hidden = k.count("hidden_size", 768);
        m.layers = k.small("num_hidden_layers", 12);
        m.heads = k.small("num_attention_heads", 12);
        m.ffnHidden = k.count("ffn_dim", 3072);
        m.maxSeq = k.count("max_position_embeddings", 2048) + 2;
        m.vocab = k.count("vocab_size", 50272);
        m.tiedEmbeddings = k.flag("tie_word_embeddings", true);
        m.linearBias = k.flag("enable_bias", true);
        m.mlp = Mlp::Relu;
        m.norm = Norm::LayerNorm;
        m.position = PositionEmbedding::Learned;
        if (const int64_t proj = k.count("word_embed_proj_dim", m.hidden); proj != m.hidden)
            cx.warning("word_embed_proj_dim",
                "project_in/project_out (" + std::to_string(proj) + " x hidden_size each) are not counted");
    }
    if (m.kvHeads == 0)
        m.kvHeads = m.heads;

    // The dimensions every model needs.
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.ffnHidden <= 0 || m.vocab <= 0)
        cx.error("model_type", "the layers, hidden size, heads, intermediate size and vocabulary must all be positive");
    else if (m.headDim == 0 && m.hidden % m.heads != 0 && !m.isMla())
        cx.error("num_attention_heads",
            "(" + std::to_string(m.heads) + ") must divide the hidden size (" + std::to_string(m.hidden)
                + ") when head_dim is not given");
    if (m.kvHeads <= 0 || m.kvHeads > m.heads || m.heads % m.kvHeads != 0)
        cx.error("num_key_value_heads",
            "(" + std::to_string(m.kvHeads) + ") must divide num_attention_heads (" + std::to_string(m.heads) + ")");
    if (m.isMoe() && (m.moe.topK <= 0 || m.moe.topK > m.moe.experts || m.moe.expertFfnHidden <= 0))
        cx.error("num_experts_per_tok",
            "the routed experts per token must be from 1 to the number of experts (" + std::to_string(m.moe.experts)
                + ") and the expert size positive");
    if (m.moe.denseLayers > m.layers)
        cx.error("first_k_dense_replace", "more dense layers than layers");

    if (const std::vector<std::string> unknown = k.unknown(); !unknown.empty())
        cx.warning("config.json", "unknown keys, ignored: " + cappedList(unknown));
    if (!cx.out.ok())
        return;

    std::string name = k.text("_name_or_path", "");
    const bool ownName = !name.empty();
    if (name.empty())
        name = type + " (" + std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) + ")";
    if (m.isMla())
        m.headDim = m.mla.vHeadDim; // the catalog's convention for MLA models (models.json deepseek-v3)
    m.moe.capacityFactor = cx.s().model.moe.capacityFactor;
    adoptPreset(m, name, ownName, cx.s().model, cx.catalog);
    cx.s().model = m;
    if (m.position == PositionEmbedding::Learned && m.maxSeq > 0 && cx.s().training.seqLen > m.maxSeq) {
        cx.warning("n_positions",
            "the model has " + std::to_string(m.maxSeq) + " learned positions: training.seq_len "
                + std::to_string(cx.s().training.seqLen) + " becomes " + std::to_string(m.maxSeq));
        cx.s().training.seqLen = m.maxSeq;
        cx.set("training.seq_len");
    }
    for (const char* f : { "model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim",
             "model.ffn_hidden", "model.vocab", "model.max_seq", "model.mlp", "model.norm", "model.position_embedding",
             "model.tied_embeddings", "model.biases", "model.moe", "model.mla", "model.sliding_window",
             "model.sliding_window_pattern" })
        cx.set(f);
}

} // namespace shardscope::core::detail
