// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenario_pins.h"

#include <shardscope/core/scenario_json.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace shardscope::ui {

std::vector<core::Scenario> readPins(const QByteArray& fileBytes, const core::Catalog& catalog, QStringList* warnings)
{
    std::vector<core::Scenario> pins;
    const QJsonDocument doc = QJsonDocument::fromJson(fileBytes);
    if (!doc.isObject())
        return pins;
    const QJsonValue value = doc.object().value(QLatin1String("pins"));
    if (value.isUndefined())
        return pins;
    if (!value.isArray())
        return pins; // core::parseScenario warns of it, as it does of more than core::kMaxPins pins
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < std::min(array.size(), qsizetype(core::kMaxPins)); ++i) {
        const QString where = QStringLiteral("pins[%1]").arg(i);
        if (!array[i].isObject()) {
            if (warnings)
                *warnings << where + QStringLiteral(": not a scenario object; ignored");
            continue;
        }
        const QByteArray text = QJsonDocument(array[i].toObject()).toJson(QJsonDocument::Compact);
        const core::ScenarioParse parsed
            = core::parseScenario(std::string_view(text.constData(), size_t(text.size())), catalog);
        if (!parsed.ok()) {
            if (warnings)
                for (const core::Issue& e : parsed.errors)
                    *warnings << QStringLiteral("%1.%2: %3; pin ignored")
                                     .arg(where, QString::fromStdString(e.field), QString::fromStdString(e.message));
            continue;
        }
        pins.push_back(parsed.scenario);
    }
    return pins;
}

std::string appendPins(
    const std::string& scenarioJson, const std::vector<core::Scenario>& pins, const core::Catalog& catalog)
{
    if (pins.empty())
        return scenarioJson;
    const size_t close = scenarioJson.find_last_of('}');
    if (close == std::string::npos)
        return scenarioJson;
    std::string head = scenarioJson.substr(0, close);
    while (!head.empty() && (head.back() == '\n' || head.back() == ' '))
        head.pop_back();
    std::string out = head + ",\n  \"pins\": [\n";
    for (size_t i = 0; i < pins.size(); ++i) {
        // Each pin indented by four spaces, as it would be if the whole file were written at once.
        const std::string pin = core::scenarioToJson(pins[i], catalog);
        out += "    ";
        for (char c : pin) {
            out += c;
            if (c == '\n')
                out += "    ";
        }
        out += i + 1 < pins.size() ? ",\n" : "\n";
    }
    out += "  ]\n}" + scenarioJson.substr(close + 1);
    return out;
}

} // namespace shardscope::ui
