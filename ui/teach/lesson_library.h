// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>
#include <shardscope/core/lesson.h>

#include <QStringList>

#include <vector>

namespace shardscope::ui {

struct LessonLibrary {
    std::vector<core::Lesson> lessons;
    QStringList errors; ///< "file: field: message" for lessons that did not load (those are left out)
};

/// The built-in lessons, compiled in as Qt resources (:/lessons/*.json, in file-name order); when the resources
/// hold none, the files of core::defaultLessonDirectory().
[[nodiscard]] LessonLibrary loadLessons(const core::Catalog& catalog);

} // namespace shardscope::ui
