// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/what_if_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace shardscope::ui {

WhatIfRunner::WhatIfRunner(QObject* parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &WhatIfRunner::finished);
}

WhatIfRunner::~WhatIfRunner()
{
    m_watcher.disconnect(this);
    m_watcher.waitForFinished();
}

void WhatIfRunner::request(const core::Scenario& scenario, const std::vector<core::Scenario>& pins)
{
    ++m_requested;
    if (m_running)
        m_waiting = Request { scenario, pins }; // replaces an older waiting request: it would be stale before it ran
    else
        start({ scenario, pins });
}

void WhatIfRunner::start(Request request)
{
    m_running = true;
    m_runningGeneration = m_requested;
    // The job owns its copy of the scenario and pins and returns a value: it shares nothing with the GUI thread.
    m_watcher.setFuture(QtConcurrent::run([r = std::move(request)] {
        return std::shared_ptr<const core::WhatIf>(std::make_shared<core::WhatIf>(core::whatIf(r.scenario, r.pins)));
    }));
}

void WhatIfRunner::finished()
{
    std::shared_ptr<const core::WhatIf> result = m_watcher.result();
    const std::uint64_t generation = m_runningGeneration;
    m_running = false;
    if (m_waiting) { // a newer request came while this one ran: drop this result, run the newest
        Request next = std::move(*m_waiting);
        m_waiting.reset();
        start(std::move(next));
        return;
    }
    emit resultReady(std::move(result), generation);
}

} // namespace shardscope::ui
