// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/tooltips.h"

#include "explain/formulas.h"
#include "util/units.h"

#include <shardscope/core/scenario_json.h>

#include <QCoreApplication>

namespace shardscope::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("Tooltips", text); }
QString str(const char* text) { return QString::fromUtf8(text); }
QString num(double v) { return Units::count(v); }
} // namespace

QString explainHtml(const QString& key, const QString& value, const QString& values)
{
    const Explanation* e = explanation(key);
    QString html = QStringLiteral("<p style='white-space:pre-wrap; max-width:420px'>");
    const QString title = e ? QCoreApplication::translate("Formulas", e->title) : key;
    html += QStringLiteral("<b>%1%2</b>").arg(title.toHtmlEscaped(),
                                               value.isEmpty() ? QString() : QStringLiteral(": ") + value.toHtmlEscaped());
    if (e && *e->what)
        html += QStringLiteral("<br>%1").arg(QCoreApplication::translate("Formulas", e->what).toHtmlEscaped());
    if (e && *e->formula)
        html += QStringLiteral("<br><b>%1</b> %2").arg(tr("Formula:"), QCoreApplication::translate("Formulas", e->formula).toHtmlEscaped());
    if (!values.isEmpty())
        html += QStringLiteral("<br><b>%1</b> %2").arg(tr("Values:"), values.toHtmlEscaped());
    if (e && *e->source)
        html += QStringLiteral("<br><i>%1 %2</i>").arg(tr("Source:"), QCoreApplication::translate("Formulas", e->source).toHtmlEscaped());
    html += QStringLiteral("</p>");
    return html;
}

QString memoryValues(const QString& key, const core::Scenario& s, const core::Result& r, const core::StageInfo* stage)
{
    const auto& p = s.parallelism;
    const QString layout = QStringLiteral("t = %1, p = %2, N_d = %3 (%4)")
                               .arg(r.tp)
                               .arg(r.pp)
                               .arg(r.dp)
                               .arg(str(core::toString(p.sharding)));
    const QString psi = QStringLiteral("Ψ = %1").arg(num(r.parameters));
    if (key == QLatin1String("memory.activations")) {
        QString v = QStringLiteral("s = %1, b = %2, h = %3, a = %4, L = %5, t = %6, SP %7, recompute %8, "
                                   "FlashAttention %9")
                        .arg(s.training.seqLen)
                        .arg(s.training.microBatch)
                        .arg(s.model.hidden)
                        .arg(s.model.heads)
                        .arg(s.model.layers)
                        .arg(r.tp)
                        .arg(p.sequenceParallel ? tr("on") : tr("off"))
                        .arg(str(core::toString(s.training.recompute)))
                        .arg(s.training.flashAttention ? tr("on") : tr("off"));
        if (stage)
            v += tr(", this stage: %1 layers, %2 micro-batches in flight").arg(stage->layers).arg(stage->inFlight);
        return v;
    }
    if (key == QLatin1String("memory.parameters") || key == QLatin1String("memory.gradients")
        || key == QLatin1String("memory.optimizer_states") || key == QLatin1String("memory.gathered_parameters"))
        return QStringLiteral("%1, %2, %3, %4, %5")
            .arg(psi, layout, str(core::toString(s.training.precision)), str(core::toString(s.training.optimizer)),
                 tr("accounting %1").arg(str(core::toString(s.training.accounting))));
    if (key == QLatin1String("memory.capacity"))
        return QStringLiteral("%1: %2").arg(QString::fromStdString(s.cluster.gpu.name), Units::bytes(r.capacity));
    if (key == QLatin1String("memory.communication_buffers"))
        return QStringLiteral("%1, NCCL %2/%3").arg(layout, str(core::toString(s.nccl.algo)), str(core::toString(s.nccl.proto)));
    return layout;
}

