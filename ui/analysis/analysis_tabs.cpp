// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/analysis_tabs.h"

#include "analysis/rank_map_pane.h"
#include "analysis/search_pane.h"
#include "analysis/sizing_pane.h"
#include "analysis/sweep_pane.h"
#include "analysis/timeline_pane.h"
#include "charts/chart_base.h"

namespace shardscope::ui {

namespace {
const char* const kIds[] = {"explorer", "search", "sweep", "sizing", "timeline", "rankmap"};
} // namespace

AnalysisTabs::AnalysisTabs(ScenarioDocument* doc, QWidget* explorer, QWidget* parent)
    : QTabWidget(parent)
    , m_search(new SearchPane(doc, this))
    , m_sweep(new SweepPane(doc, this))
    , m_sizing(new SizingPane(doc, this))
    , m_timeline(new TimelinePane(doc, this))
    , m_rankMap(new RankMapPane(doc, this))
{
    setObjectName(QStringLiteral("analysisTabs"));
    setDocumentMode(true);
    addTab(explorer, tr("Explorer"));
    addTab(m_search, tr("Search"));
    addTab(m_sweep, tr("Sweep"));
    addTab(m_sizing, tr("Sizing"));
    addTab(m_timeline, tr("Timeline"));
    addTab(m_rankMap, tr("Rank map"));
    setTabToolTip(0, tr("Memory, strategies, communication and step time of the open scenario"));
    setTabToolTip(1, tr("Find the best layouts for this model and these GPUs"));
    setTabToolTip(2, tr("How memory, time, MFU and communication change along one axis, per strategy"));
    setTabToolTip(3, tr("Fewest GPUs per strategy and GPU type; time and cost to train a token budget"));
    setTabToolTip(4, tr("One optimizer step as a Gantt chart per pipeline stage, with memory over time"));
    setTabToolTip(5, tr("Which ranks form each TP, CP, DP, PP and EP group, and where they sit"));
}

bool AnalysisTabs::showTab(const QString& id)
{
    for (int i = 0; i < int(std::size(kIds)) && i < count(); ++i)
        if (id.compare(QLatin1String(kIds[i]), Qt::CaseInsensitive) == 0) {
            setCurrentIndex(i);
            return true;
        }
    return false;
}

QList<ChartBase*> AnalysisTabs::visibleCharts() const
{
    QWidget* page = currentWidget();
    return page ? page->findChildren<ChartBase*>() : QList<ChartBase*>{};
}

void AnalysisTabs::replotNow()
{
    if (currentIndex() == 0)
        return; // the explorer's charts: MainWindow::replotAllNow() replots them
    for (ChartBase* c : visibleCharts())
        c->replotNow();
}

} // namespace shardscope::ui
