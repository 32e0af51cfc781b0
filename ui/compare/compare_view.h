// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QScrollArea;
class QTableWidget;
class QTabWidget;

namespace shardscope::ui {

class CompareTimeChart;
class LegendStrip;
class MemoryChart;
class ScenarioDocument;
class WaterfallChart;

/// The document's pinned scenarios side by side: a memory chart per pin (on one scale), their step times on one
/// axis, a table of the settings that differ and the headline figures with their change from the first pin, and
/// for any two pins the A→B waterfall (core/waterfall.h) with a table of its steps. A view only: it shows
/// ScenarioDocument::pins() and changes them through the document.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(ScenarioDocument* doc, QWidget* parent = nullptr);

    /// The letter of pin i: A … Z, then AA, AB, … (spreadsheet columns).
    [[nodiscard]] static QString letter(int i);

    [[nodiscard]] QTableWidget* differences() const { return m_table; }
    [[nodiscard]] QTableWidget* waterfallTable() const { return m_steps; }
    [[nodiscard]] WaterfallChart* waterfallChart() const { return m_waterfall; }
    [[nodiscard]] CompareTimeChart* timeChart() const { return m_time; }
    [[nodiscard]] const QList<MemoryChart*>& memoryCharts() const { return m_memory; }
    /// The memory charts' one legend, right of their columns (hidden without pins).
    [[nodiscard]] LegendStrip* memoryLegend() const { return m_memoryLegend; }
    /// Chooses the waterfall's ends (pin indices).
    void setWaterfallPins(int a, int b);
    /// Everything drawn again from the pins (the byte unit changed).
    void redraw() { rebuild(); }

signals:
    /// "Pin current scenario" pressed.
    void pinCurrentRequested();
    /// "Open" on a pin's column: the explorer should load this pin.
    void openPinRequested(int index);

private:
    void rebuild();
    void updateTable();
    void updateWaterfall();

    ScenarioDocument* m_doc;
    QLabel* m_hint;
    QPushButton* m_pinButton;
    QPushButton* m_clearButton;
    QScrollArea* m_columnsArea; ///< the pins' columns, side by side, scrolling sideways
    QHBoxLayout* m_columns;
    QList<QWidget*> m_columnWidgets;
    QList<MemoryChart*> m_memory;
    LegendStrip* m_memoryLegend;
    CompareTimeChart* m_time;
    QTableWidget* m_table;
    QComboBox* m_a;
    QComboBox* m_b;
    WaterfallChart* m_waterfall;
    QTableWidget* m_steps;
    QTabWidget* m_tabs;
};

} // namespace shardscope::ui
