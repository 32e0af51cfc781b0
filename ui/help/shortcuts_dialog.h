// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Help → Keyboard Shortcuts: every menu action that has a shortcut, read from the menu bar itself (so the list
/// cannot drift from the menus), then the keys of teaching mode's presentation.

#include <QList>
#include <QString>

class QMenuBar;
class QWidget;

namespace shardscope::ui {

struct ShortcutRow {
    QString group; ///< "File", "View", … or "Teaching mode"
    QString action; ///< "Save", without the mnemonic ampersand
    QString keys; ///< "Ctrl+S", in the platform's text
};

/// The menu actions with shortcuts, menu by menu (submenus included), then the presentation's keys.
[[nodiscard]] QList<ShortcutRow> collectShortcuts(const QMenuBar* menus);

/// Shows the list in a non-modal dialog parented to parent.
void showShortcuts(const QMenuBar* menus, QWidget* parent);

} // namespace shardscope::ui
