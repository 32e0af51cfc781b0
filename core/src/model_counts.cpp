// SPDX-License-Identifier: GPL-3.0-or-later
#include "model_counts.h"

#include "expr.h"

#include <algorithm>

namespace shardscope::core::detail {

template <class X> X parameterCount(const ModelSpec& m, const ModelCounts& c)
{
    if (c.overridden) // the user gives Ψ (ZeRO paper examples)
        return X::input("Ψ", m.paramsOverride, "parameters", "model.params override");
    // Megatron-LM theoretical_memory_usage.py (compute_weight_and_optimizer_memory).
    const X perLayer = X::input("P_attn", c.attention, "parameters", "Q, K, V, O projections of one layer")
        + X::input("P_an", c.attentionNorms, "parameters", "MLA's q/kv latent norms of one layer")
        + X::input("P_norms", c.layerNorms, "parameters", "the two pre-norms of one layer");
    const X moeMlp = X::input("P_routed", c.routedExperts, "parameters", "all routed experts of one MoE layer")
        + X::input("P_shared", c.sharedExperts, "parameters", "shared experts of one MoE layer")
        + X::input("P_router", c.router, "parameters", "router of one MoE layer");
    return X::input("L", double(m.layers), "layers", "") * perLayer
        + X::input("L_d", double(c.denseLayers), "layers", "layers with a dense MLP")
        * X::input("P_mlp", c.denseMlp, "parameters", "dense MLP of one layer (3·h·f SwiGLU, 2·h·f otherwise)")
        + X::input("L_moe", double(c.moeLayers), "layers", "MoE layers") * moeMlp
        + X::input("V", static_cast<double>(m.vocab), "tokens", "vocabulary")
        * X::input("h", static_cast<double>(m.hidden), "", "hidden size")
        + X::input("P_head", c.head, "parameters", "output layer V·h (0 with tied embeddings)")
        + X::input("P_pos", c.positions, "parameters", "learned positions")
        + X::input("P_fn", c.finalNorm, "parameters", "final norm (+ an embedding norm)");
}
template Fast parameterCount<Fast>(const ModelSpec&, const ModelCounts&);
template Expr parameterCount<Expr>(const ModelSpec&, const ModelCounts&);

ModelCounts countParameters(const ModelSpec& m)
{
    ModelCounts c;
    const double h = static_cast<double>(m.hidden);
    const double d = static_cast<double>(m.effectiveHeadDim());
    const double a = m.heads, g = m.kvHeads;
    c.qSize = a * d;
    c.kvSize = g * d;
    // Norm weights: RMSNorm has a scale (h), LayerNorm a scale and a bias (2h) (Megatron-LM theoretical_memory_usage.py).
    const double normSize = m.norm == Norm::RmsNorm ? 1.0 : 2.0;

    if (m.isMla()) {
        // DeepSeek-V3 multi-head latent attention (deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json):
        // h·q_lora + q_lora·a·(nope+rope) + h·(kv_lora+rope) + kv_lora·a·(nope+v) + a·v·h, plus q/kv latent RMSNorms.
        const auto& l = m.mla;
        const double qk = static_cast<double>(l.qkNopeHeadDim + l.qkRopeHeadDim);
        // Without a query LoRA rank (DeepSeek-V2-Lite, q_lora_rank null) the query is one h·a·(nope+rope) projection.
        const double query = l.qLoraRank > 0 ? h * l.qLoraRank + l.qLoraRank * a * qk : h * a * qk;
        c.attention = query + h * (l.kvLoraRank + l.qkRopeHeadDim)
            + l.kvLoraRank * a * static_cast<double>(l.qkNopeHeadDim + l.vHeadDim) + a * l.vHeadDim * h;
        c.attentionNorms = static_cast<double>(l.qLoraRank + l.kvLoraRank);
        c.qSize = a * static_cast<double>(l.vHeadDim);
        // Scores over the q/k head (nope + rope), values over v (Megatron-LM training.py num_floating_point_operations,
        // MLA "core attn": s·a·(qk_head_dim + qk_pos_emb_head_dim)/2 + s·a·v_head_dim/2)
        c.scoreWidth = a * (qk + static_cast<double>(l.vHeadDim)) / 2;
        c.kvSize = static_cast<double>(l.kvLoraRank + l.qkRopeHeadDim);
    } else {
        c.scoreWidth = c.qSize;
        // h·(q + 2kv) for QKV plus q·h for the output projection (Megatron-LM theoretical_memory_usage.py).
        c.attention = h * (c.qSize + 2 * c.kvSize) + c.qSize * h;
        if (m.qkvBias || m.linearBias)
            c.attention += c.qSize + 2 * c.kvSize; // QKV biases (Qwen2.5, GPT-3)
        if (m.linearBias)
            c.attention += h; // output-projection bias (GPT-3: 12h² + 13h per layer)
    }
    // Gated MLPs (SwiGLU) have three matrices, plain GELU/ReLU MLPs two (Megatron-LM `gated`).
    const double mats = m.mlp == Mlp::SwiGlu ? 3.0 : 2.0;
    const double f = static_cast<double>(m.ffnHidden);
    // Biases: the first projection's outputs ((mats − 1)·f: gate and up in a gated MLP, Megatron's linear_fc1 of width
    // 2f) and the second's (h).
    c.denseMlp = mats * h * f + (m.linearBias ? (mats - 1) * f + h : 0.0);
    c.layerNorms = 2 * normSize * h;

    if (m.isMoe()) {
        const double fe = static_cast<double>(m.moe.expertFfnHidden);
        const double perExpert = mats * h * fe + (m.linearBias ? (mats - 1) * fe + h : 0.0);
        c.routedExperts = m.moe.experts * perExpert;
        c.routedActive = m.moe.topK * perExpert;
        c.sharedExperts = m.moe.sharedExperts * perExpert;
        // Router h·E (Megatron router_params); DeepSeek-V3 also keeps an E-sized score-correction bias.
        c.router = h * m.moe.experts + (m.isMla() ? m.moe.experts : 0);
        c.denseLayers = std::clamp(m.moe.denseLayers, 0, m.layers);
        c.moeLayers = m.layers - c.denseLayers;
    } else {
        c.denseLayers = m.layers;
        c.moeLayers = 0;
    }
    const double V = static_cast<double>(m.vocab);
    c.embedding = V * h;
    c.head = m.tiedEmbeddings ? 0.0 : V * h;
    c.positions = m.position == PositionEmbedding::Learned ? static_cast<double>(m.maxSeq) * h : 0.0;
    c.finalNorm = normSize * h * (m.embeddingNorm ? 2.0 : 1.0); // BLOOM adds a LayerNorm after the embedding

    c.total = parameterCount<Fast>(m, c).value();
    c.active = c.total - c.moeLayers * (c.routedExperts - c.routedActive);
    c.largestModule = std::max({ c.embedding, h * f, c.qSize * h, h * static_cast<double>(m.moe.expertFfnHidden) });

    if (m.paramsOverride > 0 && c.total > 0) {
        // The user gives Ψ (ZeRO paper examples): keep the architecture's proportions, scale to Ψ.
        const double k = m.paramsOverride / c.total;
        for (double* v :
            { &c.attention, &c.attentionNorms, &c.denseMlp, &c.routedExperts, &c.routedActive, &c.sharedExperts,
                &c.router, &c.layerNorms, &c.embedding, &c.head, &c.positions, &c.finalNorm, &c.active })
            *v *= k;
        c.total = m.paramsOverride;
        c.overridden = true;
    }
    return c;
}

} // namespace shardscope::core::detail
