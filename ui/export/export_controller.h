// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/chart_figure.h"
#include "export/chart_kind.h"
#include "export/export_dialog.h"

#include <QObject>

#include <functional>
#include <map>
#include <memory>

class QMenu;
class QWidget;

namespace shardscope::ui {

class ChartBase;
class ScenarioDocument;

/// Exports of the open scenario: File → Export… (dialog), Export Report…, the charts' context menus (copy image,
/// export this chart) and the non-interactive functions behind them. Every chart is rendered from the document's
/// scenario into a chart of its own, so exports never depend on the window's size or theme. The window registers
/// its charts with attachChart() (a ChartBase and a ChartMaker, the figure interface): export knows no pane or view.
class ExportController : public QObject
{
    Q_OBJECT
public:
    ExportController(ScenarioDocument* doc, QWidget* window);

    /// Adds Export… (Ctrl+E), Export Report (PDF)…, Copy Chart submenu to the File menu.
    void populateMenu(QMenu* menu);
    /// Gives chart a context menu anywhere on it, plot area included: Copy Image, Export This Chart…, Export
    /// Report…. maker draws what the chart shows (its copy()); without one the chart is a scenario chart, drawn from
    /// the document. The kind's exports (dialog, Copy Chart) then use the maker of the chart last attached or
    /// right-clicked.
    void attachChart(ChartBase* chart, ChartKind kind, ChartMaker maker = {});
    /// The chart kinds exports can draw: the scenario's charts and those attached with a maker, in kAllChartKinds order.
    [[nodiscard]] QList<ChartKind> availableCharts() const;
    /// The figure exports of kind draw (the kind's maker, or the document's scenario chart).
    [[nodiscard]] std::unique_ptr<ChartFigure> figure(ChartKind kind, bool lightTheme) const;
    /// The context menu attachChart() shows for chart (tests look at its actions; the caller owns it).
    [[nodiscard]] QMenu* contextMenu(ChartBase* chart, ChartKind kind, const ChartMaker& maker);

    /// Writes what choice names to path (format of charts from the choice). Returns "" or the reason.
    [[nodiscard]] QString exportTo(const QString& path, const ExportDialog::Choice& choice) const;
    /// Puts the chart (as an image, at the choice's size and scale) on the clipboard.
    void copyChart(const ExportDialog::Choice& choice);

    /// The last dialog settings (kept for the session), as the context menu starts from them.
    [[nodiscard]] const ExportDialog::Choice& lastChoice() const { return m_last; }
    /// Replaces the save dialog (tests): suggested path in, chosen path out ("" = cancelled).
    void setFileDialogHandler(std::function<QString(const QString& suggested, const QString& filter)> handler)
    {
        m_fileDialog = std::move(handler);
    }

public slots:
    void showDialog();
    void showDialogFor(ChartKind kind);
    void exportReportDialog();

signals:
    void statusMessage(const QString& text);

private:
    void saveWithDialog(const ExportDialog::Choice& choice);
    [[nodiscard]] QString suggestedPath(const ExportDialog::Choice& choice) const;

    ScenarioDocument* m_doc;
    QWidget* m_window;
    ExportDialog::Choice m_last;
    QString m_lastDir;
    std::function<QString(const QString&, const QString&)> m_fileDialog;
    std::map<ChartKind, ChartMaker> m_makers;
};

} // namespace shardscope::ui
