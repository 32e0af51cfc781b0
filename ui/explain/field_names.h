// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Human names of scenario fields (dotted paths as in the shardscope.scenario/1 file). The editors label
/// their controls with them and the issues panel names the control an issue is about.

#include <QString>

namespace shardscope::ui {

/// "parallelism.tp" -> "Tensor parallel (TP)". Unknown sub-fields fall back to their longest known prefix
/// ("cluster.gpu.memory_bytes" -> "GPU"); an unknown field is returned as is.
[[nodiscard]] QString fieldLabel(const QString& field);

/// The longest known prefix of field ("cluster.gpu.memory_bytes" -> "cluster.gpu"), or "" when none.
[[nodiscard]] QString knownField(const QString& field);

/// "Parallelism" for "parallelism.tp" (the editor group a field lives in).
[[nodiscard]] QString fieldGroupLabel(const QString& field);

} // namespace shardscope::ui
