// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/recovery_dialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {
constexpr int kIndexRole = Qt::UserRole;
constexpr int kMaxNameChars = 80;
} // namespace

RecoveryDialog::RecoveryDialog(const QList<AutosaveEntry>& entries, QWidget* parent)
    : QDialog(parent)
    , m_list(new QTreeWidget(this))
{
    setWindowTitle(tr("Recover unsaved changes"));
    setObjectName(QStringLiteral("recoveryDialog"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("ShardScope did not close normally. Unsaved changes to %n document(s) were autosaved.",
                                 "", int(entries.size())),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_list->setColumnCount(3);
    m_list->setHeaderLabels({ tr("Scenario"), tr("File"), tr("Autosaved") });
    m_list->setRootIsDecorated(false);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setUniformRowHeights(true);
    m_list->setTextElideMode(Qt::ElideMiddle);
    for (int i = 0; i < entries.size(); ++i) { // QTreeWidget items are plain text
        const AutosaveEntry& e = entries[i];
        QString name = e.name.simplified();
        if (name.size() > kMaxNameChars)
            name = name.left(kMaxNameChars - 1) + QChar(0x2026);
        auto* item = new QTreeWidgetItem(m_list,
            { name.isEmpty() ? tr("(no name)") : name,
                e.originalPath.isEmpty() ? tr("never saved to a file") : QFileInfo(e.originalPath).fileName(),
                QLocale().toString(e.savedAt.toLocalTime(), QLocale::ShortFormat) });
        item->setToolTip(1,
            e.originalPath.isEmpty() ? tr("It was never saved to a file.") : QDir::toNativeSeparators(e.originalPath));
        item->setData(0, kIndexRole, i);
    }
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    if (m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0)); // the newest
    layout->addWidget(m_list, 1);

    auto* note
        = new QLabel(tr("Restore opens the selected changes as an unsaved document. Discard deletes the selected "
                        "ones. Later keeps the rest and offers them again at the next start."),
            this);
    note->setWordWrap(true);
    layout->addWidget(note);

    auto* buttons = new QDialogButtonBox(this);
    m_restore = buttons->addButton(tr("&Restore"), QDialogButtonBox::AcceptRole);
    m_discard = buttons->addButton(tr("&Discard"), QDialogButtonBox::DestructiveRole);
    buttons->addButton(tr("&Later"), QDialogButtonBox::RejectRole);
    m_restore->setDefault(true);
    layout->addWidget(buttons);
    connect(m_restore, &QPushButton::clicked, this, [this] {
        if (QTreeWidgetItem* item = m_list->currentItem()) {
            m_decision.restore = item->data(0, kIndexRole).toInt();
            accept();
        }
    });
    connect(m_discard, &QPushButton::clicked, this, &RecoveryDialog::discardSelected);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, &RecoveryDialog::updateButtons);
    connect(m_list, &QTreeWidget::itemDoubleClicked, m_restore, &QPushButton::click);
    updateButtons();
    resize(720, 360);
}

void RecoveryDialog::updateButtons()
{
    const int selected = int(m_list->selectedItems().size());
    m_restore->setEnabled(selected == 1);
    m_discard->setEnabled(selected > 0);
}

void RecoveryDialog::discardSelected()
{
    const QList<QTreeWidgetItem*> items = m_list->selectedItems();
    for (QTreeWidgetItem* item : items) {
        m_decision.discard << item->data(0, kIndexRole).toInt();
        delete item;
    }
    if (m_list->topLevelItemCount() == 0) {
        accept();
        return;
    }
    m_list->setCurrentItem(m_list->topLevelItem(0));
    updateButtons();
}

} // namespace shardscope::ui
