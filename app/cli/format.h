// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Human-readable tables for the CLI (C locale, units spelled out).

#include "shardscope/core/catalog.h"
#include "shardscope/core/result.h"

#include <ostream>
#include <string>

namespace shardscope::cli {

std::string bytes(double b); ///< "12.3 GiB"
std::string seconds(double s); ///< "1.23 s" / "4.5 ms" / "12 us"
std::string count(double n); ///< "70.55 B"
void printResultTable(std::ostream& os, const core::Scenario& s, const core::Result& r);
/// Every term of an explained result, grouped: value, formula, substituted expression, inputs, source (--explain).
void printExplanation(std::ostream& os, const core::Result& r);
void printCatalogTable(std::ostream& os, const core::Catalog& c, const std::string& which);

} // namespace shardscope::cli
