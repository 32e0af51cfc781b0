// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "document/strategy_comparison.h"

#include <shardscope/core/catalog.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class QUndoStack;

namespace shardscope::ui {

/// The open scenario: one Scenario value, its Result (always core::explain(scenario()): the figures with their
/// named terms, which every view lists), the strategy comparison, the pinned scenarios the compare view shows
/// (saved with the file as its "pins"), the undo stack of whole-Scenario and whole-pin-list edits and the file
/// it belongs to.
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
    /// The pinned scenarios, in order, and their results (core::evaluate of each, same order).
    [[nodiscard]] const std::vector<core::Scenario>& pins() const { return m_pins; }
    [[nodiscard]] const std::vector<core::Result>& pinResults() const { return m_pinResults; }
    /// Pin i's label: its scenario name, or "Pin N".
    [[nodiscard]] QString pinLabel(int i) const;

    /// Applies change to a copy of the scenario and pushes the new value as one undo step named text.
    /// A no-op change pushes nothing. Inside beginInteraction()/endInteraction(), edits of the same field merge.
    void edit(const QString& text, const QString& field, const std::function<void(core::Scenario&)>& change);
    /// A continuous gesture (slider drag) starts: its edits become one undo step per field.
    void beginInteraction();
    void endInteraction();

    /// Pins a copy of scenario (one undo step); an unnamed one is labelled with its generated name (scenario_name.h).
    /// Refused (false, nothing changes) when core::kMaxPins are pinned already: a file keeps no more.
    bool pin(const core::Scenario& scenario);
    /// Removes pin i (one undo step); an index out of range does nothing.
    void unpin(int i);
    /// Removes every pin (one undo step; none when there are no pins).
    void clearPins();
    /// Replaces the scenario and the pins as one undo step named text (restoring an autosave); nothing when both
    /// are unchanged.
    void replace(const QString& text, const core::Scenario& scenario, const std::vector<core::Scenario>& pins);

    /// Replaces the scenario and the pins without an undo step (New, Open): clears the undo stack and marks it clean.
    void reset(const core::Scenario& scenario, const QString& filePath, std::vector<core::Scenario> pins = {});
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
    /// The pins changed (pin, unpin, clear, their undo and redo, New, Open): the new list and its results.
    void pinsChanged(const std::vector<core::Scenario>& pins, const std::vector<core::Result>& results);
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);

private:
    friend class SetScenarioCommand;
    friend class SetPinsCommand;
    void apply(const core::Scenario& next);
    void applyPins(std::vector<core::Scenario> next);
    void pushPins(const QString& text, std::vector<core::Scenario> next);

    const core::Catalog& m_catalog;
    core::Scenario m_scenario;
    core::Result m_result;
    StrategyComparison m_comparison;
    std::vector<core::Scenario> m_pins;
    std::vector<core::Result> m_pinResults;
    QUndoStack* m_undo = nullptr;
    QString m_filePath;
    int m_interactionDepth = 0;
    int m_interactionSerial = 0;
    int m_generation = 0;
};

} // namespace shardscope::ui
