// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/what_if.h>

#include <QObject>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class QUndoStack;

namespace shardscope::ui {

class WhatIfRunner;

/// The open scenario: one Scenario value, what the window shows for it (core::whatIf(): the figures with their named
/// terms, the strategy comparison, the "what would fit" advice, the fixes), the pinned scenarios the compare view
/// shows (saved with the file as its "pins"), the undo stack of whole-Scenario and whole-pin-list edits and the file
/// it belongs to. An edit (of the scenario or the pins) changes scenario() or pins() at once; whatIf() of both runs on a
/// background job (WhatIfRunner, newest wins) and resultReady / pinsChanged deliver its value, so the views follow a
/// moment later and the GUI thread never evaluates.
class ScenarioDocument : public QObject
{
    Q_OBJECT
public:
    explicit ScenarioDocument(const core::Catalog& catalog, QObject* parent = nullptr);
    ~ScenarioDocument() override;

    [[nodiscard]] const core::Catalog& catalog() const { return m_catalog; }
    /// The newest scenario, edits included whose result has not arrived yet.
    [[nodiscard]] const core::Scenario& scenario() const { return m_scenario; }
    /// What the views show: the last delivered core::whatIf(), of scenario() unless isEvaluating(). Never null.
    [[nodiscard]] const std::shared_ptr<const core::WhatIf>& shown() const { return m_shown; }
    /// shown()->result and shown()->strategies.
    [[nodiscard]] const core::Result& result() const { return m_shown->result; }
    [[nodiscard]] const core::StrategyComparison& comparison() const { return m_shown->strategies; }
    /// A whatIf() of a newer scenario or pin list than shown()'s runs or waits.
    [[nodiscard]] bool isEvaluating() const;
    /// Counts the scenarios sent to the background job; shownGeneration() is the count of shown()'s.
    [[nodiscard]] std::uint64_t requestedGeneration() const;
    [[nodiscard]] std::uint64_t shownGeneration() const { return m_shownGeneration; }
    [[nodiscard]] QUndoStack* undoStack() const { return m_undo; }
    /// The pinned scenarios, in order, edits included whose results have not arrived yet (what a save writes).
    [[nodiscard]] const std::vector<core::Scenario>& pins() const { return m_pins; }
    /// The results of shown()->pins (core::evaluate of each, same order): of pins() unless isEvaluating().
    [[nodiscard]] const std::vector<core::Result>& pinResults() const { return m_shown->pinResults; }
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
    /// scenario() changed (an edit, undo, redo, New, Open); its result follows with resultReady.
    void scenarioChanged();
    /// The newest scenario's whatIf() arrived; shown() is it. Every view of the scenario's figures takes it from here.
    void resultReady(std::shared_ptr<const core::WhatIf> shown);
    /// pins() changed (pin, unpin, clear, their undo and redo, New, Open); their results follow with pinsChanged.
    void pinsEdited();
    /// The pins changed (pin, unpin, clear, their undo and redo, New, Open) and their results arrived with the newest
    /// whatIf(): the new list and its results (shown()->pins and ->pinResults).
    void pinsChanged(const std::vector<core::Scenario>& pins, const std::vector<core::Result>& results);
    /// shown() is the whatIf() of the newest scenario and pins (isEvaluating() is false), after resultReady and
    /// pinsChanged when those came with it.
    void settled();
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& path);

private:
    friend class SetScenarioCommand;
    friend class SetPinsCommand;
    void apply(const core::Scenario& next);
    void applyPins(std::vector<core::Scenario> next);
    void pushPins(const QString& text, std::vector<core::Scenario> next);

    const core::Catalog& m_catalog;
    void show(std::shared_ptr<const core::WhatIf> result, std::uint64_t generation);

    core::Scenario m_scenario;
    std::shared_ptr<const core::WhatIf> m_shown;
    std::uint64_t m_shownGeneration = 0;
    WhatIfRunner* m_runner = nullptr;
    std::vector<core::Scenario> m_pins;
    bool m_scenarioPending = false; ///< the job runs for a changed scenario: resultReady follows
    bool m_pinsPending = false; ///< the job runs for changed pins: pinsChanged follows
    QUndoStack* m_undo = nullptr;
    QString m_filePath;
    int m_interactionDepth = 0;
    int m_interactionSerial = 0;
    int m_generation = 0;
};

} // namespace shardscope::ui
