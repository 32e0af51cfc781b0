// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "session/autosave.h"

#include <QDialog>
#include <QList>

class QPushButton;
class QTreeWidget;

namespace shardscope::ui {

/// What to do with the autosaves left by crashed processes (FileController::offerRecovery()): indexes into the list
/// offered. At most one is restored (the window holds one document); the ones neither restored nor discarded stay
/// and are offered again at the next start.
struct RecoveryDecision {
    int restore = -1;
    QList<int> discard;
};

/// One list of every autosave left by a ShardScope that did not close normally (issue 23: 37 of them were one dialog
/// each): scenario, file ("never saved to a file" when untitled) and time, newest first. Restore opens the selected
/// one; Discard deletes the selected ones (the list stays open); Later keeps the rest for the next start.
class RecoveryDialog : public QDialog
{
    Q_OBJECT
public:
    RecoveryDialog(const QList<AutosaveEntry>& entries, QWidget* parent);

    [[nodiscard]] RecoveryDecision decision() const { return m_decision; }
    [[nodiscard]] QTreeWidget* list() const { return m_list; }

private:
    void updateButtons();
    void discardSelected();

    QTreeWidget* m_list;
    QPushButton* m_restore;
    QPushButton* m_discard;
    RecoveryDecision m_decision;
};

} // namespace shardscope::ui
