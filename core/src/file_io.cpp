// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/file_io.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "checked_int.h"

#include <climits>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardscope::core {

namespace {

std::atomic<int> g_faultStep { -1 };
std::atomic<int> g_faultErrno { 0 };

/// errno to report for `step`: the injected one (once), else 0.
int injected(WriteStep step)
{
    if (g_faultStep.load() != static_cast<int>(step))
        return 0;
    g_faultStep.store(-1);
    return g_faultErrno.exchange(0);
}

std::string describeErrno(int err) { return std::strerror(err); }

const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a named pipe (FIFO)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

std::string folderOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseOf(const std::string& path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// path with symbolic links resolved (the file a save replaces), or path itself when it does not exist yet.
bool resolveTarget(const std::string& path, std::string& target, std::string& error)
{
    struct stat st { };
    if (::lstat(path.c_str(), &st) != 0) {
        target = path; // a new file
        return true;
    }
    if (S_ISLNK(st.st_mode)) {
        char* real = ::realpath(path.c_str(), nullptr);
        if (!real) {
            error = "cannot resolve the link " + path + ": " + describeErrno(errno);
            return false;
        }
        target = real;
        std::free(real);
        if (::stat(target.c_str(), &st) != 0) {
            error = "cannot read " + target + ": " + describeErrno(errno);
            return false;
        }
    } else {
        target = path;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "cannot replace " + target + ": it is " + kindOf(st.st_mode) + ", not a regular file";
        return false;
    }
    return true;
}

bool readLoop(int fd, size_t maxBytes, std::string& out, int& err)
{
    out.clear();
    char buf[65536];
    while (out.size() <= maxBytes) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
            return false;
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<size_t>(n));
    }
    return true;
}

} // namespace

bool readRegularFile(const std::string& path, size_t maxBytes, std::string& out, std::string& error)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0) {
        error = path + ": cannot be opened: " + describeErrno(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = path + ": is " + std::string(kindOf(st.st_mode)) + ", not a regular file";
        return false;
    }
    // O_NONBLOCK: if the path was swapped for a FIFO since stat(), open() must not wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        error = path + ": cannot be opened: " + describeErrno(errno);
        return false;
    }
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        error = path + ": is " + std::string(kindOf(st.st_mode)) + ", not a regular file";
        return false;
    }
    if (static_cast<uint64_t>(st.st_size) > maxBytes) {
        ::close(fd);
        error = path + ": is " + std::to_string(st.st_size) + " bytes; the limit is " + std::to_string(maxBytes)
            + " bytes";
        return false;
    }
    int err = 0;
    const bool ok = readLoop(fd, maxBytes, out, err);
    ::close(fd);
    if (!ok) {
        error = path + ": cannot be read: " + describeErrno(err);
        return false;
    }
    if (out.size() > maxBytes) { // it grew while we read it
        error = path + ": is larger than the limit of " + std::to_string(maxBytes) + " bytes";
        out.clear();
        return false;
    }
    return true;
}

bool readStreamBounded(int fd, size_t maxBytes, const std::string& what, std::string& out, std::string& error)
{
    int err = 0;
    if (!readLoop(fd, maxBytes, out, err)) {
        error = what + ": cannot be read: " + describeErrno(err);
        return false;
    }
    if (out.size() > maxBytes) {
        error = what + ": is larger than the limit of " + std::to_string(maxBytes) + " bytes";
        out.clear();
        return false;
    }
    return true;
}

