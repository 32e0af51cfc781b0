// SPDX-License-Identifier: GPL-3.0-or-later
// ScenarioDocument: the result always matches the scenario; undo/redo restore both; a drag is one step;
// files round-trip. Pins are the document's: each change is one undo step among the edits, marks it modified, is
// announced with the new list, and is saved and reopened with the file.
#include "settle.h"
#include "test_support.h"

#include "document/scenario_document.h"
#include "document/scenario_file.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/fixes.h>
#include <shardscope/core/scenario_json.h>
#include <shardscope/core/scenario_name.h>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <QUndoStack>

using namespace shardscope;
using ui::ScenarioDocument;

class TestScenarioDocument : public QObject
{
    Q_OBJECT
private slots:
    void opensOnDefaultScenario();
    void editReevaluates();
    void evaluatesOffTheGuiThread();
    void newestEditWins();
    void destroyedWithAJobInFlight();
    void undoRedoRestoreScenarioAndResult();
    void dragMergesIntoOneStep();
    void dragBackToStartLeavesNoStep();
    void noOpEditPushesNothing();
    void modifiedFollowsUndoStack();
    void saveOpenRoundTrip();
    void saveToBadPathFails();
    void invalidCombinationGivesIssues();
    void comparisonCoversStrategies();
    void pinsAreUndoStepsAmongEdits();
    void pinChangesMarkModified();
    void pinsSaveAndReopen();
    void replaceIsOneStep();
};

namespace {
core::Scenario named(const std::string& name, int tp)
{
    core::Scenario s = core::defaultScenario(test::catalog());
    s.name = name;
    s.parallelism.tp = tp;
    return s;
}

std::vector<core::Scenario> pinsIn(const QSignalSpy& spy, qsizetype i)
{
    return spy.at(i).at(0).value<std::vector<core::Scenario>>();
}
} // namespace

void TestScenarioDocument::opensOnDefaultScenario()
{
    ScenarioDocument doc(test::catalog());
    QCOMPARE(doc.scenario(), core::defaultScenario(test::catalog()));
    QVERIFY(doc.result().valid);
    QCOMPARE(doc.result().memory.total(), core::evaluate(doc.scenario()).memory.total());
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.displayName(), QStringLiteral("Untitled"));
}

void TestScenarioDocument::editReevaluates()
{
    ScenarioDocument doc(test::catalog());
    QSignalSpy changed(&doc, &ScenarioDocument::resultReady);
    const double before = doc.result().memory.total();
    const int nodes = doc.scenario().cluster.nodes;
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
        [&](core::Scenario& s) { s.cluster.nodes = nodes * 2; });
    QVERIFY(test::settle(doc));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(doc.scenario().cluster.nodes, nodes * 2);
    QCOMPARE(doc.result().gpus, nodes * 2 * doc.scenario().cluster.gpusPerNode);
    QVERIFY(doc.result().memory.total() != before); // ZeRO-3 shards over twice the GPUs
    QCOMPARE(doc.result().memory.total(), core::evaluate(doc.scenario()).memory.total());
}

void TestScenarioDocument::evaluatesOffTheGuiThread()
{
    // An edit changes the scenario at once and returns before its result: the figures follow by resultReady.
    ScenarioDocument doc(test::catalog());
    QSignalSpy scenario(&doc, &ScenarioDocument::scenarioChanged);
    QSignalSpy ready(&doc, &ScenarioDocument::resultReady);
    const core::Result before = doc.result();
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 2; });
    QCOMPARE(scenario.count(), 1);
    QCOMPARE(doc.scenario().parallelism.tp, 2);
    QVERIFY(doc.isEvaluating());
    QCOMPARE(ready.count(), 0);
    QCOMPARE(doc.result().tp, before.tp); // still the shown figures of tp 1
    QVERIFY(ready.wait(20000));
    QCOMPARE(ready.count(), 1);
    const auto shown = ready.at(0).at(0).value<std::shared_ptr<const core::WhatIf>>();
    QVERIFY(shown == doc.shown());
    QCOMPARE(shown->scenario, doc.scenario());
    QCOMPARE(shown->result.tp, 2);
    QVERIFY(!doc.isEvaluating());
}

