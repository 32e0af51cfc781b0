// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QColor>
#include <QList>
#include <QWidget>

namespace shardscope::ui {

/// Headline figures: step time, tokens/s, MFU, memory (fits or not), minimum GPUs, cost per step. Painted as
/// six cards by one widget of fixed height, so an update repaints it without relayouting the window.
class KpiPanel : public QWidget
{
    Q_OBJECT
public:
    explicit KpiPanel(QWidget* parent = nullptr);
    void setResult(const core::Scenario& scenario, const core::Result& result);
    /// The value text of a card ("kpi.mfu"), for tests.
    [[nodiscard]] QString valueText(const QString& key) const;
    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Card {
        QString key;
        QString caption;
        QString value;
        QString detail;
        QString toolTip;
        QColor valueColor; ///< invalid: palette text
    };
    void setCard(int index, const QString& value, const QString& detail, const QString& toolTip, QColor colour = {});
    [[nodiscard]] QRect cardRect(int index) const;
    void updateFonts();
    QList<Card> m_cards;
    QFont m_small;
    QFont m_big;
};

} // namespace shardscope::ui
