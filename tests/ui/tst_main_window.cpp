// SPDX-License-Identifier: GPL-3.0-or-later
// The whole window: opens on the default scenario; a control changes the result and every chart; undo
// restores scenario and charts; save/open round-trips with the title and prompt; an invalid combination
// shows an issue without crashing.
#include "settle.h"
#include "test_support.h"

#include "session/app_theme.h"
#include "session/file_controller.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/qcp.h"
#include "charts/step_time_chart.h"
#include "charts/strategy_chart.h"
#include "document/scenario_document.h"
#include "editors/scenario_editor.h"
#include "editors/value_slider.h"
#include "launch/launch_config_panel.h"
#include "main_window.h"
#include "settings/app_settings.h"
#include "views/issues_panel.h"
#include "views/kpi_panel.h"
#include "views/status_line.h"

#include <shardscope/core/scenario_json.h>

#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace shardscope;

namespace {
/// What the charts show, to compare before and after.
struct ChartState {
    double memory = 0;
    int commRows = 0;
    double commBytes0 = 0;
    double stepCompute = 0;
    QString kpiStep;
    bool operator==(const ChartState&) const = default;
};

ChartState capture(const ui::MainWindow& w)
{
    ChartState c;
    c.memory = w.memoryChart()->barTotal(0);
    c.commRows = w.commChart()->rowCount();
    auto* bytes = w.commChart()->bytesBars();
    c.commBytes0 = bytes->data()->isEmpty() ? 0 : bytes->data()->at(0)->value;
    c.stepCompute = w.stepTimeChart()->value(0, 0);
    c.kpiStep = w.kpis()->valueText(QStringLiteral("kpi.step_time"));
    return c;
}
} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void opensOnDefaultScenario();
    void closesWithAnEvaluationInFlight();
    void kpiCardsNeverCutText();
    void kpiCardsFillTheirRowsBesideTheLaunchDock();
    void controlChangesResultAndCharts();
    void undoRestoresScenarioAndCharts();
    void saveOpenRoundTrip();
    void promptBeforeLosingChanges();
    void invalidCombinationShowsIssue();
    void opensLargeMoeScenario();
    void darkThemeRecoloursCharts();
    void everyExampleOpens();

private:
    QTemporaryDir m_dir;
    ui::AppSettings* m_settings = nullptr;
    ui::MainWindow* m_window = nullptr;
};

void TestMainWindow::init()
{
    m_settings = new ui::AppSettings(m_dir.filePath(QStringLiteral("settings.ini")), nullptr);
    m_window = new ui::MainWindow(test::catalog(), m_settings);
    m_window->resize(1400, 900);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
}

void TestMainWindow::cleanup()
{
    m_window->document()->undoStack()->setClean(); // no prompt on close
    delete m_window;
    delete m_settings;
}

void TestMainWindow::closesWithAnEvaluationInFlight()
{
    // A slider dragged over 16 pipeline stages (Llama 3.1 405B), then the window closed before the last result came:
    // the edits return at once (the evaluation runs in the background), the window closes and is destroyed with
    // the job in flight without a crash (tests/ui/gui_leaks.sh runs this under valgrind for leaks).
    ui::ScenarioDocument* doc = m_window->document();
    doc->reset(
        test::loadScenario(QStringLiteral("resources/scenarios/3d-llama3.1-405b-h100.shardscope.json")), QString());
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->result().pp, 16);
    const int nodes = doc->scenario().cluster.nodes;
    doc->beginInteraction();
    for (int k = 1; k <= 8; ++k)
        doc->edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
            [nodes, k](core::Scenario& s) { s.cluster.nodes = nodes + k; });
    doc->endInteraction();
    QVERIFY(doc->isEvaluating());
    doc->undoStack()->setClean(); // no prompt on close
    QVERIFY(m_window->close());
    delete m_window;
    m_window = new ui::MainWindow(test::catalog(), m_settings); // for cleanup()
}

