// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-LM arguments → scenario (issue 14): a command line or a launch script (as `launch-config --target
// megatron` writes, or Megatron-LM's examples/*/train_*.sh with bash arrays), split into words (shell_words.h) and
// read as argparse would. Nothing is expanded or run: a flag ShardScope reads whose value is a shell variable
// ($VAR, ${VAR}, `...`) is refused naming the flag.
//
// Flags and defaults: NVIDIA/Megatron-LM @ d98e8a64 (the commit launch_config.cpp was checked against),
// megatron/training/arguments.py and the config dataclasses it builds flags from
// (megatron/core/model_parallel_config.py, megatron/core/transformer/transformer_config.py):
// --num-layers, --hidden-size, --ffn-hidden-size (default 4 h; with --swiglu int(4 h · 2/3 / 64) · 64),
// --num-attention-heads, --group-query-attention / --num-query-groups, --kv-channels, --seq-length,
// --max-position-embeddings, --swiglu, --normalization (LayerNorm default | RMSNorm), --position-embedding-type
// (learned_absolute default | rope | none), --untie-embeddings-and-output-weights (tied by default),
// --disable-bias-linear (biases by default), --add-qkv-bias, --vocab-size; MoE --num-experts, --moe-router-topk
// (default 2), --moe-ffn-hidden-size (default ffn_hidden_size), --moe-shared-expert-intermediate-size,
// --moe-layer-freq (an int or a Python list expression, parsed here, never evaluated), --moe-router-group-topk (as
// nodes per token), --overlap-moe-expert-parallel-comm (moe_overlap ep-overlap), --tp-comm-overlap; MLA --multi-latent-attention,
// --q-lora-rank (None), --kv-lora-rank (32), --qk-head-dim (128), --qk-pos-emb-head-dim (64), --v-head-dim (128);
// parallelism --tensor-model-parallel-size, --pipeline-model-parallel-size, --context-parallel-size,
// --expert-model-parallel-size (all default 1), --cp-comm-type (p2p default | a2a | all_gather | a2a+p2p), --sequence-parallel, --num-layers-per-virtual-pipeline-stage,
// --num-virtual-stages-per-pipeline-rank, --pipeline-model-parallel-layout (as it is),
// --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers (as the layout they mean); --micro-batch-size, --global-batch-size (default micro × dp);
// --recompute-granularity (full | selective; None by default), --recompute-activations (= selective),
// --recompute-method / --recompute-num-layers; --bf16, --fp16, --fp8-format (e4m3 | hybrid), --fp8-recipe (mxfp8 → mxfp8), --fp8-param-gather,
// --grad-reduce-in-bf16, --accumulate-allreduce-grads-in-fp32; --attention-backend,
// --use-flash-attn; --hidden-dropout / --attention-dropout (default 0.1); --use-distributed-optimizer,
// --use-megatron-fsdp with --data-parallel-sharding-strategy (no_shard | optim | optim_grads | optim_grads_params),
// --num-distributed-optimizer-instances, --use-torch-fsdp2, --torch-fsdp2-no-reshard-after-forward,
// --optimizer-cpu-offload, --cpu-offloading-num-layers, --optimizer (adam default | sgd), --use-precision-aware-optimizer with --main-params-dtype,
// --exp-avg-dtype and --exp-avg-sq-dtype; --expert-tensor-parallel-size (default tp),
// --moe-token-dispatcher-type (allgather default | alltoall | flex), --moe-flex-dispatcher-backend (deepep default |
// hybridep | ncclep), --moe-enable-deepep, --recompute-modules (core_attn default). torchrun (torch/distributed/run.py): --nnodes,
// --nproc-per-node (alias --nproc_per_node).
#include "checked_int.h"
#include "import_common.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/pipeline_layout.h"
#include "shell_words.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace shardscope::core::detail {

