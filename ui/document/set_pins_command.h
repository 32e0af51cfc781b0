// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/scenario.h>

#include <QString>
#include <QUndoCommand>

#include <vector>

namespace shardscope::ui {

class ScenarioDocument;

/// One undoable change of the document's pinned scenarios (pin, unpin, clear): the whole list before and after,
/// on the same undo stack as the scenario's edits, so the two undo in the order they were made.
class SetPinsCommand : public QUndoCommand
{
public:
    SetPinsCommand(ScenarioDocument* doc, std::vector<core::Scenario> before, std::vector<core::Scenario> after,
        const QString& text);
    void undo() override;
    void redo() override;

private:
    ScenarioDocument* m_doc;
    std::vector<core::Scenario> m_before;
    std::vector<core::Scenario> m_after;
};

} // namespace shardscope::ui
