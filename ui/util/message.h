// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One way to tell the user that something went wrong without blocking: the controllers (files, import) show a
/// window-modal warning that deletes itself, or hand it to the handler a test installed.

#include <QString>

#include <functional>

class QWidget;

namespace shardscope::ui {

/// Receives a message instead of a message box (tests).
using MessageHandler = std::function<void(const QString& title, const QString& text)>;

/// Calls handler(title, text) when there is one; otherwise opens a warning box over parent (QMessageBox::open:
/// the event loop keeps running) that deletes itself when closed.
void showMessage(QWidget* parent, const QString& title, const QString& text, const MessageHandler& handler = {});

} // namespace shardscope::ui
