// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QColor>
#include <QList>
#include <QPixmap>
#include <QStaticText>
#include <QWidget>

#include <array>

namespace shardscope::ui {

/// Headline figures: step time (the sum of the step-time terms), tokens/s and MFU (their terms), memory (the sum
/// of the memory terms; green fits, amber borderline, vermillion does not fit), minimum GPUs, cost per step. Step
/// time, tokens/s and memory carry their 80% range on a fourth line ("± 12% (validated on 177 runs)", "+47% / −23% (extrapolated)"). Painted as six cards by one widget: one row
/// when every card's text fits its width, otherwise two rows of three (or three of two), so no caption, value or
/// detail is cut; the height follows the width (heightForWidth) and an update that keeps the row count repaints
/// without relayouting the window. Tooltips are made when shown; a click on a card whose tooltip links to a
/// derivation opens it in Help → Model Reference.
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
    [[nodiscard]] bool hasHeightForWidth() const override { return true; }
    [[nodiscard]] int heightForWidth(int width) const override;
    /// Cards per row at a width (6, 3 or 2), for tests.
    [[nodiscard]] int columnsFor(int width) const;
    /// Whether every text of every card fits its card at the current size, for tests.
    [[nodiscard]] bool textFits() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    /// A line of a card: shaped once per change of its text or font (its width measured, its glyphs kept), so a
    /// paint draws it without laying the text out again.
    struct Line {
        QStaticText laid;
        int width = 0;
    };
    enum LineIndex { CaptionLine, ValueLine, DetailLine, RangeLine };
    struct Card {
        QString key;
        QString caption;
        QString value;
        QString detail;
        QColor valueColor; ///< invalid: palette text
        QString range; ///< "± 12% (validated on 175 runs)", "+17% / −0% (…)": the 80% range; empty: none
        std::array<Line, 4> lines; ///< by LineIndex
    };
    /// Shapes the card's lines whose text changed (all of them when `fontsChanged`).
    void layOut(Card& card, bool fontsChanged) const;
    void setCard(int index, const QString& value, const QString& detail, QColor colour = {}, const QString& range = {});
    [[nodiscard]] QString toolTipOf(int index) const;
    [[nodiscard]] int cardAt(const QPoint& pos) const;
    [[nodiscard]] QRect cardRect(int index) const;
    /// Width a card needs for its caption, value and detail.
    [[nodiscard]] int neededCardWidth() const;
    [[nodiscard]] int cardHeight() const;
    void relayoutIfRowsChange();
    void updateFonts();
    QList<Card> m_cards;
    /// neededCardWidth(), measured once per change of a card's text or the fonts (-1: to measure): every cardRect()
    /// asks for it, six times per paint.
    mutable int m_neededWidth = -1;
    core::Result m_result; ///< what the cards show (the tooltips read its terms)
    QFont m_small;
    QFont m_big;
    int m_rows = 1; ///< rows at the last layout
    /// A card's rounded frame, drawn once per card size and pixel ratio (a palette change empties it) and copied onto
    /// each card: a rounded rectangle is a path fill on the raster engine, about 140,000 instructions each, most of a
    /// repaint.
    QPixmap m_frame;
};

} // namespace shardscope::ui