QString timeValues(const QString& key, const core::Scenario& s, const core::Result& r)
{
    const double tokens = double(s.training.globalBatch) * double(s.training.seqLen);
    const double peak = s.training.precision == core::Precision::Fp8Mixed && s.cluster.gpu.fp8DenseFlops > 0
        ? s.cluster.gpu.fp8DenseFlops
        : s.cluster.gpu.bf16DenseFlops;
    const QString hw = tr("%1 GPUs × %2 TFLOP/s peak × %3 achievable")
                           .arg(r.gpus)
                           .arg(peak / 1e12, 0, 'f', 0)
                           .arg(s.cluster.gpu.achievableMatmulFraction, 0, 'f', 2);
    if (key == QLatin1String("time.compute") || key == QLatin1String("time.recompute") || key == QLatin1String("kpi.mfu")
        || key == QLatin1String("kpi.step_time") || key == QLatin1String("time.total"))
        return tr("FLOPs/token = %1, tokens/step = B·s = %2, %3, recompute %4")
            .arg(num(r.flopsPerToken), num(tokens), hw, str(core::toString(s.training.recompute)));
    if (key == QLatin1String("time.pipeline_bubble"))
        return tr("p = %1, m = %2 micro-batches, v = %3, schedule %4")
            .arg(r.pp)
            .arg(r.microBatches)
            .arg(s.parallelism.virtualStages)
            .arg(str(core::toString(s.parallelism.schedule)));
    if (key == QLatin1String("time.offload"))
        return tr("optimizer → %1, parameters → %2, host link %3 GB/s, Ψ = %4")
            .arg(str(core::toString(s.offload.optimizer)), str(core::toString(s.offload.parameters)))
            .arg(s.cluster.gpu.hostLinkBandwidth / 1e9, 0, 'f', 0)
            .arg(num(r.parameters));
    if (key == QLatin1String("time.optimizer"))
        return tr("Ψ = %1, N_d = %2 (%3), HBM %4 TB/s")
            .arg(num(r.parameters))
            .arg(r.dp)
            .arg(str(core::toString(s.parallelism.sharding)))
            .arg(s.cluster.gpu.memoryBandwidth / 1e12, 0, 'f', 2);
    if (key == QLatin1String("kpi.tokens_per_second"))
        return tr("B = %1, s = %2, step = %3").arg(s.training.globalBatch).arg(s.training.seqLen).arg(Units::seconds(r.step.total()));
    if (key == QLatin1String("kpi.cost"))
        return tr("%1 GPUs × $%2/h × %3")
            .arg(r.gpus)
            .arg(s.cluster.gpu.hourlyPriceUsd, 0, 'f', 2)
            .arg(Units::seconds(r.step.total()));
    return tr("DP %1 × TP %2 × PP %3 × CP %4, EP %5").arg(r.dp).arg(r.tp).arg(r.pp).arg(r.cp).arg(r.ep);
}

QString collectiveValues(const core::Collective& c, const core::Scenario& s)
{
    const core::LinkSpec& link = c.crossesNodes ? s.cluster.interNode : s.cluster.intraNode;
    return tr("n = %1, %2 calls/step, S = %3 per call, %4/%5, over %6 (%7 GB/s)%8")
        .arg(c.groupSize)
        .arg(c.count)
        .arg(Units::bytes(c.messageBytes), str(core::toString(c.algo)), str(core::toString(c.proto)),
             QString::fromStdString(link.name.empty() ? link.id : link.name))
        .arg(link.bandwidth / 1e9, 0, 'f', 0)
        .arg(*c.purpose ? QStringLiteral("; ") + str(c.purpose) : QString());
}

QString groupLabel(core::Group g)
{
    switch (g) {
    case core::Group::Dp: return QStringLiteral("DP");
    case core::Group::Tp: return QStringLiteral("TP");
    case core::Group::Pp: return QStringLiteral("PP");
    case core::Group::Cp: return QStringLiteral("CP");
    case core::Group::Ep: return QStringLiteral("EP");
    }
    return {};
}

QString collectiveKey(const core::Collective& c)
{
    return QStringLiteral("comm.%1.%2").arg(str(core::toString(c.group)), str(core::toString(c.op)));
}

QString collectiveLabel(const core::Collective& c)
{
    QString op;
    switch (c.op) {
    case core::CollectiveOp::AllReduce: op = tr("all-reduce"); break;
    case core::CollectiveOp::ReduceScatter: op = tr("reduce-scatter"); break;
    case core::CollectiveOp::AllGather: op = tr("all-gather"); break;
    case core::CollectiveOp::AllToAll: op = tr("all-to-all"); break;
    case core::CollectiveOp::SendRecv: op = tr("send/recv"); break;
    }
    return groupLabel(c.group) + QLatin1Char(' ') + op;
}

} // namespace shardscope::ui
