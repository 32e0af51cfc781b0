// SPDX-License-Identifier: GPL-3.0-or-later
// No lost work (issue 6): a save killed at any moment leaves the previous file or the new one, never a mix; a
// failed save keeps the old file and names it; unsaved changes are autosaved every interval and the autosave
// goes away once the user saved or decided; a crashed process's autosave is offered back and restores the
// scenario and its pins; a running one's is not.
#include "save_victim.h"
#include "settle.h"
#include "test_support.h"

#include "session/autosave.h"
#include "session/file_controller.h"
#include "document/scenario_document.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <shardscope/core/scenario_json.h>

#include <QApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>

#include <csignal>
#include <memory>
#include <sys/resource.h>
#include <unistd.h>

using namespace shardscope;
using ui::AutosaveEntry;
using ui::Autosaver;
using ui::RecoveryDecision;

namespace {
constexpr int kKills = 30;

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString metaOf(const QString& contentPath)
{
    return contentPath.left(contentPath.size() - int(sizeof(".shardscope.json")) + 1) + QStringLiteral(".meta.json");
}

QJsonObject readMeta(const QString& contentPath)
{
    return QJsonDocument::fromJson(readAll(metaOf(contentPath))).object();
}

/// The "autosave" files in dir (scenario and sidecar).
QStringList autosaveFiles(const QString& dir)
{
    return QDir(dir).entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name);
}

/// A pid that belonged to a process that has exited.
qint64 deadPid()
{
    QProcess p;
    p.start(QStringLiteral(SAVE_VICTIM), { QStringLiteral("exit") });
    if (!p.waitForFinished(30000))
        return 0;
    return p.readAllStandardOutput().trimmed().toLongLong();
}

/// An autosave as a crashed ShardScope would have left it.
AutosaveEntry writeOrphan(const QString& dir, const QString& key, qint64 pid, const QString& originalPath,
    const QDateTime& savedAt, const core::Scenario& scenario, qint64 processStart = 0)
{
    QDir().mkpath(dir);
    AutosaveEntry e;
    e.contentPath = QDir(dir).filePath(QStringLiteral("%1-%2.shardscope.json").arg(key).arg(pid));
    e.metaPath = metaOf(e.contentPath);
    e.originalPath = originalPath;
    e.savedAt = savedAt;
    e.pid = pid;
    e.name = QString::fromStdString(scenario.name);
    if (!ui::writeScenarioFile(e.contentPath, scenario, test::catalog()).isEmpty())
        return {};
    QJsonObject meta { { QStringLiteral("schema"), QStringLiteral("shardscope.autosave/1") },
        { QStringLiteral("original_path"), originalPath },
        { QStringLiteral("saved_at"), savedAt.toUTC().toString(Qt::ISODateWithMs) }, { QStringLiteral("pid"), pid },
        { QStringLiteral("process_start"), processStart }, { QStringLiteral("name"), e.name } };
    QFile f(e.metaPath);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(meta).toJson()) <= 0)
        return {};
    return e;
}

/// Reads stdout of a running process until it contains needle.
bool waitForOutput(QProcess& p, QByteArray& out, const QByteArray& needle, int ms = 30000)
{
    QDeadlineTimer deadline(ms);
    while (!out.contains(needle)) {
        if (deadline.hasExpired() || p.state() != QProcess::Running)
            return false;
        p.waitForReadyRead(int(qMax<qint64>(1, deadline.remainingTime())));
        out += p.readAllStandardOutput();
    }
    return true;
}
} // namespace

class TestNoLostWork : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void saveKilledDuringSavesLeavesOldOrNewFile();
    void failedSaveKeepsOldFileAndNamesIt();
    void autosavesEveryIntervalWhileModified();
    void cleanSaveRemovesAutosave();
    void newOrOpenRemovesAutosaveOnlyAfterDecision();
    void cleanExitRemovesAutosave();
    void crashedAutosaveIsOfferedAndRestored_data();
    void crashedAutosaveIsOfferedAndRestored();
    void laterKeepsAndDiscardRemoves();
    void reusedPidIsStillOffered();
    void recoveryDialogShowsFileAndTime();
    void sidecarIsWrittenBeforeTheScenario();

