// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "document/strategy_comparison.h"

#include <shardscope/core/catalog.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QObject>
#include <QString>

#include <functional>

class QUndoStack;

namespace shardscope::ui {

/// The open scenario: one Scenario value, its Result (always core::explain(scenario()): the figures with their
/// named terms, which every view lists), the strategy
/// comparison, the undo stack of whole-Scenario edits and the file it belongs to.
class ScenarioDocument : public QObject
{
    Q_OBJECT
public:
    explicit ScenarioDocument(const core::Catalog& catalog, QObject* parent = nullptr);
    ~ScenarioDocument() override;

    [[nodiscard]] const core::Catalog& catalog() const { return m_catalog; }
    [[nodiscard]] const core::Scenario& scenario() const { return m_scenario; }
    [[nodiscard]] const core::Result& result() const { return m_result; }
    [[nodiscard]] const StrategyComparison& comparison() const { return m_comparison; }
    [[nodiscard]] QUndoStack* undoStack() const { return m_undo; }

    /// Applies change to a copy of the scenario and pushes the new value as one undo step named text.
    /// A no-op change pushes nothing. Inside beginInteraction()/endInteraction(), edits of the same field merge.
    void edit(const QString& text, const QString& field, const std::function<void(core::Scenario&)>& change);
    /// A continuous gesture (slider drag) starts: its edits become one undo step per field.
    void beginInteraction();
    void endInteraction();

    /// Replaces the scenario without an undo step (New, Open): clears the undo stack and marks it clean.
    void reset(const core::Scenario& scenario, const QString& filePath);
    [[nodiscard]] QString filePath() const { return m_filePath; }
    /// Counts reset() calls: views that keep something of an earlier scenario (the last valid figures) drop it when
    /// it belongs to another document.
    [[nodiscard]] int generation() const { return m_generation; }
    /// After a successful save: remembers the path and marks the document clean.
    void markSaved(const QString& filePath);
    [[nodiscard]] bool isModified() const;
    /// File name, or "Untitled".
    [[nodiscard]] QString displayName() const;

signals:
    /// The scenario, result and comparison changed; they are consistent when this is emitted.
    void changed();
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);

private:
    friend class SetScenarioCommand;
    void apply(const core::Scenario& next);

    const core::Catalog& m_catalog;
    core::Scenario m_scenario;
    core::Result m_result;
    StrategyComparison m_comparison;
    QUndoStack* m_undo = nullptr;
    QString m_filePath;
    int m_interactionDepth = 0;
    int m_interactionSerial = 0;
    int m_generation = 0;
};

} // namespace shardscope::ui
