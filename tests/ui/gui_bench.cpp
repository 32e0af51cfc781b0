// SPDX-License-Identifier: GPL-3.0-or-later
// gui_bench: the edit -> evaluate -> re-plot chain of the explorer window, offscreen.
// Each sample: one edit through the document (nodes or TP, as a slider would make it), the wait for its whatIf() from
// the background job (ScenarioDocument::resultReady, which updates every view: editor, KPIs, status line, issues,
// four charts) and a synchronous replot of all four charts (replot(rpImmediateRefresh)): edit to replot finished.
// Also reported: the GUI thread's CPU time per sample (what can freeze a frame; the evaluation is not in it) and the
// time edit() itself takes. Run on the default scenario, the Mixtral 8x22B MoE scenario and Llama 3.1 405B with 16
// pipeline stages (one memory bar per stage); prints
//   bench: gui_update_median VALUE ms
//   bench: gui_update_p99 VALUE ms
//   bench: gui_update_valid_median VALUE ms    (edits that leave the scenario valid: new figures drawn)
//   bench: gui_update_invalid_median VALUE ms  (edits that make it invalid: the last valid figures stay, veiled)
//   bench: gui_drag_valid_median VALUE ms      (TP dragged between two valid values: new figures on every edit)
//   bench: gui_drag_valid_p99 VALUE ms
// with the worst of the three scenarios, and the start-up, from main() to the window shown with the default scenario's
// figures drawn (its first whatIf() arrived and every chart replotted; issue 22 asks ≤ 0.2 s):
//   bench: gui_startup VALUE ms
// With GUI_BENCH_VERBOSE set it also prints each plot's average replot time and the paint events per edit of every
// widget that repainted in the measured rounds (the edit, the wait for its result, the replot and the queued events
// processed after it, outside the timing).
// Usage: gui_bench [iterations]
#include "test_support.h"

#include "session/app_theme.h"
#include "document/scenario_document.h"
#include "charts/qcp.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <shardscope/core/scenario_json.h>

#include <QApplication>
#include <QEventLoop>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <map>
#include <vector>

using namespace shardscope;

namespace {
/// GUI_BENCH_VERBOSE: paint events per widget (class < parent class #name) over the measured rounds, to find what an
/// edit repaints besides the charts.
struct PaintCounter : QObject {
    std::map<QString, int> counts;
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (e->type() == QEvent::Paint && o->isWidgetType()) {
            const QWidget* w = static_cast<QWidget*>(o);
            QString key = QString::fromLatin1(o->metaObject()->className());
            if (w->parentWidget())
                key += QStringLiteral(" < ") + QString::fromLatin1(w->parentWidget()->metaObject()->className());
            if (!o->objectName().isEmpty())
                key += QStringLiteral(" #") + o->objectName();
            ++counts[key];
        }
        return false;
    }
};
PaintCounter* g_paints = nullptr;

struct Stats {
    double median = 0;
    double p99 = 0;
    double max = 0;
    double editMedian = 0; ///< edit() alone: the GUI thread's part before the background evaluation
    double cpuMedian = 0; ///< GUI thread CPU time per sample (edit, view updates, replots; not the evaluation)
    // Edits that leave the scenario valid (new figures to draw) and those that make it invalid (the last valid figures
    // stay, veiled: only the status line, issues and fix bar change), apart: their costs differ.
    double validMedian = 0;
    double invalidMedian = 0;
    int validCount = 0;
};

double threadCpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

Stats stats(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * double(ms.size() - 1) + 0.5))]; };
    return { at(0.5), at(0.99), ms.back() };
}

