// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QColor>
#include <QList>
#include <QWidget>

namespace shardscope::ui {

/// Headline figures: step time (the sum of the step-time terms), tokens/s and MFU (their terms), memory (the sum
/// of the memory terms, fits or not), minimum GPUs, cost per step. Painted as six cards by one widget of fixed
/// height, so an update repaints it without relayouting the window. Tooltips are made when shown; a click on a
/// card whose tooltip links to a derivation opens it in Help → Model Reference.
class KpiPanel : public QWidget
{
    Q_OBJECT
public:
    explicit KpiPanel(QWidget* parent = nullptr);
    void setResult(const core::Scenario& scenario, const core::Result& result);
    /// The value text of a card ("kpi.mfu"), for tests.
    [[nodiscard]] QString valueText(const QString& key) const;
    /// The tooltip of a card, as a hover shows it.
    [[nodiscard]] QString cardToolTip(const QString& key) const;
    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    struct Card {
        QString key;
        QString caption;
        QString value;
        QString detail;
        QColor valueColor; ///< invalid: palette text
    };
    void setCard(int index, const QString& value, const QString& detail, QColor colour = {});
    [[nodiscard]] QString toolTipOf(int index) const;
    [[nodiscard]] int cardAt(const QPoint& pos) const;
    [[nodiscard]] QRect cardRect(int index) const;
    void updateFonts();
    QList<Card> m_cards;
    core::Result m_result;    ///< what the cards show (the tooltips read its terms)
    double m_hourlyPrice = 0; ///< of the scenario's GPU
    QFont m_small;
    QFont m_big;
};

} // namespace shardscope::ui
