// SPDX-License-Identifier: GPL-3.0-or-later
// Trust what you save (issue 12): a save or autosave onto a really full disk (a 256 KiB tmpfs, see
// run_with_small_tmpfs.sh) or failing at any step keeps the old file, says why, and keeps the document modified
// and its autosave; FIFOs, devices, folders and huge files are refused at once; a slow open can be cancelled and
// a file that hung a start is not reopened; changes by other programs are noticed; a second ShardScope opening the
// same file is warned; SIGTERM and SIGHUP write the autosave.
#include "test_support.h"

#include "session/autosave.h"
#include "session/document_lock.h"
#include "session/file_controller.h"
#include "session/termination_signals.h"
#include "document/scenario_document.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <shardscope/core/file_io.h>
#include <shardscope/core/scenario_json.h>

#include <QElapsedTimer>
#include <QLockFile>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

using namespace shardscope;
using core::WriteStep;
using ui::ExternalChangeChoice;

Q_DECLARE_METATYPE(core::WriteStep)
Q_DECLARE_METATYPE(ui::ExternalChangeChoice)

namespace {
QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString metaOf(const QString& contentPath)
{
    return contentPath.left(contentPath.size() - int(sizeof(".shardscope.json")) + 1) + QStringLiteral(".meta.json");
}

core::Scenario named(const std::string& name, int nodes)
{
    core::Scenario s = core::defaultScenario(test::catalog());
    s.name = name;
    s.cluster.nodes = nodes;
    return s;
}

/// Free bytes of the file system holding dir.
qint64 freeBytes(const QString& dir)
{
    struct statvfs st { };
    return ::statvfs(QFile::encodeName(dir).constData(), &st) == 0 ? qint64(st.f_bavail) * qint64(st.f_frsize) : -1;
}

/// Fills dir's file system with dir/filler until a write fails with ENOSPC, then gives back `leave` bytes
/// (tmpfs counts whole pages).
bool fillLeaving(const QString& dir, qint64 leave)
{
    QFile filler(QDir(dir).filePath(QStringLiteral("filler")));
    if (!filler.open(QIODevice::WriteOnly))
        return false;
    const QByteArray block(4096, 'f');
    while (filler.write(block) == block.size() && filler.flush()) { }
    filler.close();
    const qint64 full = QFileInfo(filler.fileName()).size();
    return freeBytes(dir) < 4096 && QFile::resize(filler.fileName(), qMax<qint64>(0, full - leave));
}

/// The pid of a process that has exited.
qint64 deadPid()
{
    QProcess p;
    p.start(QStringLiteral("/bin/sh"), { QStringLiteral("-c"), QStringLiteral("echo $$") });
    return p.waitForFinished(30000) ? p.readAllStandardOutput().trimmed().toLongLong() : 0;
}
} // namespace

class TestFileSafety : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void fullDiskSaveKeepsOldFileAndAutosave();
    void openFailureWarnsWithoutBlocking();
    void fullDiskAutosaveKeepsPreviousAutosave();
    void failureAtEachWriteStepKeepsOldFiles_data();
    void failureAtEachWriteStepKeepsOldFiles();
    void specialAndHugeFilesRefusedAtOnce_data();
    void specialAndHugeFilesRefusedAtOnce();
    void slowOpenShowsProgressAndCancelChangesNothing();
    void startUpSkipsFileThatStoppedLastRun();
    void externalEditAskedBeforeSave_data();
    void externalEditAskedBeforeSave();
    void externalEditReportedWhileOpen();
    void secondInstanceIsWarned();
    void terminationSignalWritesAutosave_data();
    void terminationSignalWritesAutosave();

private:
    [[nodiscard]] ui::ScenarioDocument* doc() const { return m_window->document(); }
    [[nodiscard]] ui::FileController* files() const { return m_window->files(); }
    /// A normal scenario with its pinned alternatives: the document plus four pins (over 4 KB, a tmpfs page),
    /// marking it modified.
    void pinFour();
    /// The small tmpfs, or "" (then the test is skipped).
    [[nodiscard]] static QString smallTmpfs() { return qEnvironmentVariable("SHARDSCOPE_SMALL_TMPFS"); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QTemporaryDir> m_runtime;
    ui::AppSettings* m_settings = nullptr;
    ui::MainWindow* m_window = nullptr;
    QStringList m_messages; ///< "title|text" of every message box
};