void TestScenarioDocument::newestEditWins()
{
    // Five edits in a row, as a dragged slider makes them: the first starts a job, each later one replaces the one
    // waiting, the first job's result is stale and dropped. Only the last edit's result is ever shown.
    ScenarioDocument doc(test::catalog());
    QSignalSpy ready(&doc, &ScenarioDocument::resultReady);
    const std::uint64_t first = doc.requestedGeneration();
    for (int nodes = 2; nodes <= 6; ++nodes)
        doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
            [nodes](core::Scenario& s) { s.cluster.nodes = nodes; });
    QCOMPARE(doc.requestedGeneration(), first + 5);
    QVERIFY(test::settle(doc));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(doc.shownGeneration(), first + 5);
    QCOMPARE(doc.shown()->scenario.cluster.nodes, 6);
    // 6 nodes x 8 GPUs with global batch 512 is not a whole number of micro-batches per rank: invalid, with fixes.
    QCOMPARE(doc.result().valid, core::validate(doc.scenario()).empty());
    QCOMPARE(doc.shown()->fixes.size(), core::nearestValidFixes(doc.scenario()).size());
}

void TestScenarioDocument::destroyedWithAJobInFlight()
{
    // Closing the window mid-evaluation: the document waits for its job and drops the result; nothing is delivered
    // to a destroyed receiver (tests/ui/gui_leaks.sh checks that nothing leaks).
    auto doc = std::make_unique<ScenarioDocument>(test::catalog());
    int delivered = 0;
    QObject receiver;
    connect(doc.get(), &ScenarioDocument::resultReady, &receiver, [&delivered] { ++delivered; });
    doc->edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 4; });
    QVERIFY(doc->isEvaluating());
    doc.reset();
    QCoreApplication::processEvents();
    QCOMPARE(delivered, 0);
}

void TestScenarioDocument::undoRedoRestoreScenarioAndResult()
{
    ScenarioDocument doc(test::catalog());
    const core::Scenario original = doc.scenario();
    const core::Result originalResult = doc.result();
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 2; });
    QVERIFY(test::settle(doc));
    doc.edit(QStringLiteral("recompute"), QStringLiteral("training.recompute"),
        [](core::Scenario& s) { s.training.recompute = core::Recompute::Full; });
    QVERIFY(test::settle(doc));
    const core::Scenario edited = doc.scenario();
    const double editedStep = doc.result().step.total();
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario(), original);
    QCOMPARE(doc.result().memory.total(), originalResult.memory.total());
    QCOMPARE(doc.result().step.total(), originalResult.step.total());
    QCOMPARE(doc.comparison().size(), size_t(6));
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario(), edited);
    QCOMPARE(doc.result().step.total(), editedStep);
}

void TestScenarioDocument::dragMergesIntoOneStep()
{
    ScenarioDocument doc(test::catalog());
    const int start = doc.scenario().cluster.nodes;
    doc.beginInteraction();
    for (int n = start + 1; n <= start + 5; ++n)
        doc.edit(
            QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [n](core::Scenario& s) { s.cluster.nodes = n; });
    QVERIFY(test::settle(doc));
    doc.endInteraction();
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.scenario().cluster.nodes, start + 5);
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario().cluster.nodes, start);
    // A later, separate edit of the same field is its own step.
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 1; });
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.undoStack()->count(), 2);
}

void TestScenarioDocument::dragBackToStartLeavesNoStep()
{
    ScenarioDocument doc(test::catalog());
    const int start = doc.scenario().cluster.nodes;
    doc.beginInteraction();
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
        [&](core::Scenario& s) { s.cluster.nodes = start + 1; });
    QVERIFY(test::settle(doc));
    doc.edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [&](core::Scenario& s) { s.cluster.nodes = start; });
    QVERIFY(test::settle(doc));
    doc.endInteraction();
    QCOMPARE(doc.undoStack()->count(), 0);
    QVERIFY(!doc.isModified());
}

void TestScenarioDocument::noOpEditPushesNothing()
{
    ScenarioDocument doc(test::catalog());
    QSignalSpy changed(&doc, &ScenarioDocument::resultReady);
    const int nodes = doc.scenario().cluster.nodes;
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
        [nodes](core::Scenario& s) { s.cluster.nodes = nodes; });
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(changed.count(), 0);
}

