// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The core's internal fast path under evaluate() and explain(): no validation, no ranges, no warnings.

#include "shardscope/core/layout.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"
#include "shardscope/core/term.h"

#include <vector>

namespace shardscope::core {

namespace detail {
struct Shape;
struct PeakCandidates;
} // namespace detail

/// As evaluate() but skips validation, ranges, warnings and (unless computeMinGpus) min_gpus; for callers that
/// evaluate only layouts validate() accepts (searches, calibration, the waterfall, whatIf's variants). With
/// `terms`, also appends the terms of the figures.
void evaluateInto(const Scenario& scenario, Result& out, bool computeMinGpus, std::vector<Term>* terms = nullptr);
/// The same for a caller that has made the scenario's layout already (`layout` is makeLayout(scenario)).
void evaluateInto(const Scenario& scenario, const Layout& layout, Result& out, bool computeMinGpus,
    std::vector<Term>* terms = nullptr);
/// The same for a search, with the shape too (`shape` is detail::makeShape(scenario), which offload settings do not
/// change), made once for a layout's offload variants and its memory pre-check, and only the memory of `peakOnly`'s
/// stages (detail::peakCandidates of that shape): the peak, its stage, `fits` and the host and NVMe memory per node
/// are as evaluate()'s; the other stages' memory holds only the NCCL buffers.
void evaluateInto(const Scenario& scenario, const Layout& layout, const detail::Shape& shape,
    const detail::PeakCandidates& peakOnly, Result& out, bool computeMinGpus, std::vector<Term>* terms = nullptr);

} // namespace shardscope::core