void TestFileSafety::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_runtime = std::make_unique<QTemporaryDir>(); // the document locks of this test only
    QVERIFY(m_runtime->isValid());
    qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime->path()));
}

void TestFileSafety::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_settings = new ui::AppSettings(m_dir->filePath(QStringLiteral("settings.ini")), nullptr);
    m_window = new ui::MainWindow(test::catalog(), m_settings);
    files()->autosave()->setDirectory(m_dir->filePath(QStringLiteral("autosave")));
    m_messages.clear();
    files()->setMessageHandler(
        [this](const QString& title, const QString& text) { m_messages << title + QLatin1Char('|') + text; });
    files()->setSecondInstanceHandler([](const QString& path, qint64 pid) {
        qWarning("unexpected second-instance warning: %s (%lld)", qPrintable(path), pid);
        return false;
    });
}

void TestFileSafety::cleanup()
{
    core::setAtomicWriteFaultForTesting(WriteStep::Write, 0);
    if (m_window) {
        doc()->undoStack()->setClean();
        delete m_window;
        m_window = nullptr;
    }
    delete m_settings;
    m_dir.reset();
    if (const QString tmpfs = smallTmpfs(); !tmpfs.isEmpty()) // empty again for the next test
        for (const QFileInfo& f : QDir(tmpfs).entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot))
            f.isDir() ? (void)QDir(f.filePath()).removeRecursively() : (void)QFile::remove(f.filePath());
}

void TestFileSafety::pinFour()
{
    for (int i = 0; i < 4; ++i)
        doc()->pin(named("pinned " + std::to_string(i), 2 + i));
    QCOMPARE(doc()->pins().size(), size_t(4));
}

void TestFileSafety::fullDiskSaveKeepsOldFileAndAutosave()
{
    const QString tmpfs = smallTmpfs();
    if (tmpfs.isEmpty())
        QSKIP("needs the small tmpfs of run_with_small_tmpfs.sh (ctest, as root)");
    const QString path = QDir(tmpfs).filePath(QStringLiteral("plan.shardscope.json"));
    doc()->edit(QStringLiteral("name"), QStringLiteral("name"), [](core::Scenario& s) { s.name = "as saved"; });
    QString error;
    QVERIFY2(files()->saveTo(path, &error), qPrintable(error));
    const QByteArray old = readAll(path);
    QVERIFY(!old.isEmpty());
    // Unsaved work, autosaved on another disk.
    pinFour();
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 9; });
    QVERIFY(files()->autosave()->autosaveNow());
    const QString autosave = files()->autosave()->currentFile();
    const QByteArray autosaved = readAll(autosave);
    QVERIFY(fillLeaving(tmpfs, 4096)); // a few KB left, fewer than the save needs (the autosave's size)
    QVERIFY2(freeBytes(tmpfs) > 0 && freeBytes(tmpfs) < autosaved.size(),
        qPrintable(QStringLiteral("%1 bytes free, %2 to write").arg(freeBytes(tmpfs)).arg(autosaved.size())));
    QVERIFY(!files()->save());

    QCOMPARE(readAll(path), old);
    QVERIFY(doc()->isModified());
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages[0].startsWith(QStringLiteral("Cannot save|")), qPrintable(m_messages[0]));
    QVERIFY2(m_messages[0].contains(QStringLiteral("No space left on device")), qPrintable(m_messages[0]));
    QVERIFY2(m_messages[0].contains(path), qPrintable(m_messages[0]));
    QCOMPARE(readAll(autosave), autosaved);
    QCOMPARE(QDir(tmpfs).entryList(QDir::Files | QDir::Hidden, QDir::Name),
        (QStringList { QStringLiteral("filler"), QStringLiteral("plan.shardscope.json") })); // no temporary left
    // Room again: the save works and only then the autosave goes.
    QVERIFY(QFile::remove(QDir(tmpfs).filePath(QStringLiteral("filler"))));
    QVERIFY(files()->save());
    QVERIFY(!doc()->isModified());
    QVERIFY(!QFileInfo::exists(autosave));
    QCOMPARE(ui::readScenarioFile(path, test::catalog()).scenario.cluster.nodes, 9);
}

