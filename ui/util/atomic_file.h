// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Qt's side of core::writeFileAtomically (core/file_io.h): every export, the launch configurations and the
/// numbers go through it, so a failed write leaves the previous file as it was.

#include <QByteArray>
#include <QString>

namespace shardscope::ui {

/// Writes bytes to path atomically. Returns "" on success, otherwise the step that failed and why, naming the
/// file ("cannot write /x/a.png: No space left on device (/x/a.png was not changed)").
[[nodiscard]] QString writeBytes(const QString& path, const QByteArray& bytes);

} // namespace shardscope::ui