namespace {

/// Flags whose presence alone says something (argparse store_true).
const std::set<std::string>& switches()
{
    static const std::set<std::string> s = { "--group-query-attention", "--swiglu",
        "--untie-embeddings-and-output-weights", "--disable-bias-linear", "--add-qkv-bias", "--multi-latent-attention",
        "--sequence-parallel", "--recompute-activations", "--bf16", "--fp16", "--use-flash-attn",
        "--use-distributed-optimizer", "--use-megatron-fsdp", "--use-torch-fsdp2",
        "--torch-fsdp2-no-reshard-after-forward", "--optimizer-cpu-offload", "--squared-relu", "--standalone",
        "--use-precision-aware-optimizer", "--overlap-grad-reduce", "--overlap-param-gather",
        "--overlap-param-gather-with-optimizer-step", "--no-gradient-accumulation-fusion", "--use-mcore-models",
        "--no-masked-softmax-fusion", "--no-bias-gelu-fusion", "--no-bias-dropout-fusion", "--no-rope-fusion",
        "--use-rotary-position-embeddings", "--no-position-embedding", "--fp8-param-gather", "--tp-comm-overlap",
        "--mock-data", "--overlap-moe-expert-parallel-comm", "--grad-reduce-in-bf16",
        "--accumulate-allreduce-grads-in-fp32", "--moe-enable-deepep", "--cpu-offloading", "--cpu-offloading-weights" };
    return s;
}

/// Flags that take a list of words (argparse nargs='*'): every word up to the next flag.
const std::set<std::string>& listed()
{
    static const std::set<std::string> s = { "--recompute-modules", "--cp-comm-type" };
    return s;
}

/// Flags ShardScope reads that take a value.
const std::set<std::string>& valued()
{
    static const std::set<std::string> s = { "--num-layers", "--hidden-size", "--ffn-hidden-size",
        "--num-attention-heads", "--num-query-groups", "--kv-channels", "--seq-length", "--max-position-embeddings",
        "--normalization", "--position-embedding-type", "--vocab-size", "--num-experts", "--moe-router-topk",
        "--moe-ffn-hidden-size", "--moe-shared-expert-intermediate-size", "--moe-layer-freq", "--moe-router-group-topk",
        "--q-lora-rank", "--kv-lora-rank", "--qk-head-dim", "--qk-pos-emb-head-dim", "--v-head-dim",
        "--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--context-parallel-size",
        "--expert-model-parallel-size", "--num-layers-per-virtual-pipeline-stage",
        "--num-virtual-stages-per-pipeline-rank", "--micro-batch-size", "--global-batch-size",
        "--recompute-granularity", "--recompute-method", "--recompute-num-layers", "--fp8-format",
        "--attention-backend", "--hidden-dropout", "--attention-dropout", "--data-parallel-sharding-strategy",
        "--num-distributed-optimizer-instances", "--optimizer", "--nnodes", "--nproc-per-node", "--nproc_per_node",
        "--expert-tensor-parallel-size", "--moe-token-dispatcher-type", "--moe-flex-dispatcher-backend",
        "--pipeline-model-parallel-layout", "--fp8-recipe", "--decoder-first-pipeline-num-layers",
        "--decoder-last-pipeline-num-layers", "--main-params-dtype", "--exp-avg-dtype", "--exp-avg-sq-dtype",
        "--cpu-offloading-num-layers" };
    return s;
}

struct Flag {
    std::string value;
    bool expands = false;
    int line = 0;
};

class Args
{
public:
    Args(std::map<std::string, Flag> flags, ImportContext& cx)
        : m_flags(std::move(flags))
        , m_cx(cx)
    { }
    /// The flag's value is a shell expansion ($VAR, ${VAR}, `...`).
    bool expands(const std::string& f) const
    {
        const auto it = m_flags.find(f);
        return it != m_flags.end() && it->second.expands;
    }
    bool has(const std::string& f)
    {
        m_used.insert(f);
        return m_flags.count(f) > 0;
    }
    /// The value of a flag, refused when bash would substitute it.
    bool value(const std::string& f, std::string& out)
    {
        if (!has(f))
            return false;
        const Flag& v = m_flags.at(f);
        if (v.expands) {
            m_cx.error(f,
                "'" + v.value + "' (line " + std::to_string(v.line)
                    + ") is a shell expansion: ShardScope "
                      "reads the script, it never expands variables or runs commands; write the value itself");
            return false;
        }
        out = v.value;
        return true;
    }
    bool count(const std::string& f, int64_t& out, int64_t lo = 1)
    {
        std::string v;
        if (!value(f, v))
            return false;
        return whole(f, v, lo, kMaxWhole, out);
    }
    bool count(const std::string& f, int& out, int64_t lo = 1)
    {
        std::string v;
        int64_t n = 0;
        if (!value(f, v) || !whole(f, v, lo, kMaxIntCount, n))
            return false;
        out = static_cast<int>(n); // within [lo, kMaxIntCount]
        return true;
    }
    bool number(const std::string& f, double& out)
    {
        std::string v;
        if (!value(f, v))
            return false;
        size_t used = 0;
        try {
            out = std::stod(v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v.size() || v.empty() || !std::isfinite(out)) {
            m_cx.error(f, "must be a finite number, not '" + v + "'");
            return false;
        }
        return true;
    }
    /// One of `allowed`; an error listing them otherwise.
    bool choice(const std::string& f, std::string& out, std::initializer_list<std::string_view> allowed)
    {
        if (!value(f, out))
            return false;
        for (auto a : allowed)
            if (a == out)
                return true;
        m_cx.error(f, "'" + out + "' is not one of: " + oneOf(allowed));
        return false;
    }
    /// `v` as a whole number in [lo, hi]; an error naming the flag and the range otherwise.
    bool whole(const std::string& f, const std::string& v, int64_t lo, int64_t hi, int64_t& out)
    {
        if (parseWhole(v, lo, hi, out))
            return true;
        m_cx.error(f, wholeRule(lo, hi, "'" + v + "'"));
        return false;
    }
    std::vector<std::string> unused() const
    {
        std::vector<std::string> v;
        for (const auto& [name, flag] : m_flags)
            if (!m_used.count(name))
                v.push_back(name);
        return v;
    }

private:
    std::map<std::string, Flag> m_flags;
    ImportContext& m_cx;
    std::set<std::string> m_used;
};

/// --moe-layer-freq: an int N (every N-th layer is MoE) or a list pattern "([0]*k+[1]*n)", "[0]*k+[1]*n" or
/// "[0,0,1,...]" (arguments.py moe_freq_type evaluates it in Python; here it is parsed). Returns the number of
/// leading dense layers; false when the pattern is not k dense layers followed only by MoE layers.
bool denseLayersFromFreq(const std::string& v, int layers, int& dense, std::string& why)
{
    std::string t;
    for (char c : v)
        if (!std::isspace(static_cast<unsigned char>(c)))
            t += c;
    // "(pattern)*r": the pattern repeated r times (Megatron's examples write "([0]*3+[1]*58)*1")
    size_t repeat = 1;
    if (const size_t close = t.rfind(")*"); t.size() > 2 && t.front() == '(' && close != std::string::npos) {
        const std::string r = t.substr(close + 2);
        if (r.empty() || r.size() > 6
            || !std::all_of(r.begin(), r.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })
            || std::stoi(r) < 1) {
            why = "expected a repeat count after )*";
            return false;
        }
        repeat = static_cast<size_t>(std::stoi(r));
        t = t.substr(1, close - 1);
    } else if (t.size() > 2 && t.front() == '(' && t.back() == ')') {
        t = t.substr(1, t.size() - 2);
    }
    std::vector<int> pattern;
    bool digits = !t.empty();
    for (char c : t)
        digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) {
        if (t.size() > 6 || std::stoi(t) != 1) {
            why = "every-N-th-layer MoE (N > 1) is not supported; only 1";
            return false;
        }
        dense = 0;
        return true;
    }
    if (!t.empty() && t.front() == '[' && t.find('*') == std::string::npos) {
        // explicit list [0,0,1,...]
        if (t.back() != ']') {
            why = "not a list";
            return false;
        }
        std::string item;
        for (size_t i = 1; i < t.size(); ++i) {
            const char c = t[i];
            if (c == ',' || c == ']') {
                if (item != "0" && item != "1") {
                    why = "list entries must be 0 or 1";
                    return false;
                }
                pattern.push_back(item == "1");
                item.clear();
            } else {
                item += c;
            }
        }
    } else {
        // [0]*k+[1]*n terms
        size_t pos = 0;
        while (pos < t.size()) {
            if (t.compare(pos, 4, "[0]*") != 0 && t.compare(pos, 4, "[1]*") != 0) {
                why = "expected [0]*k+[1]*n";
                return false;
            }
            const int bit = t[pos + 1] - '0';
            pos += 4;
            size_t end = pos;
            while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end])))
                ++end;
            if (end == pos || end - pos > 6) {
                why = "expected a count after *";
                return false;
            }
            pattern.insert(pattern.end(), static_cast<size_t>(std::stoi(t.substr(pos, end - pos))), bit);
            pos = end;
            if (pos < t.size()) {
                if (t[pos] != '+') {
                    why = "expected +";
                    return false;
                }
                ++pos;
            }
            if (pattern.size() > 100000) {
                why = "too long";
                return false;
            }
        }
    }
    if (repeat > 1) {
        if (pattern.size() * repeat > 100000) {
            why = "too long";
            return false;
        }
        const std::vector<int> once = pattern;
        for (size_t i = 1; i < repeat; ++i)
            pattern.insert(pattern.end(), once.begin(), once.end());
    }
    if (static_cast<int>(pattern.size()) != layers) {
        why = "the pattern has " + std::to_string(pattern.size()) + " layers, --num-layers " + std::to_string(layers);
        return false;
    }
    dense = 0;
    while (dense < layers && pattern[static_cast<size_t>(dense)] == 0)
        ++dense;
    for (int i = dense; i < layers; ++i)
        if (pattern[static_cast<size_t>(i)] == 0) {
            why = "dense layers after MoE layers are not supported (only leading dense layers)";
            return false;
        }
    return true;
}

