// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/termination_signals.h"

#include "session/autosave.h"

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstdio>

#include <sys/socket.h>
#include <unistd.h>

namespace shardscope::ui {

namespace {
int g_fds[2] = { -1, -1 }; // [0]: the handler writes, [1]: the event loop reads
constexpr int kSignals[] = { SIGTERM, SIGHUP };

extern "C" void onTerminationSignal(int sig)
{
    const int saved = errno;
    const char byte = char(sig);
    [[maybe_unused]] const ssize_t n = ::write(g_fds[0], &byte, 1);
    errno = saved;
}
} // namespace

TerminationSignals::TerminationSignals(Autosaver* autosave, QObject* parent)
    : QObject(parent)
    , m_autosave(autosave)
{
    if (g_fds[0] >= 0 || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, g_fds) != 0)
        return;
    m_notifier = new QSocketNotifier(g_fds[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &TerminationSignals::onSignal);
    struct sigaction action { };
    action.sa_handler = onTerminationSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int sig : kSignals)
        ::sigaction(sig, &action, nullptr);
}

TerminationSignals::~TerminationSignals()
{
    if (!m_notifier)
        return;
    for (const int sig : kSignals)
        std::signal(sig, SIG_DFL);
    delete m_notifier;
    ::close(g_fds[0]);
    ::close(g_fds[1]);
    g_fds[0] = g_fds[1] = -1;
}

void TerminationSignals::onSignal()
{
    char byte = 0;
    if (::read(g_fds[1], &byte, 1) != 1)
        return;
    QString error;
    if (!m_autosave->autosaveNow(&error))
        std::fprintf(stderr, "shardscope: autosave on signal %d failed: %s\n", int(byte), qPrintable(error));
    emit terminationRequested(int(byte));
}

} // namespace shardscope::ui
