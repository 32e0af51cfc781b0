// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/chart_kind.h"

#include <QCoreApplication>

namespace shardscope::ui {

QString chartKindId(ChartKind kind)
{
    switch (kind) {
    case ChartKind::Memory: return QStringLiteral("memory");
    case ChartKind::Strategy: return QStringLiteral("strategy");
    case ChartKind::Communication: return QStringLiteral("communication");
    case ChartKind::Time: return QStringLiteral("time");
    case ChartKind::Timeline: return QStringLiteral("timeline");
    }
    return {};
}

bool parseChartKind(QStringView text, ChartKind& out)
{
    for (ChartKind k : kAllChartKinds)
        if (text == chartKindId(k)) {
            out = k;
            return true;
        }
    if (text == u"comm") {
        out = ChartKind::Communication;
        return true;
    }
    if (text == u"step-time" || text == u"step_time") {
        out = ChartKind::Time;
        return true;
    }
    return false;
}

QString chartKindName(ChartKind kind)
{
    switch (kind) {
    case ChartKind::Memory: return QCoreApplication::translate("ChartKind", "Memory per GPU");
    case ChartKind::Strategy: return QCoreApplication::translate("ChartKind", "Memory by sharding strategy");
    case ChartKind::Communication: return QCoreApplication::translate("ChartKind", "Communication per GPU");
    case ChartKind::Time: return QCoreApplication::translate("ChartKind", "Step time");
    case ChartKind::Timeline: return QCoreApplication::translate("ChartKind", "Step timeline");
    }
    return {};
}

} // namespace shardscope::ui
