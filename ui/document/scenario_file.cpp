// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenario_file.h"

#include "document/scenario_pins.h"

#include <shardscope/core/scenario_json.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <unistd.h>
#endif

namespace shardscope::ui {

namespace {
QString describe(const core::Issue& issue)
{
    const QString field = QString::fromStdString(issue.field);
    const QString message = QString::fromStdString(issue.message);
    return field.isEmpty() ? message : QStringLiteral("%1: %2").arg(field, message);
}
} // namespace

ScenarioLoad readScenarioFile(const QString& path, const core::Catalog& catalog)
{
    ScenarioLoad load;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        load.errors << file.errorString();
        return load;
    }
    const QByteArray bytes = file.readAll();
    const core::ScenarioParse parsed =
        core::parseScenario(std::string_view(bytes.constData(), size_t(bytes.size())), catalog);
    for (const core::Issue& e : parsed.errors)
        load.errors << describe(e);
    for (const core::Issue& w : parsed.warnings)
        load.warnings << describe(w);
    load.scenario = parsed.scenario;
    if (parsed.ok())
        load.pins = readPins(bytes, catalog, &load.warnings);
    return load;
}

namespace {
/// fsync of the folder, so that the rename that replaced the file survives a power loss too (QSaveFile
/// fsyncs the file's data before renaming it, not the folder entry). Best effort: errors are ignored.
void syncFolderOf(const QString& path)
{
#ifdef Q_OS_UNIX
    const QString canonical = QFileInfo(path).canonicalFilePath(); // QSaveFile writes through symlinks
    const QByteArray folder = QFile::encodeName(QFileInfo(canonical.isEmpty() ? path : canonical).absolutePath());
    const int fd = ::open(folder.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
#else
    Q_UNUSED(path);
#endif
}
} // namespace

QString writeScenarioFile(const QString& path, const core::Scenario& scenario, const core::Catalog& catalog,
                          const std::vector<core::Scenario>& pins)
{
    const std::string json = appendPins(core::scenarioToJson(scenario, catalog), pins, catalog) + "\n";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    if (file.write(json.data(), qint64(json.size())) != qint64(json.size())) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return reason;
    }
    if (!file.commit()) // flush, fsync, rename over path; on failure the old file is untouched
        return file.errorString();
    syncFolderOf(path);
    return {};
}

} // namespace shardscope::ui
