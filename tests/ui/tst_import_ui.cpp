// SPDX-License-Identifier: GPL-3.0-or-later
// File → Import… and dropped configuration files (issue 14): a config.json, a torchtitan TOML and a Megatron-LM script
// the app wrote open as new untitled scenarios; a bad file is refused naming the key; scenario files dropped on the
// window still open as files.
#include "test_support.h"

#include "document/scenario_document.h"
#include "main_window.h"
#include "session/autosave.h"
#include "session/file_controller.h"
#include "session/import_controller.h"
#include "settings/app_settings.h"

#include <shardscope/core/launch_config.h>
#include <shardscope/core/layout.h>
#include <shardscope/core/scenario_json.h>

#include <QMenuBar>
#include <QLabel>
#include <QMimeData>
#include <QScreen>
#include <QProgressDialog>
#include <QPushButton>
#include <QSemaphore>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>
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
    void importRunsOffTheUiThread();
    void fileNamesAndContentShowAsPlainText();
    void hugeWarningListFitsTheScreen();

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
    m_window->importer()->setMessageHandler(
        [this](const QString& title, const QString& text) { m_messages << title + QLatin1Char('\n') + text; });
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
    m_settings->setLastImportFolder(QString());
    QCOMPARE(m_window->importer()->dialogFolder(), QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation));
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
    // Issue 23 item 9: the next Import… starts in the folder of this one, also after a restart (the settings).
    QCOMPARE(m_window->importer()->dialogFolder(), QFileInfo(config).absolutePath());
    QCOMPARE(ui::AppSettings(m_dir.filePath(QStringLiteral("settings.ini")), nullptr).lastImportFolder(),
        QFileInfo(config).absolutePath());
}

void TestImportUi::badFileIsRefusedNamingTheKey()
{
    const std::string before = core::scenarioToJson(m_window->document()->scenario(), test::catalog());
    const QString path = write(QStringLiteral("config.json"), R"({"model_type": "mamba", "hidden_size": 8})");
    QVERIFY(!m_window->importer()->importFile(path));
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages.front().contains(QLatin1String("model_type"))
            && m_messages.front().contains(QLatin1String("supported: llama")),
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
    // [training] dtype = "bfloat16" is read (torchtitan's all-bf16 training: precision bf16): nothing left to note
    QVERIFY(s.training.precision == core::Precision::Bf16);
    QVERIFY2(m_messages.isEmpty(), qPrintable(m_messages.join(QLatin1Char('\n'))));
}

void TestImportUi::droppedScenarioIsNotImported()
{
    const QString path = m_dir.filePath(QStringLiteral("plan.shardscope.json"));
    const std::string text = core::scenarioToJson(core::defaultScenario(test::catalog()), test::catalog());
    write(QStringLiteral("plan.shardscope.json"), text);
    QVERIFY(!ui::ImportController::importableDrop(path)); // opened as a file by the window, not imported
    QVERIFY(ui::ImportController::importableDrop(
        test::sourcePath(QStringLiteral("tests/core/data/import/gpt2.config.json"))));
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

void TestImportUi::importRunsOffTheUiThread()
{
    // Issue 23 item 1: the importer runs on a worker thread while the window keeps running (a progress dialog with
    // Cancel after FileController::kProgressDelayMs); the unsaved edits are autosaved before it starts, and a cancelled
    // or failed import leaves the document and its edits as they were.
    auto* doc = m_window->document();
    m_window->files()->autosave()->setDirectory(m_dir.filePath(QStringLiteral("autosave")));
    doc->edit(
        QStringLiteral("Set layers"), QStringLiteral("model.layers"), [](core::Scenario& s) { s.model.layers = 40; });
    const core::Scenario edited = doc->scenario();
    const QString path = test::sourcePath(QStringLiteral("tests/core/data/import/mixtral-8x7b.config.json"));

    auto release = std::make_shared<QSemaphore>();
    auto onWorker = std::make_shared<bool>(false);
    m_window->importer()->setImporter(
        [release, onWorker](core::ImportSource, const std::string&, const core::Scenario& base) {
            *onWorker = QThread::currentThread() != QCoreApplication::instance()->thread();
            release->acquire();
            core::ImportResult r;
            r.scenario = base;
            return r;
        });
    bool autosavedBefore = false;
    bool dialogShown = false;
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
        if (!autosavedBefore) // the UI thread runs while the importer works
            autosavedBefore = QFile::exists(m_window->files()->autosave()->currentFile());
        auto* progress = m_window->findChild<QProgressDialog*>();
        if (!progress || !progress->isVisible() || dialogShown)
            return;
        dialogShown = true;
        if (auto* cancel = progress->findChild<QPushButton*>())
            cancel->click();
    });
    poll.start(10);
    QVERIFY(!m_window->importer()->importFile(path));
    release->release();
    poll.stop();
    QVERIFY(*onWorker);
    QVERIFY(autosavedBefore);
    QVERIFY(dialogShown);
    QCOMPARE(doc->scenario(), edited);
    QVERIFY(doc->isModified());
    QVERIFY(m_messages.isEmpty()); // cancelled: nothing to say but the status line

    // A failing importer: one message, the document untouched.
    m_window->importer()->setImporter([](core::ImportSource, const std::string&, const core::Scenario& base) {
        core::ImportResult r;
        r.scenario = base;
        r.errors.push_back({ "model.hidden_size", "must be a multiple of num_attention_heads" });
        return r;
    });
    QVERIFY(!m_window->importer()->importFile(path));
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages.front().contains(QLatin1String("model.hidden_size")), qPrintable(m_messages.front()));
    QCOMPARE(doc->scenario(), edited);
    QVERIFY(doc->isModified());
}

