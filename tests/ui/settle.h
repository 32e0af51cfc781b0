// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GUI tests' wait for the background evaluation: no sleeps, a bounded wait on the document's signal.

#include "document/scenario_document.h"

#include <QSignalSpy>

namespace shardscope::test {

/// Waits until the document shows the whatIf() of its newest scenario and pins (ScenarioDocument::settled), at most
/// timeoutMs per pending result (generous: under valgrind, tests/ui/gui_leaks.sh, one whatIf() of a scenario at
/// validation's limits has taken over a minute). False when it did not arrive in time.
[[nodiscard]] inline bool settle(ui::ScenarioDocument& doc, int timeoutMs = 300000)
{
    QSignalSpy ready(&doc, &ui::ScenarioDocument::settled);
    while (doc.isEvaluating())
        if (!ready.wait(timeoutMs))
            return false;
    return true;
}

} // namespace shardscope::test
