// SPDX-License-Identifier: GPL-3.0-or-later
// Compare and launch configurations (issue 5, items 2 and 4): pins save and load with the file (and the core still
// reads the file), pinning is an undo step that marks the file modified, any number of pins is kept (issue 12: a
// file's fifth pin was dropped) and the compare view scrolls through them, New clears them; the
// compare view shows a memory chart per pin on one scale, the differing settings and the headline figures, and the
// waterfall whose steps sum to the total difference; the launch panel shows core::launchConfig live.
#include "settle.h"
#include "test_support.h"

#include "session/file_controller.h"
#include "charts/axis_ticks.h"
#include "charts/capacity_marks.h"
#include "charts/memory_chart.h"
#include "charts/qcp.h"
#include "compare/compare_controller.h"
#include "compare/compare_time_chart.h"
#include "compare/compare_view.h"
#include "analysis/waterfall_chart.h"
#include "document/scenario_document.h"
#include "document/scenario_pins.h"
#include "launch/launch_config_panel.h"
#include "main_window.h"
#include "charts/legend_strip.h"
#include "views/chart_grid.h"
#include "session/app_theme.h"
#include "settings/app_settings.h"
#include "util/screen_fit.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>
#include <shardscope/core/waterfall.h>

#include <QClipboard>
#include <QComboBox>
#include <QPlainTextEdit>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

using namespace shardscope;

namespace {
QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void pinCurrent(ui::ScenarioDocument* doc)
{
    doc->pin(doc->scenario());
    QVERIFY(test::settle(*doc));
}

/// Lays out what is pending and draws every chart in window now (their replots are otherwise queued), so that a
/// grab shows the finished picture without waiting for time to pass.
void settle(QWidget* window)
{
    // A minimum size that changed travels up one parent per posted layout request (plot, chart, splitter, window).
    for (int depth = 0; depth < 8; ++depth)
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    QCoreApplication::sendPostedEvents();
    for (QCustomPlot* plot : window->findChildren<QCustomPlot*>())
        plot->replot(QCustomPlot::rpImmediateRefresh);
}

void setTp(ui::ScenarioDocument* doc, int tp)
{
    doc->edit(
        QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [tp](core::Scenario& s) { s.parallelism.tp = tp; });
    QVERIFY(test::settle(*doc));
}
} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void pinsSaveLoadRoundTrip();
    void pinningIsUndoableAndMarksModified();
    void manyPinsAreKept();
    void newScenarioClearsPins();
    void brokenPinIsSkippedWithWarning();
    void pinsAreCappedAtTheFileLimit();
    void compareViewShowsPinsOnOneScale();
    void differencesListOnlyDifferingSettings();
    void waterfallStepsSumToTotal();
    void openPinIsOneUndoStep();
    void launchPanelFollowsTheDocument();
    void launchPanelOpensOnATargetThatAcceptsTheLayout();
    void launchDockLeavesTheChartsTheMainArea();
    void compareWindowFitsTheScreen();
    void pinningWhileOpenLaysOutAsOpenedWithPins();
    void waterfallShowsEveryStepAtTheDefaultSize();
    void pinnedExcessLabelsStayInsideThePlot();
    void compareChartsKeepLegendsClearOfTheirPlots();
    void memoryChartsShareSpareHeight();
    void screenshots();

private:
    QTemporaryDir m_dir;
    ui::AppSettings* m_settings = nullptr;
    ui::MainWindow* m_window = nullptr;
};

void TestCompare::init()
{
    m_settings = new ui::AppSettings(m_dir.filePath(QStringLiteral("settings.ini")), nullptr);
    m_window = new ui::MainWindow(test::catalog(), m_settings);
}

void TestCompare::cleanup()
{
    m_window->document()->undoStack()->setClean();
    delete m_window;
    delete m_settings;
}

void TestCompare::pinsSaveLoadRoundTrip()
{
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    setTp(doc, 8);
    pinCurrent(doc);
    QCOMPARE(int(doc->pins().size()), 2);
    const std::vector<core::Scenario> pinned = doc->pins();
    const QString path = m_dir.filePath(QStringLiteral("pins.shardscope.json"));
    QString error;
    QVERIFY2(m_window->files()->saveTo(path, &error), qPrintable(error));

    // The file: the scenario's fields, then "pins" with two full scenarios.
    const QByteArray bytes = readAll(path);
    const QJsonObject root = QJsonDocument::fromJson(bytes).object();
    QCOMPARE(root.value(QStringLiteral("schema")).toString(), QStringLiteral("shardscope.scenario/1"));
    const QJsonArray array = root.value(QStringLiteral("pins")).toArray();
    QCOMPARE(array.size(), 2);
    QCOMPARE(
        array[1].toObject().value(QStringLiteral("parallelism")).toObject().value(QStringLiteral("tp")).toInt(), 8);
    // The core (and so shardscope-cli) still reads the file, without warnings.
    const core::ScenarioParse parsed = core::parseScenario(bytes.toStdString(), test::catalog());
    QVERIFY(parsed.ok());
    QVERIFY(parsed.warnings.empty());
    QCOMPARE(parsed.scenario, doc->scenario());

    // Another window opens it with the same pins.
    ui::MainWindow other(test::catalog(), m_settings);
    other.files()->setSecondInstanceHandler([](const QString&, qint64) { return true; }); // m_window has it open too
    QVERIFY(other.files()->openFile(path, &error));
    QCOMPARE(other.document()->pins(), pinned);
    QVERIFY(!other.document()->isModified());
    // Saving again writes the same bytes.
    const QString again = m_dir.filePath(QStringLiteral("again.shardscope.json"));
    QVERIFY(other.files()->saveTo(again, &error));
    QCOMPARE(readAll(again), bytes);
}

