// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/what_if.h>

#include <QFutureWatcher>
#include <QObject>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace shardscope::ui {

/// Runs core::whatIf() (a scenario with its pins) on a background thread (QtConcurrent), newest wins: at most one job in flight and one scenario
/// waiting. A request made while a job runs replaces the waiting scenario; when the job ends with a newer request
/// made meanwhile its result is stale and dropped, and the newest scenario runs next. Only the result of the newest
/// request is delivered, by resultReady on the thread that owns the runner.
class WhatIfRunner : public QObject
{
    Q_OBJECT
public:
    explicit WhatIfRunner(QObject* parent = nullptr);
    /// Waits for a job in flight (a whatIf() takes milliseconds); its result is dropped.
    ~WhatIfRunner() override;

    /// Evaluates scenario and its pins; its result supersedes every earlier request's.
    void request(const core::Scenario& scenario, const std::vector<core::Scenario>& pins);
    /// A job runs or waits: the last delivered result is not the newest request's yet.
    [[nodiscard]] bool isBusy() const { return m_running; }
    /// Counts request() calls; resultReady carries the count of the request it answers.
    [[nodiscard]] std::uint64_t requested() const { return m_requested; }

signals:
    /// The newest request's result; generation is the requested() count of that request.
    void resultReady(std::shared_ptr<const core::WhatIf> result, std::uint64_t generation);

private:
    struct Request {
        core::Scenario scenario;
        std::vector<core::Scenario> pins;
    };
    void start(Request request);
    void finished();

    QFutureWatcher<std::shared_ptr<const core::WhatIf>> m_watcher;
    std::optional<Request> m_waiting;
    std::uint64_t m_requested = 0;
    std::uint64_t m_runningGeneration = 0;
    bool m_running = false;
};

} // namespace shardscope::ui