namespace {
/// The message box the window shows (non-modal to the event loop: QMessageBox::open), once it is visible.
QMessageBox* shownBox(QWidget* window)
{
    for (auto* box : window->findChildren<QMessageBox*>())
        if (box->isVisible())
            return box;
    return nullptr;
}
} // namespace

void TestImportUi::fileNamesAndContentShowAsPlainText()
{
    // Issue 23 item 5: a file named like HTML, whose content holds a link and a local image, is refused in a box
    // that shows all of it literally: every label of the box is plain text.
    m_window->importer()->setMessageHandler({});
    const QString name = QStringLiteral("<b><font color='red' size='7'>x.json"); // no '/': a file name
    const QString path = write(name,
        R"({"model_type": "<a href='https://example.com'>link</a><img src='/usr/share/pixmaps/debian-logo.png'>"})");
    QVERIFY(!m_window->importer()->importFile(path, core::ImportSource::HfConfig));
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = shownBox(m_window)));
    QCOMPARE(box->textFormat(), Qt::PlainText);
    QString shown;
    for (QLabel* label : box->findChildren<QLabel*>()) {
        if (label->text().isEmpty())
            continue; // the icon
        QCOMPARE(label->textFormat(), Qt::PlainText);
        shown += label->text();
    }
    QVERIFY2(shown.contains(name) && shown.contains(QLatin1String("<img src=")), qPrintable(shown));
    QVERIFY(box->windowTitle().contains(name));
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(box->grab().save(dir + QStringLiteral("/import-refused.png")));
    box->close();
    QCOMPARE(m_window->document()->scenario(), core::defaultScenario(test::catalog()));
}

void TestImportUi::hugeWarningListFitsTheScreen()
{
    // Issue 23 item 3: a note of 200,000 lines (one unknown key each, the first a 1 MB line) shows 20 lines, each
    // cut at kMaxMessageLineChars, and "… and 199,980 more"; the next ones are in its scrollable details; the box is
    // no taller than the screen and its OK button on it.
    QStringList notes { QString(1 << 20, QLatin1Char('k')) };
    constexpr int kUnknown = 200'000;
    for (int i = 1; i < kUnknown; ++i)
        notes << QStringLiteral("unknown_%1: unknown key, ignored").arg(i);
    ui::showMessage(m_window, QStringLiteral("Imported config.json with notes"), notes.join(QLatin1Char('\n')));
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = shownBox(m_window)));
    const QStringList lines = box->text().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), ui::kMaxMessageLines + 1);
    QCOMPARE(lines.front().size(), ui::kMaxMessageLineChars);
    QCOMPARE(lines.back(), QStringLiteral("… and %1 more").arg(QLocale().toString(kUnknown - ui::kMaxMessageLines)));
    QVERIFY(box->detailedText().startsWith(QStringLiteral("unknown_%1:").arg(ui::kMaxMessageLines)));
    QCOMPARE(box->detailedText().count(QLatin1Char('\n')), ui::kMaxDetailLines); // and "… and N more"
    const QRect screen = box->screen()->availableGeometry();
    QVERIFY2(
        box->frameGeometry().height() <= screen.height(), qPrintable(QString::number(box->frameGeometry().height())));
    QVERIFY2(
        box->width() <= screen.width(), qPrintable(QString::number(box->width()))); // QMessageBox wraps anywhere there
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(box->grab().save(dir + QStringLiteral("/huge-note.png")));
    box->close();
}

QTEST_MAIN(TestImportUi)
#include "tst_import_ui.moc"
