// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/pane_defaults.h"

namespace shardscope::ui {

const std::vector<std::string>& defaultSizingGpuIds()
{
    static const std::vector<std::string> ids { "h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb", "mi300x" };
    return ids;
}

} // namespace shardscope::ui
