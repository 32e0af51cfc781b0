// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/fix_bar.h"

#include "document/scenario_document.h"
#include "explain/field_names.h"
#include "util/message.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

namespace shardscope::ui {

FixBar::FixBar(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_label(plainLabel(this))
    , m_row(new QHBoxLayout(this))
{
    setObjectName(QStringLiteral("fixBar"));
    m_row->setContentsMargins(0, 0, 0, 0);
    m_row->setSpacing(4);
    m_label->setToolTip(
        tr("The charts and KPIs keep the last valid figures, greyed, until the scenario is valid again."));
    m_row->addWidget(m_label);
    connect(doc, &ScenarioDocument::resultReady, this, &FixBar::refresh);
    refresh();
}

QString FixBar::text() const { return m_label->text(); }

QList<QPushButton*> FixBar::buttons() const { return m_pool.mid(0, qsizetype(m_fixes.size())); }

void FixBar::refresh()
{
    const bool invalid = !m_doc->result().valid;
    m_fixes = m_doc->shown()->fixes; // core::whatIf()'s: empty for a valid scenario
    // The buttons are reused: making them anew on every edit of a dragged slider relaid out the whole window.
    for (qsizetype i = qsizetype(m_fixes.size()); i < m_pool.size(); ++i)
        m_pool[i]->hide();
    setVisible(invalid);
    if (!invalid)
        return;
    m_label->setText(
        m_fixes.empty() ? tr("No node count or batch size makes it valid: see Issues.") : tr("Nearest valid:"));
    for (size_t i = 0; i < m_fixes.size(); ++i) {
        if (qsizetype(i) == m_pool.size()) {
            auto* button = new QPushButton(this);
            m_row->addWidget(button);
            connect(button, &QPushButton::clicked, this, [this, i] {
                if (i >= m_fixes.size()) // a hidden button, clicked by a program
                    return;
                const core::Fix fix = m_fixes[i]; // refresh() replaces m_fixes during the edit
                const QString label = fieldLabel(QString::fromStdString(fix.field));
                m_doc->edit(tr("%1 = %2").arg(label, QLocale().toString(qlonglong(fix.value))),
                    QString::fromStdString(fix.field), [&fix](core::Scenario& s) { s = fix.scenario; });
            });
            m_pool << button;
        }
        const core::Fix& fix = m_fixes[i];
        const QString label = fieldLabel(QString::fromStdString(fix.field));
        const QString value = QLocale().toString(qlonglong(fix.value));
        QPushButton* button = m_pool[qsizetype(i)];
        button->setText(tr("%1 %2").arg(label, value));
        button->setToolTip(
            tr("Set %1 to %2 (the nearest value with which the scenario is valid; Undo reverts it)").arg(label, value));
        button->show(); // the layout alone would show it only once the event loop runs
    }
}

} // namespace shardscope::ui
