// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The held-out validation rows' measured figure as tokens/s per GPU (tests/core/data/validation_runs.json, the row's
// "measured.kind" and "convention"; tst_validation_runs.cpp's file comment lists the conventions). Shared by
// tst_validation_runs (README's validation table) and tst_published_runs (the leave-one-source-out bands).

#include "shardscope/core/scenario.h"

#include <QJsonObject>
#include <QString>

namespace sstest::validation {

using shardscope::core::Scenario;

/// FLOPs per token under the source's stated convention (see the file comment).
inline double flopsPerToken(const QJsonObject& measured, const Scenario& s, QString& why)
{
    const QString convention = measured.value(QStringLiteral("convention")).toString();
    const double l = s.model.layers, h = static_cast<double>(s.model.hidden), v = static_cast<double>(s.model.vocab);
    const double seq = s.training.seqLen;
    if (convention == QLatin1String("palm-6n-12lhs")) {
        const double n = measured.value(QStringLiteral("params")).toDouble();
        return 6 * n + 12 * l * h * seq;
    }
    if (convention == QLatin1String("megatron-recompute"))
        return 96 * l * h * h * (1 + seq / (6 * h) + v / (16 * l * h));
    why = QStringLiteral("unknown FLOP convention '%1'").arg(convention);
    return 0;
}

/// The measured figure as tokens/s per GPU, by the source's convention; 0 (with why) when it cannot be converted.
inline double measuredTokensPerGpu(const QJsonObject& measured, const Scenario& s, QString& why)
{
    const QString kind = measured.value(QStringLiteral("kind")).toString();
    const double value = measured.value(QStringLiteral("value")).toDouble();
    const double gpus = static_cast<double>(s.cluster.nodes) * s.cluster.gpusPerNode;
    if (kind == QLatin1String("tokens_per_s_per_gpu"))
        return value;
    if (kind == QLatin1String("step_time_s"))
        return static_cast<double>(s.training.globalBatch) * s.training.seqLen / (value * gpus);
    if (kind == QLatin1String("gpu_hours_per_trillion_tokens"))
        return 1e12 / (value * 3600);
    if (kind == QLatin1String("model_tflops_per_gpu")) {
        const double f = flopsPerToken(measured, s, why);
        return f > 0 ? value * 1e12 / f : 0;
    }
    why = QStringLiteral("unknown measured kind '%1'").arg(kind);
    return 0;
}

} // namespace sstest::validation
