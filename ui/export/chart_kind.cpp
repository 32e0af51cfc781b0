// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/chart_kind.h"

#include <QCoreApplication>

#include <algorithm>

namespace shardscope::ui {

QString chartKindId(ChartKind kind)
{
    switch (kind) {
    case ChartKind::Memory: return QStringLiteral("memory");
    case ChartKind::Strategy: return QStringLiteral("strategy");
    case ChartKind::Communication: return QStringLiteral("communication");
    case ChartKind::Time: return QStringLiteral("time");
    case ChartKind::Timeline: return QStringLiteral("timeline");
    case ChartKind::Search: return QStringLiteral("search");
    case ChartKind::Sweep: return QStringLiteral("sweep");
    case ChartKind::Sizing: return QStringLiteral("sizing");
    case ChartKind::RankMap: return QStringLiteral("rank-map");
    case ChartKind::Compare: return QStringLiteral("compare");
    case ChartKind::Waterfall: return QStringLiteral("waterfall");
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
    if (text == u"rankmap" || text == u"rank_map") {
        out = ChartKind::RankMap;
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
    case ChartKind::Search: return QCoreApplication::translate("ChartKind", "Layout search");
    case ChartKind::Sweep: return QCoreApplication::translate("ChartKind", "Sweep");
    case ChartKind::Sizing: return QCoreApplication::translate("ChartKind", "Cluster sizing");
    case ChartKind::RankMap: return QCoreApplication::translate("ChartKind", "Rank map");
    case ChartKind::Compare: return QCoreApplication::translate("ChartKind", "Step time of the pins");
    case ChartKind::Waterfall: return QCoreApplication::translate("ChartKind", "Waterfall");
    }
    return {};
}

bool isScenarioChart(ChartKind kind)
{
    return std::find(kScenarioChartKinds.begin(), kScenarioChartKinds.end(), kind) != kScenarioChartKinds.end();
}

} // namespace shardscope::ui