private:
    [[nodiscard]] ui::ScenarioDocument* doc() const { return m_window->document(); }
    [[nodiscard]] ui::FileController* files() const { return m_window->files(); }
    [[nodiscard]] QString autosaveDir() const { return m_dir->filePath(QStringLiteral("autosave")); }

    std::unique_ptr<QTemporaryDir> m_dir;
    ui::AppSettings* m_settings = nullptr;
    ui::MainWindow* m_window = nullptr;
};

void TestNoLostWork::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // never the user's own autosave folder
    QVERIFY(QFileInfo::exists(QStringLiteral(SAVE_VICTIM)));
}

void TestNoLostWork::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_settings = new ui::AppSettings(m_dir->filePath(QStringLiteral("settings.ini")), nullptr);
    m_window = new ui::MainWindow(test::catalog(), m_settings);
    files()->autosave()->setDirectory(autosaveDir());
    files()->setMessageHandler([](const QString& title, const QString& text) {
        QFAIL(qPrintable(QStringLiteral("unexpected message box: %1: %2").arg(title, text)));
    });
}

void TestNoLostWork::cleanup()
{
    doc()->undoStack()->setClean(); // no prompt on close
    delete m_window;
    delete m_settings;
    m_dir.reset();
}

void TestNoLostWork::saveKilledDuringSavesLeavesOldOrNewFile()
{
    // save_victim saves ~4 MB scenarios to one file through FileController::saveTo in a loop; it is killed with
    // SIGKILL 30 times, each time as soon as it reports that save number first + (kill mod 4) has begun (no sleeps:
    // the kill follows an event, and lands inside that save or, rarely, just after its rename). Each time the file
    // must be exactly the last completed save or the one in progress, and parse to that scenario.
    const core::Catalog& catalog = test::catalog();
    const QString target = m_dir->filePath(QStringLiteral("victim.shardscope.json"));
    const QString victimSettings = m_dir->filePath(QStringLiteral("victim.ini"));
    QVERIFY(ui::writeScenarioFile(target, test::victimScenario(0, catalog), catalog).isEmpty());
    int inFile = 0; // victimScenario(inFile) is in the file
    int insideSave = 0; // kills that landed between "begin" and "end"
    int completedSaves = 0;
    int replacedByInterruptedSave = 0;
    for (int kill = 0; kill < kKills; ++kill) {
        const int first = inFile + 1;
        QProcess victim;
        victim.start(
            QStringLiteral(SAVE_VICTIM), { QStringLiteral("save"), target, QString::number(first), victimSettings });
        QVERIFY2(victim.waitForStarted(), qPrintable(victim.errorString()));
        QByteArray out;
        QVERIFY2(waitForOutput(victim, out, "ready\n"), victim.readAllStandardError().constData());
        const QByteArray begun = QStringLiteral("begin %1\n").arg(first + kill % 4).toLatin1();
        QVERIFY2(waitForOutput(victim, out, begun), victim.readAllStandardError().constData());
        QCOMPARE(::kill(pid_t(victim.processId()), SIGKILL), 0);
        QVERIFY(victim.waitForFinished(30000));
        QCOMPARE(victim.exitStatus(), QProcess::CrashExit);
        out += victim.readAllStandardOutput();
        QVERIFY2(victim.readAllStandardError().isEmpty(), "the victim reported a save error");

        int ended = 0;
        bool started = false; // the save after the last completed one had started
        for (const QByteArray& line : out.split('\n')) {
            if (line.startsWith("end "))
                ++ended, started = false;
            else if (line.startsWith("begin "))
                started = true;
        }
        const int last = ended == 0 ? inFile : first + ended - 1; // the last save that completed
        const int inProgress = first + ended; // the one the kill interrupted
        const QByteArray bytes = readAll(target);
        int found = -1;
        if (bytes == QByteArray::fromStdString(test::victimBytes(last, catalog)))
            found = last;
        else if (started && bytes == QByteArray::fromStdString(test::victimBytes(inProgress, catalog)))
            found = inProgress;
        QVERIFY2(found >= 0,
            qPrintable(QStringLiteral("kill %1: the file (%2 bytes) is neither save %3 nor save %4")
                           .arg(kill)
                           .arg(bytes.size())
                           .arg(last)
                           .arg(inProgress)));
        const core::ScenarioParse parsed
            = core::parseScenario(std::string_view(bytes.constData(), size_t(bytes.size())), catalog);
        QVERIFY(parsed.ok());
        QVERIFY(parsed.scenario == test::victimScenario(found, catalog));
        insideSave += started ? 1 : 0;
        replacedByInterruptedSave += found == inProgress ? 1 : 0;
        completedSaves += ended;
        inFile = found;
    }
    qInfo("%d kills: %d inside a save (%d of them after its rename), %d saves completed", kKills, insideSave,
        replacedByInterruptedSave, completedSaves);
    // About 80% of the victim's time is spent inside saveTo (the rest: building the next 4 MB scenario).
    QVERIFY2(insideSave >= kKills / 3, "too few kills landed inside a save to test anything");
    QVERIFY(completedSaves > 0); // the file really was replaced along the way
    // A killed save can leave its hidden temporary file (.victim.shardscope.json.tmp-PID-N) beside the target; it
    // never took the target's place (checked above).
    const QStringList left
        = QDir(m_dir->path())
              .entryList({ QStringLiteral(".victim.shardscope.json.tmp-*") }, QDir::Files | QDir::Hidden);
    qInfo("%lld temporary files left by killed saves", qint64(left.size()));
}

