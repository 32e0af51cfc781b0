// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/calibrate.h>

#include <QDialog>

#include <vector>

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace shardscope::ui {

class ScenarioDocument;

/// Tools → Calibrate to My Cluster…: a table of measured runs (imported from a shardscope.runs/1 file or added from
/// the open scenario), the fit (core::calibrate) with every figure's error before and after as a chart, the fitted
/// profile saved to the user's data folder (AppDataLocation/profiles), and any saved profile of the scenario's
/// framework applied to the open scenario as one undo step. The fit and every rule are the core's.
class CalibrateDialog : public QDialog
{
    Q_OBJECT
public:
    explicit CalibrateDialog(ScenarioDocument* doc, QWidget* parent = nullptr);

    /// The folder saved profiles live in: QStandardPaths::AppDataLocation/profiles.
    static QString profileFolder();

    // For tests and the buttons.
    void addCurrentScenario();
    /// Reads a runs file into the table; false with the core's messages shown when it does not parse.
    bool importRunsFile(const QString& path);
    /// Sets run `row`'s measured figure (0 clears it).
    void setMeasured(int row, core::Figure figure, double value);
    /// Fits the table's runs; false with the refusal shown.
    bool fit();
    /// Writes the fitted profile as folder/ID.json; false with the reason shown.
    bool saveProfile(const QString& id);
    /// Applies the saved profile `id` (a file stem in profileFolder()) to the open scenario.
    bool useSavedProfile(const QString& id);

    [[nodiscard]] int runCount() const;
    [[nodiscard]] const core::Calibration& calibration() const { return m_fit; }
    [[nodiscard]] QString message() const;
    [[nodiscard]] QCustomPlot* residualChart() const { return m_chart; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void applyChartTheme();
    void appendRun(const core::CalibrationRun& run);
    bool readTable(std::vector<core::CalibrationRun>& runs);
    void showMessage(const QString& text, bool error);
    void showFit();
    void refreshSavedProfiles();

    ScenarioDocument* m_doc;
    std::vector<core::Scenario> m_scenarios; ///< one per table row
    core::Calibration m_fit;
    std::vector<core::CalibrationRun> m_fitRuns;
    bool m_fitted = false;
    QTableWidget* m_table;
    QCustomPlot* m_chart;
    QLabel* m_message;
    QLabel* m_values;
    QPushButton* m_save;
    QComboBox* m_saved;
    QPushButton* m_use;
};

} // namespace shardscope::ui
