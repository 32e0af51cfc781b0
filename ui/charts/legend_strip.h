// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QList>
#include <QWidget>

namespace shardscope::ui {

/// A chart legend drawn as a plain widget beside or below the plot. It does not change between edits, so
/// keeping it out of QCustomPlot saves its text layout on every replot. Each entry explains itself in a tooltip.
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
    [[nodiscard]] const QList<Entry>& entries() const { return m_entries; }
    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    [[nodiscard]] QRect entryRect(int index) const;
    [[nodiscard]] int columnWidth() const;
    QList<Entry> m_entries;
    int m_columns;
};

} // namespace shardscope::ui
