// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/layout_text.h"

#include "charts/chart_theme.h"
#include "util/sharding_names.h"
#include "util/units.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>

namespace shardscope::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("LayoutText", text); }
} // namespace

QColor shardingColor(core::Sharding sharding)
{
    using namespace okabe_ito;
    switch (sharding) {
    case core::Sharding::Ddp: return grey;
    case core::Sharding::Zero1: return orange;
    case core::Sharding::Zero2: return skyBlue;
    case core::Sharding::Zero3: return blue;
    case core::Sharding::FsdpFull: return bluishGreen;
    case core::Sharding::FsdpGradOp: return reddishPurple;
    case core::Sharding::FsdpHybrid: return vermillion;
    }
    return grey;
}

QString scheduleText(core::PpSchedule schedule, int virtualStages, int pp)
{
    if (pp <= 1)
        return QStringLiteral("—");
    switch (schedule) {
    case core::PpSchedule::GPipe: return tr("GPipe");
    case core::PpSchedule::OneFOneB: return tr("1F1B");
    case core::PpSchedule::Interleaved: return tr("interleaved ×%1").arg(virtualStages);
    case core::PpSchedule::ZeroBubble: return tr("zero bubble");
    }
    return {};
}

QString cpCommTypeShort(core::CpCommType type)
{
    switch (type) {
    case core::CpCommType::P2p: return tr("ring");
    case core::CpCommType::A2a: return tr("a2a");
    case core::CpCommType::AllGather: return tr("all-gather");
    }
    return {};
}

QString recomputeText(core::Recompute recompute)
{
    switch (recompute) {
    case core::Recompute::None: return tr("none");
    case core::Recompute::Selective: return tr("selective");
    case core::Recompute::Full: return tr("full");
    case core::Recompute::SelectiveOp: return tr("selective-op");
    }
    return {};
}

QString offloadText(core::OffloadTarget optimizer, core::OffloadTarget parameters)
{
    const auto where = offloadName;
    const bool o = optimizer != core::OffloadTarget::None;
    const bool p = parameters != core::OffloadTarget::None;
    if (!o && !p)
        return tr("none");
    if (o && p)
        return optimizer == parameters ? tr("optimizer + params → %1").arg(where(optimizer))
                                       : tr("optimizer → %1, params → %2").arg(where(optimizer), where(parameters));
    return o ? tr("optimizer → %1").arg(where(optimizer)) : tr("params → %1").arg(where(parameters));
}

QString offloadShort(core::OffloadTarget optimizer, core::OffloadTarget parameters)
{
    const auto where = offloadName;
    const bool o = optimizer != core::OffloadTarget::None;
    const bool p = parameters != core::OffloadTarget::None;
    if (!o && !p)
        return QStringLiteral("—");
    if (o && p && optimizer == parameters)
        return tr("opt+params → %1").arg(where(optimizer));
    if (o && p)
        return tr("opt → %1, params → %2").arg(where(optimizer), where(parameters));
    return o ? tr("opt → %1").arg(where(optimizer)) : tr("params → %1").arg(where(parameters));
}

QString layoutSummary(const core::LayoutChoice& l)
{
    QString text = tr("%1 GPUs · %2 · TP %3 · PP %4").arg(l.gpus).arg(shardingShort(l.sharding)).arg(l.tp).arg(l.pp);
    if (l.pp > 1)
        text += QStringLiteral(" (%1)").arg(scheduleText(l.schedule, l.virtualStages, l.pp));
    text += tr(" · CP %1").arg(l.cp);
    if (l.cp > 1)
        text += QStringLiteral(" (%1)").arg(cpCommTypeShort(l.cpCommType));
    if (l.ep > 1)
        text += tr(" · EP %1").arg(l.ep);
    text += tr(" · micro-batch %1 · recompute %2").arg(l.microBatch).arg(recomputeText(l.recompute));
    if (l.offloadOptimizer != core::OffloadTarget::None || l.offloadParameters != core::OffloadTarget::None)
        text += tr(" · offload %1").arg(offloadText(l.offloadOptimizer, l.offloadParameters));
    if (l.activationLayers > 0)
        text += tr(" · activations of %1 layers → CPU").arg(l.activationLayers);
    return text;
}

QString rankedTimeBasis(const core::SearchOptions& o)
{
    QStringList parts;
    if (o.pessimistic)
        parts << tr("slow end");
    if (o.overlapEfficiency < 1)
        parts << tr("η %1").arg(Units::percent(o.overlapEfficiency, 0));
    return parts.join(QStringLiteral(", "));
}

QString rankedMemoryBasis(const core::SearchOptions& o) { return o.pessimistic ? tr("top of range") : QString(); }

QString withBasis(const QString& label, const QString& basis)
{
    return basis.isEmpty() ? label : QStringLiteral("%1 (%2)").arg(label, basis);
}

QString groupShort(core::Group group)
{
    switch (group) {
    case core::Group::Dp: return tr("DP");
    case core::Group::Tp: return tr("TP");
    case core::Group::Pp: return tr("PP");
    case core::Group::Cp: return tr("CP");
    case core::Group::Ep: return tr("EP");
    }
    return {};
}

QColor categoricalColor(int i)
{
    using namespace okabe_ito;
    static const QColor base[] = { orange, skyBlue, bluishGreen, yellow, blue, vermillion, reddishPurple, grey };
    constexpr int n = int(std::size(base));
    i = std::max(0, i);
    const QColor c = base[i % n];
    switch ((i / n) % 3) {
    case 1: return c.lighter(145);
    case 2: return c.darker(150);
    default: return c;
    }
}

QString groupedInt(qint64 value) { return QLocale().toString(value); }

} // namespace shardscope::ui
