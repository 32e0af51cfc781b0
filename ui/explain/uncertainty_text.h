// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Words for the core's 80% ranges (core/uncertainty.h), shared by the KPI cards, the charts and the status line.

#include <shardscope/core/result.h>

#include <QString>

namespace shardscope::ui {

/// "± 12% (validated on 175 runs)"; "+47% / −23% (extrapolated)" (the basis sentence, in the tooltip, says which kind has no published run); "± 6% (calibrated
/// on 4 of your runs)"; empty for an invalid result. `runs`: the runs behind this figure's band.
[[nodiscard]] QString rangeNote(double point, const core::Range& range, const core::Uncertainty& u, int runs);

/// "80% range 61.2 – 72.0 GiB for a plain run (validated: leave-one-source-out on 4 published PyTorch plain runs (1 source))." and, when borderline, why.
[[nodiscard]] QString memoryRangeSentence(const core::Result& r);
/// "80% range 1.10 – 1.52 s for a plain run (validated: leave-one-source-out on 177 published PyTorch plain runs (3 sources))."
[[nodiscard]] QString stepRangeSentence(const core::Result& r);

/// Why the memory verdict is borderline, in one sentence without the full stop: the estimate against the usable
/// memory, how far the 80% range reaches, and whether it runs only inside the headroom. Empty unless borderline.
[[nodiscard]] QString borderlineSentence(const core::Result& r);

} // namespace shardscope::ui