void TestMainWindow::opensOnDefaultScenario()
{
    QCOMPARE(m_window->document()->scenario(), core::defaultScenario(test::catalog()));
    QCOMPARE(m_window->windowTitle(), QStringLiteral("Untitled[*]")); // the platform adds " — ShardScope"
    QVERIFY(!m_window->isWindowModified());
    QCOMPARE(m_window->memoryChart()->barCount(), 1);
    QVERIFY(m_window->memoryChart()->barTotal(0) > 0);
    QVERIFY(m_window->commChart()->rowCount() > 0);
    QVERIFY(m_window->strategyChart()->barCount() >= 4);
    QVERIFY(!m_window->kpis()->valueText(QStringLiteral("kpi.step_time")).isEmpty());
    QVERIFY(!m_window->statusLine()->text().isEmpty());
    QCOMPARE(m_window->issues()->issueCount(), 0);
}

void TestMainWindow::controlChangesResultAndCharts()
{
    const ChartState before = capture(*m_window);
    auto* nodes = qobject_cast<ui::ValueSlider*>(m_window->editor()->widgetForField(QStringLiteral("cluster.nodes")));
    QVERIFY(nodes);
    nodes->spinBox()->setValue(m_window->document()->scenario().cluster.nodes * 2);
    QVERIFY(test::settle(*m_window->document()));
    const core::Result& r = m_window->document()->result();
    QCOMPARE(r.gpus, m_window->document()->scenario().cluster.gpus());
    const ChartState after = capture(*m_window);
    QVERIFY(after.memory != before.memory); // ZeRO-3 shards over more GPUs
    QCOMPARE(after.memory, r.memory.total());
    QVERIFY(after.stepCompute != before.stepCompute); // half the tokens per GPU
    QVERIFY(after.kpiStep != before.kpiStep);
    QVERIFY(m_window->isWindowModified());
}

void TestMainWindow::undoRestoresScenarioAndCharts()
{
    const core::Scenario original = m_window->document()->scenario();
    const ChartState before = capture(*m_window);
    auto* tp = qobject_cast<ui::ValueSlider*>(m_window->editor()->widgetForField(QStringLiteral("parallelism.tp")));
    QTest::keyClick(tp->slider(), Qt::Key_Right);
    QTest::keyClick(tp->slider(), Qt::Key_Right);
    QVERIFY(test::settle(*m_window->document()));
    QVERIFY(!(capture(*m_window) == before));
    // Through the Edit menu's shortcut.
    QTest::keySequence(m_window, QKeySequence::Undo);
    QTest::keySequence(m_window, QKeySequence::Undo);
    QCOMPARE(m_window->document()->scenario(), original);
    QVERIFY(test::settle(*m_window->document()));
    QVERIFY(capture(*m_window) == before);
    QCOMPARE(tp->value(), original.parallelism.tp);
    QVERIFY(!m_window->isWindowModified());
}

void TestMainWindow::saveOpenRoundTrip()
{
    ui::FileController* files = m_window->files();
    m_window->document()->edit(QStringLiteral("edit"), QStringLiteral("x"), [](core::Scenario& s) {
        s.name = "saved";
        s.parallelism.tp = 2;
        s.cluster.nodes = 2;
    });
    const core::Scenario saved = m_window->document()->scenario();
    const QString path = m_dir.filePath(QStringLiteral("saved.shardscope.json"));
    QString error;
    QVERIFY2(files->saveTo(path, &error), qPrintable(error));
    QCOMPARE(m_window->windowTitle(), QStringLiteral("saved.shardscope.json[*]"));
    QVERIFY(!m_window->isWindowModified());
    QCOMPARE(m_settings->recentFiles().value(0), QFileInfo(path).absoluteFilePath());

    files->setPromptHandler([] { return QMessageBox::Discard; });
    files->newScenario();
    QCOMPARE(m_window->document()->scenario(), core::defaultScenario(test::catalog()));
    QVERIFY(files->openFile(path, &error));
    QCOMPARE(m_window->document()->scenario(), saved);
    QCOMPARE(m_window->document()->filePath(), QFileInfo(path).absoluteFilePath());
    QCOMPARE(m_settings->lastScenario(), QFileInfo(path).absoluteFilePath());
    // Save with Ctrl+S writes to the same file.
    m_window->document()->edit(
        QStringLiteral("edit"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 3; });
    QVERIFY(m_window->isWindowModified());
    QTest::keySequence(m_window, QKeySequence::Save);
    QVERIFY(!m_window->isWindowModified());
    QVERIFY(files->openFile(path, &error));
    QCOMPARE(m_window->document()->scenario().cluster.nodes, 3);
    QVERIFY(!files->openFile(m_dir.filePath(QStringLiteral("nope.json")), &error));
    QVERIFY(!error.isEmpty());
}

