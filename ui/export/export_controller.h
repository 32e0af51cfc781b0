// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/chart_figure.h"
#include "export/chart_kind.h"
#include "export/export_dialog.h"

#include <QObject>

#include <functional>

class QMenu;
class QWidget;

namespace shardscope::ui {

class ChartBase;
class ScenarioDocument;

/// Exports of the open scenario: File → Export… (dialog), Export Report…, the charts' context menus (copy image,
/// export this chart) and the non-interactive functions behind them. Every chart is rendered from the document's
/// scenario into a chart of its own, so exports never depend on the window's size or theme.
class ExportController : public QObject
{
    Q_OBJECT
public:
    ExportController(ScenarioDocument* doc, QWidget* window);

    /// Adds Export… (Ctrl+E), Export Report (PDF)…, Copy Chart submenu to the File menu.
    void populateMenu(QMenu* menu);
    /// Gives chart a context menu: Copy Image, Export This Chart…, Export Report….
    void attachChart(ChartBase* chart, ChartKind kind);

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
};

} // namespace shardscope::ui
