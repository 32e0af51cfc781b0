// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/nccl_panel.h"

#include <QSpinBox>

namespace shardscope::ui {

using core::Scenario;

NcclPanel::NcclPanel(ScenarioDocument* doc, QWidget* parent)
    : EditorPanel(doc, parent)
{
    addEnum(
        QStringLiteral("nccl.algo"), ncclAlgoChoices(), [](const Scenario& s) { return int(s.nccl.algo); },
        [](Scenario& s, int v) { s.nccl.algo = core::NcclAlgo(v); }, tr("NCCL_ALGO (auto: NCCL's tuner picks)"));
    addEnum(
        QStringLiteral("nccl.proto"), ncclProtoChoices(), [](const Scenario& s) { return int(s.nccl.proto); },
        [](Scenario& s, int v) { s.nccl.proto = core::NcclProto(v); }, tr("NCCL_PROTO (auto: NCCL's tuner picks)"));
    addSpin(
        QStringLiteral("nccl.min_channels"), 0, 64, [](const Scenario& s) { return s.nccl.minChannels; },
        [](Scenario& s, int64_t v) { s.nccl.minChannels = int(v); }, tr("NCCL_MIN_NCHANNELS (0 = NCCL's default)"))
        ->setSpecialValueText(tr("default"));
    addCheck(
        QStringLiteral("nccl.gdr"), [](const Scenario& s) { return s.nccl.gdr; },
        [](Scenario& s, bool v) { s.nccl.gdr = v; }, tr("GPU Direct RDMA: NICs read GPU memory without a host copy"));
}

} // namespace shardscope::ui
