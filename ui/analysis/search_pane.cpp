// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/search_pane.h"

#include "analysis/layout_text.h"
#include "analysis/search_scatter.h"
#include "analysis/search_table_model.h"
#include "analysis/waterfall_chart.h"
#include "document/scenario_document.h"
#include "settings/app_settings.h"
#include "util/units.h"
#include "util/message.h"
#include "util/sharding_names.h"

#include <shardscope/core/enum_names.h>
#include <shardscope/core/evaluate.h>
#include <shardscope/core/waterfall.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <thread>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace shardscope::ui {

/// One background search. The thread writes result, then sets done; the GUI thread reads them only
/// after done (and joins), and reads progress.evaluated (atomic) meanwhile.
struct SearchPane::Job {
    core::Scenario base;
    core::SearchOptions options;
    core::SearchProgress progress;
    core::SearchResult result;
    std::atomic<bool> done { false };
    std::thread thread;
};

namespace {
/// A menu of checkable items that stays open while they are toggled (click, Space or Enter): several strategies
/// are chosen in one visit; Esc or a click outside closes it.
class StayOpenMenu : public QMenu
{
public:
    using QMenu::QMenu;

protected:
    void mouseReleaseEvent(QMouseEvent* event) override
    {
        if (QAction* a = actionAt(event->position().toPoint()); a && a->isCheckable() && a->isEnabled()) {
            a->toggle();
            return;
        }
        QMenu::mouseReleaseEvent(event);
    }
    void keyPressEvent(QKeyEvent* event) override
    {
        const int key = event->key();
        if ((key == Qt::Key_Space || key == Qt::Key_Return || key == Qt::Key_Enter) && activeAction()
            && activeAction()->isCheckable() && activeAction()->isEnabled()) {
            activeAction()->toggle();
            return;
        }
        QMenu::keyPressEvent(event);
    }
};

/// The part of a scenario a search depends on: everything but what it varies.
core::Scenario searchKey(core::Scenario s, bool range)
{
    s.name.clear();
    s.parallelism = {};
    s.training.microBatch = 1;
    s.training.recompute = core::Recompute::None;
    s.offload = {};
    if (range)
        s.cluster.nodes = 0;
    return s;
}
} // namespace

SearchPane::SearchPane(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_model(new SearchTableModel(this))
    , m_proxy(new SearchSortProxy(this))
    , m_pollTimer(new QTimer(this))
    , m_autoRun(new QTimer(this))
{
    auto* controls = new QWidget(this);
    buildControls(controls);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SearchTableModel::SortRole);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SearchTableModel::Rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // What the ranking is by comes first, after the strategy (at 1280 pixels Tokens/s was beyond the table's right
    // edge): the figures, then the layout. Only the view's order changes; the model's columns stay as they are.
    for (int col = SearchTableModel::StepTime; col <= SearchTableModel::CostPerMillion; ++col)
        m_table->horizontalHeader()->moveSection(
            m_table->horizontalHeader()->visualIndex(col), SearchTableModel::Tp + (col - SearchTableModel::StepTime));
    m_table->setToolTip(
        tr("Double-click a row (or select it and press Apply) to use that layout. Click a header to sort."));

    m_scatter = new SearchScatterChart(this);
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->setChildrenCollapsible(false);
    m_split->addWidget(m_table);
    m_split->addWidget(m_scatter);
    m_split->setStretchFactor(0, 5);
    m_split->setStretchFactor(1, 4);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(controls);
    layout->addWidget(m_split, 1);

    m_pollTimer->setInterval(40);
    connect(m_pollTimer, &QTimer::timeout, this, &SearchPane::poll);
    m_autoRun->setSingleShot(true);
    m_autoRun->setInterval(350);
    connect(m_autoRun, &QTimer::timeout, this, &SearchPane::run);

    connect(m_table, &QTableView::doubleClicked, this,
        [this](const QModelIndex& index) { applyRow(m_proxy->mapToSource(index).row()); });
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
            const int row = current.isValid() ? m_proxy->mapToSource(current).row() : -1;
            m_scatter->setSelectedPoint(row);
            m_apply->setEnabled(row >= 0);
            m_whyNot->setEnabled(row > 0); // #1 is the best: nothing to explain
        });
    connect(m_scatter, &SearchScatterChart::pointClicked, this, &SearchPane::selectPoint);
    connect(m_doc, &ScenarioDocument::resultReady, this, &SearchPane::documentChanged);
    updateGpuControls();
    documentChanged();
}