void TestCompare::pinningIsUndoableAndMarksModified()
{
    // The view's buttons and the Compare menu change the document's pins; the view shows what the document holds.
    ui::ScenarioDocument* doc = m_window->document();
    ui::CompareView* view = m_window->compare()->view();
    auto* pinButton = view->findChild<QPushButton*>(QString(), Qt::FindDirectChildrenOnly);
    QVERIFY(pinButton);
    QCOMPARE(pinButton->text(), QStringLiteral("&Pin Current Scenario"));
    QVERIFY(!doc->isModified());
    QSignalSpy changed(doc, &ui::ScenarioDocument::pinsChanged);
    pinButton->click();
    QCOMPARE(doc->pins().size(), size_t(1)); // at once; the view follows with the pin's result
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().front().name, doc->scenario().name);
    QVERIFY(doc->isModified());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view->memoryCharts().size(), 1);
    setTp(doc, 4);
    pinButton->click();
    QVERIFY(test::settle(*doc));
    QCOMPARE(view->memoryCharts().size(), 2);
    QCOMPARE(view->differences()->columnCount(), 2);
    // Undo goes back through pins and edits in the order they were made.
    doc->undoStack()->undo(); // the second pin
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(1));
    QCOMPARE(doc->scenario().parallelism.tp, 4);
    QCOMPARE(view->memoryCharts().size(), 1);
    doc->undoStack()->undo(); // tp
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->scenario().parallelism.tp, 1);
    QCOMPARE(doc->pins().size(), size_t(1));
    doc->undoStack()->undo(); // the first pin
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(0));
    QCOMPARE(view->memoryCharts().size(), 0);
    QVERIFY(!doc->isModified());
    doc->undoStack()->redo();
    QVERIFY(test::settle(*doc));
    doc->undoStack()->redo();
    QVERIFY(test::settle(*doc));
    doc->undoStack()->redo();
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(2));
    QCOMPARE(doc->pins()[1].parallelism.tp, 4);
    QCOMPARE(view->memoryCharts().size(), 2);
    // Unpin from the column's ✕; Clear from the menu; each one undo step.
    QToolButton* unpinA = nullptr;
    for (QToolButton* b : view->findChildren<QToolButton*>())
        if (b->toolTip() == QStringLiteral("Unpin") && !unpinA)
            unpinA = b;
    QVERIFY(unpinA);
    const QString labelA = doc->pinLabel(0);
    unpinA->click();
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(1));
    QCOMPARE(doc->pins().front().parallelism.tp, 4);
    QCOMPARE(doc->undoStack()->undoText(), QStringLiteral("Unpin “%1”").arg(labelA));
    QAction* clear = nullptr;
    for (QAction* a : m_window->findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Clear Pins"))
            clear = a;
    QVERIFY(clear);
    QVERIFY(clear->isEnabled());
    clear->trigger();
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(0));
    QVERIFY(!clear->isEnabled());
    QCOMPARE(changed.count(), 8); // two pins, their two undos and two redos, unpin, clear: edits send none
    QCOMPARE(
        changed.last().at(0).value<std::vector<core::Scenario>>().size(), size_t(0)); // the signal carries the list
    doc->undoStack()->undo();
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(1));
    QVERIFY(clear->isEnabled());
    doc->undoStack()->undo();
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->pins().size(), size_t(2));
}

void TestCompare::manyPinsAreKept()
{
    ui::ScenarioDocument* doc = m_window->document();
    for (int i = 1; i <= 6; ++i) {
        doc->edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [i](core::Scenario& s) {
            s.cluster.nodes = 2 * i;
            s.name = "pin " + std::to_string(i);
        });
        pinCurrent(doc);
    }
    QCOMPARE(int(doc->pins().size()), 6);
    const std::vector<core::Scenario> pinned = doc->pins();
    QString error;
    const QString path = m_dir.filePath(QStringLiteral("six-pins.shardscope.json"));
    QVERIFY2(m_window->files()->saveTo(path, &error), qPrintable(error));
    QCOMPARE(QJsonDocument::fromJson(readAll(path)).object().value(QStringLiteral("pins")).toArray().size(), 6);

    // Opened again: all six, in order, and the compare view shows every one.
    ui::MainWindow other(test::catalog(), m_settings);
    other.files()->setSecondInstanceHandler([](const QString&, qint64) { return true; }); // m_window has it open too
    QVERIFY2(other.files()->openFile(path, &error), qPrintable(error));
    QVERIFY(test::settle(*other.document()));
    QCOMPARE(other.document()->pins(), pinned);
    ui::CompareView* view = other.compare()->view();
    QCOMPARE(view->memoryCharts().size(), 6);
    QCOMPARE(view->differences()->columnCount(), 6);
    QCOMPARE(view->differences()->horizontalHeaderItem(5)->text(), QStringLiteral("F: pin 6"));
    for (int i = 0; i < 6; ++i) {
        QCOMPARE(view->memoryCharts()[i]->barTotal(0), other.document()->pinResults()[size_t(i)].memory.total());
        QCOMPARE(view->timeChart()->total(i), other.document()->pinResults()[size_t(i)].step.total());
    }
    // In a window that holds four readable columns, the six scroll sideways instead of being squeezed.
    QWidget* window = other.compare()->window();
    window->resize(1400, 900);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    for (ui::MemoryChart* chart :
        view->memoryCharts()) // their legend is shared, beside the columns: the plot has the width
        QVERIFY2(chart->plot()->width() >= 250, qPrintable(QString::number(chart->plot()->width())));
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(window->grab().save(dir + QStringLiteral("/compare-six-pins.png")));
    window->hide();
    // Letters go on after Z as spreadsheet columns do.
    QCOMPARE(ui::CompareView::letter(0), QStringLiteral("A"));
    QCOMPARE(ui::CompareView::letter(25), QStringLiteral("Z"));
    QCOMPARE(ui::CompareView::letter(26), QStringLiteral("AA"));
    QCOMPARE(ui::CompareView::letter(27), QStringLiteral("AB"));
    QCOMPARE(ui::CompareView::letter(26 + 26 * 26), QStringLiteral("AAA"));
}