void TestScenarioDocument::modifiedFollowsUndoStack()
{
    ScenarioDocument doc(test::catalog());
    QSignalSpy modified(&doc, &ScenarioDocument::modifiedChanged);
    doc.edit(QStringLiteral("gdr"), QStringLiteral("nccl.gdr"), [](core::Scenario& s) { s.nccl.gdr = !s.nccl.gdr; });
    QVERIFY(test::settle(doc));
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QVERIFY(!doc.isModified());
    QCOMPARE(modified.count(), 2);
}

void TestScenarioDocument::saveOpenRoundTrip()
{
    ScenarioDocument doc(test::catalog());
    doc.edit(QStringLiteral("edits"), QStringLiteral("x"), [](core::Scenario& s) {
        s.name = "round trip ÄÖ";
        s.cluster.nodes = 8;
        s.parallelism.tp = 4;
        s.parallelism.sequenceParallel = true;
        s.parallelism.sharding = core::Sharding::Zero2;
        s.training.seqLen = 4096;
        s.training.microBatch = 2;
        s.offload.optimizer = core::OffloadTarget::Cpu;
        s.nccl.algo = core::NcclAlgo::Ring;
        s.model.layers = 40; // a modified preset is written as an object
    });
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("rt.shardscope.json"));
    QCOMPARE(ui::writeScenarioFile(path, doc.scenario(), test::catalog()), QString());
    const ui::ScenarioLoad load = ui::readScenarioFile(path, test::catalog());
    QVERIFY2(load.ok(), qPrintable(load.errors.join(QLatin1Char('\n'))));
    QCOMPARE(load.scenario, doc.scenario());
    // Writing replaces the file atomically and leaves no temporary file behind.
    QCOMPARE(ui::writeScenarioFile(path, doc.scenario(), test::catalog()), QString());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
}

void TestScenarioDocument::saveToBadPathFails()
{
    ScenarioDocument doc(test::catalog());
    QTemporaryDir dir;
    const QString error
        = ui::writeScenarioFile(dir.filePath(QStringLiteral("missing/dir/x.json")), doc.scenario(), test::catalog());
    QVERIFY(!error.isEmpty());
}

void TestScenarioDocument::invalidCombinationGivesIssues()
{
    ScenarioDocument doc(test::catalog());
    doc.edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 6; });
    QVERIFY(test::settle(doc));
    QVERIFY(!doc.result().valid);
    QVERIFY(!doc.result().issues.empty());
    bool namesTp = false;
    for (const core::Issue& i : doc.result().issues)
        namesTp = namesTp || i.field == "parallelism.tp";
    QVERIFY(namesTp);
    QCOMPARE(doc.comparison().size(), size_t(6)); // computed, all invalid, no crash
    for (const core::StrategyVariant& v : doc.comparison())
        QVERIFY(!v.result.valid);
}

void TestScenarioDocument::comparisonCoversStrategies()
{
    ScenarioDocument doc(test::catalog());
    const auto& c = doc.comparison();
    QCOMPARE(c.size(), size_t(6));
    QCOMPARE(c[0].scenario.parallelism.sharding, core::Sharding::Ddp);
    QCOMPARE(c[3].scenario.parallelism.sharding, core::Sharding::Zero3);
    QCOMPARE(c[4].scenario.offload.optimizer, core::OffloadTarget::Cpu);
    // Only sharding and offload differ from the open scenario.
    core::Scenario same = c[1].scenario;
    same.parallelism.sharding = doc.scenario().parallelism.sharding;
    same.offload = doc.scenario().offload;
    QCOMPARE(same, doc.scenario());
    // The default scenario is ZeRO-3 without offload: that variant is marked current.
    QVERIFY(c[3].current);
    // Model states shrink with each ZeRO stage (ZeRO paper, Figure 1).
    const auto states
        = [](const core::Result& r) { return r.memory.parameters + r.memory.gradients + r.memory.optimizerStates; };
    QVERIFY(states(c[0].result) >= states(c[1].result));
    QVERIFY(states(c[1].result) >= states(c[2].result));
    QVERIFY(states(c[2].result) >= states(c[3].result));
}

