// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/scenario_text.h"

#include "editors/enum_choices.h"
#include "explain/field_names.h"
#include "util/units.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>
#include <shardscope/core/waterfall.h>
#include <shardscope/core/scenario_name.h>

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace shardscope::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("ScenarioText", text); }
QString tr(const char* text, int n) { return QCoreApplication::translate("ScenarioText", text, nullptr, n); }

QString choice(std::span<const Choice> choices, int value)
{
    for (const Choice& c : choices)
        if (c.value == value)
            return QCoreApplication::translate("Choices", c.label);
    return QString::number(value);
}

QString bandwidth(double bytesPerSecond) { return Units::bandwidth(bytesPerSecond); }

QString yesNo(bool v) { return v ? tr("yes") : tr("no"); }

QString modelText(const core::ModelSpec& m)
{
    QString name = QString::fromStdString(m.name.empty() ? m.id : m.name);
    if (name.isEmpty())
        name = tr("custom model");
    return name;
}
} // namespace

QString settingText(const core::Scenario& s, const QString& path)
{
    using namespace core;
    const Cluster& c = s.cluster;
    const Training& t = s.training;
    const Parallelism& p = s.parallelism;
    if (path == QLatin1String("model"))
        return tr("%1 (%2 parameters)").arg(modelText(s.model), Units::count(modelSize(s.model).total));
    if (path == QLatin1String("cluster.gpu"))
        return QStringLiteral("%1 (%2)").arg(QString::fromStdString(c.gpu.name), Units::bytes(c.gpu.memoryBytes, 0));
    if (path == QLatin1String("cluster.intra_node"))
        return QStringLiteral("%1 (%2)").arg(
            QString::fromStdString(c.intraNode.name), bandwidth(c.intraNode.bandwidth));
    if (path == QLatin1String("cluster.inter_node"))
        return QStringLiteral("%1 (%2)").arg(
            QString::fromStdString(c.interNode.name), bandwidth(c.interNode.bandwidth));
    if (path == QLatin1String("cluster.nics_per_node"))
        return c.nicsPerNode > 0 ? QString::number(c.nicsPerNode) : tr("one per GPU");
    if (path == QLatin1String("cluster.nvme_bandwidth_per_node"))
        return bandwidth(c.nvmeBandwidthPerNode);
    if (path == QLatin1String("cluster.cpu_adam_params_per_second"))
        return tr("%1 params/s").arg(Units::count(c.cpuAdamParamsPerSecond));
    if (path == QLatin1String("cluster.memory_headroom"))
        return Units::percent(c.memoryHeadroom, 0);
    if (path == QLatin1String("cluster.misc_bytes"))
        return c.miscBytes > 0 ? Units::bytes(c.miscBytes) : tr("none");
    if (path == QLatin1String("training.seq_len") || path == QLatin1String("training.global_batch")
        || path == QLatin1String("training.micro_batch"))
        return QLocale().toString(qlonglong(path.endsWith(QLatin1String("seq_len")) ? t.seqLen
                : path.endsWith(QLatin1String("global_batch"))                      ? t.globalBatch
                                                                                    : t.microBatch));
    if (path == QLatin1String("training.precision"))
        return choice(precisionChoices(), int(t.precision));
    if (path == QLatin1String("training.optimizer"))
        return choice(optimizerChoices(), int(t.optimizer));
    if (path == QLatin1String("training.recompute"))
        return choice(recomputeChoices(), int(t.recompute));
    if (path == QLatin1String("training.accounting"))
        return choice(accountingChoices(), int(t.accounting));
    if (path == QLatin1String("training.framework"))
        return choice(frameworkChoices(), int(t.framework));
    if (path == QLatin1String("training.grad_reduce_dtype"))
        return choice(gradReduceChoices(), int(t.gradReduce));
    if (path == QLatin1String("training.master_weights"))
        return choice(masterWeightsChoices(), int(t.masterWeights));
    if (path == QLatin1String("training.moments_dtype"))
        return choice(momentsDtypeChoices(), int(t.momentsDtype));
    if (path == QLatin1String("training.fp8_param_gather"))
        return yesNo(t.fp8ParamGather);
    if (path == QLatin1String("training.flash_attention"))
        return yesNo(t.flashAttention);
    if (path == QLatin1String("training.dropout"))
        return yesNo(t.dropout);
    if (path == QLatin1String("parallelism.sharding"))
        return choice(shardingChoices(), int(p.sharding));
    if (path == QLatin1String("parallelism.pp_schedule"))
        return choice(scheduleChoices(), int(p.schedule));
    if (path == QLatin1String("parallelism.sequence_parallel"))
        return yesNo(p.sequenceParallel);
    if (path == QLatin1String("parallelism.tp_comm_overlap"))
        return yesNo(p.tpCommOverlap);
    if (path == QLatin1String("parallelism.overlap_grad_reduce"))
        return yesNo(p.overlapGradReduce);
    if (path == QLatin1String("parallelism.overlap_param_gather"))
        return yesNo(p.overlapParamGather);
    if (path == QLatin1String("parallelism.cp_comm_type"))
        return choice(cpCommTypeChoices(), int(p.cpCommType));
    if (path == QLatin1String("parallelism.expert_tp"))
        return p.expertTp > 0 ? QString::number(p.expertTp) : tr("= TP (%1)").arg(p.tp);
    if (path == QLatin1String("model.moe.dispatcher"))
        return choice(dispatcherChoices(), int(s.model.moe.dispatcher));
    if (path == QLatin1String("training.recompute_modules")) {
        QStringList names;
        for (const std::string& n : core::recomputeModuleNames(t.effectiveRecomputeModules()))
            names << QString::fromStdString(n);
        return names.isEmpty() ? tr("none")
                               : names.join(QStringLiteral(", ")) + (t.recomputeModules ? QString() : tr(" (default)"));
    }
    if (path == QLatin1String("parallelism.moe_overlap"))
        return choice(moeOverlapChoices(), int(p.moeOverlap));
    if (path == QLatin1String("parallelism.shard_group"))
        return p.shardGroup > 0 ? QString::number(p.shardGroup) : tr("one node");
    if (path == QLatin1String("offload.optimizer"))
        return choice(offloadChoices(), int(s.offload.optimizer));
    if (path == QLatin1String("offload.parameters"))
        return choice(offloadChoices(), int(s.offload.parameters));
    if (path == QLatin1String("offload.activation_layers"))
        return s.offload.activationLayers > 0 ? tr("%n layer(s)", s.offload.activationLayers) : tr("none");
    if (path == QLatin1String("nccl.algo"))
        return choice(ncclAlgoChoices(), int(s.nccl.algo));
    if (path == QLatin1String("nccl.proto"))
        return choice(ncclProtoChoices(), int(s.nccl.proto));
    if (path == QLatin1String("nccl.min_channels"))
        return s.nccl.minChannels > 0 ? QString::number(s.nccl.minChannels) : tr("NCCL default");
    if (path == QLatin1String("nccl.gdr"))
        return yesNo(s.nccl.gdr);
    return QString::fromStdString(core::settingValue(s, path.toStdString()));
}

