// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// shardscope-cli export: charts as PNG, SVG or PDF without a display. Compiled only with the GUI
// (SHARDSCOPE_BUILD_GUI): it links shardscope_ui and starts a QApplication on the offscreen platform for this
// command alone; every other command stays Qt-free at run time.

#include "shardscope/core/catalog.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <map>
#include <ostream>
#include <string>

namespace shardscope::cli {

/// Options: --chart memory|strategy|communication|time|timeline|search|sweep|sizing|rank-map|report (the analyses'
/// charts with their panes' opening settings, ui/export/analysis_figures.h), --out FILE.png|.svg|.pdf (report: .pdf),
/// [--width W --height H] logical pixels (default 1000 x 620), [--dpi D] PNG density (default 96).
/// A PNG over ui::kMaxFigurePixels (width × height × (dpi/96)²) is refused before anything is drawn.
/// Returns the exit code: 0 written, 2 bad option or a PNG over the pixel budget, 1 could not write (the file
/// named, the old file kept).
int runExport(const core::Scenario& scenario, const core::Result& result, const core::Catalog& catalog,
    const std::map<std::string, std::string>& options, std::ostream& out, std::ostream& err);

} // namespace shardscope::cli
