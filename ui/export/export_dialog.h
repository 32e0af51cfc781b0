// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/chart_figure.h"
#include "export/chart_kind.h"

#include <QDialog>
#include <QList>

#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace shardscope::ui {

class ScenarioDocument;

/// File → Export…: what (a chart, the PDF report, the numbers as CSV or JSON), the chart format (PNG, SVG, PDF),
/// size in pixels (1/96 inch), DPI for PNG, light theme for documents, caption; with a live preview. Save asks
/// for a file; Copy puts the chart image on the clipboard.
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    enum class Target { Chart, Report, Csv, Json };
    struct Choice {
        Target target = Target::Chart;
        ChartKind chart = ChartKind::Memory;
        FigureFormat format = FigureFormat::Png;
        FigureOptions options;
        bool caption = true;
    };

    /// The figure of a chart kind in a theme (light or not), for the preview.
    using FigureSource = std::function<std::unique_ptr<ChartFigure>(ChartKind kind, bool lightTheme)>;

    /// charts: the chart kinds offered, figures: where their previews come from. Without them: the scenario's charts
    /// (kScenarioChartKinds) drawn from the document.
    ExportDialog(ScenarioDocument* doc, const Choice& initial, QWidget* parent = nullptr, QList<ChartKind> charts = {},
        FigureSource figures = {});
    [[nodiscard]] Choice choice() const;
    void setChoice(const Choice& choice);
    /// The preview image (tests).
    [[nodiscard]] QImage previewImage() const { return m_previewImage; }
    /// The line beside the DPI (pixel count, or why the image is refused); Save (tests).
    [[nodiscard]] QLabel* pixelsLabel() const { return m_pixels; }
    [[nodiscard]] QPushButton* saveButton() const { return m_save; }

signals:
    /// Save pressed: the controller asks for a file and writes it.
    void saveRequested(const ExportDialog::Choice& choice);
    void copyRequested(const ExportDialog::Choice& choice);

private:
    void updateControls();
    void updatePreview();

    ScenarioDocument* m_doc;
    QComboBox* m_what;
    QComboBox* m_format;
    QSpinBox* m_width;
    QSpinBox* m_height;
    QSpinBox* m_dpi;
    QLabel* m_pixels;
    QCheckBox* m_light;
    QCheckBox* m_caption;
    QLabel* m_preview;
    QPushButton* m_copy;
    QPushButton* m_save;
    QImage m_previewImage;
    FigureSource m_figures;
};

} // namespace shardscope::ui
