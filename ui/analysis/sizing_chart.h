// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/sweep.h>

#include <memory>
#include <vector>

class QCPAxisTickerText;
class QCPBars;
class QCPBarsGroup;
class QCPItemText;

namespace shardscope::ui {

/// Grouped bars of core::sizeCluster rows: one group per strategy, one bar per GPU type, showing the minimum
/// GPU count (or the train time or cost on it); "✕" where the strategy does not fit on that GPU.
class SizingChart : public ChartBase
{
    Q_OBJECT
public:
    enum class Metric { MinGpus, TrainDays, Cost };
    explicit SizingChart(QWidget* parent = nullptr);

    void setRows(const std::vector<core::SizingRow>& rows, Metric metric);
    /// Bar value for GPU type g and strategy s (0 when it does not fit); for tests.
    [[nodiscard]] double value(int gpu, int strategy) const;
    [[nodiscard]] int gpuCount() const { return int(m_gpus.size()); }
    static QColor gpuColor(int gpu);
    /// A new chart (not shown) drawing the same data, for exports: what right-click → Copy Image or Export draws.
    [[nodiscard]] std::unique_ptr<ChartBase> copy() const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    void themeChanged() override;

private:
    [[nodiscard]] double metricValue(const core::SizingRow& r) const;
    [[nodiscard]] QString metricText(const core::SizingRow& r) const;
    void clear();

    QCPBarsGroup* m_group;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    std::vector<QCPBars*> m_bars;
    std::vector<QCPItemText*> m_labels;
    std::vector<core::SizingRow> m_rows;
    std::vector<std::string> m_gpus;       ///< gpu ids in first-seen order
    std::vector<std::string> m_strategies; ///< labels in first-seen order
    Metric m_metric = Metric::MinGpus;
};

} // namespace shardscope::ui
