// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.h"

#include "analysis/analysis_tabs.h"
#include "analysis/timeline_chart.h"
#include "analysis/timeline_pane.h"
#include "session/app_theme.h"
#include "session/file_controller.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "compare/compare_controller.h"
#include "document/scenario_document.h"
#include "editors/scenario_editor.h"
#include "export/export_controller.h"
#include "help/model_reference.h"
#include "launch/launch_config_panel.h"
#include "settings/app_settings.h"
#include "teach/teaching_controller.h"
#include "views/issues_panel.h"
#include "views/kpi_panel.h"
#include "views/status_line.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QGroupBox>
#include <QMenuBar>
#include <QSplitter>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace shardscope::ui {

MainWindow::MainWindow(const core::Catalog& catalog, AppSettings* settings, QWidget* parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_doc(new ScenarioDocument(catalog, this))
    , m_files(new FileController(m_doc, settings, this))
    , m_export(new ExportController(m_doc, this))
    , m_compare(new CompareController(m_doc, this))
    , m_teach(new TeachingController(m_doc, this))
{
    m_files->setPinBoard(m_compare->pins()); // pins are saved with the file
    setWindowIcon(QIcon(QStringLiteral(":/icons/shardscope.svg")));
    Units::setByteUnit(settings->byteUnit());
    buildLayout();
    buildMenus();
    connect(m_doc, &ScenarioDocument::changed, this, &MainWindow::showResult);
    connect(m_doc, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_files, &FileController::statusMessage, this, [this](const QString& text) { statusBar()->showMessage(text, 5000); });
    const auto toStatus = [this](const QString& text) { statusBar()->showMessage(text, 5000); };
    connect(m_export, &ExportController::statusMessage, this, toStatus);
    connect(m_compare, &CompareController::statusMessage, this, toStatus);
    connect(m_teach, &TeachingController::statusMessage, this, toStatus);
    connect(m_launch->panel(), &LaunchConfigPanel::statusMessage, this, toStatus);
    connect(m_issues, &IssuesPanel::fieldActivated, m_editor, &ScenarioEditor::focusField);
    connect(settings, &AppSettings::byteUnitChanged, this, [this](ByteUnit unit) {
        Units::setByteUnit(unit);
        showResult();
    });
    showResult();
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

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(4, 4, 4, 0);
    rightLayout->setSpacing(4);
    rightLayout->addWidget(m_kpis);
    rightLayout->addWidget(m_status);
    m_analysis = new AnalysisTabs(m_doc, grid, this); // the explorer charts become its first tab
    rightLayout->addWidget(m_analysis, 1);

    auto* main = new QSplitter(Qt::Horizontal, this);
    main->setObjectName(QStringLiteral("main"));
    main->addWidget(left);
    main->addWidget(right);
    main->setStretchFactor(0, 0);
    main->setStretchFactor(1, 1);
    setCentralWidget(main);
    m_splitters = {main, left, grid, top, bottom};
    m_export->attachChart(m_memory, ChartKind::Memory);
    m_export->attachChart(m_strategy, ChartKind::Strategy);
    m_export->attachChart(m_comm, ChartKind::Communication);
    m_export->attachChart(m_time, ChartKind::Time);
    m_export->attachChart(m_analysis->timeline()->chart(), ChartKind::Timeline);
    m_launch = new LaunchConfigDock(m_doc, this);
    addDockWidget(Qt::RightDockWidgetArea, m_launch);
    m_launch->hide();
    for (QSplitter* s : std::as_const(m_splitters))
        s->setChildrenCollapsible(false);
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_files->populateMenu(file);
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
    for (auto [unit, label] : {std::pair{ByteUnit::GiB, tr("GiB (2^30 bytes)")}, std::pair{ByteUnit::GB, tr("GB (10^9 bytes)")}}) {
        QAction* a = units->addAction(label, this, [this, unit] { m_settings->setByteUnit(unit); });
        a->setCheckable(true);
        a->setChecked(m_settings->byteUnit() == unit);
        unitGroup->addAction(a);
    }
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themeGroup = new QActionGroup(this);
    for (auto [mode, label] : {std::pair{ThemeMode::System, tr("&System")}, std::pair{ThemeMode::Light, tr("&Light")},
                               std::pair{ThemeMode::Dark, tr("&Dark")}}) {
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
    view->addAction(m_launch->toggleViewAction());
    m_teach->populateMenu(view);
    m_compare->populateMenu(menuBar()->addMenu(tr("&Compare")));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* reference = help->addAction(tr("&Model Reference"), this, [this] { showModelReference({}, this); });
    reference->setShortcut(QKeySequence::HelpContents);
    reference->setObjectName(QStringLiteral("modelReferenceAction"));
    help->addSeparator();
    help->addAction(tr("&About ShardScope"), this, [this] {
        QMessageBox::about(this, tr("About ShardScope"),
                           tr("<b>ShardScope</b> %1<br>Per-GPU memory, communication and step time of sharded LLM "
                              "training, from an analytic model. Hover any figure for its formula and source.")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::showResult()
{
    const core::Scenario& s = m_doc->scenario();
    const core::Result& r = m_doc->result();
    m_memory->setResult(s, r);
    m_strategy->setComparison(m_doc->comparison());
    m_comm->setResult(s, r);
    m_time->setResult(s, r, m_doc->comparison());
    m_kpis->setResult(s, r);
    m_status->setResult(s, r);
    m_issues->setResult(r);
}

void MainWindow::replotAllNow()
{
    m_memory->replotNow();
    m_strategy->replotNow();
    m_comm->replotNow();
    m_time->replotNow();
    m_analysis->replotNow();
}

void MainWindow::updateTitle()
{
    setWindowTitle(QStringLiteral("ShardScope — %1[*]").arg(m_doc->displayName()));
    setWindowModified(m_doc->isModified());
}

void MainWindow::restoreLayout()
{
    if (!restoreGeometry(m_settings->windowGeometry()))
        resize(1500, 920);
    restoreState(m_settings->windowState());
    for (QSplitter* s : std::as_const(m_splitters))
        s->restoreState(m_settings->splitterState(s->objectName()));
}

void MainWindow::saveLayout()
{
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    for (QSplitter* s : std::as_const(m_splitters))
        m_settings->setSplitterState(s->objectName(), s->saveState());
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
