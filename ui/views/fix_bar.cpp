// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/fix_bar.h"

#include "document/scenario_document.h"
#include "explain/field_names.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

namespace shardscope::ui {

FixBar::FixBar(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_label(new QLabel(this))
    , m_row(new QHBoxLayout(this))
{
    setObjectName(QStringLiteral("fixBar"));
    m_row->setContentsMargins(0, 0, 0, 0);
    m_row->setSpacing(4);
    m_label->setWordWrap(true);
    m_label->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_row->addWidget(m_label, 1);
    connect(doc, &ScenarioDocument::changed, this, &FixBar::refresh);
    refresh();
}

QString FixBar::text() const { return m_label->text(); }

void FixBar::refresh()
{
    const bool invalid = !m_doc->result().valid;
    m_fixes = invalid ? core::nearestValidFixes(m_doc->scenario()) : std::vector<core::Fix>{};
    for (QPushButton* b : std::as_const(m_buttons)) { // deleteLater: a button's own click may have led here
        b->hide();
        b->deleteLater();
    }
    m_buttons.clear();
    setVisible(invalid);
    if (!invalid)
        return;
    m_label->setText(m_fixes.empty()
                         ? tr("The charts keep the last valid figures, greyed. No other node count or batch size makes "
                              "this scenario valid: see Issues.")
                         : tr("The charts keep the last valid figures, greyed. Nearest valid:"));
    for (size_t i = 0; i < m_fixes.size(); ++i) {
        const core::Fix& fix = m_fixes[i];
        const QString label = fieldLabel(QString::fromStdString(fix.field));
        const QString value = QLocale().toString(qlonglong(fix.value));
        auto* button = new QPushButton(tr("%1 %2").arg(label, value), this);
        button->setToolTip(tr("Set %1 to %2 (the nearest value with which the scenario is valid; Undo reverts it)")
                               .arg(label, value));
        m_row->addWidget(button);
        button->show(); // the layout alone would show it only once the event loop runs
        const QString field = QString::fromStdString(fix.field);
        connect(button, &QPushButton::clicked, this, [this, i, label, value, field] {
            const core::Scenario fixed = m_fixes[i].scenario; // refresh() replaces m_fixes during the edit
            m_doc->edit(tr("%1 = %2").arg(label, value), field, [&fixed](core::Scenario& s) { s = fixed; });
        });
        m_buttons << button;
    }
}

} // namespace shardscope::ui
