// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/analysis_tabs.h"

#include "analysis/rank_map_pane.h"
#include "analysis/search_pane.h"
#include "analysis/sizing_pane.h"
#include "analysis/sweep_pane.h"
#include "analysis/timeline_pane.h"
#include "charts/chart_base.h"
#include "util/wheel_guard.h"

#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>

#include <algorithm>

namespace shardscope::ui {

namespace {
const char* const kIds[] = { "explorer", "search", "sweep", "sizing", "timeline", "rankmap" };

/// A tab's page in a frameless scroll area: the page fills the tab while the tab is at least the page's minimum
/// size and scrolls when the window is smaller (1280 x 720 with a title bar), so the window's minimum stays small.
/// Not QScrollArea's widgetResizable: for a page with word-wrapped labels (height for width) it takes the page's
/// preferred height as its minimum and scrolls at any window size.
class PageScroll : public QScrollArea
{
public:
    PageScroll(QWidget* page, QWidget* parent)
        : QScrollArea(parent)
    {
        setObjectName(page->objectName().isEmpty() ? QStringLiteral("pageScroll")
                                                   : page->objectName() + QStringLiteral("Scroll"));
        setFrameShape(QFrame::NoFrame);
        setWidget(page);
        page->installEventFilter(this);
        WheelGuard::install(this); // the wheel scrolls the page; it changes a setting only when that has the focus
    }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QScrollArea::resizeEvent(event);
        fit();
    }
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        const bool handled = QScrollArea::eventFilter(watched, event);
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            fit(); // the page's minimum may have changed
        return handled;
    }

private:
    void fit()
    {
        QWidget* page = widget();
        const QSize min = page->minimumSizeHint().expandedTo(page->minimumSize());
        const QSize room = maximumViewportSize();
        int w = room.width(), h = room.height();
        // A scroll bar one way takes room the other way.
        const bool across = min.width() > w;
        const bool down = min.height() > (across ? h - horizontalScrollBar()->sizeHint().height() : h);
        if (down)
            w -= verticalScrollBar()->sizeHint().width();
        if (across || min.width() > w)
            h -= horizontalScrollBar()->sizeHint().height();
        const QSize size(std::max(w, min.width()), std::max(h, min.height()));
        if (page->size() != size)
            page->resize(size);
    }
};
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
    addTab(new PageScroll(explorer, this), tr("Explorer"));
    addTab(new PageScroll(m_search, this), tr("Search"));
    addTab(new PageScroll(m_sweep, this), tr("Sweep"));
    addTab(new PageScroll(m_sizing, this), tr("Sizing"));
    addTab(new PageScroll(m_timeline, this), tr("Timeline"));
    addTab(new PageScroll(m_rankMap, this), tr("Rank map"));
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
    return page ? page->findChildren<ChartBase*>() : QList<ChartBase*> {};
}

void AnalysisTabs::drawBuffersNow()
{
    if (currentIndex() == 0)
        return; // the explorer's charts: MainWindow::replotAllNow() draws them
    for (ChartBase* c : visibleCharts())
        c->drawBuffersNow();
}

} // namespace shardscope::ui
