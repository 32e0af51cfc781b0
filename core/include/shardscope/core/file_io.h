// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Bounded reads and atomic writes of files: the one routine every reader and writer uses (scenario open/save,
/// autosave, exports, catalogs, lessons, every CLI --out). POSIX only; no Qt.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope::core {

/// Reads a whole regular file of at most maxBytes into out. Refuses, with a message naming the path and the
/// rule, anything that is not a regular file (directory, FIFO, device such as /dev/zero, socket) and any file
/// whose size exceeds maxBytes, before reading a byte of it. Never blocks on a FIFO (opened O_NONBLOCK) and
/// never reads more than maxBytes + 1 bytes even if the file grows while it is read.
/// path "-" is not special here (see readStreamBounded for standard input).
[[nodiscard]] bool readRegularFile(const std::string& path, size_t maxBytes, std::string& out, std::string& error);

/// Reads at most maxBytes from file descriptor fd (standard input: 0) into out; refuses a longer input with
/// a message naming `what` (e.g. "standard input").
[[nodiscard]] bool readStreamBounded(
    int fd, size_t maxBytes, const std::string& what, std::string& out, std::string& error);

/// Writes bytes to path atomically: a temporary file in the same folder is written (every write(2) checked,
/// short writes resumed), fsynced, its size verified with fstat, closed (checked), and only then renamed over
/// path; then the folder is fsynced. On any failure the temporary file is removed, the previous file at path
/// is left exactly as it was, and error says which step failed and why (strerror), e.g.
/// "cannot write /x/a.json: No space left on device". A symbolic link at path is followed (its target is
/// replaced); an existing file's permission bits are kept, a new file gets 0666 & ~umask. After the rename, the
/// temporary files of the same target left by writers that were killed (their process no longer runs) are removed.
[[nodiscard]] bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error);

/// True when both paths name one existing file (the same device and inode, symbolic and hard links followed):
/// writing one replaces the other. The CLI refuses `--out` onto its own input with it.
[[nodiscard]] bool sameExistingFile(const std::string& a, const std::string& b);

/// Writes all of bytes to fd (e.g. 1, standard output), resuming short writes; false with error on failure
/// (EPIPE, ENOSPC on /dev/full, ...).
[[nodiscard]] bool writeAllToFd(int fd, std::string_view bytes, std::string& error);

/// Steps of writeFileAtomically, for tests that inject a failure (setAtomicWriteFaultForTesting).
enum class WriteStep { Open, Write, Sync, Verify, Close, Rename };
/// Makes the next writeFileAtomically fail at `step` as if the system call had returned errno `err`
/// (tests only; err 0 clears it). The injection applies once.
void setAtomicWriteFaultForTesting(WriteStep step, int err);

/// Replaces control characters (C0 except tab and newline when allowNewlines, DEL, C1, ESC sequences' ESC) by
/// visible escapes ("\x1b", "\n"), so names from files cannot drive a terminal. Invalid UTF-8 bytes become "\xNN".
[[nodiscard]] std::string escapeForTerminal(std::string_view text, bool allowNewlines = false);

} // namespace shardscope::core