void TestCompare::newScenarioClearsPins()
{
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    m_window->document()->undoStack()->setClean();
    m_window->files()->newScenario();
    QCOMPARE(int(doc->pins().size()), 0);
}

void TestCompare::brokenPinIsSkippedWithWarning()
{
    const core::Scenario s = core::defaultScenario(test::catalog());
    std::string json = ui::appendPins(core::scenarioToJson(s, test::catalog()), { s, s }, test::catalog());
    // Break the second pin's GPU id.
    const size_t second = json.find("\"h100-sxm5-80gb\"", json.find("\"pins\"") + 200);
    QVERIFY(second != std::string::npos);
    json.replace(second, 16, "\"no-such-gpu-xx\"");
    QStringList warnings;
    const std::vector<core::Scenario> read = ui::readPins(QByteArray::fromStdString(json), test::catalog(), &warnings);
    QCOMPARE(read.size(), size_t(1));
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings.front().startsWith(QStringLiteral("pins[1]")), qPrintable(warnings.front()));
    // No pins: the text is unchanged.
    QCOMPARE(ui::appendPins("{\n  \"a\": 1\n}", {}, test::catalog()), std::string("{\n  \"a\": 1\n}"));
}

void TestCompare::pinsAreCappedAtTheFileLimit()
{
    // Issue 23 item 3 (320,000 empty pins took the window to 1 GB): a file's first core::kMaxPins = 64 pins are read,
    // with one warning naming the field and the rule (core's, so the CLI says the same); the 65th pin is refused.
    core::Scenario s = core::defaultScenario(test::catalog());
    s.name = "pinned";
    const std::vector<core::Scenario> seventy(70, s);
    const QString path = m_dir.filePath(QStringLiteral("seventy-pins.shardscope.json"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(
            ui::appendPins(core::scenarioToJson(s, test::catalog()), seventy, test::catalog())));
    }
    const ui::ScenarioLoad load = ui::readScenarioFile(path, test::catalog());
    QVERIFY(load.ok());
    QCOMPARE(load.pins.size(), size_t(64));
    QCOMPARE(load.warnings,
        QStringList { QStringLiteral(
            "pins: holds 70 scenarios; at most 64 are read: the first 64 are kept, the other 6 ignored") });

    ui::ScenarioDocument doc(test::catalog());
    for (int i = 0; i < 64; ++i)
        QVERIFY(doc.pin(s));
    QVERIFY(test::settle(doc));
    const int undoSteps = doc.undoStack()->count();
    QVERIFY(!doc.pin(s));
    QCOMPARE(int(doc.pins().size()), 64);
    QCOMPARE(doc.undoStack()->count(), undoSteps);
}

void TestCompare::compareViewShowsPinsOnOneScale()
{
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    doc->edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 8; });
    QVERIFY(test::settle(*doc));
    pinCurrent(doc);
    doc->edit(QStringLiteral("recompute"), QStringLiteral("training.recompute"),
        [](core::Scenario& s) { s.training.recompute = core::Recompute::Full; });
    pinCurrent(doc);
    ui::CompareView* view = m_window->compare()->view();
    QCOMPARE(view->memoryCharts().size(), 3);
    const double upper = view->memoryCharts().front()->plot()->yAxis->range().upper;
    for (ui::MemoryChart* chart : view->memoryCharts())
        QCOMPARE(chart->plot()->yAxis->range().upper, upper);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(view->memoryCharts()[i]->barTotal(0), doc->pinResults()[size_t(i)].memory.total());
        QCOMPARE(view->timeChart()->total(i), doc->pinResults()[size_t(i)].step.total());
    }
    m_window->compare()->showComparison();
    QVERIFY(m_window->compare()->window()->isVisible());
    m_window->compare()->window()->hide();
}

void TestCompare::differencesListOnlyDifferingSettings()
{
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    setTp(doc, 4);
    pinCurrent(doc);
    QTableWidget* table = m_window->compare()->view()->differences();
    QCOMPARE(table->columnCount(), 2);
    QStringList rows;
    for (int r = 0; r < table->rowCount(); ++r)
        rows << table->verticalHeaderItem(r)->text();
    QVERIFY(rows.contains(QStringLiteral("Tensor parallel (TP)")));
    QVERIFY(!rows.contains(QStringLiteral("Pipeline parallel (PP)")));
    QVERIFY(!rows.contains(QStringLiteral("GPU")));
    QVERIFY(rows.contains(QStringLiteral("Step time")));
    const int tpRow = int(rows.indexOf(QStringLiteral("Tensor parallel (TP)")));
    QCOMPARE(table->item(tpRow, 0)->text(), QStringLiteral("1"));
    QCOMPARE(table->item(tpRow, 1)->text(), QStringLiteral("4"));
    // The second column's figures name their change from A.
    const int memRow = int(rows.indexOf(QStringLiteral("Memory per GPU")));
    QVERIFY(table->item(memRow, 1)->text().contains(QLatin1Char('%')));
}

