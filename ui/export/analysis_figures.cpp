// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/analysis_figures.h"

#include "analysis/pane_defaults.h"
#include "analysis/rank_map_chart.h"
#include "analysis/search_scatter.h"
#include "analysis/sizing_chart.h"
#include "analysis/sweep_chart.h"

#include <shardscope/core/search.h>
#include <shardscope/core/sweep.h>
#include <shardscope/core/evaluate.h>

#include <QtGlobal>

#include <algorithm>
#include <thread>

namespace shardscope::ui {

std::unique_ptr<ChartBase> makeAnalysisChart(
    ChartKind kind, const core::Scenario& s, const core::Result& r, const core::Catalog& catalog)
{
    switch (kind) {
    case ChartKind::Search: {
        core::SearchOptions o;
        o.topK = 0;
        o.threads = int(std::max(1u, std::thread::hardware_concurrency()));
        const core::SearchResult found = core::search(s, o);
        auto c = std::make_unique<SearchScatterChart>();
        c->setCurrent(r.valid, r.step.total(), r.memory.total(), r.fits);
        c->setPoints(found.points, found.pareto, core::usableMemory(s));
        return c;
    }
    case ChartKind::Sweep: {
        const std::vector<core::SweepCurve> curves = core::sweep(s, core::SweepAxis::Gpus,
            core::defaultSweepValues(s, core::SweepAxis::Gpus), core::sweepStrategies(), catalog);
        auto c = std::make_unique<SweepChart>(SweepChart::Metric::Memory);
        c->setCurves(curves, core::SweepAxis::Gpus, s.cluster.gpus(), core::usableMemory(s));
        c->nameAxis();
        return c;
    }
    case ChartKind::Sizing: {
        std::vector<const core::GpuSpec*> gpus;
        for (const core::GpuSpec& g : catalog.gpus) // catalog order, as the pane lists them
            if (g.id == s.cluster.gpu.id
                || std::find(defaultSizingGpuIds().begin(), defaultSizingGpuIds().end(), g.id)
                    != defaultSizingGpuIds().end())
                gpus.push_back(&g);
        auto c = std::make_unique<SizingChart>();
        c->setRows(
            core::sizeCluster(s, gpus, core::sweepStrategies(), kDefaultSizingTokens), SizingChart::Metric::MinGpus);
        return c;
    }
    case ChartKind::RankMap: {
        auto c = std::make_unique<RankMapChart>();
        c->setScenario(s, r, core::Group::Tp, kDefaultRankMapNodes);
        return c;
    }
    case ChartKind::Memory:
    case ChartKind::Strategy:
    case ChartKind::Communication:
    case ChartKind::Time:
    case ChartKind::Timeline:
    case ChartKind::Compare:
    case ChartKind::Waterfall: break;
    }
    Q_ASSERT_X(false, "makeAnalysisChart", "not an analysis chart");
    return nullptr;
}

} // namespace shardscope::ui