void TestFileSafety::fullDiskAutosaveKeepsPreviousAutosave()
{
    const QString tmpfs = smallTmpfs();
    if (tmpfs.isEmpty())
        QSKIP("needs the small tmpfs of run_with_small_tmpfs.sh (ctest, as root)");
    ui::Autosaver* autosave = files()->autosave();
    autosave->setDirectory(QDir(tmpfs).filePath(QStringLiteral("autosave")));
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 5; });
    QVERIFY(autosave->autosaveNow());
    const QString content = autosave->currentFile();
    const QByteArray previous = readAll(content);
    const QByteArray previousMeta = readAll(metaOf(content));
    QVERIFY(!previous.isEmpty() && !previousMeta.isEmpty());

    QVERIFY(fillLeaving(tmpfs, 4096));
    pinFour();
    QVERIFY(freeBytes(tmpfs) > 0);
    QSignalSpy status(autosave, &ui::Autosaver::statusMessage);
    QString error;
    QVERIFY(!autosave->autosaveNow(&error));
    QVERIFY2(error.contains(QStringLiteral("No space left on device")), qPrintable(error));
    QCOMPARE(readAll(content), previous);
    QCOMPARE(readAll(metaOf(content)), previousMeta);
    QCOMPARE(autosave->currentFile(), content);
    QCOMPARE(status.count(), 1);
    QVERIFY(status.at(0).at(0).toString().contains(QStringLiteral("No space left on device")));
    QCOMPARE(m_messages.size(), 1); // the visible warning
    QVERIFY2(m_messages[0].startsWith(QStringLiteral("Autosave failed|")), qPrintable(m_messages[0]));
    // Failing again: still reported by the return value, but no new warning every 30 seconds.
    QVERIFY(!autosave->autosaveNow());
    QCOMPARE(status.count(), 1);
    QCOMPARE(m_messages.size(), 1);
    QCOMPARE(readAll(content), previous);
}

void TestFileSafety::failureAtEachWriteStepKeepsOldFiles_data()
{
    QTest::addColumn<WriteStep>("step");
    QTest::addColumn<int>("err");
    QTest::newRow("write") << WriteStep::Write << ENOSPC;
    QTest::newRow("sync") << WriteStep::Sync << EIO;
    QTest::newRow("verify") << WriteStep::Verify << EIO;
    QTest::newRow("close") << WriteStep::Close << EDQUOT;
    QTest::newRow("rename") << WriteStep::Rename << EACCES;
}

void TestFileSafety::failureAtEachWriteStepKeepsOldFiles()
{
    QFETCH(WriteStep, step);
    QFETCH(int, err);
    const QString reason = QString::fromLocal8Bit(std::strerror(err));
    const QString path = QFileInfo(m_dir->filePath(QStringLiteral("kept.shardscope.json"))).absoluteFilePath();
    QVERIFY(files()->saveTo(path));
    const QByteArray old = readAll(path);
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 6; });
    QVERIFY(files()->autosave()->autosaveNow());
    const QString autosave = files()->autosave()->currentFile();
    const QByteArray autosaved = readAll(autosave);

    // Save
    core::setAtomicWriteFaultForTesting(step, err);
    QVERIFY(!files()->save());
    QCOMPARE(readAll(path), old);
    QVERIFY(doc()->isModified());
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages[0].contains(reason) && m_messages[0].contains(path), qPrintable(m_messages[0]));
    QCOMPARE(readAll(autosave), autosaved);
    QCOMPARE(QDir(m_dir->path()).entryList({ QStringLiteral("*kept*") }, QDir::Files | QDir::Hidden),
        QStringList { QStringLiteral("kept.shardscope.json") });

    // Autosave (content file)
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 7; });
    core::setAtomicWriteFaultForTesting(step, err);
    QString error;
    QVERIFY(!files()->autosave()->autosaveNow(&error));
    QVERIFY2(error.contains(reason), qPrintable(error));
    QCOMPARE(readAll(autosave), autosaved);
    QCOMPARE(m_messages.size(), 2);
    QVERIFY2(m_messages[1].startsWith(QStringLiteral("Autosave failed|")), qPrintable(m_messages[1]));

    // The fault was once: both work again.
    QVERIFY(files()->autosave()->autosaveNow());
    QCOMPARE(ui::readScenarioFile(autosave, test::catalog()).scenario.cluster.nodes, 7);
    QVERIFY(files()->save());
    QVERIFY(!QFileInfo::exists(autosave));
    QCOMPARE(ui::readScenarioFile(path, test::catalog()).scenario.cluster.nodes, 7);
}