void TestCompare::waterfallStepsSumToTotal()
{
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    doc->edit(QStringLiteral("b"), QString(), [](core::Scenario& s) {
        s.cluster.nodes = 8;
        s.parallelism.tp = 8;
        s.parallelism.sharding = core::Sharding::Zero1;
        s.training.recompute = core::Recompute::Full;
        s.nccl.algo = core::NcclAlgo::Ring;
    });
    pinCurrent(doc);
    ui::CompareView* view = m_window->compare()->view();
    view->setWaterfallPins(0, 1);
    const core::Waterfall w = core::buildWaterfall(doc->pins()[0], doc->pins()[1]);
    QVERIFY(w.ok);
    double memory = 0;
    double time = 0;
    for (const core::WaterfallStep& s : w.steps) {
        memory += s.memoryDelta;
        time += s.stepTimeDelta;
    }
    QVERIFY(qAbs(w.memoryA + memory - w.memoryB) <= 1e-6 * w.memoryB);
    QVERIFY(qAbs(w.stepTimeA + time - w.stepTimeB) <= 1e-9 * w.stepTimeB);
    QCOMPARE(view->waterfallChart()->rowCount(), int(w.steps.size()) + 2);
    QCOMPARE(view->waterfallTable()->rowCount(), int(w.steps.size()) + 1); // + the total row
    QVERIFY(view->waterfallTable()->item(0, 0)->text().contains(QStringLiteral("→")));
    QVERIFY(view->waterfallChart()->message().isEmpty());
    // Same pin twice: nothing to walk.
    view->setWaterfallPins(1, 1);
    QVERIFY(!view->waterfallChart()->message().isEmpty());
}

void TestCompare::openPinIsOneUndoStep()
{
    ui::ScenarioDocument* doc = m_window->document();
    setTp(doc, 2);
    pinCurrent(doc);
    setTp(doc, 4);
    const core::Scenario before = doc->scenario();
    m_window->compare()->openPin(0);
    QCOMPARE(doc->scenario().parallelism.tp, 2);
    doc->undoStack()->undo();
    QVERIFY(test::settle(*doc));
    QCOMPARE(doc->scenario(), before);
}

void TestCompare::launchPanelFollowsTheDocument()
{
    ui::ScenarioDocument* doc = m_window->document();
    ui::LaunchConfigPanel* panel = m_window->launchDock()->panel();
    for (core::LaunchTarget t : { core::LaunchTarget::DeepSpeed, core::LaunchTarget::Fsdp, core::LaunchTarget::Megatron,
             core::LaunchTarget::NcclEnv }) {
        panel->setTarget(t);
        QCOMPARE(panel->text(), QString::fromStdString(core::launchConfig(doc->scenario(), t)));
    }
    panel->setTarget(core::LaunchTarget::Megatron);
    setTp(doc, 8);
    QVERIFY(panel->text().contains(QStringLiteral("--tensor-model-parallel-size 8")));
    panel->copy();
    QCOMPARE(QGuiApplication::clipboard()->text(), panel->text());
    const QString path = m_dir.filePath(QStringLiteral("megatron.sh"));
    QVERIFY(panel->saveTo(path).isEmpty());
    QCOMPARE(QString::fromUtf8(readAll(path)), panel->text());
    setTp(doc, 6); // invalid: tp does not divide the heads
    QVERIFY(panel->text().isEmpty());
    QVERIFY(m_window->launchDock()->toggleViewAction());
    // The dock is closed: edits lay out no text there, and opening it shows the current configuration.
    QVERIFY(!panel->isVisible());
    setTp(doc, 4);
    auto* editor = panel->findChild<QPlainTextEdit*>();
    QVERIFY(!editor->toPlainText().contains(QStringLiteral("--tensor-model-parallel-size 4")));
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    m_window->launchDock()->show();
    QCOMPARE(editor->toPlainText(), panel->text());
    QVERIFY(panel->text().contains(QStringLiteral("--tensor-model-parallel-size 4")));
    m_window->launchDock()->hide();
    m_window->hide();
}

