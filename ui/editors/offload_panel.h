// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/editor_panel.h"

class QComboBox;
class QSpinBox;

namespace shardscope::ui {

/// Offload: optimizer states and parameters to CPU or NVMe (parameters only with ZeRO-3 / FSDP full shard), and the
/// activations of some layers to host memory (Megatron-Core's --cpu-offloading).
class OffloadPanel : public EditorPanel
{
    Q_OBJECT
public:
    OffloadPanel(ScenarioDocument* doc, QWidget* parent);

protected:
    void refreshExtras(const core::Scenario& s) override;

private:
    QComboBox* m_parameters;
    QSpinBox* m_activations;
};

} // namespace shardscope::ui