void TestFileSafety::specialAndHugeFilesRefusedAtOnce_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("rule");
    QTest::newRow("fifo") << QStringLiteral("fifo") << QStringLiteral("not a regular file");
    QTest::newRow("/dev/zero") << QStringLiteral("device") << QStringLiteral("not a regular file");
    QTest::newRow("directory") << QStringLiteral("directory") << QStringLiteral("directory");
    QTest::newRow("3 GB sparse") << QStringLiteral("sparse") << QStringLiteral("the limit is 16777216 bytes");
}

void TestFileSafety::specialAndHugeFilesRefusedAtOnce()
{
    QFETCH(QString, kind);
    QFETCH(QString, rule);
    QString path = m_dir->filePath(kind);
    if (kind == QLatin1String("fifo")) {
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0); // no writer: a blocking open never returns
    } else if (kind == QLatin1String("device")) {
        path = QStringLiteral("/dev/zero");
    } else if (kind == QLatin1String("directory")) {
        QVERIFY(QDir().mkpath(path));
    } else {
        QFile sparse(path);
        QVERIFY(sparse.open(QIODevice::WriteOnly));
        QVERIFY(sparse.resize(qint64(3) << 30)); // ftruncate: 3 GB, no blocks
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_settings->setLastScenario(abs);
    const core::Scenario before = doc()->scenario();

    QElapsedTimer clock;
    clock.start();
    QVERIFY(!files()->open(path));
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages[0].contains(abs) && m_messages[0].contains(rule), qPrintable(m_messages[0]));
    QCOMPARE(doc()->scenario(), before);
    QVERIFY(doc()->filePath().isEmpty());
    QVERIFY(m_settings->lastScenario().isEmpty()); // not tried again at the next start
    QVERIFY(m_settings->openingScenario().isEmpty());
    const ui::ScenarioLoad direct = ui::readScenarioFile(path, test::catalog());
    QVERIFY(!direct.ok());
    QVERIFY2(direct.errors.join(QLatin1Char(' ')).contains(rule), qPrintable(direct.errors.join(QLatin1Char(' '))));
}

void TestFileSafety::slowOpenShowsProgressAndCancelChangesNothing()
{
    const QString path = QFileInfo(m_dir->filePath(QStringLiteral("slow.shardscope.json"))).absoluteFilePath();
    QVERIFY(ui::writeScenarioFile(path, named("slow", 3), test::catalog()).isEmpty());
    doc()->edit(QStringLiteral("name"), QStringLiteral("name"), [](core::Scenario& s) { s.name = "mine"; });
    const core::Scenario before = doc()->scenario();
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));

    // A quick open: no dialog at all.
    int dialogs = 0;
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
        if (m_window->findChild<QProgressDialog*>())
            ++dialogs;
    });
    poll.start(5);
    QVERIFY(files()->openFile(path));
    QCOMPARE(dialogs, 0);
    QCOMPARE(doc()->scenario().name, std::string("slow"));
    doc()->edit(QStringLiteral("name"), QStringLiteral("name"), [&](core::Scenario& s) { s = before; });
    const QString boundTo = doc()->filePath();

    // A reader that does not finish until released: the window keeps running, the dialog appears, Cancel.
    auto release = std::make_shared<QSemaphore>();
    files()->setScenarioReader([release](const QString&) {
        release->acquire();
        return ui::ScenarioLoad {};
    });
    QString markerWhileOpening;
    QElapsedTimer clock;
    qint64 shownAfter = -1;
    poll.disconnect();
    connect(&poll, &QTimer::timeout, this, [&] {
        auto* progress = m_window->findChild<QProgressDialog*>();
        if (!progress || !progress->isVisible() || shownAfter >= 0)
            return;
        shownAfter = clock.elapsed();
        markerWhileOpening = m_settings->openingScenario();
        if (auto* cancel = progress->findChild<QPushButton*>())
            cancel->click();
    });
    clock.start();
    QString error;
    QVERIFY(!files()->openFile(path, &error));
    release->release();
    QVERIFY2(shownAfter >= ui::FileController::kProgressDelayMs - 50, qPrintable(QString::number(shownAfter)));
    QVERIFY2(error.contains(QStringLiteral("cancelled")), qPrintable(error));
    QCOMPARE(markerWhileOpening, path);
    QVERIFY(m_settings->openingScenario().isEmpty());
    QVERIFY(m_settings->lastScenario().isEmpty()); // too slow: not reopened at the next start
    QCOMPARE(doc()->scenario(), before);
    QCOMPARE(doc()->filePath(), boundTo);
    QVERIFY(doc()->isModified());
}

