// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenario_file.h"

#include <shardscope/core/scenario_json.h>

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>

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
    return load;
}

QString writeScenarioFile(const QString& path, const core::Scenario& scenario, const core::Catalog& catalog)
{
    const std::string json = core::scenarioToJson(scenario, catalog) + "\n";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    if (file.write(json.data(), qint64(json.size())) != qint64(json.size())) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return reason;
    }
    if (!file.commit())
        return file.errorString();
    return {};
}

} // namespace shardscope::ui
