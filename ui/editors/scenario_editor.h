// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>

#include <QScrollArea>

class QLineEdit;

namespace shardscope::ui {

class EditorPanel;
class ScenarioDocument;

/// The left side: the scenario's name and the grouped editor panels (model, cluster, training, parallelism,
/// offload, NCCL) in one scroll area. Shows the document's scenario and marks the controls issues name.
class ScenarioEditor : public QScrollArea
{
    Q_OBJECT
public:
    explicit ScenarioEditor(ScenarioDocument* doc, QWidget* parent = nullptr);
    ~ScenarioEditor() override;

    /// The control that edits field ("parallelism.tp"), or its nearest parent field's; nullptr if none.
    [[nodiscard]] QWidget* widgetForField(const QString& field) const;
    /// Scrolls to the control of field and gives it focus.
    void focusField(const QString& field);
    [[nodiscard]] const QList<EditorPanel*>& panels() const { return m_panels; }
    /// Wide enough for the content without a horizontal scroll bar.
    [[nodiscard]] QSize sizeHint() const override;

private:
    /// The name and every control show the document's scenario (scenarioChanged).
    void refresh();
    /// The controls the result's issues and warnings name are marked, and the panels show its figures (resultReady).
    void showResult();
    void addGroup(const QString& title, EditorPanel* panel);

    ScenarioDocument* m_doc;
    QWidget* m_content;
    QLineEdit* m_name;
    QList<EditorPanel*> m_panels;
};

} // namespace shardscope::ui
