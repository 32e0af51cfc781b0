// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_theme.h"
#include "charts/legend_strip.h"

#include <QHash>
#include <QPoint>
#include <QWidget>

class QCPAbstractItem;
class QCPAbstractPlottable;
class QCPAxis;
class QCPItemText;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QVBoxLayout;

namespace shardscope::ui {

/// A QCustomPlot with a title and optional legend (plain widgets: they do not change between edits, so they
/// stay out of the replot), the app's theme (re-applied on palette changes), a centred message for "nothing
/// to show", and tooltips: the element under the mouse explains itself (plottableToolTip / itemToolTip);
/// elsewhere the chart says what it is (explain/formulas.h key chartKey). A click on an element whose tooltip
/// links to a derivation opens it in Help → Model Reference.
class ChartBase : public QWidget
{
    Q_OBJECT
public:
    ChartBase(QString chartKey, const QString& title, QWidget* parent);

    [[nodiscard]] QCustomPlot* plot() const { return m_plot; }
    [[nodiscard]] LegendStrip* legend() const { return m_legend; }
    /// The title shown above the plot (exports draw it into the image).
    [[nodiscard]] QString title() const;
    /// Changes the title (a chart whose figures change meaning says which it shows).
    void setTitle(const QString& title);
    /// The tooltip text at a point of the plot (what a hover shows).
    [[nodiscard]] QString toolTipAt(const QPoint& pos) const;
    /// The centred message ("" when hidden), for tests.
    [[nodiscard]] QString message() const;
    /// Replots and repaints synchronously (benchmarks, screenshots); normal updates use a queued replot. A plot
    /// already drawn since its last change is only repainted from its buffer.
    void replotNow();
    /// Draws the plot's buffers now if its contents changed since it was last drawn, and leaves the repaint to the
    /// window's next paint (MainWindow::replotAllNow paints every chart and view that changed in one pass).
    void drawBuffersNow();
    /// Queues a replot after a change of the plot's contents (what replotNow then draws at once).
    void requestReplot();
    /// An axis title: "step time, slow end (ms)", or "step time (ms)" when basis (which figure: which end of its
    /// range) is empty.
    [[nodiscard]] static QString axisTitle(const QString& label, const QString& basis, const QString& unit);

protected:
    virtual QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const;
    virtual QString itemToolTip(QCPAbstractItem* item) const;
    /// Tooltip for the tick labels of axis at pos (category names, totals printed as tick labels).
    virtual QString axisToolTip(QCPAxis* axis, const QPoint& pos) const;
    /// Called after the theme changed; re-colour theme-dependent items here.
    virtual void themeChanged() { }
    /// Called when the plot widget was resized (ranges that depend on pixels can adapt here).
    virtual void plotResized() { }
    /// Called after each layout of the plot, before it is drawn (screen or export): pixel positions are final here,
    /// so items that must avoid the data (labels) can be placed.
    virtual void laidOut() { }

    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    /// Adds the legend right of the plot (Qt::RightEdge, one column) or below it (Qt::BottomEdge).
    LegendStrip* addLegend(Qt::Edge edge, int columns);
    /// Shows text centred over the plot; an empty text hides it.
    void setMessage(const QString& text);
    /// Applies the palette-derived theme to every axis rect; subclasses that add axis rects call it again at
    /// the end of their constructor.
    void applyTheme();
    [[nodiscard]] QFont smallFont() const;

    QCustomPlot* m_plot;
    QLabel* m_title;
    LegendStrip* m_legend = nullptr;
    QString m_chartKey;
    ChartTheme m_theme;

private:
    bool m_upToDate = false; ///< the plot's buffers hold its contents: replotted since the last requestReplot()
    QVBoxLayout* m_layout;
    QHBoxLayout* m_row;
    QCPItemText* m_message;
    bool m_axesShown = true;
    QPoint m_pressPos { -1, -1 }; ///< where the left button went down on the plot (a click opens the derivation)
    QHash<QCPAxis*, std::pair<bool, bool>> m_savedVisibility; ///< axis, grid visible before the message
};

} // namespace shardscope::ui
