// SPDX-License-Identifier: GPL-3.0-or-later
// File → Import… and dropped configuration files (issue 14): a config.json, a torchtitan TOML and a Megatron-LM script
// the app wrote open as new untitled scenarios; a bad file is refused naming the key; scenario files dropped on the
// window still open as files.
#include "test_support.h"

#include "document/scenario_document.h"
#include "main_window.h"
#include "session/file_controller.h"
#include "session/import_controller.h"
#include "settings/app_settings.h"

#include <shardscope/core/launch_config.h>
#include <shardscope/core/layout.h>
#include <shardscope/core/scenario_json.h>

#include <QMenuBar>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace shardscope;

class TestImportUi : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void menuImportsConfigJsonAsUntitled();
    void badFileIsRefusedNamingTheKey();
    void droppedTomlImports();
    void droppedScenarioIsNotImported();
    void reimportsSavedMegatronLaunchConfiguration();

private:
    QString write(const QString& name, const std::string& text);
    QTemporaryDir m_dir;
    ui::AppSettings* m_settings = nullptr;
    ui::MainWindow* m_window = nullptr;
    QStringList m_messages;
};

void TestImportUi::init()
{
    m_settings = new ui::AppSettings(m_dir.filePath(QStringLiteral("settings.ini")), nullptr);
    m_window = new ui::MainWindow(test::catalog(), m_settings);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    m_messages.clear();
    m_window->importer()->setMessageHandler([this](const QString& title, const QString& text) { m_messages << title + QLatin1Char('\n') + text; });
    m_window->files()->setPromptHandler([] { return QMessageBox::Discard; });
}

void TestImportUi::cleanup()
{
    m_window->document()->undoStack()->setClean();
    delete m_window;
    delete m_settings;
}

QString TestImportUi::write(const QString& name, const std::string& text)
{
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(text.data(), qint64(text.size()));
    return path;
}

void TestImportUi::menuImportsConfigJsonAsUntitled()
{
    QAction* action = m_window->menuBar()->findChild<QAction*>(QStringLiteral("importAction"));
    QVERIFY(action);
    const QString config = test::sourcePath(QStringLiteral("tests/core/data/import/mixtral-8x7b.config.json"));
    m_window->importer()->setDialogHandler([&](std::optional<core::ImportSource>& source) {
        source.reset(); // "Detect the format from the file"
        return config;
    });
    action->trigger();
    const auto* doc = m_window->document();
    QCOMPARE(doc->scenario().model.id, std::string("mixtral-8x7b"));
    QVERIFY(doc->filePath().isEmpty());
    QVERIFY(doc->scenario().name.empty()); // named from its content
    QVERIFY(m_messages.isEmpty()); // a published config.json leaves nothing to note
}

void TestImportUi::badFileIsRefusedNamingTheKey()
{
    const std::string before = core::scenarioToJson(m_window->document()->scenario(), test::catalog());
    const QString path = write(QStringLiteral("config.json"), R"({"model_type": "mamba", "hidden_size": 8})");
    QVERIFY(!m_window->importer()->importFile(path));
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages.front().contains(QLatin1String("model_type")) && m_messages.front().contains(QLatin1String("supported: llama")),
             qPrintable(m_messages.front()));
    QCOMPARE(core::scenarioToJson(m_window->document()->scenario(), test::catalog()), before); // unchanged
}

void TestImportUi::droppedTomlImports()
{
    const QString path = m_dir.filePath(QStringLiteral("job.toml"));
    QVERIFY(QFile::copy(test::sourcePath(QStringLiteral("tests/core/data/import/llama3_70b-8xb200-8k.toml")), path));
    QMimeData mime;
    mime.setUrls({ QUrl::fromLocalFile(path) });
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_window, &drop);
    QCoreApplication::processEvents(); // the import runs once the drop has returned
    const core::Scenario& s = m_window->document()->scenario();
    QCOMPARE(s.model.id, std::string("llama3.1-70b"));
    QCOMPARE(s.training.framework, core::Framework::PyTorchCompile);
    QCOMPARE(s.cluster.gpus(), 8);
    QVERIFY(m_window->document()->filePath().isEmpty());
    QCOMPARE(m_messages.size(), 1); // the note about [training] dtype, an unknown key
    QVERIFY(m_messages.front().contains(QLatin1String("dtype")));
}

void TestImportUi::droppedScenarioIsNotImported()
{
    const QString path = m_dir.filePath(QStringLiteral("plan.shardscope.json"));
    const std::string text = core::scenarioToJson(core::defaultScenario(test::catalog()), test::catalog());
    write(QStringLiteral("plan.shardscope.json"), text);
    QVERIFY(!ui::ImportController::importableDrop(path)); // opened as a file by the window, not imported
    QVERIFY(ui::ImportController::importableDrop(test::sourcePath(QStringLiteral("tests/core/data/import/gpt2.config.json"))));
    QVERIFY(!ui::ImportController::importableDrop(m_dir.path())); // a directory
}

void TestImportUi::reimportsSavedMegatronLaunchConfiguration()
{
    // View → Launch Configuration → Save writes this text; importing it gives the layout back.
    core::Scenario s = core::defaultScenario(test::catalog());
    s.parallelism.sharding = core::Sharding::Zero1;
    s.parallelism.tp = 4;
    s.parallelism.pp = 2;
    s.parallelism.sequenceParallel = true;
    s.training.recompute = core::Recompute::Full;
    QVERIFY(core::launchConfigIssues(s, core::LaunchTarget::Megatron).empty());
    const QString path = write(QStringLiteral("megatron.sh"), core::launchConfig(s, core::LaunchTarget::Megatron));
    QVERIFY(m_window->importer()->importFile(path));
    const core::Scenario& b = m_window->document()->scenario();
    const core::Layout la = core::makeLayout(s), lb = core::makeLayout(b);
    QCOMPARE(lb.tp, 4);
    QCOMPARE(lb.pp, 2);
    QCOMPARE(lb.dp, la.dp);
    QCOMPARE(b.parallelism.sharding, core::Sharding::Zero1);
    QCOMPARE(b.training.recompute, core::Recompute::Full);
    QVERIFY(b.parallelism.sequenceParallel);
    QCOMPARE(b.model.id, s.model.id);
}

QTEST_MAIN(TestImportUi)
#include "tst_import_ui.moc"