void TestCompare::launchPanelOpensOnATargetThatAcceptsTheLayout()
{
    // Issue 23 item 8: a DeepSpeed scenario with TP 2 x CP 2, which DeepSpeed's data x sequence mesh cannot express
    // (deepspeed/__init__.py): the panel opens on a target that writes it (Megatron-LM), not on the refusal; a target
    // the user picks stays, refusal and all.
    ui::ScenarioDocument doc(test::catalog());
    doc.edit(QStringLiteral("cp"), QString(), [](core::Scenario& s) {
        s.training.framework = core::Framework::DeepSpeed;
        s.parallelism.tp = 2;
        s.parallelism.cp = 2;
        s.parallelism.cpCommType = core::CpCommType::A2a; // DeepSpeed-Ulysses, DeepSpeed's only CP
    });
    QVERIFY(test::settle(doc));
    QVERIFY(doc.result().valid);
    QVERIFY(!core::launchConfigIssues(doc.scenario(), core::LaunchTarget::DeepSpeed).empty());
    ui::LaunchConfigPanel panel(&doc, nullptr);
    QCOMPARE(panel.target(), core::LaunchTarget::Megatron);
    QCOMPARE(panel.text(), QString::fromStdString(core::launchConfig(doc.scenario(), core::LaunchTarget::Megatron)));
    // CP 1: DeepSpeed, the scenario's own framework, expresses it.
    doc.edit(QStringLiteral("cp"), QString(), [](core::Scenario& s) { s.parallelism.cp = 1; });
    QVERIFY(test::settle(doc));
    QCOMPARE(panel.target(), core::LaunchTarget::DeepSpeed);
    // Picked with the keyboard: the choice stays when the layout changes.
    auto* combo = panel.findChild<QComboBox*>();
    panel.show();
    QVERIFY(QTest::qWaitForWindowActive(&panel));
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down); // FSDP2
    QCOMPARE(panel.target(), core::LaunchTarget::Fsdp);
    doc.edit(QStringLiteral("cp"), QString(), [](core::Scenario& s) { s.parallelism.cp = 2; });
    QVERIFY(test::settle(doc));
    QCOMPARE(panel.target(), core::LaunchTarget::Fsdp);
}

void TestCompare::launchDockLeavesTheChartsTheMainArea()
{
    // Issue 23 item 8: the launch panel took half the window at 1280 x 800 (88 monospace columns). Opened from the
    // View menu it takes at most 30% of the window's width now, at 1280 x 800 and 1920 x 1080; the central area keeps
    // the rest, and the panel's own controls still fit it.
    for (const QSize size : { QSize(1280, 800), QSize(1920, 1080) }) {
        ui::AppSettings settings(
            m_dir.filePath(QStringLiteral("launch-%1.ini").arg(size.width())), nullptr); // no saved layout
        ui::MainWindow window(test::catalog(), &settings);
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.launchDock()->toggleViewAction()->trigger();
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        const int dock = window.launchDock()->width();
        const int central = window.centralWidget()->width();
        qInfo("%dx%d: launch dock %d px, central area %d px", size.width(), size.height(), dock, central);
        QVERIFY2(dock <= size.width() * 30 / 100 + 12, qPrintable(QString::number(dock)));
        QVERIFY2(central >= size.width() * 65 / 100, qPrintable(QString::number(central)));
        for (QPushButton* b : window.launchDock()->findChildren<QPushButton*>())
            QVERIFY2(b->width() >= b->sizeHint().width(), qPrintable(b->text()));
        // Issue 23: the explorer's charts scrolled sideways beside the panel at 1280 x 800. They stack in one column
        // when two do not fit side by side, and the page scrolls down only; without the panel they are side by side.
        auto* grid = window.findChild<ui::ChartGrid*>(QStringLiteral("explorerCharts"));
        auto* page = window.findChild<QScrollArea*>(QStringLiteral("explorerChartsScroll"));
        QVERIFY(grid && page);
        QCOMPARE(page->horizontalScrollBar()->maximum(), 0);
        QCOMPARE(grid->stacked(), size.width() < 1920);
        window.launchDock()->toggleViewAction()->trigger();
        QCoreApplication::processEvents();
        QVERIFY(!grid->stacked());
        QCOMPARE(page->horizontalScrollBar()->maximum(), 0);
        window.document()->undoStack()->setClean();
    }
}

void TestCompare::compareWindowFitsTheScreen()
{
    // Issue 23 item 8: the compare window opened at 1400 x 950 whatever the screen; it fits the available area now.
    QWidget* compare = m_window->compare()->window();
    const QRect available = compare->screen()->availableGeometry();
    QCOMPARE(compare->geometry(), ui::fittedGeometry(available, QSize(1400, 950), compare->minimumSizeHint()));
    QVERIFY(available.contains(compare->geometry().topLeft()));
    // On a 1280 x 800 screen (a 752-pixel-high work area under a panel): 94% of it, its minimum size included.
    const QRect small(0, 24, 1280, 776);
    const QRect fitted = ui::fittedGeometry(small, QSize(1400, 950), compare->minimumSizeHint());
    QVERIFY(small.contains(fitted));
    QCOMPARE(fitted.size(), QSize(1280 * 94 / 100, 776 * 94 / 100));
}