SearchPane::~SearchPane()
{
    if (m_job) {
        m_job->progress.cancel = true;
        if (m_job->thread.joinable())
            m_job->thread.join();
    }
}

void SearchPane::buildControls(QWidget* box)
{
    auto spin = [box](int lo, int hi, int value, const QString& tip) {
        auto* s = new QSpinBox(box);
        s->setRange(lo, hi);
        s->setValue(value);
        s->setToolTip(tip);
        s->setAccelerated(true);
        return s;
    };
    m_range = new QCheckBox(tr("range"), box);
    m_range->setToolTip(tr("Search every whole-node GPU count in a range instead of the scenario's GPU count."));
    m_minGpus = spin(1, 1 << 20, 8, tr("Smallest GPU count (rounded up to whole nodes)."));
    m_maxGpus
        = spin(1, 1 << 20, 64, tr("Largest GPU count. Wide ranges are sampled on a geometric grid of whole nodes."));
    m_gpuNote = new QLabel(box);
    auto* gpuRow = new QHBoxLayout;
    gpuRow->setSpacing(4);
    gpuRow->addWidget(m_gpuNote);
    gpuRow->addWidget(m_range);
    gpuRow->addWidget(m_minGpus);
    gpuRow->addWidget(new QLabel(QStringLiteral("–"), box));
    gpuRow->addWidget(m_maxGpus);
    gpuRow->addStretch(1);

    m_maxTp = spin(0, 256, 0, tr("Largest tensor-parallel degree (\"per node\": GPUs per node)."));
    m_maxTp->setSpecialValueText(tr("per node"));
    m_maxPp = spin(1, 256, 64, tr("Largest pipeline-parallel degree."));
    m_maxCp = spin(1, 256, 8, tr("Largest context-parallel degree."));
    m_maxEp = spin(0, 1024, 0, tr("Largest expert-parallel degree (mixture-of-experts models only)."));
    m_maxEp->setSpecialValueText(tr("no limit"));
    m_maxMicroBatch = spin(1, 256, 8, tr("Largest micro-batch (powers of two up to it are tried)."));

    m_strategies
        = new QPushButton(box); // a push button's menu arrow has its own room (a tool button's sat on the text)
    m_strategies->setToolTip(tr("Sharding strategies the search may use."));
    auto* menu = new StayOpenMenu(m_strategies);
    for (const core::ShardingName& name : core::shardingNames()) {
        const int i = int(name.sharding);
        QAction* a = menu->addAction(shardingShort(name.sharding));
        a->setCheckable(true);
        a->setChecked(true);
        a->setData(i);
        m_strategyActions << a;
        connect(a, &QAction::toggled, this, [this] {
            updateStrategyButton();
            constraintsChanged();
        });
    }
    m_strategies->setMenu(menu);
    updateStrategyButton();

    m_offload = new QCheckBox(tr("offload allowed"), box);
    m_offload->setChecked(true);
    m_offload->setToolTip(tr("Also try CPU offload of the optimizer (and of parameters with ZeRO-3/FSDP full shard)."));
    m_guaranteed = new QCheckBox(tr("guaranteed to fit"), box);
    m_guaranteed->setObjectName(QStringLiteral("guaranteedFit"));
    m_guaranteed->setToolTip(tr("Screen and rank by the pessimistic end of the 80% ranges: the top of the memory range "
                                "must fit, and layouts are ranked by the bottom of their throughput range."));
    m_overlap = new QDoubleSpinBox(box);
    m_overlap->setRange(0, 100);
    m_overlap->setDecimals(0);
    m_overlap->setSuffix(tr(" %"));
    m_overlap->setValue(100);
    m_overlap->setToolTip(tr("Overlap efficiency η: the share of the communication the model counts as hidden behind "
                             "compute that really is. Below 100% every layout is charged (1 − η) × its assumed-hidden "
                             "time, so layouts that win only on assumed overlap rank lower. Layouts must fit in the "
                             "scenario's usable memory (Cluster: memory headroom)."));
    m_objective = new QComboBox(box);
    m_objective->addItem(tr("tokens/s"), int(core::SearchObjective::TokensPerSecond));
    m_objective->addItem(tr("cost per token"), int(core::SearchObjective::CostPerToken));
    m_objective->addItem(tr("memory headroom"), int(core::SearchObjective::MemoryHeadroom));
    m_objective->setToolTip(tr("What ranks the layouts (best first)."));
    m_threads
        = spin(1, 256, std::max(1, QThread::idealThreadCount()), tr("Worker threads (results do not depend on it)."));

    m_run = new QPushButton(tr("Run"), box);
    m_run->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setEnabled(false);
    m_apply = new QPushButton(tr("Apply layout"), box);
    m_apply->setEnabled(false);
    m_apply->setToolTip(tr("Put the selected layout into the scenario (undoable)."));
    m_whyNot = new QPushButton(tr("Why not this layout?"), box);
    m_whyNot->setEnabled(false);
    m_whyNot->setToolTip(
        tr("Walk from the best layout (#1) to the selected one, one setting at a time: what each change "
           "costs in memory and step time."));
    m_progress = new QProgressBar(box);
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(140);
    m_progress->setMaximumHeight(m_run->sizeHint().height() - 6);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_status = plainLabel(box);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    m_staleNote = new QLabel(box);
    m_staleNote->setText(tr("⚠ The scenario changed since this search."));
    m_staleNote->setStyleSheet(QStringLiteral("color: #D55E00; font-weight: bold;"));
    m_staleNote->hide();

    auto* grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(3);
    auto label = [box](const QString& text) {
        auto* l = new QLabel(text, box);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        return l;
    };
    grid->addWidget(label(tr("GPUs")), 0, 0);
    grid->addLayout(gpuRow, 0, 1, 1, 3);
    grid->addWidget(label(tr("Objective")), 0, 4);
    grid->addWidget(m_objective, 0, 5);
    grid->addWidget(label(tr("Strategies")), 0, 6);
    grid->addWidget(m_strategies, 0, 7);
    grid->addWidget(label(tr("Max TP")), 1, 0);
    grid->addWidget(m_maxTp, 1, 1);
    grid->addWidget(label(tr("Max PP")), 1, 2);
    grid->addWidget(m_maxPp, 1, 3);
    grid->addWidget(label(tr("Max CP")), 1, 4);
    grid->addWidget(m_maxCp, 1, 5);
    grid->addWidget(label(tr("Max EP")), 1, 6);
    grid->addWidget(m_maxEp, 1, 7);
    grid->addWidget(label(tr("Micro-batch ≤")), 2, 0);
    grid->addWidget(m_maxMicroBatch, 2, 1);
    grid->addWidget(label(tr("Overlap η")), 2, 2);
    grid->addWidget(m_overlap, 2, 3);
    grid->addWidget(label(tr("Threads")), 2, 4);
    grid->addWidget(m_threads, 2, 5);
    grid->addWidget(m_offload, 2, 6, 1, 2);
    grid->setColumnStretch(8, 1); // controls keep their natural width; the slack goes to the right

    auto* actions = new QHBoxLayout;
    actions->setSpacing(6);
    actions->addWidget(m_run);
    actions->addWidget(m_cancel);
    actions->addWidget(m_progress);
    actions->addWidget(m_guaranteed); // by Run, not a ninth grid column: the pane fits 1280 pixels beside the editor
    actions->addStretch(1);
    actions->addWidget(m_staleNote);
    actions->addWidget(m_whyNot);
    actions->addWidget(m_apply);

    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(4);
    v->addLayout(grid);
    v->addLayout(actions);
    v->addWidget(m_status); // a line of its own: a long status never widens the pane (the window fits 1280 pixels)

    connect(m_run, &QPushButton::clicked, this, &SearchPane::run);
    connect(m_cancel, &QPushButton::clicked, this, &SearchPane::cancel);
    connect(m_apply, &QPushButton::clicked, this, &SearchPane::applySelected);
    connect(m_whyNot, &QPushButton::clicked, this, &SearchPane::explainSelected);
    connect(m_range, &QCheckBox::toggled, this, [this](bool on) {
        if (on) { // start from half to twice the scenario's GPU count
            const auto& c = m_doc->scenario().cluster;
            const QSignalBlocker a(m_minGpus), b(m_maxGpus);
            m_minGpus->setValue(std::max(c.gpusPerNode, c.gpus() / 2));
            m_maxGpus->setValue(c.gpus() * 2);
        }
        updateGpuControls();
        constraintsChanged();
    });
    for (QSpinBox* s : { m_minGpus, m_maxGpus, m_maxTp, m_maxPp, m_maxCp, m_maxEp, m_maxMicroBatch })
        connect(s, &QSpinBox::valueChanged, this, &SearchPane::constraintsChanged);
    connect(m_overlap, &QDoubleSpinBox::valueChanged, this, &SearchPane::constraintsChanged);
    connect(m_offload, &QCheckBox::toggled, this, &SearchPane::constraintsChanged);
    connect(m_guaranteed, &QCheckBox::toggled, this, &SearchPane::constraintsChanged);
    connect(m_objective, &QComboBox::currentIndexChanged, this, &SearchPane::constraintsChanged);
}

