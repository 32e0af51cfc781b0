// SPDX-License-Identifier: GPL-3.0-or-later
#include "help/shortcuts_dialog.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

QString plain(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    text.replace(QStringLiteral("&&"), QStringLiteral("&"));
    return text.remove(QChar(0x2026)).trimmed(); // "Open…" -> "Open"
}

void collectMenu(const QMenu* menu, const QString& group, QList<ShortcutRow>& out)
{
    for (QAction* a : menu->actions()) {
        if (a->menu()) {
            collectMenu(a->menu(), group, out);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            out.push_back({ group, plain(a->text()), keys.join(QStringLiteral(", ")) });
    }
}

} // namespace

QList<ShortcutRow> collectShortcuts(const QMenuBar* menus)
{
    QList<ShortcutRow> out;
    for (QAction* top : menus->actions())
        if (top->menu())
            collectMenu(top->menu(), plain(top->text()), out);
    // The presentation reads these keys itself (PresentationView::keyPressEvent): they are not menu shortcuts.
    const QString teaching = QDialog::tr("Teaching mode");
    const std::pair<QString, QString> keys[] = {
        { QDialog::tr("Next step"), QDialog::tr("→, Space, Page Down, Return") },
        { QDialog::tr("Previous step"), QDialog::tr("←, Backspace, Page Up") },
        { QDialog::tr("First / last step of the lesson"), QDialog::tr("Home / End") },
        { QDialog::tr("Next / previous lesson"), QDialog::tr("N / P") },
        { QDialog::tr("Go to lesson"), QDialog::tr("1 … 9") },
        { QDialog::tr("Open the step in the explorer (as a new untitled scenario)"), QDialog::tr("E") },
        { QDialog::tr("Full screen on / off"), QDialog::tr("F, F11") },
        { QDialog::tr("Leave"), QDialog::tr("Esc") },
    };
    for (const auto& [action, key] : keys)
        out.push_back({ teaching, action, key });
    return out;
}

void showShortcuts(const QMenuBar* menus, QWidget* parent)
{
    auto* dialog = new QDialog(parent);
    dialog->setObjectName(QStringLiteral("shortcutsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QDialog::tr("Keyboard Shortcuts"));
    auto* tree = new QTreeWidget(dialog);
    tree->setColumnCount(2);
    tree->setHeaderLabels({ QDialog::tr("Action"), QDialog::tr("Keys") });
    tree->setRootIsDecorated(false);
    tree->setUniformRowHeights(true);
    QTreeWidgetItem* group = nullptr;
    for (const ShortcutRow& row : collectShortcuts(menus)) {
        if (!group || group->text(0) != row.group) {
            group = new QTreeWidgetItem(tree, { row.group });
            QFont bold = group->font(0);
            bold.setBold(true);
            group->setFont(0, bold);
            group->setFirstColumnSpanned(true);
            group->setFlags(Qt::ItemIsEnabled);
        }
        new QTreeWidgetItem(tree, { QStringLiteral("    ") + row.action, row.keys });
    }
    tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree->header()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(tree);
    layout->addWidget(buttons);
    dialog->resize(560, 600);
    dialog->show();
}

} // namespace shardscope::ui
