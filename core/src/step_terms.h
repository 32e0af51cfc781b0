// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The step-time, throughput, model and communication terms of evaluate(), assembled from the expressions the compute,
// communication, timing and throughput stages computed their figures with (expr.h; docs/model.md: step time,
// throughput).

#include "compute_stage.h"
#include "engine.h"
#include "expr.h"
#include "timing_stage.h"

#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"
#include "shardscope/core/term.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::core::detail {

/// What evaluateInto computed for the slowest pipeline stage, which sets the step time.
struct StepTerms {
    StepTimesOf<Expr> times; ///< compute, recompute and exposed communication, as stepTimes computed them
    double contention = 0; ///< compute slowed by overlapped collectives per micro-batch (its formula's note)
    std::vector<Expr> collectiveBytes; ///< each collective's bytes, as recordCollectives computed them
    double sumStage = 0, tSlow = 0, weightGrad = 0; ///< Σ stage times, slowest stage time, its weight-gradient part
    int v = 1; ///< virtual stages
    const Layout* layout = nullptr; ///< the layout (optimizer and offload terms)
    const SlowStage* slowStage = nullptr; ///< the slowest stage (optimizer and offload terms)
    LayerCompute compute; ///< FLOPs per micro-batch and the rates they run at
};

/// Appends the model, step-time, throughput and communication terms of a finished result.
void addStepTerms(const Scenario& s, const Shape& shape, const Result& r, const StepTerms& st, std::vector<Term>& out);

} // namespace shardscope::core::detail