void TestCompare::pinningWhileOpenLaysOutAsOpenedWithPins()
{
    // Issue 23 item 8: pinned while the Compare window was open, the per-pin charts collapsed to about 10 pixels and
    // their header buttons were clipped. Open it empty, pin three scenarios through the Pin action, then measure.
    ui::ScenarioDocument* doc = m_window->document();
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    m_window->compare()->showComparison();
    QWidget* compare = m_window->compare()->window();
    QVERIFY(QTest::qWaitForWindowExposed(compare));
    for (int tp : { 1, 2, 4 }) {
        setTp(doc, tp);
        m_window->compare()->pinCurrent();
    }
    QVERIFY(test::settle(*doc)); // the last pin's result (evaluated off the GUI thread), then its layout
    settle(compare);
    ui::CompareView* view = m_window->compare()->view();
    QCOMPARE(view->memoryCharts().size(), 3);
    auto measure = [&](const char* when) {
        for (ui::MemoryChart* chart : view->memoryCharts()) {
            qInfo("%s: memory chart %d x %d", when, chart->width(), chart->height());
            QVERIFY2(chart->height() >= 150, qPrintable(QString::number(chart->height())));
        }
        for (QToolButton* b : view->findChildren<QToolButton*>())
            if (b->isVisible())
                QVERIFY2(b->height() >= b->sizeHint().height() && b->width() >= b->sizeHint().width(),
                    qPrintable(b->text()));
        for (QPushButton* b : view->findChildren<QPushButton*>())
            if (b->isVisible())
                QVERIFY2(b->height() >= b->sizeHint().height() && b->width() >= b->sizeHint().width(),
                    qPrintable(b->text()));
    };
    measure("pinned while open");
    // Every pin's row of the step-time chart has its label (the second was dropped in a 1280 x 800 screenshot).
    QCOMPARE(int(ui::drawnTickLabels(view->timeChart()->plot()->yAxis).size()), 3);
    // With three pins the window still fits a 1280 x 800 screen's work area (776 pixels under a panel); it was 895
    // pixels at its smallest once the charts were counted.
    qInfo("compare window minimum height with three pins: %d", compare->minimumSizeHint().height());
    QVERIFY2(
        compare->minimumSizeHint().height() <= 776, qPrintable(QString::number(compare->minimumSizeHint().height())));
    // The same pins, the window opened with them there: the strip is as tall.
    const int whileOpen = view->memoryCharts().front()->height();
    ui::MainWindow other(test::catalog(), m_settings);
    for (const core::Scenario& s : doc->pins())
        other.document()->pin(s);
    QVERIFY(test::settle(*other.document()));
    other.show();
    other.compare()->showComparison();
    QVERIFY(QTest::qWaitForWindowExposed(other.compare()->window()));
    settle(other.compare()->window());
    const int openedWith = other.compare()->view()->memoryCharts().front()->height();
    qInfo("memory chart height: pinned while open %d, opened with the pins %d", whileOpen, openedWith);
    QVERIFY2(
        std::abs(whileOpen - openedWith) <= 4, qPrintable(QStringLiteral("%1 vs %2").arg(whileOpen).arg(openedWith)));
    other.document()->undoStack()->setClean();
    compare->hide();
}

void TestCompare::waterfallShowsEveryStepAtTheDefaultSize()
{
    // Issue 23 item 8: at the Compare window's default size every other row label of the waterfall was dropped, so
    // its steps could not be read. A walk of many settings groups (rows: A, one per group, B) in the window as it opens
    // (fitted to this screen and to a 1280 x 800 one): every row has its label on both panels' left axis and its
    // figure on the right.
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    doc->edit(QStringLiteral("b"), QString(), [](core::Scenario& s) {
        s.cluster.nodes = 8;
        s.parallelism.tp = 8;
        s.parallelism.sharding = core::Sharding::Zero1;
        s.training.recompute = core::Recompute::Full;
        s.training.seqLen = 4096;
        s.training.flashAttention = false;
        s.training.optimizer = core::Optimizer::Adafactor;
        s.parallelism.pp = 2;
    });
    pinCurrent(doc);
    QWidget* compare = m_window->compare()->window();
    ui::CompareView* view = m_window->compare()->view();
    for (const QRect screen : { compare->screen()->availableGeometry(), QRect(0, 24, 1280, 776) }) {
        compare->setGeometry(ui::fittedGeometry(screen, QSize(1400, 950), compare->minimumSizeHint()));

        compare->show();
        QVERIFY(QTest::qWaitForWindowExposed(compare));
        compare->findChild<QTabWidget*>()->setCurrentIndex(1);
        settle(compare);
        ui::WaterfallChart* chart = view->waterfallChart();
        const int rows = chart->rowCount();
        QVERIFY2(rows >= 6, qPrintable(QString::number(rows)));
        for (QCPAxisRect* rect : chart->plot()->axisRects()) {
            const int left = int(ui::drawnTickLabels(rect->axis(QCPAxis::atLeft)).size());
            const int right = int(ui::drawnTickLabels(rect->axis(QCPAxis::atRight)).size());
            qInfo("window %d x %d, chart %d x %d: %d rows, %d labels left, %d right", compare->width(),
                compare->height(), chart->width(), chart->height(), rows, left, right);
            QCOMPARE(right, rows);
            if (rect == chart->plot()->axisRect())
                QCOMPARE(left, rows);
        }
    }
    compare->hide();
}