bool writeAllToFd(int fd, std::string_view bytes, std::string& error)
{
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = describeErrno(errno);
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

namespace {
/// Temporary files of `base` in `folder` (".BASE.tmp-PID-N", as writeFileAtomically names them) whose writer no
/// longer runs (kill(PID, 0) fails with ESRCH: a killed save): removed, best effort. A running writer's file, and
/// this process's own, are left alone.
void removeStaleTemporaries(const std::string& folder, const std::string& base)
{
    DIR* dir = ::opendir(folder.c_str());
    if (!dir)
        return;
    const std::string prefix = "." + base + ".tmp-";
    while (const dirent* entry = ::readdir(dir)) {
        std::string_view name = entry->d_name;
        if (name.substr(0, prefix.size()) != prefix)
            continue;
        name.remove_prefix(prefix.size());
        const size_t dash = name.find('-');
        int64_t pid = 0, serial = 0;
        if (dash == std::string_view::npos || !detail::parseWhole(name.substr(0, dash), 1, INT_MAX, pid)
            || !detail::parseWhole(name.substr(dash + 1), 0, INT64_MAX, serial) || pid == ::getpid())
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            ::unlinkat(::dirfd(dir), entry->d_name, 0);
    }
    ::closedir(dir);
}
} // namespace

bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error)
{
    std::string target;
    if (path.empty()) {
        error = "no file name given";
        return false;
    }
    if (!resolveTarget(path, target, error))
        return false;
    const std::string folder = folderOf(target);
    struct stat old { };
    const bool replacing = ::stat(target.c_str(), &old) == 0;

    // The temporary file: hidden, beside the target (rename(2) is atomic only within one file system).
    std::string tmp;
    int fd = -1;
    static std::atomic<unsigned> counter { 0 };
    int err = injected(WriteStep::Open);
    for (int attempt = 0; fd < 0 && !err && attempt < 100; ++attempt) {
        tmp = folder + "/." + baseOf(target) + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd < 0 && errno != EEXIST)
            err = errno;
    }
    if (fd < 0) {
        error = "cannot create a file in " + folder + ": " + describeErrno(err ? err : EEXIST);
        return false;
    }
    auto fail = [&](const std::string& what, int e) {
        if (fd >= 0)
            ::close(fd);
        ::unlink(tmp.c_str());
        error = what + ": " + describeErrno(e) + " (" + target + " was not changed)";
        return false;
    };
    if (replacing)
        (void)::fchmod(fd, old.st_mode & 07777); // keep the file's permissions; best effort (not ours to chown)

    size_t done = 0;
    while (done < bytes.size()) {
        if (const int e = injected(WriteStep::Write))
            return fail("cannot write " + target, e);
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return fail("cannot write " + target, errno);
        }
        done += static_cast<size_t>(n);
    }
    if (bytes.empty())
        if (const int e = injected(WriteStep::Write))
            return fail("cannot write " + target, e);
    if (int e = injected(WriteStep::Sync); e || ::fsync(fd) != 0)
        return fail("cannot write " + target + " to disk", e ? e : errno);
    struct stat written { };
    if (const int e = injected(WriteStep::Verify))
        return fail("cannot verify " + target, e);
    if (::fstat(fd, &written) != 0)
        return fail("cannot verify " + target, errno);
    if (static_cast<uint64_t>(written.st_size) != bytes.size())
        return fail("cannot verify " + target + " (" + std::to_string(written.st_size) + " of "
                + std::to_string(bytes.size()) + " bytes on disk)",
            EIO);
    {
        const int e = injected(WriteStep::Close);
        const int rc = ::close(fd);
        fd = -1;
        if (e || rc != 0)
            return fail("cannot write " + target, e ? e : errno);
    }
    if (int e = injected(WriteStep::Rename); e || ::rename(tmp.c_str(), target.c_str()) != 0)
        return fail("cannot replace " + target, e ? e : errno);
    // The rename itself survives a power loss only once the folder entry is on disk; best effort.
    const int dirFd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    removeStaleTemporaries(folder, baseOf(target));
    return true;
}

bool sameExistingFile(const std::string& a, const std::string& b)
{
    struct stat sa {
    }, sb {};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev
        && sa.st_ino == sb.st_ino;
}

void setAtomicWriteFaultForTesting(WriteStep step, int err)
{
    g_faultErrno.store(err);
    g_faultStep.store(err ? static_cast<int>(step) : -1);
}

std::string escapeForTerminal(std::string_view text, bool allowNewlines)
{
    static const char* hex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    auto escByte = [&](unsigned char c) {
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
    };
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c == '\n' && allowNewlines)
                out += '\n';
            else if (c == '\t')
                out += '\t';
            else if (c == '\n')
                out += "\\n";
            else if (c < 0x20 || c == 0x7f)
                escByte(c);
            else
                out += static_cast<char>(c);
            ++i;
            continue;
        }
        // A UTF-8 sequence: its length from the lead byte, then continuation bytes, no overlongs or surrogates.
        const size_t len = (c >= 0xc2 && c <= 0xdf) ? 2
            : (c >= 0xe0 && c <= 0xef)              ? 3
            : (c >= 0xf0 && c <= 0xf4)              ? 4
                                                    : 0;
        bool valid = len != 0 && i + len <= text.size();
        uint32_t cp = len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
        for (size_t k = 1; valid && k < len; ++k) {
            const auto cc = static_cast<unsigned char>(text[i + k]);
            valid = (cc & 0xc0) == 0x80;
            cp = (cp << 6) | (cc & 0x3f);
        }
        if (valid)
            valid = !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
                && !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
        if (!valid) {
            escByte(c);
            ++i;
            continue;
        }
        // C1 controls (CSI 0x9b drives terminals like ESC [) and bidirectional overrides (text that reads
        // differently from what it is) are shown as code points.
        const bool hidden = (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e)
            || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
        if (hidden) {
            char buf[12];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out.append(text.substr(i, len));
        }
        i += len;
    }
    return out;
}

} // namespace shardscope::core