QString settingLabel(const QString& path)
{
    // Settings the editor has no control for (so explain/field_names.h has no label).
    if (path == QLatin1String("cluster.nvme_bandwidth_per_node"))
        return tr("NVMe bandwidth per node");
    if (path == QLatin1String("cluster.cpu_adam_params_per_second"))
        return tr("CPU Adam rate per node");
    if (path == QLatin1String("cluster.misc_bytes"))
        return tr("Extra reserve per GPU");
    return fieldLabel(path);
}

QString clusterText(const core::Scenario& s)
{
    return tr("%1 × %2 (%3 nodes × %4)")
        .arg(s.cluster.gpus())
        .arg(QString::fromStdString(s.cluster.gpu.name))
        .arg(s.cluster.nodes)
        .arg(s.cluster.gpusPerNode);
}

QString strategyText(const core::Scenario& s, const core::Result& r)
{
    const core::Parallelism& p = s.parallelism;
    QString text = choice(shardingChoices(), int(p.sharding));
    text += tr(", TP %1 · PP %2").arg(p.tp).arg(p.pp);
    if (p.pp > 1)
        text += QStringLiteral(" (%1)").arg(choice(scheduleChoices(), int(p.schedule)));
    text += tr(" · CP %1").arg(p.cp);
    if (p.ep > 1)
        text += tr(" · EP %1").arg(p.ep);
    const int dp = r.valid ? r.dp : core::dataParallel(s);
    text += tr(" · DP %1").arg(dp);
    if (s.offload.optimizer != core::OffloadTarget::None || s.offload.parameters != core::OffloadTarget::None)
        text += tr(" · offload: optimizer %1, parameters %2")
                    .arg(choice(offloadChoices(), int(s.offload.optimizer)),
                        choice(offloadChoices(), int(s.offload.parameters)));
    if (s.offload.activationLayers > 0)
        text += tr(" · activations of %n layer(s) offloaded", s.offload.activationLayers);
    return text;
}

