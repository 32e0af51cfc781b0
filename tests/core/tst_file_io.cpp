// SPDX-License-Identifier: GPL-3.0-or-later
// core/file_io (issue 12): atomic writes keep the old file on any failure and say which step failed; bounded reads
// refuse what is not a regular file or is too large before reading it; terminal escaping.
#include <shardscope/core/file_io.h>

#include <QDir>
#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace shardscope::core;

namespace {
std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
int filesIn(const std::string& dir)
{
    int n = 0;
    for (const auto& name : QDir(QString::fromStdString(dir)).entryList(QDir::Files | QDir::Hidden))
        n += name.isEmpty() ? 0 : 1;
    return n;
}
} // namespace

class TestFileIo : public QObject
{
    Q_OBJECT
private slots:
    void writeReplacesAndKeepsMode();
    void injectedFailureKeepsOldFile_data();
    void injectedFailureKeepsOldFile();
    void writeFollowsSymlinksAndRefusesDevices();
    void readRefusesSpecialAndHugeFiles();
    void readBoundedStream();
    void terminalEscapes();
    void killedWritersTemporariesAreRemoved();
    void sameFileThroughLinks();
};

void TestFileIo::writeReplacesAndKeepsMode()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("a.json")).toStdString();
    std::string error;
    QVERIFY2(writeFileAtomically(path, "first", error), error.c_str());
    QCOMPARE(slurp(path), std::string("first"));
    QCOMPARE(::chmod(path.c_str(), 0640), 0);
    QVERIFY2(writeFileAtomically(path, "second, longer", error), error.c_str());
    QCOMPARE(slurp(path), std::string("second, longer"));
    struct stat st { };
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0640);
    QCOMPARE(filesIn(dir.path().toStdString()), 1); // no temporary left behind
}

void TestFileIo::injectedFailureKeepsOldFile_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("err");
    QTest::addColumn<QString>("message");
    QTest::newRow("open EACCES") << int(WriteStep::Open) << EACCES << "cannot create a file in";
    QTest::newRow("write ENOSPC") << int(WriteStep::Write) << ENOSPC << "cannot write";
    QTest::newRow("fsync EIO") << int(WriteStep::Sync) << EIO << "to disk";
    QTest::newRow("verify EIO") << int(WriteStep::Verify) << EIO << "cannot verify";
    QTest::newRow("close EDQUOT") << int(WriteStep::Close) << EDQUOT << "cannot write";
    QTest::newRow("rename EXDEV") << int(WriteStep::Rename) << EXDEV << "cannot replace";
}

void TestFileIo::injectedFailureKeepsOldFile()
{
    QFETCH(int, step);
    QFETCH(int, err);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("plan.shardscope.json")).toStdString();
    std::string error;
    QVERIFY(writeFileAtomically(path, "the old plan", error));
    setAtomicWriteFaultForTesting(WriteStep(step), err);
    QVERIFY(!writeFileAtomically(path, std::string(4096, 'n'), error));
    QVERIFY2(error.find(message.toStdString()) != std::string::npos, error.c_str());
    QVERIFY2(error.find(std::strerror(err)) != std::string::npos, error.c_str());
    QCOMPARE(slurp(path), std::string("the old plan"));
    QCOMPARE(filesIn(dir.path().toStdString()), 1); // the temporary file was removed
    QVERIFY2(writeFileAtomically(path, "new", error), error.c_str()); // the fault applied once
    QCOMPARE(slurp(path), std::string("new"));
}

void TestFileIo::writeFollowsSymlinksAndRefusesDevices()
{
    QTemporaryDir dir;
    const std::string target = dir.filePath(QStringLiteral("real.json")).toStdString();
    const std::string link = dir.filePath(QStringLiteral("link.json")).toStdString();
    std::string error;
    QVERIFY(writeFileAtomically(target, "old", error));
    QCOMPARE(::symlink(target.c_str(), link.c_str()), 0);
    QVERIFY2(writeFileAtomically(link, "via link", error), error.c_str());
    QCOMPARE(slurp(target), std::string("via link"));
    struct stat st { };
    QCOMPARE(::lstat(link.c_str(), &st), 0);
    QVERIFY(S_ISLNK(st.st_mode)); // the link stays a link
    QVERIFY(!writeFileAtomically("/dev/null", "x", error));
    QVERIFY2(error.find("not a regular file") != std::string::npos, error.c_str());
    QVERIFY(!writeFileAtomically(dir.filePath(QStringLiteral("no/such/dir/x.json")).toStdString(), "x", error));
    QVERIFY2(error.find("No such file or directory") != std::string::npos, error.c_str());
}