void readModel(Args& a, ImportContext& cx)
{
    ModelSpec m = cx.s().model;
    if (!a.has("--num-layers") && !a.has("--hidden-size"))
        return; // no model in these arguments: the base scenario's
    a.count("--num-layers", m.layers);
    a.count("--hidden-size", m.hidden);
    a.count("--num-attention-heads", m.heads);
    m.kvHeads = m.heads;
    if (a.has("--group-query-attention"))
        a.count("--num-query-groups", m.kvHeads);
    else if (a.has("--num-query-groups"))
        cx.warning("--num-query-groups", "ignored without --group-query-attention (arguments.py)");
    m.headDim = 0;
    a.count("--kv-channels", m.headDim);
    const bool swiglu = a.has("--swiglu");
    m.mlp = swiglu ? Mlp::SwiGlu : Mlp::Gelu;
    if (a.has("--squared-relu")) {
        m.mlp = Mlp::Relu;
        cx.warning("--squared-relu", "counted as a plain ReLU MLP (same matrices)");
    }
    m.ffnHidden = swiglu ? static_cast<int64_t>((4 * m.hidden * 2 / 3) / 64) * 64 : 4 * m.hidden;
    a.count("--ffn-hidden-size", m.ffnHidden);
    std::string norm = "LayerNorm";
    a.choice("--normalization", norm, { "LayerNorm", "RMSNorm" });
    m.norm = norm == "RMSNorm" ? Norm::RmsNorm : Norm::LayerNorm;
    std::string pos = "learned_absolute";
    a.choice("--position-embedding-type", pos, { "learned_absolute", "rope", "mrope", "relative", "yarn", "none" });
    m.position = pos == "learned_absolute" ? PositionEmbedding::Learned : PositionEmbedding::Rope;
    if (pos == "none" || pos == "relative")
        cx.warning("--position-embedding-type", pos + " is counted as rope (no position parameters)");
    a.count("--max-position-embeddings", m.maxSeq);
    m.tiedEmbeddings = !a.has("--untie-embeddings-and-output-weights");
    m.linearBias = !a.has("--disable-bias-linear");
    m.qkvBias = m.linearBias || a.has("--add-qkv-bias");
    m.embeddingNorm = false;
    if (!a.count("--vocab-size", m.vocab))
        cx.warning("--vocab-size",
            "not given (Megatron-LM takes it from the tokenizer): the base scenario's vocabulary ("
                + std::to_string(m.vocab) + ") is used");
    else
        cx.set("model.vocab");

    m.moe = {};
    m.moe.capacityFactor = cx.s().model.moe.capacityFactor;
    if (a.count("--num-experts", m.moe.experts)) {
        m.moe.topK = 2;
        a.count("--moe-router-topk", m.moe.topK);
        m.moe.expertFfnHidden = m.ffnHidden;
        a.count("--moe-ffn-hidden-size", m.moe.expertFfnHidden);
        int64_t shared = 0;
        if (m.moe.expertFfnHidden < 1)
            cx.error(a.has("--moe-ffn-hidden-size") ? "--moe-ffn-hidden-size" : "--ffn-hidden-size",
                "the expert size (--moe-ffn-hidden-size, by default --ffn-hidden-size"
                    + std::string(swiglu ? ", by default int(4 x hidden x 2/3 / 64) x 64 with --swiglu" : "")
                    + ") must be at least 1, not " + std::to_string(m.moe.expertFfnHidden)
                    + ": give --moe-ffn-hidden-size");
        else if (a.count("--moe-shared-expert-intermediate-size", shared)) {
            if (shared % m.moe.expertFfnHidden != 0)
                cx.error("--moe-shared-expert-intermediate-size",
                    "must be a multiple of --moe-ffn-hidden-size (" + std::to_string(m.moe.expertFfnHidden)
                        + "): ShardScope counts shared experts in expert units");
            else if (!narrowInt(shared / m.moe.expertFfnHidden, 0, kMaxIntCount, m.moe.sharedExperts))
                cx.error("--moe-shared-expert-intermediate-size",
                    "is more than " + std::to_string(kMaxIntCount) + " experts of --moe-ffn-hidden-size");
        }
        std::string freq;
        // Group-limited routing (megatron/core/transformer/transformer_config.py moe_router_group_topk): with the
        // groups laid over nodes, as DeepSeek-V3 runs it, each token reaches at most that many nodes.
        a.count("--moe-router-group-topk", m.moe.maxNodesPerToken);
        if (a.value("--moe-layer-freq", freq)) {
            std::string why;
            if (!denseLayersFromFreq(freq, m.layers, m.moe.denseLayers, why))
                cx.error("--moe-layer-freq", "'" + freq + "': " + why);
        }
    }
    m.mla = {};
    if (a.has("--multi-latent-attention")) {
        m.mla.kvLoraRank = 32;
        m.mla.qkNopeHeadDim = 128;
        m.mla.qkRopeHeadDim = 64;
        m.mla.vHeadDim = 128;
        a.count("--q-lora-rank", m.mla.qLoraRank);
        a.count("--kv-lora-rank", m.mla.kvLoraRank);
        a.count("--qk-head-dim", m.mla.qkNopeHeadDim);
        a.count("--qk-pos-emb-head-dim", m.mla.qkRopeHeadDim);
        a.count("--v-head-dim", m.mla.vHeadDim);
    }
    if (m.isMla())
        m.headDim = m.mla.vHeadDim; // the catalog's convention for MLA models (models.json deepseek-v3)
    adoptPreset(m,
        "Megatron-LM model (" + std::to_string(m.layers) + " layers, hidden " + std::to_string(m.hidden) + ")", false,
        cx.s().model, cx.catalog);
    cx.s().model = m;
    for (const char* f : { "model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim",
             "model.ffn_hidden", "model.max_seq", "model.mlp", "model.norm", "model.position_embedding",
             "model.tied_embeddings", "model.biases", "model.moe", "model.mla" })
        cx.set(f);
}

