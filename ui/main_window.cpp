// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.h"

#include "analysis/analysis_tabs.h"
#include "analysis/rank_map_chart.h"
#include "analysis/rank_map_pane.h"
#include "analysis/search_pane.h"
#include "analysis/search_scatter.h"
#include "analysis/sizing_chart.h"
#include "analysis/sizing_pane.h"
#include "analysis/sweep_chart.h"
#include "analysis/sweep_pane.h"
#include "analysis/timeline_chart.h"
#include "analysis/timeline_pane.h"
#include "analysis/waterfall_chart.h"
#include "session/app_theme.h"
#include "session/file_controller.h"
#include "session/import_controller.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "compare/compare_controller.h"
#include "compare/compare_time_chart.h"
#include "compare/compare_view.h"
#include "document/scenario_document.h"
#include "editors/cluster_panel.h"
#include "editors/scenario_editor.h"
#include "export/export_controller.h"
#include "help/model_reference.h"
#include "help/shortcuts_dialog.h"
#include "launch/launch_config_panel.h"
#include "settings/app_settings.h"
#include "teach/teaching_controller.h"
#include "views/issues_panel.h"
#include "views/kpi_panel.h"
#include "views/chart_grid.h"
#include "views/fix_bar.h"
#include "views/status_line.h"
#include "calibrate/calibrate_dialog.h"
#include "util/veil.h"
#include "util/message.h"
#include "util/screen_fit.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QGroupBox>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QUndoStack>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace shardscope::ui {

MainWindow::MainWindow(const core::Catalog& catalog, AppSettings* settings, QWidget* parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_doc(new ScenarioDocument(catalog, this))
    , m_files(new FileController(m_doc, settings, this))
    , m_export(new ExportController(m_doc, this))
    , m_compare(new CompareController(m_doc, this))
    , m_teach(new TeachingController(m_doc, m_files, this))
{
    setWindowIcon(QIcon(QStringLiteral(":/icons/shardscope.svg")));
    setAcceptDrops(true);
    Units::setByteUnit(settings->byteUnit());
    m_import = new ImportController(m_doc, m_files, m_settings, this); // File → Import… and dropped configuration files
    buildLayout();
    buildMenus();
    connect(m_doc, &ScenarioDocument::resultReady, this, &MainWindow::showResult);
    connect(m_doc, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
    m_profile = plainLabel(this); // a profile name from a file
    m_profile->setObjectName(QStringLiteral("profileLabel"));
    statusBar()->addPermanentWidget(m_profile);
    connect(m_files, &FileController::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, 5000); });
    connect(m_import, &ImportController::statusMessage, this,
        [this](const QString& text) { statusBar()->showMessage(text, 5000); });
    const auto toStatus = [this](const QString& text) { statusBar()->showMessage(text, 5000); };
    connect(m_export, &ExportController::statusMessage, this, toStatus);
    connect(m_compare, &CompareController::statusMessage, this, toStatus);
    connect(m_teach, &TeachingController::statusMessage, this, toStatus);
    connect(m_launch->panel(), &LaunchConfigPanel::statusMessage, this, toStatus);
    connect(m_issues, &IssuesPanel::fieldActivated, m_editor, &ScenarioEditor::focusField);
    connect(settings, &AppSettings::byteUnitChanged, this, [this](ByteUnit unit) {
        Units::setByteUnit(unit);
        // Everything already drawn in bytes is drawn again: the explorer, the analysis panes, the lesson shown.
        m_drawn.reset();
        showResult(m_doc->shown());
        m_analysis->sweep()->refresh();
        m_analysis->sizing()->refresh();
        m_analysis->timeline()->refresh();
        m_analysis->search()->redrawUnits();
        m_compare->redraw();
        for (EditorPanel* panel : m_editor->panels())
            if (auto* cluster = qobject_cast<ClusterPanel*>(panel))
                cluster->refreshUnits(); // the GPU entries' tooltips
        m_teach->redraw();
        // The rank map and the launch configuration show no byte figures: nothing of theirs changes.
    });
    showResult(m_doc->shown());
    updateTitle();
    restoreLayout();
}

