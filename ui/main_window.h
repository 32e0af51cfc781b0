// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>

#include <QMainWindow>

class QSplitter;

namespace shardscope::ui {

class AnalysisTabs;
class AppSettings;
class CommChart;
class CompareController;
class ExportController;
class FileController;
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

/// Composition root: builds the document, editor, views and menus and connects them. No domain logic.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    MainWindow(const core::Catalog& catalog, AppSettings* settings, QWidget* parent = nullptr);

    [[nodiscard]] ScenarioDocument* document() const { return m_doc; }
    [[nodiscard]] ScenarioEditor* editor() const { return m_editor; }
    [[nodiscard]] FileController* files() const { return m_files; }
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
    /// Replots every chart synchronously (benchmarks, screenshots).
    void replotAllNow();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildLayout();
    void buildMenus();
    void showResult();
    void updateTitle();
    void restoreLayout();
    void saveLayout();

    AppSettings* m_settings;
    ScenarioDocument* m_doc;
    FileController* m_files;
    ScenarioEditor* m_editor = nullptr;
    IssuesPanel* m_issues = nullptr;
    KpiPanel* m_kpis = nullptr;
    StatusLine* m_status = nullptr;
    MemoryChart* m_memory = nullptr;
    StrategyChart* m_strategy = nullptr;
    CommChart* m_comm = nullptr;
    StepTimeChart* m_time = nullptr;
    ExportController* m_export = nullptr;      // issue 5: export, compare, teaching mode, launch configurations
    CompareController* m_compare = nullptr;
    TeachingController* m_teach = nullptr;
    LaunchConfigDock* m_launch = nullptr;
    AnalysisTabs* m_analysis = nullptr;
    QList<QSplitter*> m_splitters;
};

} // namespace shardscope::ui