void TestNoLostWork::failedSaveKeepsOldFileAndNamesIt()
{
    const QString path = m_dir->filePath(QStringLiteral("kept.shardscope.json"));
    doc()->edit(QStringLiteral("name"), QStringLiteral("name"), [](core::Scenario& s) { s.name = "the old content"; });
    QString error;
    QVERIFY2(files()->saveTo(path, &error), qPrintable(error));
    const QByteArray old = readAll(path);
    doc()->edit(
        QStringLiteral("name"), QStringLiteral("name"), [](core::Scenario& s) { s.name = std::string(1 << 20, 'n'); });
    QVERIFY(files()->autosave()->autosaveNow());
    const QString autosave = files()->autosave()->currentFile();

    QStringList messages;
    files()->setMessageHandler(
        [&messages](const QString& title, const QString& text) { messages << title + QLatin1Char('|') + text; });
    // The disk "fills up" after 64 KiB: works as root too, unlike a read-only folder.
    rlimit saved {};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
    rlimit small = saved;
    small.rlim_cur = 64 * 1024;
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool ok = files()->save();
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previousHandler);

    QVERIFY(!ok);
    QCOMPARE(readAll(path), old);
    QVERIFY(doc()->isModified());
    QCOMPARE(messages.size(), 1);
    QVERIFY2(messages[0].startsWith(QStringLiteral("Cannot save|")), qPrintable(messages[0]));
    QVERIFY2(messages[0].contains(QFileInfo(path).absoluteFilePath()), qPrintable(messages[0]));
    QCOMPARE(QDir(m_dir->path()).entryList({ QStringLiteral("kept*") }, QDir::Files),
        QStringList { QStringLiteral("kept.shardscope.json") });
    QVERIFY(QFileInfo::exists(autosave)); // the unsaved changes are still safe
    // Once the disk has room again, saving works.
    files()->setMessageHandler({});
    QVERIFY(files()->save());
    QVERIFY(!QFileInfo::exists(autosave));
}

