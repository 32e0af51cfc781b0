// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/offload_panel.h"

#include <QComboBox>
#include <QSpinBox>

namespace shardscope::ui {

using core::Scenario;

OffloadPanel::OffloadPanel(ScenarioDocument* doc, QWidget* parent)
    : EditorPanel(doc, parent)
{
    addEnum(
        QStringLiteral("offload.optimizer"), offloadChoices(),
        [](const Scenario& s) { return int(s.offload.optimizer); },
        [](Scenario& s, int v) { s.offload.optimizer = core::OffloadTarget(v); },
        tr("ZeRO-Offload / ZeRO-Infinity: keep optimizer states in host memory or on NVMe and step on the CPU"));
    m_parameters = addEnum(
        QStringLiteral("offload.parameters"), offloadChoices(),
        [](const Scenario& s) { return int(s.offload.parameters); },
        [](Scenario& s, int v) { s.offload.parameters = core::OffloadTarget(v); },
        tr("Keep parameters off the GPU between uses (only with ZeRO-3 or FSDP full shard)"));
    m_activations = addSpin(
        QStringLiteral("offload.activation_layers"), 0, 9999,
        [](const Scenario& s) { return s.offload.activationLayers; },
        [](Scenario& s, int64_t v) { s.offload.activationLayers = int(v); },
        tr("Megatron-Core --cpu-offloading-num-layers: the saved activations of this many layers go to host memory "
           "after their forward and come back for their backward (needs PP 1 and no recompute)"));
    m_activations->setSpecialValueText(tr("none"));
}

void OffloadPanel::refreshExtras(const Scenario& s)
{
    const bool sharded
        = s.parallelism.sharding == core::Sharding::Zero3 || s.parallelism.sharding == core::Sharding::FsdpFull;
    m_parameters->setEnabled(sharded || s.offload.parameters != core::OffloadTarget::None);
    m_activations->setEnabled((s.parallelism.pp == 1 && s.training.recompute == core::Recompute::None
                                  && s.training.framework == core::Framework::Megatron)
        || s.offload.activationLayers != 0);
}

} // namespace shardscope::ui
