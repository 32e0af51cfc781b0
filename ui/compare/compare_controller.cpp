// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/compare_controller.h"

#include "compare/compare_view.h"
#include "document/scenario_document.h"
#include "util/screen_fit.h"

#include <shardscope/core/scenario_json.h>

#include <QAction>
#include <QMenu>
#include <QScrollArea>
#include <QVBoxLayout>

namespace shardscope::ui {

CompareController::CompareController(ScenarioDocument* doc, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_mainWindow(window)
{ }

void CompareController::populateMenu(QMenu* menu)
{
    m_pinAction = menu->addAction(tr("&Pin Current Scenario"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
        &CompareController::pinCurrent);
    m_pinAction->setToolTip(tr("Keep a copy of the scenario as it is now, for the comparison (saved with the file)"));
    menu->addAction(tr("&Show Comparison"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this,
        &CompareController::showComparison);
    menu->addSeparator();
    QAction* clear = menu->addAction(tr("&Clear Pins"), m_doc, &ScenarioDocument::clearPins);
    clear->setEnabled(!m_doc->pins().empty());
    connect(m_doc, &ScenarioDocument::pinsChanged, clear,
        [clear](const std::vector<core::Scenario>& pins) { clear->setEnabled(!pins.empty()); });
}

QWidget* CompareController::window()
{
    if (!m_window) {
        auto* w = new QWidget(m_mainWindow, Qt::Window);
        w->setObjectName(QStringLiteral("compareWindow"));
        w->setWindowTitle(tr("ShardScope — Compare pinned scenarios"));
        // A window shorter than the view needs (many pins on a small screen) scrolls: squeezed below their minimum
        // sizes, the charts' legends lay over their plots (issue 23's walkthrough at 1020 x 750).
        auto* scroll = new QScrollArea(w);
        scroll->setObjectName(QStringLiteral("compareScroll"));
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        m_view = new CompareView(m_doc, scroll);
        scroll->setWidget(m_view);
        auto* layout = new QVBoxLayout(w);
        layout->setContentsMargins(6, 6, 6, 6);
        layout->addWidget(scroll);
        connect(m_view, &CompareView::pinCurrentRequested, this, &CompareController::pinCurrent);
        connect(m_view, &CompareView::openPinRequested, this, &CompareController::openPin);
        fitToScreen(w, QSize(1400, 950)); // a 1280 x 800 screen gets a window that fits it
        m_window = w;
        emit viewCreated(m_view);
    }
    return m_window;
}

void CompareController::redraw()
{
    if (m_view)
        m_view->redraw();
}

CompareView* CompareController::view()
{
    (void)window();
    return m_view;
}

void CompareController::showComparison()
{
    QWidget* w = window();
    w->show();
    w->raise();
    w->activateWindow();
}

void CompareController::pinCurrent()
{
    if (!m_doc->pin(m_doc->scenario())) {
        emit statusMessage(
            tr("Not pinned: %n pin(s) is the most a file keeps; unpin one first", nullptr, int(core::kMaxPins)));
        showComparison();
        return;
    }
    const int count = int(m_doc->pins().size());
    emit statusMessage(tr("Pinned “%1” (%n pin(s))", nullptr, count).arg(m_doc->pinLabel(count - 1)));
    showComparison();
}

void CompareController::openPin(int i)
{
    if (i < 0 || i >= int(m_doc->pins().size()))
        return;
    const core::Scenario s = m_doc->pins()[size_t(i)];
    const QString label = m_doc->pinLabel(i);
    m_doc->edit(tr("Open pin “%1”").arg(label), QStringLiteral("pins"), [s](core::Scenario& x) { x = s; });
    emit statusMessage(tr("Opened pin “%1” in the explorer (Undo returns)").arg(label));
}

} // namespace shardscope::ui