core::SearchOptions SearchPane::options() const
{
    core::SearchOptions o;
    if (m_range->isChecked()) {
        o.minGpus = std::min(m_minGpus->value(), m_maxGpus->value());
        o.maxGpus = std::max(m_minGpus->value(), m_maxGpus->value());
    }
    o.maxTp = m_maxTp->value();
    o.maxPp = m_maxPp->value();
    o.maxCp = m_maxCp->value();
    o.maxEp = m_maxEp->value();
    o.maxMicroBatch = m_maxMicroBatch->value();
    o.overlapEfficiency = m_overlap->value() / 100.0;
    o.objective = core::SearchObjective(m_objective->currentData().toInt());
    o.threads = m_threads->value();
    o.allowOffload = m_offload->isChecked();
    o.pessimistic = m_guaranteed->isChecked();
    o.topK = 0;
    bool all = true;
    for (QAction* a : m_strategyActions) {
        if (a->isChecked())
            o.shardings.push_back(core::Sharding(a->data().toInt()));
        else
            all = false;
    }
    if (all)
        o.shardings.clear(); // empty = all seven (core default)
    return o;
}

void SearchPane::updateStrategyButton()
{
    int n = 0;
    for (QAction* a : std::as_const(m_strategyActions))
        n += a->isChecked();
    m_strategies->setText(
        n == m_strategyActions.size() ? tr("all %1").arg(n) : tr("%1 of %2").arg(n).arg(m_strategyActions.size()));
    m_strategies->setMinimumWidth(m_strategies->sizeHint().width()); // its text and the menu arrow, never squeezed
}

