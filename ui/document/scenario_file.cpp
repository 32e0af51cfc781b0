// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenario_file.h"

#include "document/scenario_pins.h"
#include "util/atomic_file.h"

#include <shardscope/core/file_io.h>
#include <shardscope/core/scenario_json.h>

#include <QFile>

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
    QByteArray bytes;
    if (path.startsWith(QLatin1Char(':'))) { // compiled-in resources: in memory, of a known size
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            load.errors << file.errorString();
            return load;
        }
        bytes = file.readAll();
    } else {
        std::string text;
        std::string error;
        if (!core::readRegularFile(QFile::encodeName(path).toStdString(), size_t(kMaxScenarioFileBytes), text, error)) {
            load.errors << QString::fromLocal8Bit(error);
            return load;
        }
        bytes = QByteArray::fromStdString(text);
    }
    const core::ScenarioParse parsed
        = core::parseScenario(std::string_view(bytes.constData(), size_t(bytes.size())), catalog);
    for (const core::Issue& e : parsed.errors)
        load.errors << describe(e);
    for (const core::Issue& w : parsed.warnings)
        load.warnings << describe(w);
    load.scenario = parsed.scenario;
    if (parsed.ok())
        load.pins = readPins(bytes, catalog, &load.warnings);
    return load;
}

QString writeScenarioFile(const QString& path, const core::Scenario& scenario, const core::Catalog& catalog,
    const std::vector<core::Scenario>& pins)
{
    const std::string json = appendPins(core::scenarioToJson(scenario, catalog), pins, catalog) + "\n";
    return writeBytes(path, QByteArray::fromStdString(json));
}

} // namespace shardscope::ui
