// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/compare_controller.h"

#include "compare/compare_view.h"
#include "compare/pin_board.h"
#include "document/scenario_document.h"

#include <QAction>
#include <QMenu>
#include <QVBoxLayout>

namespace shardscope::ui {

CompareController::CompareController(ScenarioDocument* doc, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_mainWindow(window)
    , m_pins(new PinBoard(doc, this))
{
}

void CompareController::populateMenu(QMenu* menu)
{
    m_pinAction = menu->addAction(tr("&Pin Current Scenario"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
                                  &CompareController::pinCurrent);
    m_pinAction->setToolTip(tr("Keep a copy of the scenario as it is now, for the comparison (saved with the file)"));
    menu->addAction(tr("&Show Comparison"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this, &CompareController::showComparison);
    menu->addSeparator();
    QAction* clear = menu->addAction(tr("&Clear Pins"), m_pins, &PinBoard::clear);
    auto update = [this, clear] { clear->setEnabled(m_pins->count() > 0); };
    connect(m_pins, &PinBoard::changed, this, update);
    update();
}

QWidget* CompareController::window()
{
    if (!m_window) {
        auto* w = new QWidget(m_mainWindow, Qt::Window);
        w->setObjectName(QStringLiteral("compareWindow"));
        w->setWindowTitle(tr("ShardScope — Compare pinned scenarios"));
        m_view = new CompareView(m_pins, w);
        auto* layout = new QVBoxLayout(w);
        layout->setContentsMargins(6, 6, 6, 6);
        layout->addWidget(m_view);
        connect(m_view, &CompareView::pinCurrentRequested, this, &CompareController::pinCurrent);
        connect(m_view, &CompareView::openPinRequested, this, &CompareController::openPin);
        emit viewCreated(m_view);
        w->resize(1400, 950);
        m_window = w;
    }
    return m_window;
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
    m_pins->pinCurrent();
    emit statusMessage(tr("Pinned “%1” (%n pin(s))", nullptr, m_pins->count()).arg(m_pins->label(m_pins->count() - 1)));
    showComparison();
}

void CompareController::openPin(int i)
{
    if (i < 0 || i >= m_pins->count())
        return;
    const core::Scenario s = m_pins->pins()[size_t(i)];
    m_doc->edit(tr("Open pin “%1”").arg(m_pins->label(i)), QStringLiteral("pins"), [s](core::Scenario& x) { x = s; });
    emit statusMessage(tr("Opened pin “%1” in the explorer (Undo returns)").arg(m_pins->label(i)));
}

} // namespace shardscope::ui