void TestMainWindow::promptBeforeLosingChanges()
{
    ui::FileController* files = m_window->files();
    int asked = 0;
    files->setPromptHandler([&asked] {
        ++asked;
        return QMessageBox::Cancel;
    });
    files->newScenario(); // unmodified: no prompt
    QCOMPARE(asked, 0);
    m_window->document()->edit(
        QStringLiteral("edit"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 7; });
    files->newScenario();
    QCOMPARE(asked, 1);
    QCOMPARE(m_window->document()->scenario().cluster.nodes, 7); // cancelled: nothing lost
    QVERIFY(!m_window->close()); // closing asks too, and is refused
    QCOMPARE(asked, 2);
    // Save from the prompt goes through the file dialog (replaced here).
    const QString path = m_dir.filePath(QStringLiteral("prompted.shardscope.json"));
    files->setPromptHandler([] { return QMessageBox::Save; });
    files->setFileDialogHandler([path](bool) { return path; });
    files->newScenario();
    QVERIFY(QFileInfo::exists(path));
    QCOMPARE(m_window->document()->scenario(), core::defaultScenario(test::catalog()));
}

void TestMainWindow::invalidCombinationShowsIssue()
{
    // Six attention heads per TP rank cannot be split: tp 6 does not divide 64 heads (DESIGN.md example).
    m_window->document()->edit(
        QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 6; });
    QVERIFY(test::settle(*m_window->document()));
    QVERIFY(!m_window->document()->result().valid);
    QVERIFY(m_window->issues()->issueCount() >= 1);
    QListWidgetItem* item = m_window->issues()->item(0);
    QVERIFY2(item->text().contains(QStringLiteral("Tensor parallel")), qPrintable(item->text()));
    QVERIFY(m_window->statusLine()->text().startsWith(QStringLiteral("Invalid")));
    // The charts and KPIs keep the last valid figures, greyed (issue 13; tst_desktop has the details).
    QVERIFY(m_window->showsLastValidFigures());
    QVERIFY(m_window->memoryChart()->message().isEmpty());
    QVERIFY(m_window->kpis()->valueText(QStringLiteral("kpi.step_time")) != QStringLiteral("—"));
    m_window->replotAllNow(); // draws without crashing
    // A unit change draws the last valid figures again in the new unit, though they are not new figures.
    m_settings->setByteUnit(ui::ByteUnit::GB);
    QVERIFY(m_window->memoryChart()->plot()->yAxis->label().contains(QStringLiteral("(GB)")));
    m_settings->setByteUnit(ui::ByteUnit::GiB);
    QVERIFY(m_window->memoryChart()->plot()->yAxis->label().contains(QStringLiteral("(GiB)")));
    // Activating the issue focuses the TP control.
    emit m_window->issues()->itemActivated(item);
    QWidget* tp = m_window->editor()->widgetForField(QStringLiteral("parallelism.tp"));
    QVERIFY(tp->hasFocus() || tp->isAncestorOf(QApplication::focusWidget()));
    // Undo clears it.
    m_window->document()->undoStack()->undo();
    QVERIFY(test::settle(*m_window->document()));
    QCOMPARE(m_window->issues()->issueCount(), 0);
    QVERIFY(m_window->memoryChart()->message().isEmpty());
}