void TestCompare::pinnedExcessLabelsStayInsideThePlot()
{
    // A pinned TP 4, PP 4 scenario's memory chart (four stages, 63.2 GiB over on stage 0) in the compare window's
    // narrow column (issue 23's walkthrough of the window): stage 0's "+63.2 GiB" is wider than its bar and was
    // centred on it, so the plot's edge cut it to "3.2 GiB" over the value axis. Every drawn "+N" label lies inside
    // its plot and clear of the value axis's tick labels, at the window's size on a 1280 x 800 and a 1920 x 1080
    // screen.
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    doc->edit(QStringLiteral("c"), QString(), [](core::Scenario& s) {
        s.cluster.nodes = 8;
        s.parallelism.sharding = core::Sharding::Zero1;
        s.parallelism.tp = 4;
        s.parallelism.pp = 4;
        s.parallelism.schedule = core::PpSchedule::Interleaved;
        s.parallelism.virtualStages = 2;
    });
    pinCurrent(doc);
    QVERIFY(!doc->pinResults().back().fits);
    QWidget* compare = m_window->compare()->window();
    compare->show();
    QVERIFY(QTest::qWaitForWindowExposed(compare));
    ui::CompareView* view = m_window->compare()->view();
    QCOMPARE(view->memoryCharts().size(), 2);
    ui::MemoryChart* chart = view->memoryCharts().back();
    QCOMPARE(chart->barCount(), 4);
    for (const QSize size : { QSize(1268, 740), QSize(1400, 950), QSize(900, 700) }) {
        compare->resize(size);
        settle(compare);
        QCPAxisRect* rect = chart->plot()->axisRect();
        const QList<ui::DrawnTickLabel> ticks = ui::drawnTickLabels(chart->plot()->yAxis);
        QVERIFY(!ticks.isEmpty());
        int drawn = 0;
        for (int i = 0; i < chart->barCount(); ++i) {
            const QRectF label = chart->capacityMarks().labelRect(i);
            if (label.isEmpty())
                continue;
            ++drawn;
            const QString where = QStringLiteral("bar %1 at %2 px: label %3..%4, plot %5..%6")
                                      .arg(i)
                                      .arg(size.width())
                                      .arg(label.left())
                                      .arg(label.right())
                                      .arg(rect->left())
                                      .arg(rect->right());
            QVERIFY2(label.left() >= rect->left() - 1 && label.right() <= rect->right() + 1, qPrintable(where));
            for (const ui::DrawnTickLabel& t : ticks)
                QVERIFY2(!label.intersects(t.rect), qPrintable(where + QStringLiteral(" touches '%1'").arg(t.text)));
        }
        QVERIFY2(chart->capacityMarks().labelRect(0).isValid(),
            qPrintable(QString::number(size.width()))); // the largest excess keeps its label
        QVERIFY(drawn >= 1);
    }
    compare->hide();
}

namespace {
/// rect of child (a widget inside top) in top's coordinates.
QRect rectIn(const QWidget* child, const QWidget* top) { return QRect(child->mapTo(top, QPoint(0, 0)), child->size()); }
/// A drawn tick label of plot in top's coordinates.
QRectF labelIn(const QRectF& label, const QCustomPlot* plot, const QWidget* top)
{
    return label.translated(QPointF(plot->mapTo(top, QPoint(0, 0))));
}
} // namespace

void TestCompare::compareChartsKeepLegendsClearOfTheirPlots()
{
    // The walkthrough of issue 23 at about 1020 x 750: with three pins the memory charts' legends lay over their
    // "70.7 GiB" usable-memory labels (a pin's column was narrower than its chart and legend need), and the step-time
    // chart's legend covered its axis title. With two, three and four pins, at 1020 x 750, 1280 x 776 and the window's
    // smallest size: every plot gets at least its minimum size, every legend lies clear of every plot, and the
    // usable-memory label and the step-time axis title are drawn inside their plots.
    ui::ScenarioDocument* doc = m_window->document();
    QWidget* compare = m_window->compare()->window();
    ui::CompareView* view = m_window->compare()->view();
    compare->show();
    QVERIFY(QTest::qWaitForWindowExposed(compare));
    for (int tp : { 1, 2, 4, 8 }) {
        setTp(doc, tp);
        pinCurrent(doc);
        if (doc->pins().size() < 2)
            continue;
        for (const QSize size : { QSize(1020, 750), QSize(1280, 776), QSize(400, 300) }) {
            compare->resize(size);
            settle(compare);
            const QString at = QStringLiteral("%1 pins, window %2 x %3")
                                   .arg(doc->pins().size())
                                   .arg(compare->width())
                                   .arg(compare->height());
            qInfo("%s: memory charts %d high, step-time chart %d", qPrintable(at),
                view->memoryCharts().front()->height(), view->timeChart()->height());
            // A window manager squeezes a window to the screen's work area (1280 x 800 under a panel and a title bar:
            // about 746 pixels), and then the charts overlapped. The window takes any size from 400 x 300 up; the view
            // keeps at least its minimum size (scrolling in a smaller window), and up to three pins need no scrolling
            // at 1020 x 750.
            QVERIFY2(
                compare->width() <= std::max(size.width(), 400) && compare->height() <= std::max(size.height(), 300),
                qPrintable(at));
            QVERIFY2(
                view->height() >= view->minimumSizeHint().height() && view->width() >= view->minimumSizeHint().width(),
                qPrintable(at));
            if (doc->pins().size() <= 3 && size.width() >= 1020)
                QVERIFY2(view->minimumSizeHint().height() <= 750 - 12,
                    qPrintable(at + QStringLiteral(": needs %1").arg(view->minimumSizeHint().height())));
            QList<ui::ChartBase*> charts { view->timeChart() };
            for (ui::MemoryChart* m : view->memoryCharts())
                charts << m;
            QList<QRect> legends;
            for (ui::LegendStrip* l : view->findChildren<ui::LegendStrip*>())
                if (l->isVisibleTo(compare)) {
                    legends << rectIn(l, view);
                    // Whole: as wide as one column of entries and as tall as its rows at that width.
                    const int rows = l->hasHeightForWidth() ? l->heightForWidth(l->width()) : l->sizeHint().height();
                    QVERIFY2(l->width() >= l->minimumSizeHint().width() && l->height() >= rows,
                        qPrintable(at + QStringLiteral(": legend %1 x %2 cut").arg(l->width()).arg(l->height())));
                }
            QVERIFY2(!legends.isEmpty(), qPrintable(at));
            for (ui::ChartBase* chart : charts) {
                QCustomPlot* plot = chart->plot();
                QVERIFY2(plot->height() >= plot->minimumHeight() && plot->width() >= plot->minimumWidth(),
                    qPrintable(at + QStringLiteral(": plot %1 x %2").arg(plot->width()).arg(plot->height())));
                // What shows of the plot (a pin's column scrolled out of view shows nothing).
                const QRect plotRect = plot->visibleRegion().boundingRect().translated(plot->mapTo(view, QPoint(0, 0)));
                for (const QRect& legend : legends)
                    QVERIFY2(!legend.intersects(plotRect),
                        qPrintable(at
                            + QStringLiteral(": a legend at %1,%2 %3 x %4 covers '%5'")
                                  .arg(legend.x())
                                  .arg(legend.y())
                                  .arg(legend.width())
                                  .arg(legend.height())
                                  .arg(chart->title())));
            }
            for (ui::MemoryChart* m : view->memoryCharts()) {
                const QList<ui::DrawnTickLabel> usable = ui::drawnTickLabels(m->plot()->yAxis2);
                QCOMPARE(usable.size(), 1);
                const QRectF label = labelIn(usable.front().rect, m->plot(), view);
                QVERIFY2(QRectF(rectIn(m->plot(), view)).contains(label),
                    qPrintable(at + QStringLiteral(": usable label cut")));
            }
            // The step-time axis title: below the tick labels, inside the plot, above the legend.
            QCPAxis* x = view->timeChart()->plot()->xAxis;
            const QList<ui::DrawnTickLabel> ticks = ui::drawnTickLabels(x);
            QVERIFY(!ticks.isEmpty());
            const double titleBottom
                = ticks.front().rect.bottom() + x->labelPadding() + QFontMetricsF(x->labelFont()).height();
            QVERIFY2(titleBottom <= view->timeChart()->plot()->height() + 1,
                qPrintable(at
                    + QStringLiteral(": axis title ends at %1 of %2")
                          .arg(titleBottom)
                          .arg(view->timeChart()->plot()->height())));
        }
    }
    compare->hide();
}

