// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QFrame>

class QLabel;

namespace shardscope::ui {

/// Headline figures: step time, tokens/s, MFU, memory (fits or not), minimum GPUs, cost per step.
class KpiPanel : public QFrame
{
    Q_OBJECT
public:
    explicit KpiPanel(QWidget* parent = nullptr);
    void setResult(const core::Scenario& scenario, const core::Result& result);
    /// The value text of a card ("kpi.mfu"), for tests.
    [[nodiscard]] QString valueText(const QString& key) const;

private:
    struct Card {
        QString key;
        QFrame* frame;
        QLabel* value;
        QLabel* detail;
    };
    void addCard(const QString& key, const QString& caption);
    void setCard(int index, const QString& value, const QString& detail, const QString& toolTip);
    QList<Card> m_cards;
    int m_fitState = -1;
};

} // namespace shardscope::ui