/// --cp-comm-type (arguments.py: nargs='+', default p2p; one word for every layer, or one per layer): p2p, a2a or
/// all_gather (or allgather) as they are; a2a+p2p (hierarchical, --hierarchical-context-parallel-sizes) as p2p; per-layer words that
/// differ as the first, with a warning.
void readCpCommType(Args& a, ImportContext& cx)
{
    auto& p = cx.s().parallelism;
    p.cpCommType = CpCommType::P2p;
    std::string words;
    if (!a.value("--cp-comm-type", words))
        return;
    std::vector<std::string> types;
    for (const ShellWord& w : splitShellWords(words).words) {
        // arguments.py's help spells it allgather; Transformer Engine takes all_gather (context_parallel.py
        // attn_forward_func_with_cp)
        if (w.text != "p2p" && w.text != "a2a" && w.text != "all_gather" && w.text != "allgather"
            && w.text != "a2a+p2p") {
            cx.error("--cp-comm-type", "'" + w.text + "' is not one of: p2p, a2a, all_gather, a2a+p2p");
            return;
        }
        types.push_back(w.text == "allgather" ? "all_gather" : w.text);
    }
    if (types.empty())
        return;
    const std::string& first = types.front();
    if (std::any_of(types.begin(), types.end(), [&](const std::string& w) { return w != first; }))
        cx.warning(
            "--cp-comm-type", "one type per layer is not modelled: every layer is modelled with the first, " + first);
    if (first == "a2a+p2p")
        cx.warning("--cp-comm-type",
            "a2a+p2p (hierarchical, all-to-all inside --hierarchical-context-parallel-sizes' inner groups) is "
            "modelled as p2p over the whole CP group");
    p.cpCommType = first == "a2a" ? CpCommType::A2a : first == "all_gather" ? CpCommType::AllGather : CpCommType::P2p;
}

/// --pipeline-model-parallel-layout as it is (arguments.py: the virtual stages are its stage count ÷ pp), or
/// --decoder-first/last-pipeline-num-layers written as the layout they mean (transformer_config.py, uneven PP: the
/// first and last ranks take those layers, the middle ranks share the rest evenly, each rank's split over its
/// virtual stages).
void readPipelineLayout(Args& a, ImportContext& cx)
{
    auto& p = cx.s().parallelism;
    const int layers = cx.s().model.layers;
    p.pipelineLayout.clear();
    std::string layout;
    if (a.value("--pipeline-model-parallel-layout", layout)) {
        const ParsedPipelineLayout pl = parsePipelineLayout(layout);
        if (!pl.error.empty()) {
            cx.error("--pipeline-model-parallel-layout", "'" + layout + "': the layout " + pl.error);
            return;
        }
        p.pipelineLayout = layout;
        if (p.pp > 0 && pl.chunks.size() % size_t(p.pp) == 0)
            p.virtualStages = int(pl.chunks.size() / size_t(p.pp));
        return;
    }
    int first = 0, last = 0;
    a.count("--decoder-first-pipeline-num-layers", first);
    a.count("--decoder-last-pipeline-num-layers", last);
    if (first == 0 && last == 0)
        return;
    const int pp = p.pp, v = std::max(1, p.virtualStages);
    const int middleRanks = pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    const int middleLayers = layers - first - last;
    if (pp < 2 || middleRanks < 0 || middleLayers < 0 || (middleRanks == 0) != (middleLayers == 0)
        || (middleRanks > 0 && middleLayers % middleRanks != 0)) {
        cx.error("--decoder-first-pipeline-num-layers",
            "first " + std::to_string(first) + " and last " + std::to_string(last) + " layers leave "
                + std::to_string(middleLayers) + " layers for " + std::to_string(middleRanks)
                + " middle pipeline stages: they must split evenly (transformer_config.py)");
        return;
    }
    std::vector<int> perRank(size_t(pp), middleRanks > 0 ? middleLayers / middleRanks : 0);
    if (first > 0)
        perRank.front() = first;
    if (last > 0)
        perRank.back() = last;
    for (int n : perRank)
        if (n % v != 0) {
            cx.error("--decoder-first-pipeline-num-layers",
                "a stage's " + std::to_string(n) + " layers do not divide over " + std::to_string(v)
                    + " virtual stages (transformer_config.py)");
            return;
        }
    // Virtual stage j runs on rank j mod pp (pipeline_parallel_layer_layout.py): chunk order is rank-fastest.
    for (int j = 0; j < pp * v; ++j) {
        p.pipelineLayout += j == 0 ? "E" : "|";
        p.pipelineLayout += std::string(size_t(perRank[size_t(j % pp)] / v), 't');
    }
    p.pipelineLayout += "L";
}

} // namespace

