// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/scenario_document.h"

#include "document/set_scenario_command.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>

#include <QFileInfo>
#include <QUndoStack>

namespace shardscope::ui {

ScenarioDocument::ScenarioDocument(const core::Catalog& catalog, QObject* parent)
    : QObject(parent)
    , m_catalog(catalog)
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    apply(core::defaultScenario(m_catalog));
}

ScenarioDocument::~ScenarioDocument() = default;

void ScenarioDocument::edit(const QString& text, const QString& field,
                            const std::function<void(core::Scenario&)>& change)
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

void ScenarioDocument::reset(const core::Scenario& scenario, const QString& filePath)
{
    m_undo->clear();
    m_interactionDepth = 0;
    ++m_generation;
    apply(scenario);
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

void ScenarioDocument::apply(const core::Scenario& next)
{
    m_scenario = next;
    m_result = core::explain(m_scenario); // the figures and their terms, which every view lists
    m_comparison = compareStrategies(m_scenario);
    emit changed();
}

} // namespace shardscope::ui
