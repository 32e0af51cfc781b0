// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A translucent layer over a widget that greys what is under it (the last valid figures after an invalid edit).
/// It paints one fill over its parent's rectangle, so a chart that replots under it costs one more fill; a
/// QGraphicsOpacityEffect instead re-rendered the whole subtree into a pixmap on every child's repaint.

#include <QWidget>

namespace shardscope::ui {

class Veil : public QWidget
{
    Q_OBJECT
public:
    /// A hidden veil over parent; it follows the parent's size and passes the mouse through.
    explicit Veil(QWidget* parent);

    /// Shows (raised above the parent's children) or hides the veil.
    void cover(bool on);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
};

} // namespace shardscope::ui