void TestScenarioDocument::pinsAreUndoStepsAmongEdits()
{
    ScenarioDocument doc(test::catalog());
    QSignalSpy pinsChanged(&doc, &ScenarioDocument::pinsChanged);
    QSignalSpy changed(&doc, &ScenarioDocument::resultReady);
    const core::Scenario original = doc.scenario();
    doc.pin(doc.scenario()); // 1
    doc.edit(
        QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 8; }); // 2
    QVERIFY(test::settle(doc));
    core::Scenario unnamed = doc.scenario();
    unnamed.name.clear();
    doc.pin(unnamed); // 3
    QCOMPARE(doc.undoStack()->count(), 3);
    QCOMPARE(doc.pins().size(), size_t(2)); // at once; the results come with the next whatIf()
    QCOMPARE(doc.pinResults().size(), size_t(1));
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(2));
    QCOMPARE(doc.pins()[0], original);
    QCOMPARE(doc.pins()[1].parallelism.tp, 8);
    // An unnamed pin stays unnamed and is labelled with the name made from its content (issue 13).
    QVERIFY(doc.pins()[1].name.empty());
    const QString title = QString::fromStdString(core::scenarioTitle(unnamed));
    QVERIFY(title.endsWith(QStringLiteral(", TP 8")));
    QCOMPARE(doc.pinLabel(1), title);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Pin “%1”").arg(title));
    // Each pin's result is its scenario's, evaluated off the GUI thread.
    QCOMPARE(doc.pinResults().size(), size_t(2));
    QCOMPARE(doc.pinResults()[1].memory.total(), core::evaluate(doc.pins()[1]).memory.total());
    QCOMPARE(doc.pinResults()[1].step.total(), core::evaluate(doc.pins()[1]).step.total());
    // The signal carries the new list; pins do not send changed() (the scenario did not change). The first pin and the
    // edit right after it arrived with one whatIf().
    QCOMPARE(pinsChanged.count(), 2);
    QCOMPARE(pinsIn(pinsChanged, 1), doc.pins());
    QCOMPARE(pinsChanged.at(1).at(1).value<std::vector<core::Result>>().size(), size_t(2));
    QCOMPARE(changed.count(), 1);

    // Undo walks back through pins and edits in the order they were made; redo forward again.
    doc.undoStack()->undo(); // pin 2
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(1));
    QCOMPARE(doc.pinResults().size(), size_t(1));
    QCOMPARE(doc.scenario().parallelism.tp, 8);
    doc.undoStack()->undo(); // tp
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(1));
    QCOMPARE(doc.scenario(), original);
    doc.undoStack()->undo(); // pin 1
    QVERIFY(test::settle(doc));
    QVERIFY(doc.pins().empty());
    QVERIFY(doc.pinResults().empty());
    QVERIFY(pinsIn(pinsChanged, pinsChanged.count() - 1).empty());
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(1));
    QCOMPARE(doc.scenario(), original);
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario().parallelism.tp, 8);
    QCOMPARE(doc.pins().size(), size_t(1));
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(2));
    QCOMPARE(doc.pins()[1], unnamed);

    // Unpin and clear are one step each; what cannot change pushes nothing.
    doc.unpin(0);
    QCOMPARE(doc.pins().size(), size_t(1));
    QCOMPARE(doc.pins()[0], unnamed);
    QCOMPARE(doc.undoStack()->undoText(),
        QStringLiteral("Unpin “%1”").arg(QString::fromStdString(core::scenarioTitle(original))));
    doc.unpin(1);
    doc.unpin(-1);
    QCOMPARE(doc.undoStack()->count(), 4);
    doc.clearPins();
    QVERIFY(doc.pins().empty());
    QCOMPARE(doc.undoStack()->count(), 5);
    doc.clearPins();
    QCOMPARE(doc.undoStack()->count(), 5);
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(1));
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.pins().size(), size_t(2));
    QCOMPARE(doc.pins()[0], original);
}

void TestScenarioDocument::pinChangesMarkModified()
{
    ScenarioDocument doc(test::catalog());
    QSignalSpy modified(&doc, &ScenarioDocument::modifiedChanged);
    doc.pin(named("a", 2));
    QVERIFY(doc.isModified());
    QCOMPARE(modified.count(), 1);
    QCOMPARE(modified.at(0).at(0).toBool(), true);
    doc.markSaved(QStringLiteral("/tmp/pins-saved.shardscope.json"));
    QVERIFY(!doc.isModified());
    doc.unpin(0);
    QVERIFY(doc.isModified());
    doc.undoStack()->undo(); // back to the saved pins
    QVERIFY(test::settle(doc));
    QVERIFY(!doc.isModified());
    doc.clearPins();
    QVERIFY(doc.isModified());
    // New (reset without pins) drops them, with no undo step and clean.
    QSignalSpy pinsChanged(&doc, &ScenarioDocument::pinsChanged);
    doc.reset(core::defaultScenario(test::catalog()), QString());
    QVERIFY(test::settle(doc));
    QVERIFY(doc.pins().empty());
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.undoStack()->count(), 0);
    QCOMPARE(pinsChanged.count(), 1);
}

