// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/sharding_names.h"

#include <shardscope/core/enum_names.h>

#include <QCoreApplication>

namespace shardscope::ui {

QString shardingShort(core::Sharding sharding)
{
    return QCoreApplication::translate("ShardingNames", core::shardingName(sharding).shortLabel);
}

QString offloadName(core::OffloadTarget target)
{
    return QCoreApplication::translate("ShardingNames", core::offloadLabel(target));
}

} // namespace shardscope::ui
