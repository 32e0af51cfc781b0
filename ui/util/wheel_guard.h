// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

class QAbstractScrollArea;

namespace shardscope::ui {

/// The desktop convention for forms in a scroll area (issue 23): the mouse wheel over a combo box, spin box or
/// slider that does not have the keyboard focus scrolls the area instead of changing the value, so scrolling a
/// form never edits it. A control takes the focus by click or Tab (Qt::StrongFocus, not WheelFocus); with the
/// focus, the wheel steps its value as usual.
class WheelGuard : public QObject
{
    Q_OBJECT
public:
    /// Guards every combo box, spin box and slider (not scroll bars) inside area's widget; call once its controls exist.
    static void install(QAbstractScrollArea* area);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QAbstractScrollArea* area);

    QAbstractScrollArea* m_area;
};

} // namespace shardscope::ui
