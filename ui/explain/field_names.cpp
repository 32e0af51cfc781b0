// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/field_names.h"

#include <QCoreApplication>
#include <QHash>

namespace shardscope::ui {

namespace {
#define T(x) QT_TRANSLATE_NOOP("FieldNames", x)
struct Name {
    const char* field;
    const char* label;
};
const Name kNames[] = {
    { "name", T("Scenario name") },
    { "model", T("Model") },
    { "model.preset", T("Preset") },
    { "model.params", T("Parameter count override") },
    { "model.layers", T("Layers") },
    { "model.hidden", T("Hidden size") },
    { "model.heads", T("Attention heads") },
    { "model.kv_heads", T("KV heads") },
    { "model.head_dim", T("Head dim") },
    { "model.ffn_hidden", T("FFN hidden") },
    { "model.vocab", T("Vocabulary") },
    { "model.mlp", T("MLP") },
    { "model.norm", T("Norm") },
    { "model.position_embedding", T("Positions") },
    { "model.tied_embeddings", T("Tied embeddings") },
    { "model.sliding_window", T("Sliding window") },
    { "model.sliding_window_pattern", T("Global every n-th layer") },
    { "model.moe", T("Mixture of experts") },
    { "model.moe.experts", T("Experts") },
    { "model.moe.top_k", T("Top-k") },
    { "model.moe.expert_ffn_hidden", T("Expert FFN hidden") },
    { "model.moe.shared_experts", T("Shared experts") },
    { "model.moe.dense_layers", T("Dense layers") },
    { "model.moe.max_nodes_per_token", T("Nodes per token") },
    { "model.moe.dispatcher", T("Token dispatcher") },
    { "cluster", T("Cluster") },
    { "cluster.gpu", T("GPU") },
    { "cluster.nodes", T("Nodes") },
    { "cluster.gpus_per_node", T("GPUs per node") },
    { "cluster.intra_node", T("Intra-node") },
    { "cluster.inter_node", T("Inter-node") },
    { "cluster.nics_per_node", T("NICs per node") },
    { "cluster.memory_headroom", T("Memory headroom") },
    { "training", T("Training") },
    { "training.seq_len", T("Sequence length") },
    { "training.global_batch", T("Global batch") },
    { "training.micro_batch", T("Micro-batch") },
    { "training.precision", T("Precision") },
    { "training.optimizer", T("Optimizer") },
    { "training.recompute", T("Recompute") },
    { "training.flash_attention", T("FlashAttention") },
    { "training.dropout", T("Dropout masks") },
    { "training.accounting", T("Accounting") },
    { "training.grad_reduce_dtype", T("Gradient reduce dtype") },
    { "training.master_weights", T("Master weights") },
    { "training.moments_dtype", T("Moments dtype") },
    { "training.fp8_param_gather", T("FP8 parameters") },
    { "training.recompute_modules", T("Recompute modules") },
    { "parallelism", T("Parallelism") },
    { "parallelism.sharding", T("Sharding") },
    { "parallelism.tp", T("Tensor parallel (TP)") },
    { "parallelism.pp", T("Pipeline parallel (PP)") },
    { "parallelism.cp", T("Context parallel (CP)") },
    { "parallelism.ep", T("Expert parallel (EP)") },
    { "parallelism.expert_tp", T("Expert tensor parallel") },
    { "parallelism.dp", T("Data parallel (DP)") },
    { "parallelism.sequence_parallel", T("Sequence parallel") },
    { "parallelism.pp_schedule", T("Pipeline schedule") },
    { "parallelism.virtual_stages", T("Virtual stages") },
    { "parallelism.pipeline_layout", T("Pipeline layout") },
    { "parallelism.shard_group", T("Shard group") },
    { "parallelism.moe_overlap", T("All-to-all overlap") },
    { "parallelism.tp_comm_overlap", T("TP overlap") },
    { "parallelism.overlap_grad_reduce", T("Gradient reduce overlap") },
    { "parallelism.overlap_param_gather", T("Parameter gather overlap") },
    { "parallelism.cp_comm_type", T("CP exchange") },
    { "offload", T("Offload") },
    { "offload.optimizer", T("Optimizer offload") },
    { "offload.parameters", T("Parameter offload") },
    { "offload.activation_layers", T("Activation offload (layers)") },
    { "nccl", T("NCCL") },
    { "nccl.algo", T("Algorithm") },
    { "nccl.proto", T("Protocol") },
    { "nccl.min_channels", T("Min channels") },
    { "nccl.gdr", T("GPU Direct RDMA") },
};
#undef T

const QHash<QString, const char*>& table()
{
    static const QHash<QString, const char*> t = [] {
        QHash<QString, const char*> h;
        for (const Name& n : kNames)
            h.insert(QString::fromLatin1(n.field), n.label);
        return h;
    }();
    return t;
}
} // namespace

QString knownField(const QString& field)
{
    QString f = field;
    // "stages[2].memory" style indices are not fields of their own.
    if (const int bracket = f.indexOf(QLatin1Char('[')); bracket >= 0)
        f.truncate(bracket);
    while (!f.isEmpty()) {
        if (table().contains(f))
            return f;
        const int dot = f.lastIndexOf(QLatin1Char('.'));
        if (dot < 0)
            break;
        f.truncate(dot);
    }
    return {};
}

QString fieldLabel(const QString& field)
{
    const QString known = knownField(field);
    if (known.isEmpty())
        return field;
    return QCoreApplication::translate("FieldNames", table().value(known));
}

QString fieldGroupLabel(const QString& field) { return fieldLabel(field.section(QLatin1Char('.'), 0, 0)); }

} // namespace shardscope::ui
