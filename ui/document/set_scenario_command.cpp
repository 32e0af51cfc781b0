// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/set_scenario_command.h"

#include "document/scenario_document.h"

#include <utility>

namespace shardscope::ui {

namespace {
constexpr int kMergeableId = 0x5353; // "SS": every interactive edit shares it; mergeWith() checks field and session
}

SetScenarioCommand::SetScenarioCommand(
    ScenarioDocument* doc, core::Scenario before, core::Scenario after, const QString& text, QString field, int session)
    : QUndoCommand(text)
    , m_doc(doc)
    , m_before(std::move(before))
    , m_after(std::move(after))
    , m_field(std::move(field))
    , m_session(session)
{ }

void SetScenarioCommand::undo() { m_doc->apply(m_before); }
void SetScenarioCommand::redo() { m_doc->apply(m_after); }

int SetScenarioCommand::id() const { return m_session > 0 ? kMergeableId : -1; }

bool SetScenarioCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const SetScenarioCommand*>(other);
    if (o->m_session != m_session || o->m_field != m_field)
        return false;
    m_after = o->m_after;
    setText(o->text());
    setObsolete(m_after == m_before);
    return true;
}

} // namespace shardscope::ui
