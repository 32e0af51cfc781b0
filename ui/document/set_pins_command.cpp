// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/set_pins_command.h"

#include "document/scenario_document.h"

#include <utility>

namespace shardscope::ui {

SetPinsCommand::SetPinsCommand(
    ScenarioDocument* doc, std::vector<core::Scenario> before, std::vector<core::Scenario> after, const QString& text)
    : QUndoCommand(text)
    , m_doc(doc)
    , m_before(std::move(before))
    , m_after(std::move(after))
{ }

void SetPinsCommand::undo() { m_doc->applyPins(m_before); }
void SetPinsCommand::redo() { m_doc->applyPins(m_after); }

} // namespace shardscope::ui