void TestNoLostWork::autosavesEveryIntervalWhileModified()
{
    Autosaver* autosave = files()->autosave();
    QCOMPARE(autosave->interval(), 30'000); // the default
    autosave->setInterval(100);
    QSignalSpy written(autosave, &Autosaver::autosaved);
    autosave->tick(); // a period passes
    QCOMPARE(written.count(), 0); // nothing unsaved, nothing written
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());

    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 6; });
    QVERIFY(written.wait(5000));
    const QString path = autosave->currentFile();
    QCOMPARE(written.at(0).at(0).toString(), path);
    QCOMPARE(QFileInfo(path).absolutePath(), QFileInfo(autosaveDir()).absoluteFilePath());
    QCOMPARE(QFileInfo(path).fileName(),
        QStringLiteral("untitled-%1.shardscope.json").arg(QCoreApplication::applicationPid()));
    ui::ScenarioLoad load = ui::readScenarioFile(path, test::catalog());
    QVERIFY(load.ok());
    QCOMPARE(load.scenario, doc()->scenario());
    const QJsonObject meta = readMeta(path);
    QCOMPARE(meta.value(QStringLiteral("schema")).toString(), QStringLiteral("shardscope.autosave/1"));
    QCOMPARE(meta.value(QStringLiteral("original_path")).toString(), QString());
    QCOMPARE(meta.value(QStringLiteral("pid")).toInteger(), QCoreApplication::applicationPid());
    const QDateTime at = QDateTime::fromString(meta.value(QStringLiteral("saved_at")).toString(), Qt::ISODateWithMs);
    QVERIFY(qAbs(at.secsTo(QDateTime::currentDateTimeUtc())) < 60);
    QVERIFY(autosave->orphans().isEmpty()); // our own, not a crash's

    autosave->tick();
    autosave->tick();
    QCOMPARE(written.count(), 1); // no change since: not rewritten
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 7; });
    QVERIFY(written.wait(5000));
    load = ui::readScenarioFile(path, test::catalog());
    QCOMPARE(load.scenario.cluster.nodes, 7);
    QVERIFY(load.pins.empty());
    // Pinning alone is an unsaved change too: the next period writes the pins.
    const qsizetype writes = written.count();
    doc()->pin(doc()->scenario());
    autosave->tick();
    QCOMPARE(written.count(), writes + 1);
    load = ui::readScenarioFile(path, test::catalog());
    QCOMPARE(load.pins, doc()->pins());
    QCOMPARE(load.pins.size(), size_t(1));

    // A document with a file: keyed by a hash of its path; the untitled autosave is gone.
    const QString file = QFileInfo(m_dir->filePath(QStringLiteral("bound.shardscope.json"))).absoluteFilePath();
    QVERIFY(files()->saveTo(file));
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 8; });
    QVERIFY(written.wait(5000));
    const QString hash
        = QString::fromLatin1(QCryptographicHash::hash(file.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
    QCOMPARE(QFileInfo(autosave->currentFile()).fileName(),
        QStringLiteral("%1-%2.shardscope.json").arg(hash).arg(QCoreApplication::applicationPid()));
    QCOMPARE(readMeta(autosave->currentFile()).value(QStringLiteral("original_path")).toString(), file);
    QCOMPARE(autosaveFiles(autosaveDir()).size(), 2); // scenario and sidecar
}

void TestNoLostWork::sidecarIsWrittenBeforeTheScenario()
{
    // Issue 23 item 6: killed autosaves lost their sidecar about half the time, and recovery then said "never saved
    // to a file". The sidecar is written first: when the scenario's write fails (here its path is a directory, as a
    // kill between the two writes would leave it), the sidecar naming the original file is already there, and a
    // sidecar without a scenario is never offered.
    const QString file = QFileInfo(m_dir->filePath(QStringLiteral("first.shardscope.json"))).absoluteFilePath();
    QVERIFY(files()->saveTo(file));
    const QString hash
        = QString::fromLatin1(QCryptographicHash::hash(file.toUtf8(), QCryptographicHash::Sha1).toHex().left(16));
    const QString content
        = QDir(autosaveDir())
              .filePath(QStringLiteral("%1-%2.shardscope.json").arg(hash).arg(QCoreApplication::applicationPid()));
    QVERIFY(QDir().mkpath(content));
    QStringList messages;
    files()->setMessageHandler(
        [&messages](const QString& title, const QString& text) { messages << title + QLatin1Char(' ') + text; });
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 5; });
    QString error;
    QVERIFY(!files()->autosave()->autosaveNow(&error));
    QVERIFY2(error.contains(QStringLiteral("directory")), qPrintable(error));
    QCOMPARE(messages.size(), 1); // said once
    QCOMPARE(readMeta(content).value(QStringLiteral("original_path")).toString(), file);
    QVERIFY(files()->autosave()->orphans().isEmpty());
    QVERIFY(QDir(content).removeRecursively());
    QVERIFY(files()->autosave()->autosaveNow());
    QCOMPARE(readMeta(files()->autosave()->currentFile()).value(QStringLiteral("original_path")).toString(), file);
    QCOMPARE(ui::readScenarioFile(files()->autosave()->currentFile(), test::catalog()).scenario.cluster.nodes, 5);
}

