// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

class QMenu;
class QWidget;

namespace shardscope::ui {

class FileController;
class PresentationView;
class ScenarioDocument;

/// View → Teaching Mode (F5) and View → Lessons: loads the built-in lessons and shows them in a full-screen
/// PresentationView with a document of its own. "Open in the explorer" (E) leaves the presentation and opens the
/// step's scenario as a new untitled document (FileController::openUntitled: unsaved changes are asked about first),
/// so the user's file is never replaced or overwritten by a lesson.
class TeachingController : public QObject
{
    Q_OBJECT
public:
    TeachingController(ScenarioDocument* doc, FileController* files, QWidget* window);

    void populateMenu(QMenu* menu);
    /// The presentation (created with the lessons on first use, not shown).
    [[nodiscard]] PresentationView* view();

public slots:
    /// Shows lesson `lesson` (0-based) full screen.
    void start(int lesson = 0);
    /// Draws the step shown again (the memory units changed); nothing before the presentation was first opened.
    void redraw();

signals:
    void statusMessage(const QString& text);

private:
    ScenarioDocument* m_doc;
    FileController* m_files;
    QWidget* m_window;
    QPointer<PresentationView> m_view;
};

} // namespace shardscope::ui
