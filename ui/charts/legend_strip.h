// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QList>
#include <QWidget>

#include <functional>

namespace shardscope::ui {

/// A chart legend drawn as a plain widget beside or below the plot. It does not change between edits, so
/// keeping it out of QCustomPlot saves its text layout on every replot. Each entry explains itself in a tooltip;
/// a click on an entry whose tooltip links to a derivation opens it in Help → Model Reference.
class LegendStrip : public QWidget
{
    Q_OBJECT
public:
    enum class Swatch { Box, Hatched, DashedLine };
    struct Entry {
        QString text;
        QColor color;
        Swatch swatch = Swatch::Box;
        QString toolTip;
    };

    /// columns = 1: a vertical list; otherwise entries fill rows of that many columns.
    explicit LegendStrip(int columns, QWidget* parent = nullptr);
    void setEntries(const QList<Entry>& entries);
    /// Tooltips made when shown (they follow the result): provider(index) replaces the entries' fixed text.
    void setToolTipProvider(std::function<QString(int)> provider) { m_toolTip = std::move(provider); }
    /// The tooltip of entry index, as a hover shows it.
    [[nodiscard]] QString entryToolTip(int index) const;
    [[nodiscard]] const QList<Entry>& entries() const { return m_entries; }
    /// With wrapping, a strip of several columns may be narrowed to one (its entries then take more rows), so that
    /// a narrow chart scrolls down, never sideways; without (the default), it keeps its columns.
    void setWrapping(bool on);
    /// All columns.
    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override;
    [[nodiscard]] bool hasHeightForWidth() const override { return wraps(); }
    [[nodiscard]] int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    [[nodiscard]] int entryAt(const QPoint& pos) const;
    [[nodiscard]] QRect entryRect(int index) const;
    [[nodiscard]] int columnWidth() const;
    [[nodiscard]] bool wraps() const { return m_wrap && m_columns > 1; }
    /// The columns that fit in width (1 to the columns asked for; those asked for without wrapping).
    [[nodiscard]] int columnsFor(int width) const;
    [[nodiscard]] QSize sizeFor(int columns) const;
    QList<Entry> m_entries;
    /// columnWidth(), measured once per change of the entries or the font (-1: to measure): every entryRect() asks for
    /// it, once per entry in each paint.
    mutable int m_columnWidth = -1;
    std::function<QString(int)> m_toolTip;
    int m_columns;
    bool m_wrap = false;
};

} // namespace shardscope::ui
