// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>
#include <shardscope/core/lesson.h>

#include <QList>
#include <QWidget>

#include <vector>

class QCPAbstractItem;
class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;
class QTimer;

namespace shardscope::ui {

class MemoryChart;
class ScenarioDocument;
class StepTimeChart;

/// Teaching mode: the built-in lessons as a presentation (full screen, large type, white on black with a yellow
/// accent, keyboard-driven). Each step shows the lesson and step titles, progress, the step's text with its figures
/// filled in (core::lessonStepText), what the step changed (before → after), the figures the text talks about, and
/// the memory and step-time charts of the step's scenario with those figures outlined. Steps are applied to a
/// document of the view's own; the user's document changes only through "open in the explorer".
///
/// Keys: → / Space / PgDn next step, ← / Backspace previous, Home first step, End last step, N / P next or previous
/// lesson, digits jump to a lesson (typed within a second: "1", "2" → lesson 12), E open this step in the explorer,
/// F toggle full screen, Esc leave.
class PresentationView : public QWidget
{
    Q_OBJECT
public:
    PresentationView(const core::Catalog& catalog, std::vector<core::Lesson> lessons, QWidget* parent = nullptr);
    ~PresentationView() override;

    [[nodiscard]] int lessonCount() const { return int(m_lessons.size()); }
    [[nodiscard]] int lessonIndex() const { return m_lesson; }
    [[nodiscard]] int stepIndex() const { return m_step; }
    [[nodiscard]] int stepCount() const;
    [[nodiscard]] const core::Lesson& lesson() const { return m_lessons[size_t(m_lesson)]; }
    [[nodiscard]] ScenarioDocument* stepDocument() const { return m_doc; }
    [[nodiscard]] MemoryChart* memoryChart() const { return m_memory; }
    [[nodiscard]] StepTimeChart* timeChart() const { return m_time; }
    /// The step's rendered text (placeholders filled).
    [[nodiscard]] QString stepText() const { return m_plainText; }
    /// The "changed" lines ("Sharding: ZeRO-1 → ZeRO-2") and the "look at" lines ("Optimizer states: 12.3 GiB").
    [[nodiscard]] QStringList changedLines() const { return m_changedLines; }
    [[nodiscard]] QStringList highlightLines() const { return m_highlightLines; }
    /// Outlines and labels drawn on the charts for this step.
    [[nodiscard]] int calloutCount() const { return int(m_callouts.size()); }

public slots:
    /// Shows step `step` of lesson `lesson` (clamped).
    void goTo(int lesson, int step);
    /// Next step, or the next lesson's first; false at the very end.
    bool next();
    /// Previous step, or the previous lesson's last; false at the very start.
    bool previous();
    void nextLesson();
    void previousLesson();
    void openInExplorer();
    void leave();

signals:
    /// E or the button: the explorer should load this scenario (the controller makes it one undo step).
    void openInExplorerRequested(const core::Scenario& scenario, const QString& title);
    /// Esc or the button.
    void left();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    /// Opens the step's scenario; drawStep() draws it when its result arrives.
    void showStep();
    void drawStep();
    void applyFonts();
    void clearCallouts();
    void addMemoryCallouts(const QStringList& names);
    void addTimeCallouts(const QStringList& names);
    void digit(int d);

    const core::Catalog& m_catalog;
    std::vector<core::Lesson> m_lessons;
    int m_lesson = 0;
    int m_step = 0;
    ScenarioDocument* m_doc;
    QLabel* m_lessonTitle;
    QLabel* m_position;
    QProgressBar* m_progress;
    QLabel* m_stepTitle;
    QTextBrowser* m_text;
    QLabel* m_changed;
    QLabel* m_look;
    MemoryChart* m_memory;
    StepTimeChart* m_time;
    QLabel* m_hints;
    QList<QPushButton*> m_buttons;
    QList<QCPAbstractItem*> m_callouts;
    QString m_plainText;
    QStringList m_changedLines;
    QStringList m_highlightLines;
    int m_typed = 0;
    QTimer* m_digitTimer;
};

} // namespace shardscope::ui