void MainWindow::buildLayout()
{
    m_editor = new ScenarioEditor(m_doc, this);
    m_issues = new IssuesPanel(this);
    auto* issuesBox = new QGroupBox(tr("Issues"), this);
    auto* issuesLayout = new QVBoxLayout(issuesBox);
    issuesLayout->setContentsMargins(2, 2, 2, 2);
    issuesLayout->addWidget(m_issues);
    auto* left = new QSplitter(Qt::Vertical, this);
    left->setObjectName(QStringLiteral("left"));
    left->addWidget(m_editor);
    left->addWidget(issuesBox);
    left->setStretchFactor(0, 5);
    left->setStretchFactor(1, 1);

    m_kpis = new KpiPanel(this);
    m_status = new StatusLine(this);
    m_memory = new MemoryChart(this);
    m_strategy = new StrategyChart(this);
    m_comm = new CommChart(this);
    m_time = new StepTimeChart(this);
    auto* top = new QSplitter(Qt::Horizontal, this);
    top->setObjectName(QStringLiteral("chartsTop"));
    top->addWidget(m_memory);
    top->addWidget(m_strategy);
    top->setStretchFactor(0, 42); // the strategy chart needs room for six labelled bars
    top->setStretchFactor(1, 58);
    auto* bottom = new QSplitter(Qt::Horizontal, this);
    bottom->setObjectName(QStringLiteral("chartsBottom"));
    bottom->addWidget(m_comm);
    bottom->addWidget(m_time);
    bottom->setStretchFactor(0, 55); // two plots side by side
    bottom->setStretchFactor(1, 45);
    auto* grid = new QSplitter(Qt::Vertical, this);
    grid->setObjectName(QStringLiteral("charts"));
    grid->addWidget(top);
    grid->addWidget(bottom);
    // Holds the veil, which a splitter would take as one more pane; stacks the charts when they do not fit side by side.
    m_explorerCharts = new ChartGrid(grid, { top, bottom }, this);
    m_explorerCharts->setObjectName(QStringLiteral("explorerCharts"));
    m_veils = { new Veil(m_explorerCharts), new Veil(m_kpis) };

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(2, 4, 0, 0); // the splitter handle separates it from the editor: 1280 px wide
    rightLayout->setSpacing(4);
    rightLayout->addWidget(m_kpis);
    auto* statusRow = new QHBoxLayout; // the fix buttons beside the status line: showing them moves no chart
    statusRow->setSpacing(6);
    statusRow->addWidget(m_status, 1);
    m_fixBar = new FixBar(m_doc, this);
    statusRow->addWidget(m_fixBar);
    rightLayout->addLayout(statusRow);
    m_analysis = new AnalysisTabs(m_doc, m_explorerCharts, this); // the explorer charts become its first tab
    rightLayout->addWidget(m_analysis, 1);

    auto* main = new QSplitter(Qt::Horizontal, this);
    main->setObjectName(QStringLiteral("main"));
    main->addWidget(left);
    main->addWidget(right);
    main->setStretchFactor(0, 0);
    main->setStretchFactor(1, 1);
    setCentralWidget(main);
    m_splitters = { main, left, grid, top, bottom };
    m_export->attachChart(m_memory, ChartKind::Memory);
    m_export->attachChart(m_strategy, ChartKind::Strategy);
    m_export->attachChart(m_comm, ChartKind::Communication);
    m_export->attachChart(m_time, ChartKind::Time);
    registerFigures();
    m_analysis->search()->setSettings(m_settings);
    m_launch = new LaunchConfigDock(m_doc, this);
    addDockWidget(Qt::RightDockWidgetArea, m_launch);
    m_launch->hide();
    for (QSplitter* s : std::as_const(m_splitters))
        s->setChildrenCollapsible(false);
}