void importMegatronArgs(std::string_view text, ImportContext& cx)
{
    if (text.find('\0') != std::string_view::npos) {
        cx.error("", "the file contains a NUL byte: it is not a shell script or a command line");
        return;
    }
    // Windows line ends (CRLF) and a UTF-8 byte-order mark, as editors on Windows save scripts: read as bash on
    // Linux would read the same script saved with LF and no mark.
    std::string unix;
    unix.reserve(text.size());
    for (size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; i < text.size(); ++i)
        if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n'))
            unix += text[i];
    const ShellSplit split = splitShellWords(unix);
    if (!split.error.empty()) {
        cx.error("", split.error);
        return;
    }

    // Variables the text itself defines (NAME=value, NAME=( ... )): their words are part of the stream already; a
    // string value holding flags is split as bash splits an unquoted $NAME.
    std::set<std::string> defined;
    std::vector<ShellWord> words;
    for (const ShellWord& w : split.words) {
        const size_t eq = w.text.find('=');
        const bool assignment = eq != std::string::npos && eq > 0 && w.text[0] != '-'
            && w.text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == eq;
        if (assignment) {
            defined.insert(w.text.substr(0, eq));
            const std::string value = w.text.substr(eq + 1);
            if (value.find("--") != std::string::npos) {
                const ShellSplit inner = splitShellWords(value);
                for (ShellWord iw : inner.words) {
                    iw.line = w.line;
                    words.push_back(iw);
                }
            }
            continue;
        }
        words.push_back(w);
    }

    std::map<std::string, Flag> flags;
    std::set<std::string> repeated, undefinedRefs;
    for (size_t i = 0; i < words.size(); ++i) {
        const ShellWord& w = words[i];
        if (w.text.rfind("--", 0) != 0 || w.text.size() < 3) {
            if (w.expands && w.text.front() == '$') {
                // $NAME, ${NAME}, ${NAME[@]}: fine when the text defines NAME (its words were read above).
                std::string name = w.text.substr(1);
                if (!name.empty() && name.front() == '{')
                    name = name.substr(1, name.find_first_of("[}") - 1);
                if (!defined.count(name))
                    undefinedRefs.insert(w.text);
            }
            continue;
        }
        Flag f;
        f.line = w.line;
        std::string name = w.text;
        if (const size_t eq = name.find('='); eq != std::string::npos) {
            f.value = name.substr(eq + 1);
            f.expands = w.expands;
            name = name.substr(0, eq);
        } else if (switches().count(name)) {
            // store_true
        } else if (listed().count(name)) {
            // nargs='*': the words up to the next flag, kept space-separated
            while (i + 1 < words.size() && words[i + 1].text.rfind('-', 0) != 0) {
                f.value += (f.value.empty() ? "" : " ") + words[i + 1].text;
                f.expands = f.expands || words[i + 1].expands;
                ++i;
            }
        } else if (i + 1 < words.size()
            && (valued().count(name) || words[i + 1].text.rfind('-', 0) != 0 || words[i + 1].text.size() < 2)) {
            f.value = words[i + 1].text;
            f.expands = words[i + 1].expands;
            ++i;
        } else if (valued().count(name)) {
            cx.error(name, "needs a value");
            continue;
        }
        if (flags.count(name))
            repeated.insert(name);
        flags[name] = f; // argparse: the last occurrence wins
    }
    if (flags.empty()) {
        cx.error("", "no --flags found: expected Megatron-LM arguments (a command line or a launch script)");
        return;
    }
    for (const auto& r : repeated)
        cx.warning(r, "given more than once; the last value is used (argparse)");
    for (const auto& u : undefinedRefs)
        cx.warning(u, "not defined in this text: any flags it holds are not seen");

    Args a(flags, cx);
    Scenario& s = cx.s();
    cx.framework(Framework::Megatron, "(arguments)");
    readModel(a, cx);

    // ---- Parallelism (argparse defaults 1).
    auto& p = s.parallelism;
    p.tp = p.pp = p.cp = p.ep = 1;
    a.count("--tensor-model-parallel-size", p.tp);
    a.count("--pipeline-model-parallel-size", p.pp);
    a.count("--context-parallel-size", p.cp);
    readCpCommType(a, cx);
    a.count("--expert-model-parallel-size", p.ep);
    // --expert-tensor-parallel-size (megatron/training/arguments.py: None means tp); kept only where it differs
    p.expertTp = 0;
    int etp = 0;
    if (a.count("--expert-tensor-parallel-size", etp) && etp != p.tp) {
        if (s.model.isMoe())
            p.expertTp = etp;
        else
            cx.warning("--expert-tensor-parallel-size", "the model has no experts (--num-experts): ignored");
    }
    p.sequenceParallel = a.has("--sequence-parallel");
    p.virtualStages = 1;
    int perVirtual = 0;
    if (a.count("--num-layers-per-virtual-pipeline-stage", perVirtual)) {
        const int perStage = p.pp > 0 ? s.model.layers / p.pp : 0;
        if (perStage % perVirtual != 0 || s.model.layers % p.pp != 0)
            cx.error("--num-layers-per-virtual-pipeline-stage",
                "(" + std::to_string(perVirtual)
                    + ") must divide the layers "
                      "per pipeline stage ("
                    + std::to_string(s.model.layers) + " / " + std::to_string(p.pp) + ")");
        else
            p.virtualStages = perStage / perVirtual;
    }
    a.count("--num-virtual-stages-per-pipeline-rank", p.virtualStages);
    readPipelineLayout(a, cx);
    p.schedule = p.pp > 1 && p.virtualStages > 1 ? PpSchedule::Interleaved : PpSchedule::OneFOneB;
    // megatron/core/transformer/transformer_config.py overlap_moe_expert_parallel_comm
    p.moeOverlap = a.has("--overlap-moe-expert-parallel-comm") ? MoeOverlap::EpOverlap : MoeOverlap::None;
    // megatron/core/model_parallel_config.py tp_comm_overlap (Transformer Engine userbuffers)
    p.tpCommOverlap = a.has("--tp-comm-overlap");
    for (const char* f : { "parallelism.tp", "parallelism.pp", "parallelism.cp", "parallelism.ep",
             "parallelism.sequence_parallel", "parallelism.virtual_stages", "parallelism.pp_schedule",
             "parallelism.moe_overlap", "parallelism.tp_comm_overlap", "parallelism.expert_tp",
             "parallelism.pipeline_layout", "parallelism.cp_comm_type" })
        cx.set(f);

    // ---- Token dispatcher (transformer_config.py moe_token_dispatcher_type, default "allgather"; "flex" with
    // moe_flex_dispatcher_backend, default "deepep"; the deprecated --moe-enable-deepep needs flex).
    if (s.model.isMoe()) {
        std::string type = "allgather", backend = "deepep";
        a.choice("--moe-token-dispatcher-type", type, { "allgather", "alltoall", "flex" });
        a.choice("--moe-flex-dispatcher-backend", backend, { "deepep", "hybridep", "ncclep" });
        if (a.has("--moe-enable-deepep") && type != "flex")
            cx.error("--moe-enable-deepep",
                "DeepEP is only supported with --moe-token-dispatcher-type flex "
                "(transformer_config.py)");
        auto& d = s.model.moe.dispatcher;
        d = type == "alltoall"    ? MoeDispatcher::AllToAll
            : type == "allgather" ? MoeDispatcher::AllGather
            : backend == "ncclep" ? MoeDispatcher::AllToAll
                                  : MoeDispatcher::DeepEp;
        if (type == "flex" && backend == "hybridep")
            cx.warning("--moe-flex-dispatcher-backend",
                "hybridep is modelled as DeepEP (one network crossing per node, "
                "NVLink forwarding)");
        if (type == "flex" && backend == "ncclep")
            cx.warning("--moe-flex-dispatcher-backend", "ncclep is modelled as an NCCL all-to-all (alltoall)");
        cx.set("model.moe.dispatcher");
    }

    // ---- GPUs from the torchrun line. The launcher's own flags often hold variables ($GPUS_PER_NODE in Megatron-LM's
    // examples): then the count comes from --gpus or the base, with a warning, rather than refusing the script.
    int nodes = 0, perNode = 0;
    for (const char* f : { "--nnodes", "--nproc-per-node", "--nproc_per_node" })
        if (a.expands(f)) {
            a.has(f);
            cx.warning(f, "a shell variable (never expanded): the GPU count comes from --gpus or the base scenario");
        }
    if (!a.expands("--nnodes"))
        a.count("--nnodes", nodes);
    if (!a.expands("--nproc-per-node") && !a.count("--nproc-per-node", perNode) && !a.expands("--nproc_per_node"))
        a.count("--nproc_per_node", perNode);
    if (nodes > 0 || perNode > 0) {
        if (cx.options.gpus != 0) {
            if ((nodes > 0 ? nodes : s.cluster.nodes) * (perNode > 0 ? perNode : s.cluster.gpusPerNode)
                != cx.options.gpus)
                cx.warning("--nnodes", "the torchrun line's GPU count differs from --gpus; --gpus is used");
        } else {
            if (nodes > 0) {
                s.cluster.nodes = nodes;
                cx.set("cluster.nodes");
            }
            if (perNode > 0) {
                s.cluster.gpusPerNode = perNode;
                cx.set("cluster.gpus_per_node");
            }
        }
    }

    // ---- Batch and sequence.
    if (a.count("--seq-length", s.training.seqLen))
        cx.set("training.seq_len");
    if (a.count("--micro-batch-size", s.training.microBatch))
        cx.set("training.micro_batch");
    // tp x pp x cp: each degree is bounded, their product need not be; 0 when it exceeds kMaxIntCount (refused).
    int64_t tpPp = 0, mp64 = 0;
    if (!boundedProduct(p.tp, p.pp, kMaxIntCount, tpPp) || !boundedProduct(tpPp, p.cp, kMaxIntCount, mp64)) {
        cx.error("--tensor-model-parallel-size",
            "tp x pp x cp (--tensor-model-parallel-size x "
            "--pipeline-model-parallel-size x --context-parallel-size) must be at most "
                + std::to_string(kMaxIntCount) + " GPUs");
        return;
    }
    const int mp = static_cast<int>(mp64);
    // Stated, or micro × dp (arguments.py).
    if (a.count("--global-batch-size", s.training.globalBatch)
        || (mp > 0 && s.cluster.gpus() % mp == 0
            && boundedProduct(s.training.microBatch, s.cluster.gpus() / mp, kMaxWhole, s.training.globalBatch)))
        cx.set("training.global_batch");

    // ---- Recompute (transformer_config.py recompute_granularity: None, "full" or "selective").
    std::string granularity;
    s.training.recompute = Recompute::None;
    if (a.has("--recompute-activations"))
        s.training.recompute = Recompute::Selective;
    if (a.choice("--recompute-granularity", granularity, { "full", "selective" }))
        s.training.recompute = granularity == "full" ? Recompute::Full : Recompute::Selective;
    if (s.training.recompute == Recompute::Full) {
        std::string method = "uniform";
        a.choice("--recompute-method", method, { "uniform", "block" });
        int n = 1;
        a.count("--recompute-num-layers", n, 0);
        if (method == "uniform" && n == 0) // recompute.py steps through the layers by recompute_num_layers
            cx.error("--recompute-num-layers", "uniform recompute needs at least 1 layer per group");
        // megatron/core/recompute.py: block checkpoints layers 0 .. recompute_num_layers − 1 of each stage, so 0 keeps
        // every layer's activations (no recompute).
        if (method == "block" && n == 0)
            s.training.recompute = Recompute::None;
        else if (method == "block")
            cx.warning("--recompute-method",
                "block recomputes only the first --recompute-num-layers layers of each stage; "
                "modelled as every layer (full)");
        else if (n > 1)
            cx.warning("--recompute-num-layers",
                "uniform groups of " + std::to_string(n)
                    + " layers keep fewer inputs than one per layer; modelled as one per layer");
    }
    // --recompute-modules (transformer_config.py recompute_modules, default core_attn), read with selective only.
    s.training.recomputeModules.reset();
    std::string modules;
    if (a.value("--recompute-modules", modules)) {
        if (s.training.recompute != Recompute::Selective) {
            cx.warning("--recompute-modules", "applies to --recompute-granularity selective only: ignored");
        } else {
            RecomputeModules mods;
            std::vector<std::string> notModelled;
            for (const ShellWord& w : splitShellWords(modules).words) {
                if (setRecomputeModule(mods, w.text))
                    continue;
                if (w.text == "mla_up_proj" || w.text == "gdn_norm_out" || w.text == "gdp_in_proj"
                    || w.text == "gdp_qkv" || w.text == "mhc")
                    notModelled.push_back(w.text);
                else
                    cx.error("--recompute-modules",
                        "'" + w.text
                            + "' is not a module Megatron-LM recomputes; allowed: " + std::string(kRecomputeModuleNames)
                            + " (and mla_up_proj, gdn_norm_out, gdp_in_proj, "
                              "gdp_qkv, mhc, which ShardScope does not model)");
            }
            if (!notModelled.empty())
                cx.warning("--recompute-modules",
                    cappedList(notModelled, " ")
                        + ": not modelled (their activations count "
                          "as kept)");
            s.training.recomputeModules = mods;
        }
    }
    cx.set("training.recompute");
    cx.set("training.recompute_modules");

    // ---- Precision.
    const bool bf16 = a.has("--bf16"), fp16 = a.has("--fp16");
    if (bf16 && fp16)
        cx.error("--fp16", "--bf16 and --fp16 cannot both be given");
    s.training.precision = bf16 ? Precision::Bf16Mixed : fp16 ? Precision::Fp16Mixed : Precision::Fp32;
    std::string fp8;
    if (a.choice("--fp8-format", fp8, { "e4m3", "hybrid" }))
        s.training.precision = Precision::Fp8Mixed;
    // transformer_config.py fp8_recipe (default delayed): mxfp8 is block-scaled FP8 on Blackwell; the other recipes
    // (delayed, tensorwise, blockwise, custom) keep per-tensor or per-128 scales: fp8-mixed.
    std::string recipe;
    if (a.choice("--fp8-recipe", recipe, { "delayed", "tensorwise", "mxfp8", "blockwise", "custom" })
        && recipe == "mxfp8") {
        if (s.training.precision == Precision::Fp8Mixed)
            s.training.precision = Precision::Mxfp8;
        else
            cx.warning("--fp8-recipe", "mxfp8 needs --fp8-format; ignored");
    }
    cx.set("training.precision");
    // arguments.py (validate_args): --grad-reduce-in-bf16 turns off the fp32 accumulation that bf16 otherwise implies,
    // even with --accumulate-allreduce-grads-in-fp32 given.
    s.training.gradReduce = a.has("--grad-reduce-in-bf16") ? GradReduce::Bf16
        : a.has("--accumulate-allreduce-grads-in-fp32")    ? GradReduce::Fp32
                                                           : GradReduce::Framework;
    cx.set("training.grad_reduce_dtype");
    // --fp8-param-gather keeps the FP8 weights as the parameters (transformer_engine fp8_model_init); without FP8 it
    // has nothing to keep.
    s.training.fp8ParamGather = a.has("--fp8-param-gather") && isFp8(s.training.precision);
    if (a.has("--fp8-param-gather") && !s.training.fp8ParamGather)
        cx.warning("--fp8-param-gather", "needs --fp8-format; ignored");
    cx.set("training.fp8_param_gather");

    std::string backend;
    if (a.choice("--attention-backend", backend, { "flash", "fused", "unfused", "local", "auto" })) {
        s.training.flashAttention = backend == "flash" || backend == "fused" || backend == "auto";
        cx.set("training.flash_attention");
    } else if (a.has("--use-flash-attn")) {
        s.training.flashAttention = true;
        cx.set("training.flash_attention");
    }
    double hidden = 0.1, attention = 0.1; // transformer_config.py hidden_dropout, attention_dropout
    a.number("--hidden-dropout", hidden);
    a.number("--attention-dropout", attention);
    s.training.dropout = hidden > 0 || attention > 0;
    cx.set("training.dropout");

    // ---- Data-parallel sharding and offload.
    p.sharding = Sharding::Ddp;
    p.shardGroup = 0;
    if (a.has("--use-distributed-optimizer"))
        p.sharding = Sharding::Zero1;
    if (a.has("--use-megatron-fsdp")) {
        std::string strategy = "optim_grads_params";
        a.choice("--data-parallel-sharding-strategy", strategy,
            { "no_shard", "optim", "optim_grads", "optim_grads_params" });
        p.sharding = strategy == "no_shard" ? Sharding::Ddp
            : strategy == "optim"           ? Sharding::Zero1
            : strategy == "optim_grads"     ? Sharding::Zero2
                                            : Sharding::Zero3;
    } else if (a.has("--use-torch-fsdp2")) {
        p.sharding = a.has("--torch-fsdp2-no-reshard-after-forward") ? Sharding::FsdpGradOp : Sharding::FsdpFull;
    }
    int instances = 1;
    if (a.count("--num-distributed-optimizer-instances", instances) && instances > 1) {
        const int dpcp = mp > 0 ? s.cluster.gpus() / (p.tp * p.pp) : 0;
        if (p.sharding != Sharding::Zero3 || dpcp % instances != 0)
            cx.warning("--num-distributed-optimizer-instances",
                "modelled only with optim_grads_params sharding over a "
                "data-parallel group it divides; ignored");
        else {
            p.sharding = Sharding::FsdpHybrid;
            p.shardGroup = dpcp / instances;
            cx.set("parallelism.shard_group");
        }
    }
    cx.set("parallelism.sharding");
    // Megatron's own DDP (with or without the distributed optimizer) overlaps the gradient reduction with the
    // backward only with --overlap-grad-reduce, off by default (megatron/training/arguments.py); Megatron-FSDP and
    // torch FSDP2 reduce inside the backward
    if (!a.has("--use-megatron-fsdp") && !a.has("--use-torch-fsdp2")) {
        p.overlapGradReduce = a.has("--overlap-grad-reduce");
        cx.set("parallelism.overlap_grad_reduce");
    }
    // The distributed optimizer's post-step parameter all-gather moves into the next forward with
    // --overlap-param-gather (distributed_data_parallel.py forward pre-hooks; --overlap-param-gather-with-optimizer-step
    // needs it too, arguments.py); validation refuses it without --overlap-grad-reduce, as Megatron-LM asserts
    if (p.sharding == Sharding::Zero1) {
        p.overlapParamGather = a.has("--overlap-param-gather") || a.has("--overlap-param-gather-with-optimizer-step");
        cx.set("parallelism.overlap_param_gather");
    }
    s.offload.optimizer = a.has("--optimizer-cpu-offload") ? OffloadTarget::Cpu : OffloadTarget::None;
    s.offload.parameters = OffloadTarget::None;
    cx.set("offload.optimizer");
    cx.set("offload.parameters");
    // Activation offload (megatron/core/model_parallel_config.py cpu_offloading_num_layers; arguments.py
    // validate_args turns cpu_offloading on when it is above 0; older releases also took --cpu-offloading).
    s.offload.activationLayers = 0;
    int offloaded = 0;
    if (a.count("--cpu-offloading-num-layers", offloaded, 0))
        s.offload.activationLayers = offloaded;
    else if (a.has("--cpu-offloading"))
        cx.warning("--cpu-offloading", "offloads no layer without --cpu-offloading-num-layers; ignored");
    if (a.has("--cpu-offloading-weights"))
        cx.warning("--cpu-offloading-weights", "weight offload is not modelled; only the activations are");
    cx.set("offload.activation_layers");

    std::string optimizer = "adam";
    a.choice("--optimizer", optimizer, { "adam", "sgd" });
    s.training.optimizer = optimizer == "sgd" ? Optimizer::SgdMomentum : Optimizer::AdamW;
    cx.set("training.optimizer");

    // The precision-aware optimizer (megatron/core/optimizer/optimizer_config.py; needs adam): --main-params-dtype
    // and the moments' dtypes apply, and with bf16 weights the fp32 master weights are kept as 16-bit remainders
    // (store_param_remainders, default true; distrib_optimizer.py stores an int16 master_param) unless the weights
    // are FP8 parameters.
    std::string mainParams = "fp32", expAvg = "fp32", expAvgSq = "fp32";
    a.choice("--main-params-dtype", mainParams, { "fp32", "fp16" });
    a.choice("--exp-avg-dtype", expAvg, { "fp32", "fp16", "bf16", "fp8" });
    a.choice("--exp-avg-sq-dtype", expAvgSq, { "fp32", "fp16", "bf16", "fp8" });
    const bool mixed = s.training.precision != Precision::Fp32;
    if (a.has("--use-precision-aware-optimizer") && mixed && s.training.optimizer == Optimizer::AdamW) {
        const bool bf16Weights = s.training.precision != Precision::Fp16Mixed && !s.training.fp8ParamGather;
        s.training.masterWeights = mainParams == "fp16" ? MasterWeights::Fp16
            : bf16Weights                               ? MasterWeights::Fp32Remainder
                                                        : MasterWeights::Fp32;
        // One dtype for both moments: the wider of the two when they differ (memory is not under-counted).
        const auto width = [](const std::string& d) { return d == "fp32" ? 4 : d == "fp8" ? 1 : 2; };
        const std::string& moments = width(expAvg) >= width(expAvgSq) ? expAvg : expAvgSq;
        if (expAvg != expAvgSq)
            cx.warning("--exp-avg-sq-dtype",
                "differs from --exp-avg-dtype; ShardScope keeps one dtype for both moments: " + moments);
        s.training.momentsDtype = moments == "bf16" ? MomentsDtype::Bf16
            : moments == "fp16"                     ? MomentsDtype::Fp16
            : moments == "fp8"                      ? MomentsDtype::Fp8
                                                    : MomentsDtype::Fp32;
    } else if (a.has("--use-precision-aware-optimizer")) {
        cx.warning("--use-precision-aware-optimizer", "needs adam and --bf16 or --fp16 (optimizer_config.py); ignored");
    } else if (mainParams != "fp32" || expAvg != "fp32" || expAvgSq != "fp32") {
        cx.warning("--main-params-dtype",
            "--main-params-dtype, --exp-avg-dtype and --exp-avg-sq-dtype apply with "
            "--use-precision-aware-optimizer only; ignored");
    }
    cx.set("training.master_weights");
    cx.set("training.moments_dtype");

    const std::vector<std::string> unused = a.unused();
    if (!unused.empty()) {
        const std::string list = cappedList(unused, " ");
        cx.warning("(arguments)",
            "not used by ShardScope (data, tokenizer, learning rate, logging, checkpointing, "
            "launcher and other settings that do not change memory or step time as it models "
            "them): "
                + list);
    }
}

} // namespace shardscope::core::detail
