// SPDX-License-Identifier: GPL-3.0-or-later
#include "teach/lesson_library.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace shardscope::ui {

namespace {
void add(LessonLibrary& lib, const QString& name, const core::LessonParse& parsed)
{
    if (!parsed.ok()) {
        for (const core::Issue& e : parsed.errors)
            lib.errors << QStringLiteral("%1: %2: %3")
                              .arg(name, QString::fromStdString(e.field), QString::fromStdString(e.message));
        return;
    }
    lib.lessons.push_back(parsed.lesson);
}
} // namespace

LessonLibrary loadLessons(const core::Catalog& catalog)
{
    LessonLibrary lib;
    const QDir resources(QStringLiteral(":/lessons"));
    const QStringList files = resources.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name);
    for (const QString& f : files) {
        QFile file(resources.filePath(f));
        if (!file.open(QIODevice::ReadOnly)) {
            lib.errors << QStringLiteral("%1: %2").arg(f, file.errorString());
            continue;
        }
        const QByteArray bytes = file.readAll();
        add(lib, f, core::parseLesson(std::string_view(bytes.constData(), size_t(bytes.size())), catalog));
    }
    if (files.isEmpty())
        for (const std::string& path : core::lessonFiles(core::defaultLessonDirectory()))
            add(lib, QFileInfo(QString::fromStdString(path)).fileName(), core::readLessonFile(path, catalog));
    return lib;
}

} // namespace shardscope::ui
