// SPDX-License-Identifier: GPL-3.0-or-later
// rank_map_bench: the rank map tab on clusters at the documented limits, offscreen. For 16,384 nodes × 8 GPUs
// and for 9,765 nodes × 1,024 GPUs (about 10^7, the limit), TP 8 / PP 4 (dp groups of thousands of ranks):
// the pane's refresh (groups table, warnings, map) and one synchronous replot, at the default 16 nodes and at the
// most nodes the pane offers, then a hovered rank's tooltip. Prints
//   bench: rank_map_refresh_max_ms VALUE ms        (the slowest refresh + replot)
//   bench: rank_map_hover_max_ms VALUE ms          (the slowest tooltip of a hovered rank)
//   bench: rank_map_peak_rss_mb VALUE MB           (peak resident memory of the whole run)
#include "test_support.h"

#include "analysis/rank_map_chart.h"
#include "analysis/rank_map_pane.h"
#include "charts/qcp.h"
#include "document/scenario_document.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QSpinBox>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

using namespace shardscope;

namespace {
double ms(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }
} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    double refreshMax = 0, hoverMax = 0;
    for (const auto [nodes, perNode] : { std::pair { 16384, 8 }, std::pair { 9765, 1024 } }) {
        core::Scenario s = core::defaultScenario(test::catalog());
        s.cluster.nodes = nodes;
        s.cluster.gpusPerNode = perNode;
        s.parallelism.tp = 8;
        s.parallelism.pp = 4;
        s.training.globalBatch = int64_t(s.cluster.gpus()) / 32 * 4;
        ui::ScenarioDocument doc(test::catalog());
        doc.reset(s, QString());
        if (!doc.result().valid) {
            std::fprintf(stderr, "rank_map_bench: %d x %d is invalid: %s\n", nodes, perNode,
                doc.result().issues.front().message.c_str());
            return 1;
        }
        ui::RankMapPane pane(&doc);
        pane.resize(1280, 760);
        pane.show(); // laid out at its size, so the replot draws every cell as the tab would
        QApplication::processEvents();
        auto* maxNodes = pane.findChild<QSpinBox*>();
        for (const int shown : { 16, maxNodes->maximum() }) {
            maxNodes->setValue(shown);
            QElapsedTimer t;
            t.start();
            pane.refresh();
            pane.chart()->plot()->replot(QCustomPlot::rpImmediateRefresh);
            const double refresh = ms(t);
            t.restart();
            for (int rank : { 0, perNode - 1, 3 * perNode + 5 })
                (void)pane.chart()->rankToolTip(rank);
            const double hover = ms(t) / 3;
            std::printf("rank_map_bench: %d nodes x %d GPUs, %d nodes asked: refresh + replot %.1f ms, %d cells, "
                        "tooltip %.2f ms, plot %d x %d px\n",
                nodes, perNode, shown, refresh, pane.chart()->cellCount(), hover, pane.chart()->plot()->width(),
                pane.chart()->plot()->height());
            std::fflush(stdout);
            refreshMax = std::max(refreshMax, refresh);
            hoverMax = std::max(hoverMax, hover);
        }
    }
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("bench: rank_map_refresh_max_ms %.1f ms\n", refreshMax);
    std::printf("bench: rank_map_hover_max_ms %.2f ms\n", hoverMax);
    std::printf("bench: rank_map_peak_rss_mb %.0f MB\n", double(usage.ru_maxrss) / 1024);
    return 0;
}
