// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QObject>
#include <QString>

#include <vector>

namespace shardscope::ui {

class ScenarioDocument;

/// The pinned scenarios (and their results) for the compare view, as many as the file holds. Pinning and
/// unpinning are steps on the document's undo stack, so they mark the file modified and undo like edits; the pins
/// are saved in the scenario file ("pins", document/scenario_pins.h) and replaced when a file is opened.
class PinBoard : public QObject
{
    Q_OBJECT
public:
    explicit PinBoard(ScenarioDocument* doc, QObject* parent = nullptr);

    [[nodiscard]] const std::vector<core::Scenario>& pins() const { return m_pins; }
    [[nodiscard]] const std::vector<core::Result>& results() const { return m_results; }
    [[nodiscard]] int count() const { return int(m_pins.size()); }
    /// The label of pin i: its scenario name, or "Pin N".
    [[nodiscard]] QString label(int i) const;
    /// The letter of pin i in the compare view: A … Z, then AA, AB, … (spreadsheet columns).
    [[nodiscard]] static QString letter(int i);

    /// Pins the document's current scenario (one undo step).
    void pinCurrent();
    /// Pins a scenario (one undo step).
    void pin(const core::Scenario& scenario);
    /// Removes pin i (one undo step).
    void unpin(int i);
    /// Removes every pin (one undo step).
    void clear();

    /// Replaces the pins without an undo step (file open, new, tests).
    void setPins(std::vector<core::Scenario> pins);

signals:
    void changed();

private:
    friend class PinCommand;
    void push(const QString& text, std::vector<core::Scenario> next);

    ScenarioDocument* m_doc;
    std::vector<core::Scenario> m_pins;
    std::vector<core::Result> m_results;
};

} // namespace shardscope::ui