void TestScenarioDocument::pinsSaveAndReopen()
{
    ScenarioDocument doc(test::catalog());
    doc.pin(named("first pin", 2));
    doc.pin(named("second pin", 4));
    doc.edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 8; });
    QVERIFY(test::settle(doc));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("pins.shardscope.json"));
    QCOMPARE(ui::writeScenarioFile(path, doc.scenario(), test::catalog(), doc.pins()), QString());
    doc.markSaved(path);
    QVERIFY(!doc.isModified());

    // Reopened (as FileController does): the same scenario and pins, clean, nothing to undo.
    const ui::ScenarioLoad load = ui::readScenarioFile(path, test::catalog());
    QVERIFY2(load.ok(), qPrintable(load.errors.join(QLatin1Char('\n'))));
    QVERIFY(load.warnings.isEmpty());
    ScenarioDocument reopened(test::catalog());
    QSignalSpy pinsChanged(&reopened, &ScenarioDocument::pinsChanged);
    reopened.reset(load.scenario, path, load.pins);
    QVERIFY(test::settle(reopened));
    QCOMPARE(reopened.scenario(), doc.scenario());
    QCOMPARE(reopened.pins(), doc.pins());
    QCOMPARE(reopened.pinLabel(1), QStringLiteral("second pin"));
    QCOMPARE(reopened.pinResults().size(), size_t(2));
    QCOMPARE(reopened.pinResults()[0].memory.total(), doc.pinResults()[0].memory.total());
    QCOMPARE(pinsChanged.count(), 1);
    QCOMPARE(pinsIn(pinsChanged, 0), doc.pins());
    QVERIFY(!reopened.isModified());
    QCOMPARE(reopened.undoStack()->count(), 0);
    // Unpinning in the reopened document and saving again writes the shorter list.
    reopened.unpin(0);
    QVERIFY(reopened.isModified());
    QCOMPARE(ui::writeScenarioFile(path, reopened.scenario(), test::catalog(), reopened.pins()), QString());
    const ui::ScenarioLoad again = ui::readScenarioFile(path, test::catalog());
    QCOMPARE(again.pins.size(), size_t(1));
    QCOMPARE(again.pins[0].name, std::string("second pin"));
}

void TestScenarioDocument::replaceIsOneStep()
{
    ScenarioDocument doc(test::catalog());
    const core::Scenario original = doc.scenario();
    doc.pin(named("on disk", 2));
    doc.markSaved(QStringLiteral("/tmp/replace.shardscope.json"));
    const std::vector<core::Scenario> before = doc.pins();
    const core::Scenario restored = named("restored", 8);
    const std::vector<core::Scenario> restoredPins { named("on disk", 2), named("pinned later", 4) };
    doc.replace(QStringLiteral("Restore"), restored, restoredPins);
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario(), restored);
    QCOMPARE(doc.pins(), restoredPins);
    QCOMPARE(doc.undoStack()->count(), 2);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Restore"));
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario(), original);
    QCOMPARE(doc.pins(), before);
    QVERIFY(!doc.isModified());
    doc.undoStack()->redo();
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.scenario(), restored);
    QCOMPARE(doc.pins(), restoredPins);
    // Replacing with what the document already holds pushes nothing; only the pins changing is still one step.
    doc.replace(QStringLiteral("Same"), restored, restoredPins);
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.replace(QStringLiteral("Pins only"), restored, before);
    QVERIFY(test::settle(doc));
    QCOMPARE(doc.undoStack()->count(), 3);
    QCOMPARE(doc.scenario(), restored);
    QCOMPARE(doc.pins(), before);
}

QTEST_MAIN(TestScenarioDocument)
#include "tst_scenario_document.moc"