void MainWindow::registerFigures()
{
    // Each chart with what it draws for an export (its copy()); the timeline is a scenario chart, drawn from the
    // document. The memory sweep last: it is what the dialog and Copy Chart draw until another sweep chart is
    // right-clicked.
    m_export->attachChart(m_analysis->timeline()->chart(), ChartKind::Timeline);
    SearchScatterChart* search = m_analysis->search()->scatter();
    m_export->attachChart(search, ChartKind::Search, [search] { return search->copy(); });
    for (int i = SweepPane::kCharts - 1; i >= 0; --i) {
        SweepChart* sweep = m_analysis->sweep()->chart(i);
        m_export->attachChart(sweep, ChartKind::Sweep, [sweep] { return sweep->copy(); });
    }
    SizingChart* sizing = m_analysis->sizing()->chart();
    m_export->attachChart(sizing, ChartKind::Sizing, [sizing] { return sizing->copy(); });
    RankMapChart* rankMap = m_analysis->rankMap()->chart();
    m_export->attachChart(rankMap, ChartKind::RankMap, [rankMap] { return rankMap->copy(); });
    // The comparison window's step-time and waterfall charts, once it exists.
    connect(m_compare, &CompareController::viewCreated, this, [this](CompareView* view) {
        CompareTimeChart* time = view->timeChart();
        m_export->attachChart(time, ChartKind::Compare, [time] { return time->copy(); });
        WaterfallChart* waterfall = view->waterfallChart();
        m_export->attachChart(waterfall, ChartKind::Waterfall, [waterfall] { return waterfall->copy(); });
    });
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_files->populateMenu(file);
    m_import->populateMenu(file);
    file->addSeparator();
    m_export->populateMenu(file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcuts(QKeySequence::Undo);
    QAction* redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* units = view->addMenu(tr("Memory &units"));
    auto* unitGroup = new QActionGroup(this);
    for (auto [unit, label] :
        { std::pair { ByteUnit::GiB, tr("GiB (2^30 bytes)") }, std::pair { ByteUnit::GB, tr("GB (10^9 bytes)") } }) {
        QAction* a = units->addAction(label, this, [this, unit] { m_settings->setByteUnit(unit); });
        a->setCheckable(true);
        a->setChecked(m_settings->byteUnit() == unit);
        unitGroup->addAction(a);
    }
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themeGroup = new QActionGroup(this);
    for (auto [mode, label] : { std::pair { ThemeMode::System, tr("&System") },
             std::pair { ThemeMode::Light, tr("&Light") }, std::pair { ThemeMode::Dark, tr("&Dark") } }) {
        QAction* a = theme->addAction(label, this, [this, mode] {
            m_settings->setTheme(mode);
            AppTheme::apply(mode);
        });
        a->setCheckable(true);
        a->setChecked(m_settings->theme() == mode);
        themeGroup->addAction(a);
    }
    theme->addSeparator();
    theme->addAction(tr("Toggle light/dark"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this, [this, themeGroup] {
        const ThemeMode next = AppTheme::isDark(m_settings->theme()) ? ThemeMode::Light : ThemeMode::Dark;
        themeGroup->actions().at(int(next))->trigger();
    });

    view->addSeparator();
    // The chart tabs (Ctrl+1 … Ctrl+6), in AnalysisTabs' order.
    const QStringList tabIds = { QStringLiteral("explorer"), QStringLiteral("search"), QStringLiteral("sweep"),
        QStringLiteral("sizing"), QStringLiteral("timeline"), QStringLiteral("rankmap") };
    for (int i = 0; i < int(tabIds.size()) && i < m_analysis->count(); ++i) {
        const QString id = tabIds[i];
        QAction* a = view->addAction(m_analysis->tabText(i), this, [this, id] { m_analysis->showTab(id); });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        a->setObjectName(QStringLiteral("tab.") + id);
    }
    QAction* runSearch = view->addAction(tr("&Run Search"), this, [this] {
        m_analysis->showTab(QStringLiteral("search"));
        m_analysis->search()->run();
    });
    runSearch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runSearch->setObjectName(QStringLiteral("runSearchAction"));
    QAction* applyLayout = view->addAction(tr("&Apply Selected Layout"), this, [this] {
        m_analysis->showTab(QStringLiteral("search"));
        m_analysis->search()->applySelected();
    });
    applyLayout->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    applyLayout->setToolTip(tr("Use the layout selected in the Search tab's results"));
    applyLayout->setObjectName(QStringLiteral("applyLayoutAction"));
    view->addSeparator();
    view->addAction(m_launch->toggleViewAction());
    m_teach->populateMenu(view);
    m_compare->populateMenu(menuBar()->addMenu(tr("&Compare")));

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* calibrate = tools->addAction(tr("&Calibrate to My Cluster…"), this, [this] {
        CalibrateDialog dialog(m_doc, this);
        dialog.exec();
    });
    calibrate->setObjectName(QStringLiteral("calibrateAction"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* reference = help->addAction(tr("&Model Reference"), this, [this] { showModelReference({}, this); });
    reference->setShortcut(QKeySequence::HelpContents);
    reference->setObjectName(QStringLiteral("modelReferenceAction"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showShortcuts(menuBar(), this); });
    keys->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    help->addSeparator();
    help->addAction(tr("&About ShardScope"), this, [this] {
        QMessageBox::about(this, tr("About ShardScope"),
            tr("<b>ShardScope</b> %1<br>Per-GPU memory, communication and step time of sharded LLM "
               "training, from an analytic model. Hover any figure for its formula and source.")
                .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::showResult(const std::shared_ptr<const core::WhatIf>& shown)
{
    // An invalid edit keeps the last valid figures on screen, greyed; the status line, the fix bar and the issues
    // say what is wrong. A document not valid since it was opened (New, Open, a lesson step) has none to keep.
    const bool valid = shown->result.valid;
    if (valid)
        m_lastValid = Shown { shown, m_doc->generation() };
    const bool stale = !valid && m_lastValid && m_lastValid->generation == m_doc->generation();
    const std::shared_ptr<const core::WhatIf>& figures = stale ? m_lastValid->what : shown;
    // While edits stay invalid the figures are the last valid ones, already drawn: only the status line, the issues
    // and the veil change (dragging a slider through invalid values redraws no chart).
    if (figures != m_drawn) {
        m_drawn = figures;
        const core::WhatIf& w = *figures;
        m_memory->setResult(w.scenario, w.result);
        m_strategy->setComparison(w.strategies);
        m_comm->setResult(w.scenario, w.result);
        m_time->setResult(w.result, w.strategies);
        m_kpis->setResult(w.scenario, w.result);
    }
    m_status->setResult(*shown);
    if (m_profile) {
        // A calibrated profile is part of the document (its `calibration`, saved with it): say so where it shows.
        const core::FrameworkProfile& p = shown->scenario.profile;
        const QString name = QString::fromStdString(p.name);
        m_profile->setText(
            p.fit.runs > 0 ? tr("Calibrated: %1, %2 runs").arg(name).arg(p.fit.runs) : tr("Profile: %1").arg(name));
    }
    m_issues->setResult(shown->result);
    setStale(stale);
}

void MainWindow::setStale(bool stale)
{
    if (stale == m_stale)
        return;
    m_stale = stale;
    for (Veil* veil : m_veils)
        veil->cover(stale);
}

void MainWindow::replotAllNow()
{
    // What the event loop does after an edit, at once: every changed chart draws its buffers, then one paint pass
    // draws them with the other views that changed (status line, KPIs, issues, editor), each region once.
    m_memory->drawBuffersNow();
    m_strategy->drawBuffersNow();
    m_comm->drawBuffersNow();
    m_time->drawBuffersNow();
    m_analysis->drawBuffersNow();
    QCoreApplication::sendPostedEvents(this, QEvent::UpdateRequest);
}

void MainWindow::updateTitle()
{
    // The platform adds the application's display name ("Untitled* — ShardScope"): not written here a second time.
    setWindowTitle(QStringLiteral("%1[*]").arg(m_doc->displayName()));
    setWindowModified(m_doc->isModified());
}

void MainWindow::restoreLayout()
{
    if (!restoreGeometry(m_settings->windowGeometry())) { // first start: fit the screen the window is on
        const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
        if (screen)
            setGeometry(defaultGeometry(screen->availableGeometry(), minimumSizeHint()));
        else
            resize(1500, 920);
    }
    restoreState(m_settings->windowState());
    for (QSplitter* s : std::as_const(m_splitters))
        s->restoreState(m_settings->splitterState(s->objectName()));
    m_explorerCharts->arrange(); // a saved state holds the orientation it was saved in
}

void MainWindow::saveLayout()
{
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    for (QSplitter* s : std::as_const(m_splitters))
        m_settings->setSplitterState(s->objectName(), s->saveState());
}

QRect MainWindow::defaultGeometry(const QRect& available, const QSize& minimum)
{
    return fittedGeometry(available, QSize(1500, 920), minimum);
}

namespace {
/// The one local file a drag carries, or "" (several files, a URL, text).
QString droppedFile(const QMimeData* mime)
{
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().front().isLocalFile())
        return {};
    return mime->urls().front().toLocalFile();
}
} // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (droppedFile(event->mimeData()).endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QString path = droppedFile(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    // After the drop has finished: the unsaved-changes question and the open must not run inside the drag.
    QTimer::singleShot(0, this, [this, path] {
        if (m_files->maybeSave())
            m_files->open(path);
    });
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_files->maybeSave()) {
        event->ignore();
        return;
    }
    saveLayout();
    event->accept();
}

} // namespace shardscope::ui
