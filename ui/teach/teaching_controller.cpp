// SPDX-License-Identifier: GPL-3.0-or-later
#include "teach/teaching_controller.h"

#include "document/scenario_document.h"
#include "session/file_controller.h"
#include "teach/lesson_library.h"
#include "teach/presentation_view.h"
#include "util/message.h"

#include <QMenu>

namespace shardscope::ui {

TeachingController::TeachingController(ScenarioDocument* doc, FileController* files, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_files(files)
    , m_window(window)
{ }

void TeachingController::populateMenu(QMenu* menu)
{
    menu->addAction(tr("&Teaching Mode"), QKeySequence(Qt::Key_F5), this, [this] { start(0); })
        ->setToolTip(tr("The built-in lessons as a full-screen presentation"));
    QMenu* lessons = menu->addMenu(tr("Lesso&ns"));
    // Filled when opened: loading the lessons evaluates every step, so not at start-up.
    connect(lessons, &QMenu::aboutToShow, this, [this, lessons] {
        if (!lessons->isEmpty())
            return;
        PresentationView* v = view();
        for (int i = 0; i < v->lessonCount(); ++i) {
            v->goTo(i, 0);
            lessons->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QString::fromStdString(v->lesson().title)), this,
                [this, i] { start(i); });
        }
        v->goTo(0, 0);
    });
}

PresentationView* TeachingController::view()
{
    if (!m_view) {
        LessonLibrary lib = loadLessons(m_doc->catalog());
        if (!lib.errors.isEmpty())
            emit statusMessage(tr("Some lessons did not load: %1").arg(lib.errors.join(QStringLiteral("; "))));
        auto* v = new PresentationView(m_doc->catalog(), std::move(lib.lessons), m_window);
        v->setWindowFlag(Qt::Window);
        connect(v, &PresentationView::openInExplorerRequested, this,
            [this, v](const core::Scenario& s, const QString& title) {
                v->leave(); // out of full screen first: the question about unsaved changes shows over the window
                m_files->openUntitled(s, tr("Lesson step “%1”").arg(title));
            });
        m_view = v;
    }
    return m_view;
}

void TeachingController::start(int lesson)
{
    PresentationView* v = view();
    if (v->lessonCount() == 0) {
        showMessage(m_window, tr("Teaching mode"), tr("No lessons could be loaded."));
        return;
    }
    v->goTo(lesson, 0);
    v->showFullScreen();
    v->raise();
    v->activateWindow();
}

void TeachingController::redraw()
{
    if (m_view)
        m_view->goTo(m_view->lessonIndex(), m_view->stepIndex());
}

} // namespace shardscope::ui
