// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/editor_panel.h"

class QComboBox;
class QLabel;

namespace shardscope::ui {

/// Model: preset list (with parameter counts), editable architecture and MoE fields, live parameter count.
class ModelPanel : public EditorPanel
{
    Q_OBJECT
public:
    ModelPanel(ScenarioDocument* doc, QWidget* parent);

protected:
    void refreshExtras(const core::Scenario& s) override;
    void resultExtras(const core::Scenario& s, const core::Result& r) override;

private:
    void fillPresets();
    QComboBox* m_preset;
    QLabel* m_params;
    QList<QWidget*> m_moeRows;
};

} // namespace shardscope::ui
