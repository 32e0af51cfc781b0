// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/scenario.h>

#include <QString>
#include <QUndoCommand>

namespace shardscope::ui {

class ScenarioDocument;

/// One undoable edit: the whole Scenario before and after, so undo cannot drift from the model.
/// Commands of one interaction (a slider drag, session > 0) on the same field merge into one step;
/// a merge that returns to the starting value makes the command obsolete.
class SetScenarioCommand : public QUndoCommand
{
public:
    SetScenarioCommand(ScenarioDocument* doc, core::Scenario before, core::Scenario after, const QString& text,
        QString field, int session);
    void undo() override;
    void redo() override;
    [[nodiscard]] int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

private:
    ScenarioDocument* m_doc;
    core::Scenario m_before;
    core::Scenario m_after;
    QString m_field;
    int m_session;
};

} // namespace shardscope::ui
