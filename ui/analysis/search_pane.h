// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/scenario.h>
#include <shardscope/core/search.h>

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QSplitter;
class QTableView;
class QTimer;

namespace shardscope::ui {

class AppSettings;
class ScenarioDocument;
class SearchScatterChart;
class SearchTableModel;
class WaterfallChart;

/// Layout search for the open scenario's model and GPUs: constraints, a background run of core::search with
/// progress and Cancel, the ranked table of every feasible layout, and the scatter with the Pareto front.
/// Apply (or a double-click) puts the chosen layout into the document as one undoable edit.
class SearchPane : public QWidget
{
    Q_OBJECT
public:
    explicit SearchPane(ScenarioDocument* doc, QWidget* parent = nullptr);
    ~SearchPane() override;

    /// The constraints as set in the controls.
    [[nodiscard]] core::SearchOptions options() const;
    [[nodiscard]] bool isRunning() const { return m_job != nullptr; }
    /// Counts of the last finished search.
    [[nodiscard]] qint64 lastEvaluated() const { return m_evaluated; }
    [[nodiscard]] qint64 lastFeasible() const { return m_feasible; }
    /// True when the scenario changed since the last search in a way the search depends on.
    [[nodiscard]] bool isStale() const { return m_stale; }

    [[nodiscard]] SearchTableModel* model() const { return m_model; }
    [[nodiscard]] QSortFilterProxyModel* proxy() const { return m_proxy; }
    [[nodiscard]] QTableView* table() const { return m_table; }
    [[nodiscard]] SearchScatterChart* scatter() const { return m_scatter; }
    [[nodiscard]] QPushButton* applyButton() const { return m_apply; }
    [[nodiscard]] QPushButton* whyNotButton() const { return m_whyNot; }
    /// The "why not this layout?" waterfall (null until first shown).
    [[nodiscard]] WaterfallChart* whyNotChart() const { return m_whyNotChart; }
    /// The Strategies filter's menu (stays open while strategies are checked).
    [[nodiscard]] QMenu* strategiesMenu() const;
    /// Overlap efficiency from the settings, and kept there when changed (default 100%).
    void setSettings(AppSettings* settings);

public slots:
    /// Starts a search with the current constraints (cancels a running one first).
    void run();
    void cancel();
    /// Applies the layout of a model row (= point index) to the document, as one undo step.
    void applyRow(int row);
    void applySelected();
    /// Why not the selected layout? The walk from the best layout (#1) to the selected one, one setting at a time,
    /// with what each costs in memory and step time (core::buildWaterfall), in a window of its own.
    void explainSelected();
    /// The byte unit changed: the table, the scatter and an open "why not" window say it in the new unit.
    void redrawUnits();

signals:
    /// A search ended (finished or cancelled) and the table shows its results.
    void finished();

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Job;
    void buildControls(QWidget* box);
    void poll();
    void finish();
    void documentChanged();
    void constraintsChanged();
    void updateStrategyButton();
    void updateGpuControls();
    void selectPoint(int index);
    /// Marks the open scenario on the scatter with the figures the shown results were ranked on.
    void updateCurrent();
    [[nodiscard]] int selectedRow() const;

    ScenarioDocument* m_doc;
    SearchTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    SearchScatterChart* m_scatter;
    QSplitter* m_split;

    QCheckBox* m_range;
    QSpinBox* m_minGpus;
    QSpinBox* m_maxGpus;
    QLabel* m_gpuNote;
    QSpinBox* m_maxTp;
    QSpinBox* m_maxPp;
    QSpinBox* m_maxCp;
    QSpinBox* m_maxEp;
    QSpinBox* m_maxMicroBatch;
    QPushButton* m_strategies;
    QList<QAction*> m_strategyActions;
    QCheckBox* m_offload;
    QCheckBox* m_guaranteed; ///< rank by the 80% ranges' pessimistic ends (core::SearchOptions::pessimistic)
    QDoubleSpinBox* m_overlap;
    QComboBox* m_objective;
    QSpinBox* m_threads;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_apply;
    QPushButton* m_whyNot;
    QWidget* m_whyNotWindow = nullptr;
    WaterfallChart* m_whyNotChart = nullptr;
    QLabel* m_whyNotNote = nullptr;
    AppSettings* m_settings = nullptr;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_staleNote;
    QTimer* m_pollTimer;
    QTimer* m_autoRun;

    std::unique_ptr<Job> m_job;
    core::Scenario m_base; ///< scenario of the results shown
    core::SearchOptions m_ranked; ///< the options of the results shown: which figures they are (core::rankedFigures)
    bool m_baseRange = false; ///< those results searched a GPU range
    bool m_hasRun = false;
    bool m_stale = false;
    bool m_currentDirty = false; ///< the open scenario's marker waits for the tab to show
    double m_lastSeconds = 0;
    qint64 m_evaluated = 0;
    qint64 m_feasible = 0;
};

} // namespace shardscope::ui
