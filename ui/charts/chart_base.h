// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_theme.h"

#include <QWidget>

class QCPAbstractItem;
class QCPAbstractPlottable;
class QCPItemText;
class QCPTextElement;
class QCustomPlot;

namespace shardscope::ui {

/// A QCustomPlot with a title, the app's theme (re-applied on palette changes), a centred message for
/// "nothing to show", and tooltips: the element under the mouse explains itself (plottableToolTip /
/// itemToolTip); elsewhere the chart says what it is (explain/formulas.h key chartKey).
class ChartBase : public QWidget
{
    Q_OBJECT
public:
    ChartBase(QString chartKey, const QString& title, QWidget* parent);

    [[nodiscard]] QCustomPlot* plot() const { return m_plot; }
    /// The tooltip text at a point of the plot (what a hover shows).
    [[nodiscard]] QString toolTipAt(const QPoint& pos) const;
    /// The centred message ("" when hidden), for tests.
    [[nodiscard]] QString message() const;
    /// Replots and repaints synchronously (benchmarks, screenshots); normal updates use a queued replot.
    void replotNow();

protected:
    virtual QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const;
    virtual QString itemToolTip(QCPAbstractItem* item) const;
    /// Called after the theme changed; re-colour theme-dependent items here.
    virtual void themeChanged() { }

    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    /// Shows text centred over the plot; an empty text hides it.
    void setMessage(const QString& text);
    void requestReplot();
    /// Applies the palette-derived theme to every axis rect, legend and title; subclasses that add axis
    /// rects call it again at the end of their constructor.
    void applyTheme();
    [[nodiscard]] QFont smallFont() const;

    QCustomPlot* m_plot;
    QCPTextElement* m_title;
    QString m_chartKey;
    ChartTheme m_theme;

private:
    QCPItemText* m_message;
};

} // namespace shardscope::ui