void TestFileSafety::startUpSkipsFileThatStoppedLastRun()
{
    const QString path = QFileInfo(m_dir->filePath(QStringLiteral("last.shardscope.json"))).absoluteFilePath();
    QVERIFY(ui::writeScenarioFile(path, named("last", 3), test::catalog()).isEmpty());
    // The previous run crashed or hung while opening it: the marker is still set.
    m_settings->setLastScenario(path);
    m_settings->setOpeningScenario(path);
    QVERIFY(!files()->reopenLastScenario());
    QVERIFY(doc()->filePath().isEmpty());
    QVERIFY(m_settings->lastScenario().isEmpty());
    QVERIFY(m_settings->openingScenario().isEmpty());
    // A normal start reopens it.
    m_settings->setLastScenario(path);
    QVERIFY(files()->reopenLastScenario());
    QCOMPARE(doc()->filePath(), path);
    QCOMPARE(doc()->scenario().name, std::string("last"));
}

void TestFileSafety::externalEditAskedBeforeSave_data()
{
    QTest::addColumn<ExternalChangeChoice>("choice");
    QTest::addColumn<bool>("inPlace"); // rewritten in place (same inode) or replaced by a rename
    QTest::newRow("reload") << ExternalChangeChoice::Reload << false;
    QTest::newRow("overwrite") << ExternalChangeChoice::Overwrite << false;
    QTest::newRow("overwrite, edited in place") << ExternalChangeChoice::Overwrite << true;
    QTest::newRow("save as") << ExternalChangeChoice::SaveAs << false;
    QTest::newRow("cancel") << ExternalChangeChoice::Cancel << true;
}

void TestFileSafety::externalEditAskedBeforeSave()
{
    QFETCH(ExternalChangeChoice, choice);
    QFETCH(bool, inPlace);
    const core::Catalog& catalog = test::catalog();
    const QString path = QFileInfo(m_dir->filePath(QStringLiteral("shared.shardscope.json"))).absoluteFilePath();
    const QString other = QFileInfo(m_dir->filePath(QStringLiteral("mine.shardscope.json"))).absoluteFilePath();
    QStringList asked;
    files()->setExternalChangeHandler([&](const QString& p) {
        asked << p;
        return choice;
    });
    files()->setFileDialogHandler([other](bool) { return other; });
    QVERIFY(files()->saveTo(path));
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 2; });
    QVERIFY(files()->save()); // nobody else touched it: no question
    QVERIFY(asked.isEmpty());

    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 3; });
    const core::Scenario mine = doc()->scenario();
    const core::Scenario theirs = named("changed by someone else, a longer name", 7);
    if (inPlace) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QVERIFY(f.write(QByteArray::fromStdString(core::scenarioToJson(theirs, catalog))) > 0);
    } else {
        QVERIFY(ui::writeScenarioFile(path, theirs, catalog).isEmpty());
    }
    const QByteArray theirBytes = readAll(path);

    const bool saved = files()->save();
    QCOMPARE(asked, QStringList { path });
    switch (choice) {
    case ExternalChangeChoice::Reload:
        QVERIFY(!saved);
        QCOMPARE(doc()->scenario(), theirs);
        QVERIFY(!doc()->isModified());
        QCOMPARE(readAll(path), theirBytes);
        break;
    case ExternalChangeChoice::Overwrite:
        QVERIFY(saved);
        QCOMPARE(ui::readScenarioFile(path, catalog).scenario, mine);
        QVERIFY(!doc()->isModified());
        break;
    case ExternalChangeChoice::SaveAs:
        QVERIFY(saved);
        QCOMPARE(readAll(path), theirBytes);
        QCOMPARE(ui::readScenarioFile(other, catalog).scenario, mine);
        QCOMPARE(doc()->filePath(), other);
        QVERIFY(!doc()->isModified());
        break;
    case ExternalChangeChoice::Cancel:
        QVERIFY(!saved);
        QCOMPARE(readAll(path), theirBytes);
        QCOMPARE(doc()->scenario(), mine);
        QVERIFY(doc()->isModified());
        break;
    }
    QVERIFY(m_messages.isEmpty());
}

