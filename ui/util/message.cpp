// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/message.h"

#include <QLabel>
#include <QStringList>

namespace shardscope::ui {

namespace {
QString cutLine(const QString& line)
{
    return line.size() <= kMaxMessageLineChars ? line : line.left(kMaxMessageLineChars - 1) + QChar(0x2026);
}

/// Lines [from, from + count) of lines, each cut, then "… and N more" for what is left.
QString someLines(const QStringList& lines, qsizetype from, qsizetype count)
{
    QStringList out;
    const qsizetype end = std::min(lines.size(), from + count);
    for (qsizetype i = from; i < end; ++i)
        out << cutLine(lines[i]);
    if (end < lines.size())
        out << QMessageBox::tr("… and %L1 more").arg(lines.size() - end);
    return out.join(QLatin1Char('\n'));
}

/// The box's labels show plain text: QMessageBox's informative label has no text format of its own.
void makePlain(QMessageBox* box)
{
    box->setTextFormat(Qt::PlainText);
    for (QLabel* label : box->findChildren<QLabel*>())
        label->setTextFormat(Qt::PlainText);
}
} // namespace

QMessageBox* plainMessageBox(
    QMessageBox::Icon icon, const QString& title, const QString& text, QWidget* parent, const QString& informative)
{
    auto* box = new QMessageBox(icon, title, QString(), QMessageBox::NoButton, parent);
    box->setTextFormat(Qt::PlainText);
    box->setText(text);
    if (!informative.isEmpty())
        box->setInformativeText(informative);
    makePlain(box);
    return box;
}

QLabel* plainLabel(QWidget* parent, const QString& text)
{
    auto* label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setText(text);
    return label;
}

void showMessage(QWidget* parent, const QString& title, const QString& text, const MessageHandler& handler)
{
    if (handler) {
        handler(title, text);
        return;
    }
    const QStringList lines = text.split(QLatin1Char('\n'));
    auto* box = plainMessageBox(QMessageBox::Warning, title, someLines(lines, 0, kMaxMessageLines), parent);
    box->setStandardButtons(QMessageBox::Ok);
    if (lines.size() > kMaxMessageLines)
        box->setDetailedText(someLines(lines, kMaxMessageLines, kMaxDetailLines)); // a scrollable text field
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace shardscope::ui
