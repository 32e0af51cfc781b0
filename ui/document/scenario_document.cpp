// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenario_document.h"

#include "document/set_pins_command.h"
#include "document/set_scenario_command.h"
#include "document/what_if_runner.h"

#include <shardscope/core/scenario_json.h>
#include <shardscope/core/scenario_name.h>

#include <QFileInfo>
#include <QUndoStack>

#include <utility>

namespace shardscope::ui {

ScenarioDocument::ScenarioDocument(const core::Catalog& catalog, QObject* parent)
    : QObject(parent)
    , m_catalog(catalog)
    , m_scenario(core::defaultScenario(catalog))
    , m_shown(std::make_shared<const core::WhatIf>(
          core::whatIf(m_scenario))) // the first one at once: shown() is never null
    , m_runner(new WhatIfRunner(this))
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    connect(m_runner, &WhatIfRunner::resultReady, this, &ScenarioDocument::show);
}

ScenarioDocument::~ScenarioDocument() = default;

void ScenarioDocument::edit(
    const QString& text, const QString& field, const std::function<void(core::Scenario&)>& change)
{
    core::Scenario next = m_scenario;
    change(next);
    if (next == m_scenario)
        return;
    const int session = m_interactionDepth > 0 ? m_interactionSerial : 0;
    m_undo->push(new SetScenarioCommand(this, m_scenario, next, text, field, session));
}

void ScenarioDocument::beginInteraction()
{
    if (m_interactionDepth++ == 0)
        ++m_interactionSerial;
}

void ScenarioDocument::endInteraction()
{
    if (m_interactionDepth > 0)
        --m_interactionDepth;
}

QString ScenarioDocument::pinLabel(int i) const
{
    if (i < 0 || i >= int(m_pins.size()))
        return {};
    return QString::fromStdString(core::scenarioTitle(m_pins[size_t(i)])); // an unnamed pin: named from its content
}

bool ScenarioDocument::pin(const core::Scenario& scenario)
{
    if (m_pins.size() >= core::kMaxPins)
        return false;
    core::Scenario pinned = scenario;
    const QString text = tr("Pin “%1”").arg(QString::fromStdString(core::scenarioTitle(pinned)));
    std::vector<core::Scenario> next = m_pins;
    next.push_back(std::move(pinned));
    pushPins(text, std::move(next));
    return true;
}

void ScenarioDocument::unpin(int i)
{
    if (i < 0 || i >= int(m_pins.size()))
        return;
    std::vector<core::Scenario> next = m_pins;
    next.erase(next.begin() + i);
    pushPins(tr("Unpin “%1”").arg(pinLabel(i)), std::move(next));
}

void ScenarioDocument::clearPins()
{
    if (!m_pins.empty())
        pushPins(tr("Clear pins"), {});
}

void ScenarioDocument::pushPins(const QString& text, std::vector<core::Scenario> next)
{
    m_undo->push(new SetPinsCommand(this, m_pins, std::move(next), text));
}

void ScenarioDocument::replace(
    const QString& text, const core::Scenario& scenario, const std::vector<core::Scenario>& pins)
{
    const bool scenarioChanges = scenario != m_scenario;
    const bool pinsChange = pins != m_pins;
    if (!scenarioChanges && !pinsChange)
        return;
    m_undo->beginMacro(text);
    if (scenarioChanges)
        m_undo->push(new SetScenarioCommand(this, m_scenario, scenario, text, QString(), 0));
    if (pinsChange)
        pushPins(text, pins);
    m_undo->endMacro();
}

void ScenarioDocument::reset(const core::Scenario& scenario, const QString& filePath, std::vector<core::Scenario> pins)
{
    m_undo->clear();
    m_interactionDepth = 0;
    ++m_generation;
    apply(scenario);
    applyPins(std::move(pins));
    m_undo->setClean();
    if (m_filePath != filePath) {
        m_filePath = filePath;
        emit filePathChanged(m_filePath);
    }
    emit modifiedChanged(false);
}

void ScenarioDocument::markSaved(const QString& filePath)
{
    m_undo->setClean();
    if (m_filePath != filePath) {
        m_filePath = filePath;
        emit filePathChanged(m_filePath);
    }
}

bool ScenarioDocument::isModified() const { return !m_undo->isClean(); }

QString ScenarioDocument::displayName() const
{
    return m_filePath.isEmpty() ? tr("Untitled") : QFileInfo(m_filePath).fileName();
}

bool ScenarioDocument::isEvaluating() const { return m_runner->isBusy(); }

std::uint64_t ScenarioDocument::requestedGeneration() const { return m_runner->requested(); }

void ScenarioDocument::apply(const core::Scenario& next)
{
    m_scenario = next;
    m_scenarioPending = true;
    m_runner->request(m_scenario, m_pins);
    emit scenarioChanged();
}

void ScenarioDocument::applyPins(std::vector<core::Scenario> next)
{
    m_pins = std::move(next);
    m_pinsPending = true;
    m_runner->request(m_scenario, m_pins); // the pins are evaluated with the scenario, off the GUI thread
    emit pinsEdited();
}

void ScenarioDocument::show(std::shared_ptr<const core::WhatIf> result, std::uint64_t generation)
{
    // The runner delivers only the newest request's result: the scenario and pins it was given are the newest.
    m_shown = std::move(result);
    m_shownGeneration = generation;
    if (std::exchange(m_scenarioPending, false))
        emit resultReady(m_shown);
    if (std::exchange(m_pinsPending, false))
        emit pinsChanged(m_shown->pins, m_shown->pinResults);
    emit settled();
}

} // namespace shardscope::ui
