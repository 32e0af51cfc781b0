// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/editor_panel.h"

namespace shardscope::ui {

class ValueSlider;

/// Training: sequence length (log-scale slider), global batch, micro-batch (slider over the values that divide
/// the per-replica batch), precision, optimizer, recompute and its modules, FlashAttention, dropout, accounting.
class TrainingPanel : public EditorPanel
{
    Q_OBJECT
public:
    TrainingPanel(ScenarioDocument* doc, QWidget* parent);

protected:
    void refreshExtras(const core::Scenario& s) override;

private:
    /// training.recompute_modules: one check box per Megatron module name.
    void addRecomputeModules();
    ValueSlider* m_microBatch;
};

} // namespace shardscope::ui