void TestFileIo::readRefusesSpecialAndHugeFiles()
{
    QTemporaryDir dir;
    std::string text, error;
    const std::string fifo = dir.filePath(QStringLiteral("fifo")).toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QVERIFY(!readRegularFile(fifo, 1024, text, error)); // returns at once: no writer is waited for
    QVERIFY2(error.find("named pipe (FIFO)") != std::string::npos, error.c_str());
    QVERIFY(!readRegularFile("/dev/zero", 1024, text, error));
    QVERIFY2(error.find("character device") != std::string::npos, error.c_str());
    QVERIFY(!readRegularFile(dir.path().toStdString(), 1024, text, error));
    QVERIFY2(error.find("directory") != std::string::npos, error.c_str());
    const std::string sparse = dir.filePath(QStringLiteral("sparse")).toStdString();
    const int fd = ::open(sparse.c_str(), O_CREAT | O_WRONLY, 0600);
    QVERIFY(fd >= 0);
    QCOMPARE(::ftruncate(fd, off_t(3) << 30), 0); // 3 GiB of holes: refused from its size, not read
    ::close(fd);
    QVERIFY(!readRegularFile(sparse, 16u << 20, text, error));
    QVERIFY2(error.find("is 3221225472 bytes; the limit is 16777216 bytes") != std::string::npos, error.c_str());
    QVERIFY(writeFileAtomically(sparse, "exactly", error));
    QVERIFY(readRegularFile(sparse, 7, text, error));
    QCOMPARE(text, std::string("exactly"));
    QVERIFY(!readRegularFile(sparse, 6, text, error));
}

void TestFileIo::readBoundedStream()
{
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    QCOMPARE(::write(fds[1], "0123456789", 10), ssize_t(10));
    ::close(fds[1]);
    std::string text, error;
    QVERIFY(!readStreamBounded(fds[0], 9, "standard input", text, error));
    QCOMPARE(error, std::string("standard input: is larger than the limit of 9 bytes"));
    ::close(fds[0]);
}

void TestFileIo::terminalEscapes()
{
    QCOMPARE(escapeForTerminal("plain Llama 3 70B"), std::string("plain Llama 3 70B"));
    QCOMPARE(escapeForTerminal("a\x1b[2Jb\x07"), std::string("a\\x1b[2Jb\\x07"));
    QCOMPARE(escapeForTerminal("line\nbreak"), std::string("line\\nbreak"));
    QCOMPARE(escapeForTerminal("line\nbreak", true), std::string("line\nbreak"));
    QCOMPARE(escapeForTerminal("\xc2\x9b"
                               "31m"),
        std::string("\\u009b31m")); // C1 CSI in UTF-8
    QCOMPARE(escapeForTerminal("\xe2\x80\xae"
                               "abc"),
        std::string("\\u202eabc")); // right-to-left override
    QCOMPARE(escapeForTerminal("caf\xc3\xa9 \xe2\x9c\x93"), std::string("caf\xc3\xa9 \xe2\x9c\x93"));
    QCOMPARE(escapeForTerminal("bad \xff\xc3"), std::string("bad \\xff\\xc3"));
}

// Issue 23: a save killed between open and rename leaves ".a.json.tmp-PID-N"; the next save of a.json removes the
// ones whose process no longer runs, and leaves a running writer's (and other targets') alone.
void TestFileIo::killedWritersTemporariesAreRemoved()
{
    QTemporaryDir dir;
    const std::string folder = dir.path().toStdString();
    const std::string path = folder + "/a.json";
    // A writer killed mid-save: the child creates its temporary file, then SIGKILLs itself.
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        const std::string tmp = folder + "/.a.json.tmp-" + std::to_string(::getpid()) + "-0";
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd >= 0)
            (void)::write(fd, "partial", 7);
        ::raise(SIGKILL);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    const std::string dead = folder + "/.a.json.tmp-" + std::to_string(child) + "-0";
    const std::string running = folder + "/.a.json.tmp-" + std::to_string(::getppid()) + "-7";
    const std::string otherTarget = folder + "/.b.json.tmp-" + std::to_string(child) + "-0";
    const std::string notOurs = folder + "/.a.json.tmp-notapid";
    for (const std::string& f : { running, otherTarget, notOurs })
        std::ofstream(f) << "x";
    QVERIFY(QFile::exists(QString::fromStdString(dead)));
    std::string error;
    QVERIFY2(writeFileAtomically(path, "saved", error), error.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(dead)));
    for (const std::string& f : { running, otherTarget, notOurs })
        QVERIFY2(QFile::exists(QString::fromStdString(f)), f.c_str());
    QCOMPARE(slurp(path), std::string("saved"));
    QCOMPARE(filesIn(folder), 4); // a.json and the three kept
}

void TestFileIo::sameFileThroughLinks()
{
    QTemporaryDir dir;
    const std::string a = dir.filePath(QStringLiteral("a.json")).toStdString();
    const std::string b = dir.filePath(QStringLiteral("b.json")).toStdString();
    std::ofstream(a) << "a";
    std::ofstream(b) << "a";
    const std::string sym = dir.filePath(QStringLiteral("sym.json")).toStdString();
    const std::string hard = dir.filePath(QStringLiteral("hard.json")).toStdString();
    QCOMPARE(::symlink(a.c_str(), sym.c_str()), 0);
    QCOMPARE(::link(a.c_str(), hard.c_str()), 0);
    QVERIFY(sameExistingFile(a, a));
    QVERIFY(sameExistingFile(a, sym));
    QVERIFY(sameExistingFile(hard, sym));
    QVERIFY(sameExistingFile(dir.path().toStdString() + "/./a.json", a));
    QVERIFY(!sameExistingFile(a, b)); // equal bytes, another file
    QVERIFY(!sameExistingFile(a, dir.filePath(QStringLiteral("new.json")).toStdString()));
}

QTEST_GUILESS_MAIN(TestFileIo)
#include "tst_file_io.moc"