void SearchPane::updateGpuControls()
{
    const bool range = m_range->isChecked();
    m_minGpus->setEnabled(range);
    m_maxGpus->setEnabled(range);
    const auto& c = m_doc->scenario().cluster;
    m_minGpus->setSingleStep(std::max(1, c.gpusPerNode));
    m_maxGpus->setSingleStep(std::max(1, c.gpusPerNode));
    m_gpuNote->setText(range ? QString() : tr("%1 (scenario)").arg(c.gpus()));
    m_gpuNote->setVisible(!range);
    m_maxEp->setEnabled(m_doc->scenario().model.isMoe());
}

void SearchPane::constraintsChanged()
{
    if (!m_hasRun)
        return;
    // A quick search re-runs as the constraints change; a slow one waits for Run.
    if (m_lastSeconds < 1.0)
        m_autoRun->start();
    else
        m_status->setText(tr("Constraints changed: press Run."));
}

void SearchPane::run()
{
    m_autoRun->stop();
    if (m_job) {
        m_job->progress.cancel = true;
        if (m_job->thread.joinable())
            m_job->thread.join();
        m_job.reset();
    }
    auto job = std::make_unique<Job>();
    job->base = m_doc->scenario();
    job->options = options();
    Job* j = job.get();
    job->thread = std::thread([j] {
        j->result = core::search(j->base, j->options, &j->progress);
        j->done = true;
    });
    m_job = std::move(job);
    m_hasRun = true;
    m_run->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->show();
    m_status->setText(tr("Searching…"));
    m_pollTimer->start();
}

void SearchPane::cancel()
{
    if (m_job)
        m_job->progress.cancel = true;
}

void SearchPane::poll()
{
    if (!m_job)
        return;
    if (m_job->done.load()) {
        finish();
        return;
    }
    m_status->setText(tr("Searching… %1 layouts scored").arg(groupedInt(m_job->progress.evaluated.load())));
}

