// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/issues_panel.h"

#include "explain/field_names.h"

#include <QIcon>

namespace shardscope::ui {

IssuesPanel::IssuesPanel(QWidget* parent)
    : QListWidget(parent)
{
    setWordWrap(true);
    setAlternatingRowColors(false);
    setUniformItemSizes(false);
    setToolTip(tr("Problems the core's validation finds; double-click or press Enter to go to the control."));
    connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const QString field = item->data(Qt::UserRole).toString();
        if (!field.isEmpty())
            emit fieldActivated(field);
    });
}

void IssuesPanel::setResult(const core::Result& result)
{
    if (m_initialised && result.issues == m_issues && result.warnings == m_warnings)
        return;
    m_initialised = true;
    m_issues = result.issues;
    m_warnings = result.warnings;
    clear();
    // Drawn icons (resources/icons/issue-*.svg), sharp at any scale: the style's pixmaps were soft at 2x.
    const QIcon error(QStringLiteral(":/icons/issue-error.svg"));
    const QIcon warning(QStringLiteral(":/icons/issue-warning.svg"));
    const auto add = [this](const core::Issue& issue, const QIcon& icon) {
        const QString field = QString::fromStdString(issue.field);
        const QString text = field.isEmpty()
            ? QString::fromStdString(issue.message)
            : QStringLiteral("%1 — %2: %3")
                  .arg(fieldGroupLabel(field), fieldLabel(field), QString::fromStdString(issue.message));
        auto* item = new QListWidgetItem(icon, text, this);
        item->setData(Qt::UserRole, field);
        item->setToolTip(tr("%1 (field %2)").arg(text, field));
    };
    for (const core::Issue& i : m_issues)
        add(i, error);
    for (const core::Issue& w : m_warnings)
        add(w, warning);
    if (m_issues.empty() && m_warnings.empty()) {
        auto* item = new QListWidgetItem(
            QIcon(QStringLiteral(":/icons/issue-ok.svg")), tr("No issues: the scenario is valid."), this);
        item->setFlags(Qt::ItemIsEnabled);
    }
}

} // namespace shardscope::ui
