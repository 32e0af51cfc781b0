// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/offload_panel.h"

#include <QComboBox>

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
}

void OffloadPanel::refreshExtras(const Scenario& s)
{
    const bool sharded
        = s.parallelism.sharding == core::Sharding::Zero3 || s.parallelism.sharding == core::Sharding::FsdpFull;
    m_parameters->setEnabled(sharded || s.offload.parameters != core::OffloadTarget::None);
}

} // namespace shardscope::ui
