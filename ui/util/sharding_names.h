// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The core's sharding name table (shardscope/core/enum_names.h) as the views show it, translated (context
/// "ShardingNames").

#include <shardscope/core/scenario.h>

#include <QString>

namespace shardscope::ui {

/// Tables, legends and chart bars: "DDP", "ZeRO-1", ..., "FSDP hybrid".
[[nodiscard]] QString shardingShort(core::Sharding sharding);
/// "CPU", "NVMe" ("none" for no offload).
[[nodiscard]] QString offloadName(core::OffloadTarget target);

} // namespace shardscope::ui
