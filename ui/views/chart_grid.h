// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QWidget>

class QSplitter;

namespace shardscope::ui {

/// The explorer's charts: rows of charts side by side (horizontal splitters in a vertical one) while the width holds
/// each row's charts at their minimum widths, stacked in one column when it does not (the launch configuration open
/// beside them at 1280 pixels): the page then scrolls down, never sideways. Its minimum width is one chart's; its
/// charts' legends wrap to more rows when a chart is narrower than their columns.
class ChartGrid : public QWidget
{
    Q_OBJECT
public:
    /// grid: the vertical splitter holding the rows; rows: the horizontal splitters of charts.
    ChartGrid(QSplitter* grid, QList<QSplitter*> rows, QWidget* parent = nullptr);

    [[nodiscard]] QSize minimumSizeHint() const override;
    /// True while the charts are in one column.
    [[nodiscard]] bool stacked() const;
    /// Side by side or stacked for the present width (after the splitters' saved states, which hold an orientation,
    /// were restored).
    void arrange();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    /// The width the rows need with their charts side by side at their minimum widths.
    [[nodiscard]] int sideBySideWidth() const;
    void arrangeFor(int width);
    QList<QSplitter*> m_rows;
};

} // namespace shardscope::ui
