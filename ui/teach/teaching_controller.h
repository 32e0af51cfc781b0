// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

class QMenu;
class QWidget;

namespace shardscope::ui {

class PresentationView;
class ScenarioDocument;

/// View → Teaching Mode (F5) and View → Lessons: loads the built-in lessons and shows them in a full-screen
/// PresentationView with a document of its own. "Open in the explorer" applies the step's scenario to the window's
/// document as one undoable edit and leaves the presentation.
class TeachingController : public QObject
{
    Q_OBJECT
public:
    TeachingController(ScenarioDocument* doc, QWidget* window);

    void populateMenu(QMenu* menu);
    /// The presentation (created with the lessons on first use, not shown).
    [[nodiscard]] PresentationView* view();

public slots:
    /// Shows lesson `lesson` (0-based) full screen.
    void start(int lesson = 0);

signals:
    void statusMessage(const QString& text);

private:
    ScenarioDocument* m_doc;
    QWidget* m_window;
    QPointer<PresentationView> m_view;
};

} // namespace shardscope::ui
