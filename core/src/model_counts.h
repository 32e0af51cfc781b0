// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Parameter and FLOP counts of a transformer architecture (internal to the core).

#include "shardscope/core/scenario.h"

namespace shardscope::core::detail {

struct ModelCounts {
    double attention = 0; ///< per layer: Q/K/V/O projections (+ biases, MLA projections)
    double attentionNorms = 0; ///< per layer: MLA's internal q/kv norms (replicated under TP)
    double denseMlp = 0; ///< per dense layer: MLP weights (+ biases)
    double routedExperts = 0; ///< per MoE layer: all routed experts
    double routedActive = 0; ///< per MoE layer: the top-k routed experts a token visits
    double sharedExperts = 0; ///< per MoE layer: shared experts
    double router = 0; ///< per MoE layer: gating weights (replicated)
    double layerNorms = 0; ///< per layer: the two pre-norms
    double embedding = 0; ///< V·h input embedding
    double head = 0; ///< V·h output layer (0 when tied)
    double positions = 0; ///< learned positions maxSeq·h
    double finalNorm = 0; ///< final norm (+ BLOOM-style embedding norm)
    int denseLayers = 0; ///< layers with a dense MLP
    int moeLayers = 0;
    double total = 0; ///< Ψ
    double active = 0; ///< parameters a token uses (top-k experts)
    double largestModule = 0; ///< largest single weight matrix (DeepSpeed's largest_layer_params)
    double qSize = 0; ///< heads·head_dim (attention inner size)
    /// heads·(d_qk + d_v)/2: the width the scores (Q·Kᵀ over d_qk) and values (P·V over d_v) multiply through, per
    /// query per key; qSize where the query, key and value heads are one width (all but MLA)
    double scoreWidth = 0;
    double kvSize = 0; ///< kv_heads·head_dim
    bool overridden = false; ///< every part scaled to model.params
};

/// Counts for a model, as Megatron-LM megatron/training/theoretical_memory_usage.py counts them
/// (compute_weight_and_optimizer_memory; docs/model.md §parameter-count). Honours paramsOverride by scaling every
/// part.
ModelCounts countParameters(const ModelSpec& m);

/// Ψ from a model's counts: every layer's attention and norms, the dense and MoE MLPs, embedding, output layer,
/// positions and final norm; with model.params, that figure. X = Fast for countParameters, Expr for the
/// model.parameters term (expr.h).
template <class X> X parameterCount(const ModelSpec& m, const ModelCounts& c);

} // namespace shardscope::core::detail