/// Alternates nodes (base, base+1, ...) and TP (base, 2 x base) edits, like dragging those sliders; with `drag`, TP
/// edits only, between two values that keep the scenario valid (a slider dragged over valid values: every edit draws new
/// figures over the last ones, no veil coming or going).
Stats run(ui::MainWindow& window, const core::Scenario& scenario, int iterations, bool drag = false)
{
    ui::ScenarioDocument* doc = window.document();
    doc->reset(scenario, QString());
    while (doc->isEvaluating())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const int baseNodes = scenario.cluster.nodes;
    const int baseTp = scenario.parallelism.tp;
    const int altTp = scenario.model.heads % (baseTp * 2) == 0 && baseTp * 2 <= scenario.cluster.gpusPerNode
        ? baseTp * 2
        : std::max(1, baseTp / 2);
    std::vector<double> samples;
    std::vector<double> edits;
    std::vector<double> cpu;
    std::vector<double> valid, invalid;
    samples.reserve(size_t(iterations));
    QElapsedTimer timer;
    for (int i = -20; i < iterations; ++i) { // 20 warm-up rounds
        if (i == 0 && g_paints)
            g_paints->counts.clear();
        timer.start();
        const double cpu0 = threadCpuMs();
        if (drag || i % 3 == 2) {
            const int tp = doc->scenario().parallelism.tp == baseTp ? altTp : baseTp;
            doc->edit(QStringLiteral("TP"), QStringLiteral("parallelism.tp"),
                [tp](core::Scenario& s) { s.parallelism.tp = tp; });
        } else {
            const int nodes = baseNodes + (i & 3) * std::max(1, baseNodes / 4);
            doc->edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
                [nodes](core::Scenario& s) { s.cluster.nodes = nodes; });
        }
        const double editMs = double(timer.nsecsElapsed()) / 1e6;
        if (doc->isEvaluating()) { // the views update when the background result arrives
            QEventLoop wait;
            QObject::connect(doc, &ui::ScenarioDocument::resultReady, &wait, &QEventLoop::quit);
            wait.exec();
        }
        window.replotAllNow();
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        if (i >= 0) {
            cpu.push_back(threadCpuMs() - cpu0);
            samples.push_back(ms);
            edits.push_back(editMs);
            (doc->result().valid ? valid : invalid).push_back(ms);
        }
        QApplication::processEvents(); // queued replots and paints of this round, outside the measurement
    }
    if (g_paints)
        for (const auto& [widget, paints] : g_paints->counts)
            std::printf("  %5.2f paints per edit: %s\n", double(paints) / iterations, qPrintable(widget));
    if (qEnvironmentVariableIsSet("GUI_BENCH_VERBOSE"))
        for (QCustomPlot* plot : window.findChildren<QCustomPlot*>())
            std::printf("  %s: average replot %.3f ms (%dx%d)\n",
                qPrintable(plot->parentWidget()->metaObject()->className()), plot->replotTime(true), plot->width(),
                plot->height());
    Stats out = stats(samples);
    out.editMedian = stats(edits).median;
    out.cpuMedian = stats(cpu).median;
    out.validMedian = valid.empty() ? 0 : stats(valid).median;
    out.invalidMedian = invalid.empty() ? 0 : stats(invalid).median;
    out.validCount = int(valid.size());
    return out;
}
} // namespace

int main(int argc, char* argv[])
{
    QElapsedTimer startup;
    startup.start();
    QApplication app(argc, argv);
    PaintCounter paints;
    if (qEnvironmentVariableIsSet("GUI_BENCH_VERBOSE")) {
        g_paints = &paints;
        app.installEventFilter(&paints);
    }
    const int iterations = argc > 1 ? std::max(10, std::atoi(argv[1])) : 300;
    QTemporaryDir dir;
    ui::AppSettings settings(dir.filePath(QStringLiteral("bench.ini")), nullptr);
    ui::AppTheme::apply(ui::ThemeMode::Light);
    ui::MainWindow window(test::catalog(), &settings);
    window.resize(1600, 1000);
    window.show();
    while (window.document()->isEvaluating())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents);
    window.replotAllNow();
    const double startupMs = double(startup.nsecsElapsed()) / 1e6;
    for (int i = 0; i < 10; ++i)
        QApplication::processEvents();

    const struct {
        const char* name;
        core::Scenario scenario;
    } cases[] = {
        { "default", core::defaultScenario(test::catalog()) },
        { "moe-mixtral-8x22b-h100",
            test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json")) },
        { "3d-llama3.1-405b-h100",
            test::loadScenario(QStringLiteral("resources/scenarios/3d-llama3.1-405b-h100.shardscope.json")) },
    };
    Stats worst, worstDrag;
    for (const auto& c : cases) {
        const Stats s = run(window, c.scenario, iterations);
        std::printf("gui_bench: %-24s %d edits: median %.3f ms (edit() %.3f ms; GUI thread CPU %.3f ms), "
                    "p99 %.3f ms, max %.3f ms\n",
            c.name, iterations, s.median, s.editMedian, s.cpuMedian, s.p99, s.max);
        std::printf("gui_bench: %-24s %d valid edits: median %.3f ms; %d invalid: median %.3f ms\n", c.name,
            s.validCount, s.validMedian, iterations - s.validCount, s.invalidMedian);
        worst.median = std::max(worst.median, s.median);
        worst.validMedian = std::max(worst.validMedian, s.validMedian);
        worst.invalidMedian = std::max(worst.invalidMedian, s.invalidMedian);
        worst.p99 = std::max(worst.p99, s.p99);
        const Stats d = run(window, c.scenario, iterations, true);
        std::printf("gui_bench: %-24s %d TP edits, all valid: median %.3f ms (GUI thread CPU %.3f ms), p99 %.3f ms\n",
            c.name, d.validCount, d.median, d.cpuMedian, d.p99);
        if (d.validCount != iterations) {
            std::printf("gui_bench: %s: the TP drag made the scenario invalid\n", c.name);
            return 1;
        }
        worstDrag.median = std::max(worstDrag.median, d.median);
        worstDrag.p99 = std::max(worstDrag.p99, d.p99);
    }
    window.document()->reset(core::defaultScenario(test::catalog()), QString());
    std::printf("bench: gui_update_median %.3f ms\n", worst.median);
    std::printf("bench: gui_update_p99 %.3f ms\n", worst.p99);
    std::printf("bench: gui_update_valid_median %.3f ms\n", worst.validMedian);
    std::printf("bench: gui_update_invalid_median %.3f ms\n", worst.invalidMedian);
    std::printf("bench: gui_drag_valid_median %.3f ms\n", worstDrag.median);
    std::printf("bench: gui_drag_valid_p99 %.3f ms\n", worstDrag.p99);
    std::printf("bench: gui_startup %.1f ms\n", startupMs);
    return 0;
}