void SearchPane::finish()
{
    m_pollTimer->stop();
    if (m_job->thread.joinable())
        m_job->thread.join();
    std::unique_ptr<Job> job = std::move(m_job);
    core::SearchResult& r = job->result;
    m_base = job->base;
    m_ranked = job->options;
    m_baseRange = job->options.minGpus > 0;
    m_lastSeconds = r.seconds;
    m_evaluated = r.evaluated;
    m_feasible = r.feasible;
    updateCurrent();
    m_scatter->setPoints(r.points, r.pareto, core::usableMemory(job->base), m_ranked);
    m_model->setPoints(std::move(r.points), r.pareto, m_ranked);
    m_run->setEnabled(true);
    m_cancel->setEnabled(false);
    m_progress->hide();
    m_apply->setEnabled(false);
    m_whyNot->setEnabled(false);
    QString text;
    if (r.cancelled)
        text = tr("Cancelled after %1 layouts: partial results, %2 fit.")
                   .arg(groupedInt(r.evaluated), groupedInt(r.feasible));
    else if (r.feasible == 0)
        text = tr("None of %1 layouts fits: allow more GPUs, offload or a smaller memory headroom (Cluster).")
                   .arg(groupedInt(r.evaluated));
    else
        text = tr("%1 of %2 layouts fit · %3 on the Pareto front · %4")
                   .arg(groupedInt(r.feasible), groupedInt(r.evaluated))
                   .arg(r.pareto.size())
                   .arg(Units::seconds(r.seconds));
    if (m_ranked.pessimistic)
        text += tr(" · ranked on the slow end of the 80% ranges, memory at the top");
    if (m_ranked.overlapEfficiency < 1)
        text += tr(" · overlap η %1").arg(Units::percent(m_ranked.overlapEfficiency, 0));
    m_status->setText(text);
    m_stale = false;
    m_staleNote->hide();
    m_table->setColumnHidden(SearchTableModel::Ep, !m_base.model.isMoe());
    if (m_model->rowCount() > 0) {
        m_table->resizeColumnsToContents();
        m_table->selectRow(0);
    }
    // The search's own memory (the job, and what its worker threads allocated in their malloc arenas) is free now;
    // glibc keeps such pages resident until asked to return them, so a large search would otherwise leave hundreds
    // of MB behind.
    job.reset();
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    emit finished();
}

void SearchPane::redrawUnits()
{
    m_model->unitsChanged();
    m_scatter->redraw();
    if (m_whyNotWindow && m_whyNotWindow->isVisible())
        explainSelected();
}

void SearchPane::documentChanged()
{
    const core::Scenario& s = m_doc->scenario();
    // A scatter of thousands of points costs a replot: while the tab is hidden, catch up when it shows.
    m_currentDirty = !isVisible();
    if (!m_currentDirty)
        updateCurrent();
    updateGpuControls();
    if (m_hasRun && !m_job) {
        m_stale = !(searchKey(s, m_baseRange) == searchKey(m_base, m_baseRange));
        m_staleNote->setVisible(m_stale);
        m_staleNote->setToolTip(
            tr("The results are for the scenario as it was when the search ran. Run again to update them."));
    }
}

void SearchPane::selectPoint(int index)
{
    if (index < 0 || index >= m_model->rowCount())
        return;
    const QModelIndex proxyIndex = m_proxy->mapFromSource(m_model->index(index, 0));
    m_table->selectRow(proxyIndex.row());
    m_table->scrollTo(proxyIndex, QAbstractItemView::PositionAtCenter);
}

int SearchPane::selectedRow() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? m_proxy->mapToSource(current).row() : -1;
}

void SearchPane::applySelected()
{
    const int row = selectedRow();
    if (row >= 0)
        applyRow(row);
}

QMenu* SearchPane::strategiesMenu() const { return m_strategies->menu(); }

void SearchPane::setSettings(AppSettings* settings)
{
    m_settings = settings;
    {
        const QSignalBlocker block(m_overlap);
        m_overlap->setValue(settings->searchOverlapEfficiency() * 100);
    }
    connect(m_overlap, &QDoubleSpinBox::valueChanged, settings,
        [settings](double percent) { settings->setSearchOverlapEfficiency(percent / 100); });
    {
        const QSignalBlocker block(m_guaranteed);
        m_guaranteed->setChecked(settings->searchGuaranteedFit());
    }
    connect(m_guaranteed, &QCheckBox::toggled, settings, &AppSettings::setSearchGuaranteedFit);
}