void TestMainWindow::opensLargeMoeScenario()
{
    const QString path = test::sourcePath(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json"));
    QVERIFY(m_window->files()->openFile(path));
    const core::Result& r = m_window->document()->result();
    QVERIFY(r.valid);
    QCOMPARE(m_window->memoryChart()->barCount(), r.pp);
    QCOMPARE(m_window->commChart()->rowCount(), int(r.collectives.size()));
    QWidget* ep = m_window->editor()->widgetForField(QStringLiteral("parallelism.ep"));
    QVERIFY(ep->isVisible());
    m_window->replotAllNow();
}

void TestMainWindow::darkThemeRecoloursCharts()
{
    ui::AppTheme::apply(ui::ThemeMode::Dark);
    QCoreApplication::processEvents();
    QCustomPlot* plot = m_window->memoryChart()->plot();
    const auto backgroundLightness = [plot] {
        plot->replot(QCustomPlot::rpImmediateRefresh);
        return QColor(plot->grab().toImage().pixel(2, 2)).lightnessF();
    };
    QVERIFY(backgroundLightness() < 0.5);
    QVERIFY(plot->xAxis->tickLabelColor().lightnessF() > 0.5);
    ui::AppTheme::apply(ui::ThemeMode::Light);
    QCoreApplication::processEvents();
    QVERIFY(backgroundLightness() > 0.5);
    QVERIFY(plot->xAxis->tickLabelColor().lightnessF() < 0.5);
}

void TestMainWindow::everyExampleOpens()
{
    // The examples compiled into the app (File > Examples) all parse, evaluate and draw.
    const QStringList examples = ui::exampleScenarioPaths();
    QVERIFY(examples.size() >= 5);
    for (const QString& path : examples) {
        QString error;
        QVERIFY2(m_window->files()->openFile(path, &error), qPrintable(path + QStringLiteral(": ") + error));
        QVERIFY2(m_window->document()->result().valid, qPrintable(path));
        m_window->replotAllNow();
        QCOMPARE(m_window->memoryChart()->barCount(),
            m_window->document()->result().pp > 1 ? m_window->document()->result().pp : 1);
    }
}

void TestMainWindow::kpiCardsNeverCutText()
{
    // Issue 13 item 8: at 1280-pixel windows the cards wrap into rows of three instead of eliding "93.6 GiB free of
    // 180 GiB"; wide they stay one row; either way every caption, value and detail fits its card.
    ui::ScenarioDocument doc(test::catalog());
    ui::KpiPanel kpi;
    kpi.setResult(doc.scenario(), doc.result());
    for (int width : { 1800, 900, 600 }) { // the panel is at least 600 wide in a window of 1280
        kpi.resize(width, kpi.heightForWidth(width));
        QVERIFY2(kpi.textFits(), qPrintable(QStringLiteral("width %1").arg(width)));
    }
    QCOMPARE(kpi.columnsFor(1800), 6);
    QVERIFY(kpi.columnsFor(600) < 6);
    QVERIFY(kpi.heightForWidth(600) > kpi.heightForWidth(1800)); // two rows are taller than one
}

void TestMainWindow::kpiCardsFillTheirRowsBesideTheLaunchDock()
{
    // Issue 23's walkthrough: at 1280 x 800 with the launch configuration open (View → Launch Configuration, its
    // shortcut here) the cards took two columns, but the panel kept the height of two rows of three: "Min GPUs" and
    // "Cost per step" were cut off and the two rows shown sat in the middle of blank space. At 1280 x 800 and
    // 1920 x 1080, with and without the dock: the panel is as tall as its rows at its width, every card and its text
    // is inside it, and it starts at the top of its column (no blank band above the cards).
    for (const QSize size : { QSize(1280, 800), QSize(1920, 1080) }) {
        ui::AppSettings settings(m_dir.filePath(QStringLiteral("kpi-%1.ini").arg(size.width())), nullptr);
        ui::MainWindow window(test::catalog(), &settings);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        for (const bool dock : { false, true }) {
            if (dock)
                QTest::keyClick(&window, Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
            for (int depth = 0; depth < 8; ++depth) // a changed size hint travels up one parent per layout request
                QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QCOMPARE(window.launchDock()->isVisible(), dock);
            ui::KpiPanel* kpi = window.kpis();
            const int columns = kpi->columnsFor(kpi->width());
            qInfo("%d x %d, dock %s: panel %d x %d at y %d, %d columns", size.width(), size.height(),
                dock ? "open" : "closed", kpi->width(), kpi->height(), kpi->y(), columns);
            const QString at = QStringLiteral("%1 px, dock %2").arg(size.width()).arg(dock);
            QCOMPARE(6 % columns, 0); // full rows: 6, 3 or 2 cards each
            QVERIFY2(kpi->height() == kpi->heightForWidth(kpi->width()), qPrintable(at));
            QVERIFY2(kpi->textFits(), qPrintable(at));
            QVERIFY2(kpi->y() <= 4, qPrintable(at)); // the column's top margin
        }
        window.document()->undoStack()->setClean();
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