void TestFileSafety::externalEditReportedWhileOpen()
{
    const core::Catalog& catalog = test::catalog();
    const QString path = QFileInfo(m_dir->filePath(QStringLiteral("watched.shardscope.json"))).absoluteFilePath();
    QVERIFY(files()->saveTo(path));
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QSignalSpy changed(files(), &ui::FileController::fileChangedOnDisk);
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 3; });
    QVERIFY(files()->save()); // our own save is not someone else's change (it would be reported before the next)
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 4; });
    const core::Scenario mine = doc()->scenario();

    QVERIFY(ui::writeScenarioFile(path, named("theirs", 9), catalog).isEmpty());
    QVERIFY(changed.wait(10000));
    QCoreApplication::processEvents();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toString(), path);
    QCOMPARE(doc()->scenario(), mine); // the unsaved edits are still there
    QVERIFY(doc()->isModified());
    auto* notice = m_window->findChild<QMessageBox*>(QStringLiteral("changedOnDiskNotice"));
    QVERIFY(notice && notice->isVisible());
    QVERIFY(!notice->isModal());
    QAbstractButton* keep = nullptr;
    QAbstractButton* reload = nullptr;
    for (QAbstractButton* b : notice->buttons())
        (b->text() == QStringLiteral("&Keep") ? keep : reload) = b;
    QVERIFY(keep && reload);
    keep->click();
    QTRY_VERIFY(!m_window->findChild<QMessageBox*>(QStringLiteral("changedOnDiskNotice")));
    QCOMPARE(doc()->scenario(), mine);

    // Changed again: reported again; Reload takes the file as it is now.
    const core::Scenario theirs = named("theirs again", 11);
    QVERIFY(ui::writeScenarioFile(path, theirs, catalog).isEmpty());
    QVERIFY(changed.wait(10000));
    notice = m_window->findChild<QMessageBox*>(QStringLiteral("changedOnDiskNotice"));
    QVERIFY(notice);
    for (QAbstractButton* b : notice->buttons())
        if (b->text() == QStringLiteral("&Reload"))
            b->click();
    QTRY_COMPARE(doc()->scenario(), theirs);
    QVERIFY(!doc()->isModified());
    QVERIFY(m_messages.isEmpty());
}

