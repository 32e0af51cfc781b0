// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>

#include <QMainWindow>

class QSplitter;

namespace shardscope::ui {

class AppSettings;
class CommChart;
class FileController;
class IssuesPanel;
class KpiPanel;
class MemoryChart;
class ScenarioDocument;
class ScenarioEditor;
class StatusLine;
class StepTimeChart;
class StrategyChart;

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
    QList<QSplitter*> m_splitters;
};

} // namespace shardscope::ui
