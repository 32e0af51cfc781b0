// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QMenu;
class QWidget;

namespace shardscope::ui {

class CompareView;
class ScenarioDocument;

/// The Compare menu (pin the current scenario, show the comparison, clear pins) and the comparison window,
/// created on first use. The pins are the document's (ScenarioDocument::pins()).
class CompareController : public QObject
{
    Q_OBJECT
public:
    CompareController(ScenarioDocument* doc, QWidget* window);

    void populateMenu(QMenu* menu);
    /// The comparison window (created if needed, not shown).
    [[nodiscard]] QWidget* window();
    [[nodiscard]] CompareView* view();
    /// The comparison, if it was made, drawn again (the byte unit changed).
    void redraw();

public slots:
    void showComparison();
    void pinCurrent();
    /// Loads pin i into the document as one undoable edit.
    void openPin(int i);

signals:
    void statusMessage(const QString& text);
    /// The comparison window was made (on first use): its charts can be wired now.
    void viewCreated(CompareView* view);

private:
    ScenarioDocument* m_doc;
    QWidget* m_mainWindow;
    QPointer<QWidget> m_window;
    CompareView* m_view = nullptr;
    QAction* m_pinAction = nullptr;
};

} // namespace shardscope::ui
