// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QTimer;

namespace shardscope::ui {

class ScenarioDocument;
class TimelineChart;

/// The step timeline of the open scenario: the Gantt/memory chart, a zoom reset, and a one-line summary
/// (schedule, stages, micro-batches, bubble, step time). Rebuilt, debounced, when the document changes while shown.
class TimelinePane : public QWidget
{
    Q_OBJECT
public:
    explicit TimelinePane(ScenarioDocument* doc, QWidget* parent = nullptr);
    [[nodiscard]] TimelineChart* chart() const { return m_chart; }
    /// The summary line: items separated by " · ", each kept on one line (non-breaking spaces inside).
    [[nodiscard]] QString summary() const;

public slots:
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void documentChanged();

    ScenarioDocument* m_doc;
    TimelineChart* m_chart;
    QLabel* m_summary;
    QTimer* m_debounce;
    bool m_dirty = true;
};

} // namespace shardscope::ui
