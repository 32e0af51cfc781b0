// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One way to tell the user that something went wrong without blocking: the controllers (files, import) show a
/// window-modal warning that deletes itself, or hand it to the handler a test installed.
/// Every message box and every label that shows a file name or file content shows it as plain text: a file named
/// "<b>x.json" or a message quoting "<img src=…>" is shown literally, never rendered (issue 23).

#include <QMessageBox>
#include <QString>

#include <functional>

class QLabel;
class QWidget;

namespace shardscope::ui {

/// Receives a message instead of a message box (tests).
using MessageHandler = std::function<void(const QString& title, const QString& text)>;

/// A message box shows at most this many lines of its text; the rest go to its scrollable details.
inline constexpr int kMaxMessageLines = 20;
/// ... which hold at most this many lines ("… and N more" after them); a longer line is cut at kMaxMessageLineChars.
inline constexpr int kMaxDetailLines = 2000;
inline constexpr int kMaxMessageLineChars
    = 100; // wider unbroken text makes QMessageBox wrap anywhere and clip its last lines

/// Calls handler(title, text) when there is one; otherwise opens a warning box over parent (QMessageBox::open:
/// the event loop keeps running) that deletes itself when closed. The box shows plain text, at most
/// kMaxMessageLines lines ("… and N more"), the rest under Show Details; so it is never taller than the screen.
void showMessage(QWidget* parent, const QString& title, const QString& text, const MessageHandler& handler = {});

/// A message box (not yet shown) whose text and informative text are plain text. All the window's boxes come from here.
QMessageBox* plainMessageBox(QMessageBox::Icon icon, const QString& title, const QString& text, QWidget* parent,
    const QString& informative = {});
/// A label that shows its text literally (Qt::PlainText), for file names and file content.
QLabel* plainLabel(QWidget* parent, const QString& text = {});

} // namespace shardscope::ui