void SearchPane::updateCurrent()
{
    const core::Result& r = m_doc->result();
    if (!r.valid) {
        m_scatter->setCurrent(false, 0, 0, false);
        return;
    }
    const core::RankedFigures f = core::rankedFigures(m_doc->scenario(), r, m_ranked);
    m_scatter->setCurrent(true, f.stepTime, f.memory, f.memory <= r.usable);
}

void SearchPane::explainSelected()
{
    const int row = selectedRow();
    if (row <= 0 || row >= m_model->rowCount())
        return;
    if (!m_whyNotWindow) {
        m_whyNotWindow = new QWidget(this, Qt::Window);
        m_whyNotWindow->setObjectName(QStringLiteral("whyNotWindow"));
        m_whyNotNote = plainLabel(m_whyNotWindow);
        m_whyNotNote->setWordWrap(true);
        m_whyNotNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_whyNotChart = new WaterfallChart(m_whyNotWindow);
        auto* layout = new QVBoxLayout(m_whyNotWindow);
        layout->setContentsMargins(6, 6, 6, 6);
        layout->addWidget(m_whyNotNote);
        layout->addWidget(m_whyNotChart, 1);
        m_whyNotWindow->resize(1000, 560);
    }
    const core::SearchPoint& best = m_model->point(0);
    const core::SearchPoint& chosen = m_model->point(row);
    // The walk on the figures the search ranked on, so that its ends are the table's figures.
    const core::Waterfall w = core::buildWaterfall(
        core::applyLayout(m_base, best.layout), core::applyLayout(m_base, chosen.layout), m_ranked);
    m_whyNotChart->setWaterfall(
        w, tr("#1 (best)"), tr("#%1").arg(row + 1), rankedMemoryBasis(m_ranked), rankedTimeBasis(m_ranked));
    m_whyNotWindow->setWindowTitle(tr("Why not layout #%1?").arg(row + 1));
    const double change = chosen.tokensPerSecond / best.tokensPerSecond - 1;
    QString basis;
    if (m_ranked.pessimistic)
        basis += tr(" Every figure is the one the search ranked on: the slow end of the 80% range for time and "
                    "throughput, the top of it for memory (\"guaranteed to fit\").");
    if (m_ranked.overlapEfficiency < 1)
        basis += tr(" Step times carry %1 of the communication the model counts hidden (overlap η %2).")
                     .arg(Units::percent(1 - m_ranked.overlapEfficiency, 0),
                         Units::percent(m_ranked.overlapEfficiency, 0));
    m_whyNotNote->setText(
        tr("#1: %1\n#%2: %3\n#%2 runs %4 tokens/s against #1's %5 (%6) and needs %7 per GPU against %8. "
           "Each bar changes one setting of #1 into #%2's, in the order of the scenario file, and shows "
           "what that change does to memory and step time.")
            .arg(layoutSummary(best.layout))
            .arg(row + 1)
            .arg(layoutSummary(chosen.layout), Units::tokensPerSecond(chosen.tokensPerSecond),
                Units::tokensPerSecond(best.tokensPerSecond),
                (change < 0 ? QStringLiteral("−") : QStringLiteral("+")) + Units::percent(std::abs(change)),
                Units::bytes(chosen.memory), Units::bytes(best.memory))
        + basis);
    m_whyNotWindow->show();
    m_whyNotWindow->raise();
}

void SearchPane::applyRow(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    const core::LayoutChoice layout = m_model->point(row).layout;
    m_doc->edit(tr("Apply layout #%1 (%2)").arg(row + 1).arg(shardingShort(layout.sharding)),
        QStringLiteral("search.layout"), [layout](core::Scenario& s) { s = core::applyLayout(s, layout); });
}

void SearchPane::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_currentDirty) {
        updateCurrent();
        m_currentDirty = false;
    }
    if (!m_hasRun && !m_job)
        QTimer::singleShot(0, this, &SearchPane::run);
}

void SearchPane::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Wide panes read best with the table and the scatter side by side; narrow ones stack them.
    const Qt::Orientation o = width() >= 1400 ? Qt::Horizontal : Qt::Vertical;
    if (m_split->orientation() != o) {
        m_split->setOrientation(o);
        m_split->setSizes(o == Qt::Horizontal ? QList<int> { width() * 62 / 100, width() * 38 / 100 }
                                              : QList<int> { height() * 52 / 100, height() * 48 / 100 });
    }
}

} // namespace shardscope::ui