void TestNoLostWork::cleanSaveRemovesAutosave()
{
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 3; });
    QVERIFY(files()->autosave()->autosaveNow());
    const QString autosave = files()->autosave()->currentFile();
    QVERIFY(QFileInfo::exists(autosave));
    QVERIFY(QFileInfo::exists(metaOf(autosave)));
    // Save As from an untitled document (the dialog is replaced).
    const QString path = m_dir->filePath(QStringLiteral("clean.shardscope.json"));
    files()->setFileDialogHandler([path](bool) { return path; });
    QVERIFY(files()->save());
    QVERIFY(!doc()->isModified());
    QVERIFY(!QFileInfo::exists(autosave));
    QVERIFY(!QFileInfo::exists(metaOf(autosave)));
    QVERIFY(files()->autosave()->currentFile().isEmpty());
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
    // Again with a document bound to its file (Save).
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 4; });
    QVERIFY(files()->autosave()->autosaveNow());
    QCOMPARE(autosaveFiles(autosaveDir()).size(), 2);
    files()->setFileDialogHandler([](bool) { return QString(); }); // must not be asked
    QVERIFY(files()->save());
    QVERIFY(!doc()->isModified());
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
    QCOMPARE(ui::readScenarioFile(path, test::catalog()).scenario.cluster.nodes, 4);
    // Undo back to the saved state: nothing unsaved, nothing kept.
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 9; });
    QVERIFY(files()->autosave()->autosaveNow());
    doc()->undoStack()->undo();
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
}

void TestNoLostWork::newOrOpenRemovesAutosaveOnlyAfterDecision()
{
    const QString other = m_dir->filePath(QStringLiteral("other.shardscope.json"));
    QVERIFY(ui::writeScenarioFile(other, core::defaultScenario(test::catalog()), test::catalog()).isEmpty());
    QMessageBox::StandardButton answer = QMessageBox::Cancel;
    files()->setPromptHandler([&answer] { return answer; });
    files()->setFileDialogHandler([other](bool) { return other; });
    for (const bool viaOpen : { false, true }) {
        doc()->edit(
            QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 11; });
        QVERIFY(files()->autosave()->autosaveNow());
        const QString autosave = files()->autosave()->currentFile();
        answer = QMessageBox::Cancel;
        viaOpen ? files()->openDialog() : files()->newScenario();
        QVERIFY(doc()->isModified());
        QVERIFY(QFileInfo::exists(autosave)); // cancelled: still safe
        answer = QMessageBox::Discard;
        viaOpen ? files()->openDialog() : files()->newScenario();
        QVERIFY(!doc()->isModified());
        QVERIFY(!QFileInfo::exists(autosave));
        QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
    }
    QCOMPARE(doc()->filePath(), QFileInfo(other).absoluteFilePath());
}

