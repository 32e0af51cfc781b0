// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>

namespace shardscope::ui {

WheelGuard::WheelGuard(QAbstractScrollArea* area)
    : QObject(area)
    , m_area(area)
{ }

void WheelGuard::install(QAbstractScrollArea* area)
{
    auto* guard = new WheelGuard(area);
    QWidget* content = area->viewport();
    if (auto* scroll = qobject_cast<QScrollArea*>(area); scroll && scroll->widget())
        content = scroll->widget();
    QList<QWidget*> controls;
    for (QComboBox* w : content->findChildren<QComboBox*>())
        controls << w;
    for (QAbstractSpinBox* w : content->findChildren<QAbstractSpinBox*>())
        controls << w;
    for (QAbstractSlider* w : content->findChildren<QAbstractSlider*>())
        if (!qobject_cast<QScrollBar*>(w)) // the scroll bars of lists and combo pop-ups keep their wheel
            controls << w;
    for (QWidget* w : std::as_const(controls)) {
        if (w->focusPolicy() & Qt::TabFocus) // keep Tab and click; drop the focus a wheel would give
            w->setFocusPolicy(Qt::StrongFocus);
        w->installEventFilter(guard);
    }
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::Wheel)
        return false;
    auto* control = static_cast<QWidget*>(watched);
    if (control->hasFocus())
        return false;
    // The area scrolls as if the pointer were over its background.
    QCoreApplication::sendEvent(m_area->viewport(), event);
    return true;
}

} // namespace shardscope::ui
