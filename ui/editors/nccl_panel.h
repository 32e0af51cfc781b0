// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/editor_panel.h"

namespace shardscope::ui {

/// NCCL: algorithm, protocol, minimum channels, GPU Direct RDMA.
class NcclPanel : public EditorPanel
{
    Q_OBJECT
public:
    NcclPanel(ScenarioDocument* doc, QWidget* parent);
};

} // namespace shardscope::ui