void TestFileSafety::secondInstanceIsWarned()
{
    const core::Catalog& catalog = test::catalog();
    const QString path = QFileInfo(m_dir->filePath(QStringLiteral("both.shardscope.json"))).absoluteFilePath();
    QVERIFY(files()->saveTo(path)); // this window has it open
    QVERIFY(QFileInfo::exists(ui::DocumentLock::lockFileFor(path)));
    QCOMPARE(ui::DocumentLock::holder(path), QCoreApplication::applicationPid());

    ui::AppSettings settings2(m_dir->filePath(QStringLiteral("settings2.ini")), nullptr);
    ui::ScenarioDocument doc2(catalog);
    ui::FileController files2(&doc2, &settings2, nullptr);
    QList<qint64> warned;
    bool goAhead = false;
    files2.setSecondInstanceHandler([&](const QString& p, qint64 pid) {
        warned << pid;
        return p == path && goAhead;
    });
    QString error;
    QVERIFY(!files2.openFile(path, &error));
    QCOMPARE(warned, QList<qint64> { QCoreApplication::applicationPid() });
    QVERIFY2(error.contains(QStringLiteral("open in another ShardScope")), qPrintable(error));
    QVERIFY(doc2.filePath().isEmpty());
    // Save As onto it is warned too.
    files2.setFileDialogHandler([path](bool) { return path; });
    const QByteArray bytes = readAll(path);
    doc2.edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 13; });
    QVERIFY(!files2.saveAs());
    QCOMPARE(warned.size(), 2);
    QCOMPARE(readAll(path), bytes);
    doc2.undoStack()->setClean();
    // Open anyway.
    goAhead = true;
    QVERIFY(files2.openFile(path));
    QCOMPARE(warned.size(), 3);
    QCOMPARE(doc2.filePath(), path);

    // This window moves on: the lock is released and nobody is warned any more.
    files()->newScenario();
    QCOMPARE(ui::DocumentLock::holder(path), qint64(0));
    ui::ScenarioDocument doc3(catalog);
    ui::FileController files3(&doc3, &settings2, nullptr);
    files3.setSecondInstanceHandler([](const QString&, qint64) {
        qWarning("warned about a file nobody has open");
        return false;
    });
    QVERIFY(files3.openFile(path));

    // A lock left by a process that died is stale: ignored.
    files3.newScenario();
    const QString lockPath = ui::DocumentLock::lockFileFor(path);
    QVERIFY(!QFileInfo::exists(lockPath));
    QByteArray contents;
    {
        QLockFile real(m_dir->filePath(QStringLiteral("real.lock")));
        QVERIFY(real.tryLock(0));
        contents = readAll(m_dir->filePath(QStringLiteral("real.lock")));
    }
    const qint64 dead = deadPid();
    QVERIFY(dead > 0);
    contents = QByteArray::number(dead) + contents.mid(contents.indexOf('\n'));
    QFile stale(lockPath);
    QVERIFY(stale.open(QIODevice::WriteOnly));
    QVERIFY(stale.write(contents) == contents.size());
    stale.close();
    QCOMPARE(ui::DocumentLock::holder(path), qint64(0));
    QVERIFY(files3.openFile(path));
}

void TestFileSafety::terminationSignalWritesAutosave_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << SIGTERM;
    QTest::newRow("SIGHUP") << SIGHUP;
}

void TestFileSafety::terminationSignalWritesAutosave()
{
    QFETCH(int, signal);
    ui::TerminationSignals termination(files()->autosave());
    QVERIFY(termination.isInstalled());
    QSignalSpy requested(&termination, &ui::TerminationSignals::terminationRequested);
    doc()->edit(
        QStringLiteral("name"), QStringLiteral("name"), [](core::Scenario& s) { s.name = "typed just before logout"; });
    QCOMPARE(files()->autosave()->interval(), 30'000);
    QVERIFY(files()->autosave()->currentFile().isEmpty()); // not autosaved yet

    QCOMPARE(::raise(signal), 0);
    QVERIFY(requested.wait(10000));
    QCOMPARE(requested.at(0).at(0).toInt(), signal);
    const QString autosave = files()->autosave()->currentFile();
    QVERIFY(QFileInfo::exists(autosave));
    QCOMPARE(ui::readScenarioFile(autosave, test::catalog()).scenario, doc()->scenario());
    // Quitting (the window and its document go) leaves it for the next start to offer back.
    delete m_window;
    m_window = nullptr;
    QVERIFY(QFileInfo::exists(autosave));
    QVERIFY(QFileInfo::exists(metaOf(autosave)));
}

void TestFileSafety::openFailureWarnsWithoutBlocking()
{
    // With no handler, a file that cannot be read is said in a window-modal box that does not block: open() returns
    // and the event loop goes on (a blocking box held `shardscope --screenshot` on a malformed file for ever).
    const QString path = m_dir->filePath(QStringLiteral("cut.shardscope.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "shardscope.scenario/1", "model": {)");
    f.close();
    files()->setMessageHandler({});
    m_window->show();
    QVERIFY(!files()->open(path));
    QMessageBox* box = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* b = qobject_cast<QMessageBox*>(w); b && b->isVisible())
            box = b;
    QVERIFY(box);
    QVERIFY2(box->text().contains(QStringLiteral("not valid JSON: parse error at line 1")), qPrintable(box->text()));
    QVERIFY(!box->text().contains(QStringLiteral("json.exception")));
    box->done(QMessageBox::Ok); // deletes itself
}

QTEST_MAIN(TestFileSafety)
#include "tst_file_safety.moc"