QString scenarioCaption(const core::Scenario& s, const core::Result& r, const QDate& date)
{
    const QString name = QString::fromStdString(core::scenarioTitle(s));
    const QString line2 = tr("Model: %1 · GPUs: %2 · Strategy: %3")
                              .arg(settingText(s, QStringLiteral("model")), clusterText(s), strategyText(s, r));
    const QString version = QCoreApplication::applicationVersion();
    const QString line3
        = tr("Training: %1, sequence %2, global batch %3, micro-batch %4 · ShardScope%5 analytic model · %6")
              .arg(choice(precisionChoices(), int(s.training.precision)))
              .arg(s.training.seqLen)
              .arg(s.training.globalBatch)
              .arg(s.training.microBatch)
              .arg(version.isEmpty() ? QString() : QLatin1Char(' ') + version, date.toString(Qt::ISODate));
    return name + QLatin1Char('\n') + line2 + QLatin1Char('\n') + line3;
}

QList<LabelledValue> settingsRows(const core::Scenario& s)
{
    // The model is one row on its own; every other group gets a heading row.
    QList<LabelledValue> rows;
    QString group;
    for (const std::string& path : core::waterfallSettings()) {
        const QString p = QString::fromStdString(path);
        const QString g = p.section(QLatin1Char('.'), 0, 0);
        if (g != group && g != QLatin1String("model"))
            rows.push_back({ fieldLabel(g), QString() });
        group = g;
        rows.push_back({ settingLabel(p), settingText(s, p) });
    }
    return rows;
}

QList<Headline> headlines(const core::Result& r)
{
    QList<Headline> h;
    const bool v = r.valid;
    auto add = [&](const char* key, const QString& label, double value, const QString& text) {
        h.push_back({ QString::fromLatin1(key), label, value, v ? text : QString() });
    };
    add("memory", tr("Memory per GPU"), r.memory.total(),
        tr("%1 of %2 usable (%3)")
            .arg(Units::bytes(r.memory.total()), Units::bytes(r.usable),
                QString::fromLatin1(core::toString(r.verdict))));
    add("step_time", tr("Step time"), r.step.total(), Units::seconds(r.step.total()));
    add("tokens_per_second", tr("Tokens per second"), r.throughput.tokensPerSecond,
        tr("%1 (%2 per GPU)")
            .arg(Units::tokensPerSecond(r.throughput.tokensPerSecond),
                Units::tokensPerSecond(r.throughput.tokensPerSecondPerGpu)));
    add("mfu", tr("MFU"), r.throughput.mfu, Units::percent(r.throughput.mfu));
    add("comm", tr("Communication per GPU per step"), r.totalCommBytes, Units::bytes(r.totalCommBytes));
    add("min_gpus", tr("Fewest GPUs that fit"), r.minGpus,
        r.minGpus > 0 ? QString::number(r.minGpus) : tr("none up to the limit"));
    if (r.throughput.costPerStepUsd > 0)
        add("cost", tr("Cost per step"), r.throughput.costPerStepUsd, Units::dollars(r.throughput.costPerStepUsd));
    return h;
}

QString headlineDelta(const Headline& base, const Headline& value)
{
    if (base.text.isEmpty() || value.text.isEmpty())
        return QString();
    if (base.key == QLatin1String("min_gpus") && (base.value <= 0 || value.value <= 0))
        return QString(); // "none up to the limit" has no difference to speak of
    const double d = value.value - base.value;
    const QString pct = base.value != 0 ? QStringLiteral(" (%1%2 %)")
                                              .arg(d >= 0 ? QStringLiteral("+") : QString())
                                              .arg(QLocale().toString(100 * d / std::abs(base.value), 'f', 1))
                                        : QString();
    const QString sign = d > 0 ? QStringLiteral("+") : QString();
    QString abs;
    if (base.key == QLatin1String("memory") || base.key == QLatin1String("comm"))
        abs = sign + Units::bytes(d);
    else if (base.key == QLatin1String("step_time"))
        abs = sign + Units::seconds(d);
    else if (base.key == QLatin1String("mfu"))
        abs = QStringLiteral("%1%2 pt").arg(sign, QLocale().toString(100 * d, 'f', 1));
    else if (base.key == QLatin1String("tokens_per_second"))
        abs = sign + Units::tokensPerSecond(d);
    else if (base.key == QLatin1String("cost"))
        abs = sign + Units::dollars(d);
    else
        abs = sign + QString::number(d, 'g', 6);
    return d == 0 ? tr("same") : abs + (base.key == QLatin1String("mfu") ? QString() : pct);
}

} // namespace shardscope::ui
