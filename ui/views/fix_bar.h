// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/fixes.h>

#include <QWidget>

#include <vector>

class QHBoxLayout;
class QLabel;
class QPushButton;

namespace shardscope::ui {

class ScenarioDocument;

/// Shown while the scenario is invalid, beside the status line (the same row, so the charts under it do not move):
/// the charts and KPIs keep the last valid figures (greyed, its tooltip says), and it offers the nearest valid node
/// counts and batch sizes (core::nearestValidFixes) as one-click fixes, each one undoable edit. Hidden while the
/// scenario is valid.
class FixBar : public QWidget
{
    Q_OBJECT
public:
    explicit FixBar(ScenarioDocument* doc, QWidget* parent = nullptr);

    /// The fix buttons shown, in core::nearestValidFixes' order (tests).
    [[nodiscard]] QList<QPushButton*> buttons() const;
    [[nodiscard]] QString text() const;

private:
    void refresh();

    ScenarioDocument* m_doc;
    QLabel* m_label;
    QHBoxLayout* m_row;
    QList<QPushButton*> m_pool; // the first m_fixes.size() are shown, the rest hidden

    std::vector<core::Fix> m_fixes;
};

} // namespace shardscope::ui
