// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/message.h"

#include <QMessageBox>

namespace shardscope::ui {

void showMessage(QWidget* parent, const QString& title, const QString& text, const MessageHandler& handler)
{
    if (handler) {
        handler(title, text);
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace shardscope::ui
