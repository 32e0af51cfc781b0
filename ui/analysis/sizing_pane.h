// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace shardscope::ui {

class ScenarioDocument;
class SizingChart;
class SizingTableModel;

/// Cluster sizing and GPU choice: for the GPU types checked and each strategy, the fewest GPUs on which the open
/// scenario fits, and the time and cost to train a token budget on them (core::sizeCluster).
class SizingPane : public QWidget
{
    Q_OBJECT
public:
    explicit SizingPane(ScenarioDocument* doc, QWidget* parent = nullptr);

    /// Catalog ids of the GPU types checked.
    [[nodiscard]] std::vector<std::string> checkedGpus() const;
    void setCheckedGpus(const std::vector<std::string>& ids);
    [[nodiscard]] double tokens() const;
    [[nodiscard]] SizingTableModel* model() const { return m_model; }
    [[nodiscard]] SizingChart* chart() const { return m_chart; }

public slots:
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void schedule();

    ScenarioDocument* m_doc;
    QListWidget* m_gpus;
    QDoubleSpinBox* m_tokens;
    QDoubleSpinBox* m_price;
    QComboBox* m_metric;
    QLabel* m_note;
    SizingTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    SizingChart* m_chart;
    QTimer* m_debounce;
    bool m_dirty = true;
};

} // namespace shardscope::ui
