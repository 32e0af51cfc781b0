// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The figures as data: CSV (one row per figure, C locale, raw SI units) and the result JSON of
/// `shardscope-cli evaluate` (core::resultToJson), written with writeBytes (util/atomic_file.h).

#include "util/atomic_file.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QByteArray>
#include <QString>

namespace shardscope::ui {

/// "section,name,value,unit" rows: layout, memory per GPU (and per pipeline stage), step time, throughput,
/// communication per group and per collective. Numbers in the C locale with full precision; bytes, seconds.
[[nodiscard]] QByteArray resultCsv(const core::Scenario& scenario, const core::Result& result);

/// core::resultToJson(result) with a trailing newline.
[[nodiscard]] QByteArray resultJson(const core::Result& result);

} // namespace shardscope::ui
