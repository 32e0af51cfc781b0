// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomic_file.h"

#include <shardscope/core/file_io.h>

#include <QFile>

namespace shardscope::ui {

QString writeBytes(const QString& path, const QByteArray& bytes)
{
    std::string error;
    if (core::writeFileAtomically(
            QFile::encodeName(path).toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())), error))
        return {};
    return QString::fromLocal8Bit(error.c_str());
}

} // namespace shardscope::ui
