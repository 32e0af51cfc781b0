// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QSocketNotifier;

namespace shardscope::ui {

class Autosaver;

/// SIGTERM and SIGHUP (logout, shutdown, `kill`): the handler only writes the signal number to a socket pair
/// (async-signal-safe); a QSocketNotifier brings it to the event loop, where the unsaved changes are autosaved
/// at once and terminationRequested() is emitted so that main can quit. The autosave is not deleted: the next
/// start offers it back. One instance per process; its destructor restores the default handlers.
class TerminationSignals : public QObject
{
    Q_OBJECT
public:
    explicit TerminationSignals(Autosaver* autosave, QObject* parent = nullptr);
    ~TerminationSignals() override;

    /// Whether the handlers are in place (false: no socket pair, or another instance has them).
    [[nodiscard]] bool isInstalled() const { return m_notifier != nullptr; }

signals:
    /// After the autosave (written or failed, the failure on standard error): time to quit without prompting.
    void terminationRequested(int signal);

private:
    void onSignal();

    Autosaver* m_autosave;
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace shardscope::ui
