// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>
#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/what_if.h>

#include <QMainWindow>

#include <array>
#include <optional>

class QLabel;
class QSplitter;

namespace shardscope::ui {

class AnalysisTabs;
class AppSettings;
class ChartGrid;
class CommChart;
class CompareController;
class ExportController;
class FileController;
class ImportController;
class FixBar;
class IssuesPanel;
class KpiPanel;
class LaunchConfigDock;
class MemoryChart;
class ScenarioDocument;
class ScenarioEditor;
class StatusLine;
class StepTimeChart;
class StrategyChart;
class TeachingController;
class Veil;

/// Composition root: builds the document, editor, views and menus and connects them. No domain logic.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(const core::Catalog& catalog, AppSettings* settings, QWidget* parent = nullptr);

    [[nodiscard]] ScenarioDocument* document() const { return m_doc; }
    [[nodiscard]] ScenarioEditor* editor() const { return m_editor; }
    [[nodiscard]] FileController* files() const { return m_files; }
    [[nodiscard]] ImportController* importer() const { return m_import; }
    [[nodiscard]] IssuesPanel* issues() const { return m_issues; }
    [[nodiscard]] KpiPanel* kpis() const { return m_kpis; }
    [[nodiscard]] StatusLine* statusLine() const { return m_status; }
    [[nodiscard]] MemoryChart* memoryChart() const { return m_memory; }
    [[nodiscard]] StrategyChart* strategyChart() const { return m_strategy; }
    [[nodiscard]] CommChart* commChart() const { return m_comm; }
    [[nodiscard]] StepTimeChart* stepTimeChart() const { return m_time; }
    /// Explorer | Search | Sweep | Sizing | Timeline | Rank map (issue 4).
    [[nodiscard]] AnalysisTabs* analysis() const { return m_analysis; }
    [[nodiscard]] ExportController* exporter() const { return m_export; }
    [[nodiscard]] CompareController* compare() const { return m_compare; }
    [[nodiscard]] TeachingController* teaching() const { return m_teach; }
    [[nodiscard]] LaunchConfigDock* launchDock() const { return m_launch; }
    /// Under the status line while the scenario is invalid: the nearest valid node counts and batch sizes.
    [[nodiscard]] FixBar* fixBar() const { return m_fixBar; }
    /// Whether the charts and KPIs show the last valid figures, greyed, because the scenario is invalid.
    [[nodiscard]] bool showsLastValidFigures() const { return m_stale; }
    /// Replots every chart synchronously (benchmarks, screenshots).
    void replotAllNow();
    /// Where a window with no remembered geometry goes on a screen whose available area is available: its
    /// preferred size (1500 x 920) shrunk to 94% of the area where the area is smaller, but not below minimum,
    /// centred in it (its top-left corner never outside the area).
    [[nodiscard]] static QRect defaultGeometry(const QRect& available, const QSize& minimum = {});

protected:
    void closeEvent(QCloseEvent* event) override;
    /// A scenario file dragged from a file manager opens (after asking about unsaved changes).
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildLayout();
    void buildMenus();
    /// Registers the analysis tabs' and the comparison window's charts with the exports (their figure makers).
    void registerFigures();
    void showResult(const std::shared_ptr<const core::WhatIf>& shown);
    void updateTitle();
    void restoreLayout();
    void saveLayout();
    void setStale(bool stale);
    /// The figures last drawn from a valid scenario, kept on screen (greyed) while an edit makes it invalid.
    struct Shown {
        std::shared_ptr<const core::WhatIf> what;
        int generation = 0; ///< ScenarioDocument::generation() it was drawn in
    };

    AppSettings* m_settings;
    ScenarioDocument* m_doc;
    FileController* m_files;
    ImportController* m_import = nullptr;
    ScenarioEditor* m_editor = nullptr;
    IssuesPanel* m_issues = nullptr;
    KpiPanel* m_kpis = nullptr;
    StatusLine* m_status = nullptr;
    QLabel* m_profile = nullptr; // the framework profile in use, in the status bar (Tools → Calibrate)
    MemoryChart* m_memory = nullptr;
    StrategyChart* m_strategy = nullptr;
    CommChart* m_comm = nullptr;
    StepTimeChart* m_time = nullptr;
    ExportController* m_export = nullptr; // issue 5: export, compare, teaching mode, launch configurations
    CompareController* m_compare = nullptr;
    TeachingController* m_teach = nullptr;
    LaunchConfigDock* m_launch = nullptr;
    AnalysisTabs* m_analysis = nullptr;
    FixBar* m_fixBar = nullptr;
    ChartGrid* m_explorerCharts = nullptr;
    std::optional<Shown> m_lastValid;
    std::shared_ptr<const core::WhatIf>
        m_drawn; ///< the figures the charts and KPIs show (held: never a reused address)
    bool m_stale = false;
    std::array<Veil*, 2> m_veils {}; // over the explorer charts and the KPIs while they show the last valid figures
    QList<QSplitter*> m_splitters;
};

} // namespace shardscope::ui