void TestNoLostWork::cleanExitRemovesAutosave()
{
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    doc()->edit(
        QStringLiteral("nodes"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { s.cluster.nodes = 12; });
    QVERIFY(files()->autosave()->autosaveNow());
    QMessageBox::StandardButton answer = QMessageBox::Cancel;
    files()->setPromptHandler([&answer] { return answer; });
    QVERIFY(!m_window->close());
    QCOMPARE(autosaveFiles(autosaveDir()).size(), 2);
    answer = QMessageBox::Discard;
    QVERIFY(m_window->close());
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
}

void TestNoLostWork::crashedAutosaveIsOfferedAndRestored_data()
{
    QTest::addColumn<bool>("withFile");
    QTest::newRow("file") << true;
    QTest::newRow("untitled") << false;
}

void TestNoLostWork::crashedAutosaveIsOfferedAndRestored()
{
    // A real crash: save_victim edits, its 50 ms autosave timer writes, then it is killed with SIGKILL.
    QFETCH(bool, withFile);
    const core::Catalog& catalog = test::catalog();
    core::Scenario onDisk = core::defaultScenario(catalog);
    onDisk.name = "as saved";
    onDisk.cluster.nodes = 2;
    core::Scenario pinnedOnDisk = onDisk;
    pinnedOnDisk.name = "pinned on disk";
    const std::vector<core::Scenario> diskPins { pinnedOnDisk };
    const QString original = QFileInfo(m_dir->filePath(QStringLiteral("original.shardscope.json"))).absoluteFilePath();
    QVERIFY(ui::writeScenarioFile(original, onDisk, catalog, diskPins).isEmpty());
    const QByteArray originalBytes = readAll(original);
    core::Scenario expected = withFile ? onDisk : core::defaultScenario(catalog);
    test::victimEdit(expected);
    const std::vector<core::Scenario> basePins = withFile ? diskPins : std::vector<core::Scenario> {};
    std::vector<core::Scenario> expectedPins = basePins;
    expectedPins.push_back(test::victimPin(catalog));

    QProcess victim;
    victim.start(QStringLiteral(SAVE_VICTIM),
        { QStringLiteral("autosave"), autosaveDir(), withFile ? original : QStringLiteral("-"),
            m_dir->filePath(QStringLiteral("victim.ini")) });
    QVERIFY(victim.waitForStarted());
    QByteArray out;
    QVERIFY2(waitForOutput(victim, out, "autosaved "), victim.readAllStandardError().constData());
    const qint64 pid = victim.processId();
    QVERIFY(files()->autosave()->orphans().isEmpty()); // it is still running: not a crash
    QCOMPARE(::kill(pid_t(pid), SIGKILL), 0);
    QVERIFY(victim.waitForFinished(30000));
    QCOMPARE(victim.exitStatus(), QProcess::CrashExit);

    const QList<AutosaveEntry> orphans = files()->autosave()->orphans();
    QCOMPARE(orphans.size(), 1);
    const AutosaveEntry entry = orphans.front();
    QCOMPARE(entry.pid, pid);
    QCOMPARE(entry.originalPath, withFile ? original : QString());
    QCOMPARE(entry.name, QString::fromStdString(expected.name));
    QVERIFY(qAbs(entry.savedAt.secsTo(QDateTime::currentDateTime())) < 60);

    QList<AutosaveEntry> offered;
    files()->setRecoveryPromptHandler([&offered](const QList<AutosaveEntry>& entries) {
        offered << entries;
        return RecoveryDecision { 0, {} };
    });
    QVERIFY(files()->offerRecovery());
    QCOMPARE(offered.size(), 1);
    QCOMPARE(offered[0].contentPath, entry.contentPath);
    QCOMPARE(doc()->scenario(), expected);
    QCOMPARE(doc()->pins(), expectedPins);
    QVERIFY(test::settle(*doc()));
    QCOMPARE(doc()->pinResults().size(), expectedPins.size());
    QVERIFY(doc()->isModified());
    QVERIFY(m_window->isWindowModified());
    QCOMPARE(doc()->filePath(), withFile ? original : QString());
    QCOMPARE(doc()->displayName(), withFile ? QStringLiteral("original.shardscope.json") : QStringLiteral("Untitled"));
    QCOMPARE(readAll(original), originalBytes); // nothing written to the user's file until they save
    // The crashed process's files are gone; the changes are in this process's autosave now.
    QVERIFY(!QFileInfo::exists(entry.contentPath));
    QVERIFY(!QFileInfo::exists(entry.metaPath));
    QVERIFY(QFileInfo::exists(files()->autosave()->currentFile()));
    QCOMPARE(ui::readScenarioFile(files()->autosave()->currentFile(), catalog).scenario, expected);
    QCOMPARE(ui::readScenarioFile(files()->autosave()->currentFile(), catalog).pins, expectedPins);
    QVERIFY(files()->autosave()->orphans().isEmpty());
    QVERIFY(!files()->offerRecovery());
    QCOMPARE(offered.size(), 1);
    // The restore (scenario and pins) is one undo step on top of the file as saved.
    QCOMPARE(doc()->undoStack()->count(), 1);
    doc()->undoStack()->undo();
    QCOMPARE(doc()->scenario(), withFile ? onDisk : core::defaultScenario(catalog));
    QCOMPARE(doc()->pins(), basePins);
    QVERIFY(!doc()->isModified());
    doc()->undoStack()->redo();
    QCOMPARE(doc()->scenario(), expected);
    QCOMPARE(doc()->pins(), expectedPins);
    QVERIFY(doc()->isModified());
    // Saving it writes the restored scenario to the original file and clears every autosave.
    const QString saveAsPath = m_dir->filePath(QStringLiteral("restored.shardscope.json"));
    files()->setFileDialogHandler([saveAsPath](bool) { return saveAsPath; });
    QVERIFY(files()->save());
    const ui::ScenarioLoad saved = ui::readScenarioFile(withFile ? original : saveAsPath, catalog);
    QCOMPARE(saved.scenario, expected);
    QCOMPARE(saved.pins, expectedPins);
    QVERIFY(!doc()->isModified());
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
}

void TestNoLostWork::laterKeepsAndDiscardRemoves()
{
    const qint64 dead = deadPid();
    QVERIFY(dead > 0);
    QVERIFY(!Autosaver::processRunning(dead));
    core::Scenario older = core::defaultScenario(test::catalog());
    older.name = "older";
    core::Scenario newer = older;
    newer.name = "newer";
    const QDateTime now = QDateTime::currentDateTime();
    const AutosaveEntry a
        = writeOrphan(autosaveDir(), QStringLiteral("untitled"), dead, QString(), now.addSecs(-3600), older);
    const AutosaveEntry b = writeOrphan(autosaveDir(), QStringLiteral("0123456789abcdef"), dead,
        m_dir->filePath(QStringLiteral("gone.shardscope.json")), now.addSecs(-60), newer);
    QVERIFY(!a.contentPath.isEmpty() && !b.contentPath.isEmpty());

    QStringList asked;
    RecoveryDecision decision; // Later for all
    files()->setRecoveryPromptHandler([&](const QList<AutosaveEntry>& entries) {
        for (const AutosaveEntry& e : entries)
            asked << e.name;
        return decision;
    });
    QVERIFY(!files()->offerRecovery());
    QCOMPARE(asked, (QStringList { QStringLiteral("newer"), QStringLiteral("older") })); // one list, newest first
    QCOMPARE(autosaveFiles(autosaveDir()).size(), 4); // Later keeps them

    QVERIFY(!doc()->isModified());

    asked.clear();
    decision.discard = { 1 }; // the older one
    QVERIFY(!files()->offerRecovery());
    QCOMPARE(asked.size(), 2);
    QCOMPARE(autosaveFiles(autosaveDir()).size(), 2);
    QVERIFY(!QFileInfo::exists(a.contentPath) && !QFileInfo::exists(a.metaPath));
    asked.clear();
    decision.discard = { 0 };
    QVERIFY(!files()->offerRecovery());
    QCOMPARE(asked, QStringList { QStringLiteral("newer") });
    QVERIFY(autosaveFiles(autosaveDir()).isEmpty());
    asked.clear();
    QVERIFY(!files()->offerRecovery());
    QVERIFY(asked.isEmpty()); // nothing left to offer

    // A restore whose original file no longer exists: bound to that path, the default scenario underneath.
    writeOrphan(autosaveDir(), QStringLiteral("0123456789abcdef"), dead, b.originalPath, now, newer);
    decision = RecoveryDecision { 0, {} };
    QVERIFY(files()->offerRecovery());
    QCOMPARE(doc()->scenario(), newer);
    QCOMPARE(doc()->filePath(), QFileInfo(b.originalPath).absoluteFilePath());
    QVERIFY(doc()->isModified());
}

void TestNoLostWork::reusedPidIsStillOffered()
{
    // Our parent (ctest) is running, but it did not start when the crashed ShardScope did: its pid was reused.
    const qint64 parent = qint64(getppid());
    QVERIFY(Autosaver::processRunning(parent));
    const qint64 started = Autosaver::processStartTime(parent);
    if (started == 0)
        QSKIP("no /proc start times on this system");
    const core::Scenario s = core::defaultScenario(test::catalog());
    const AutosaveEntry e = writeOrphan(
        autosaveDir(), QStringLiteral("untitled"), parent, QString(), QDateTime::currentDateTime(), s, started + 1);
    QCOMPARE(files()->autosave()->orphans().size(), 1);
    Autosaver::removeEntry(e);
    // With its real start time it is that running process: not offered.
    writeOrphan(autosaveDir(), QStringLiteral("untitled"), parent, QString(), QDateTime::currentDateTime(), s, started);
    QVERIFY(files()->autosave()->orphans().isEmpty());
}

void TestNoLostWork::recoveryDialogShowsFileAndTime()
{
    // Issue 23 item 6: 37 autosaves left by crashes are offered in one list (not one dialog each), with each one's
    // scenario, file ("never saved to a file" when untitled) and time; Discard deletes the selected ones and the
    // list stays; Later keeps the rest.
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    const qint64 dead = deadPid();
    const QDateTime newest = QDateTime::currentDateTime().addSecs(-600);
    constexpr int kLeft = 37;
    QList<AutosaveEntry> written;
    for (int i = 0; i < kLeft; ++i) {
        core::Scenario s = core::defaultScenario(test::catalog());
        s.name = QStringLiteral("lost %1").arg(i).toStdString();
        const bool untitled = i % 2 == 1;
        written << writeOrphan(autosaveDir(),
            untitled ? QStringLiteral("untitled%1").arg(i) : QStringLiteral("%1").arg(i, 16, 16, QLatin1Char('0')),
            dead, untitled ? QString() : QStringLiteral("/nowhere/lost-%1.shardscope.json").arg(i),
            newest.addSecs(-60 * i), s);
        QVERIFY(!written.back().contentPath.isEmpty());
    }
    int dialogs = 0;
    QStringList first, second;
    int rowsBefore = -1;
    int rowsAfterDiscard = -1;
    QTimer poll;
    connect(&poll, &QTimer::timeout, this, [&] {
        auto* dialog = qobject_cast<ui::RecoveryDialog*>(QApplication::activeModalWidget());
        if (!dialog || dialog->property("seen").toBool())
            return;
        dialog->setProperty("seen", true);
        ++dialogs;
        QTreeWidget* list = dialog->list();
        for (int c = 0; c < 3; ++c) {
            first << list->topLevelItem(0)->text(c);
            second << list->topLevelItem(1)->text(c);
        }
        rowsBefore = list->topLevelItemCount(); // checked once the dialog is closed: a failure here would leave it open
        if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            dialog->grab().save(dir + QStringLiteral("/recovery-list.png"));
        // Select the two newest with the keyboard, then Discard.
        list->setFocus();
        list->setCurrentItem(list->topLevelItem(0));
        QTest::keyClick(list, Qt::Key_Down, Qt::ShiftModifier);
        for (QPushButton* b : dialog->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("&Discard"))
                QTest::mouseClick(b, Qt::LeftButton);
        rowsAfterDiscard = list->topLevelItemCount();
        QTest::keyClick(dialog, Qt::Key_Escape); // Later
    });
    poll.start(20);
    QVERIFY(!files()->offerRecovery());
    poll.stop();
    QCOMPARE(dialogs, 1);
    QCOMPARE(rowsBefore, kLeft);
    QCOMPARE(first,
        (QStringList { QStringLiteral("lost 0"), QStringLiteral("lost-0.shardscope.json"),
            QLocale().toString(newest, QLocale::ShortFormat) }));
    QCOMPARE(second.at(0), QStringLiteral("lost 1"));
    QCOMPARE(second.at(1), QStringLiteral("never saved to a file"));
    QCOMPARE(rowsAfterDiscard, kLeft - 2);
    QVERIFY(!QFileInfo::exists(written[0].contentPath) && !QFileInfo::exists(written[1].contentPath));
    QCOMPARE(files()->autosave()->orphans().size(), kLeft - 2); // Later keeps the rest
    QVERIFY(!doc()->isModified());
}

QTEST_MAIN(TestNoLostWork)
#include "tst_no_lost_work.moc"