void TestCompare::memoryChartsShareSpareHeight()
{
    // Issue 23's walkthrough at 1920 x 1080: the compare window opened at 1400 x 950 with the default scenario and a
    // TP 4, PP 4 one pinned gave the spare height to the differences table (blank rows under it), and the PP chart's
    // value axis, under its two-line stage labels, showed only "0" and "200". Opened with those pins at that size,
    // every memory chart's value axis has at least three ticks.
    ui::ScenarioDocument* doc = m_window->document();
    pinCurrent(doc);
    doc->edit(QStringLiteral("pp"), QString(), [](core::Scenario& s) {
        s.parallelism.sharding = core::Sharding::Zero1;
        s.parallelism.tp = 4;
        s.parallelism.pp = 4;
        s.parallelism.schedule = core::PpSchedule::Interleaved;
        s.parallelism.virtualStages = 2;
    });
    pinCurrent(doc);
    QWidget* compare = m_window->compare()->window();
    compare->resize(1400, 950);
    compare->show();
    QVERIFY(QTest::qWaitForWindowExposed(compare));
    settle(compare);
    for (ui::MemoryChart* m : m_window->compare()->view()->memoryCharts()) {
        const int ticks = int(ui::drawnTickLabels(m->plot()->yAxis).size());
        qInfo("memory chart %d x %d: %d value ticks", m->width(), m->height(), ticks);
        QVERIFY2(ticks >= 3, qPrintable(QString::number(ticks)));
    }
    compare->hide();
}

void TestCompare::screenshots()
{
    const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set SHARDSCOPE_SCREENSHOT_DIR to save pictures of the compare window, export dialog and launch panel");
    ui::ScenarioDocument* doc = m_window->document();
    if (qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_THEME") == QLatin1String("dark"))
        ui::AppTheme::apply(ui::ThemeMode::Dark);
    // The windows at the sizes they open at on this screen; the compare window open while the scenarios are pinned.
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QWidget* compare = m_window->compare()->window();
    compare->show();
    QVERIFY(QTest::qWaitForWindowExposed(compare));
    pinCurrent(doc);
    doc->edit(QStringLiteral("b"), QString(), [](core::Scenario& s) {
        s.name = "Same, 64 GPUs, TP 8, ZeRO-1, full recompute";
        s.cluster.nodes = 8;
        s.parallelism.tp = 8;
        s.parallelism.sharding = core::Sharding::Zero1;
        s.training.recompute = core::Recompute::Full;
    });
    pinCurrent(doc);
    doc->edit(QStringLiteral("c"), QString(), [](core::Scenario& s) {
        s.name = "TP 4, PP 4 interleaved";
        s.parallelism.tp = 4;
        s.parallelism.pp = 4;
        s.parallelism.schedule = core::PpSchedule::Interleaved;
        s.parallelism.virtualStages = 2;
        s.training.recompute = core::Recompute::Selective;
    });
    pinCurrent(doc);
    settle(compare);
    QVERIFY(compare->grab().save(dir + QStringLiteral("/compare-differences.png")));
    auto* tabs = compare->findChild<QTabWidget*>();
    tabs->setCurrentIndex(1);
    settle(compare);
    QVERIFY(compare->grab().save(dir + QStringLiteral("/compare-waterfall.png")));
    m_window->launchDock()->show();
    m_window->launchDock()->panel()->setTarget(core::LaunchTarget::DeepSpeed);
    settle(m_window);
    QVERIFY(m_window->grab().save(dir + QStringLiteral("/launch-dock.png")));
    compare->hide();
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
