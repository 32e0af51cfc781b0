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
    /// Value labels (one per bar, "✕" on bars that do not fit), for tests.
    [[nodiscard]] int labelCount() const { return int(m_labels.size()); }
    /// Where value label i is drawn, in the plot's pixels (after a replot), or an empty rectangle when it is left out.
    [[nodiscard]] QRectF labelRect(int i) const;
    /// Where the bar of value label i stands, in the plot's pixels (after a replot); zero height where it does not fit.
    [[nodiscard]] QRectF barRect(int i) const;

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;
    void themeChanged() override;
    void laidOut() override;

private:
    [[nodiscard]] double metricValue(const core::SizingRow& r) const;
    [[nodiscard]] QString metricText(const core::SizingRow& r) const;
    void clear();

    QCPBarsGroup* m_group;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    std::vector<QCPBars*> m_bars;
    std::vector<QCPItemText*> m_labels;
    struct LabelAt {
        double key = 0; ///< the bar's centre
        double value = 0; ///< its top
        size_t gpu = 0; ///< its bar set
    };
    std::vector<LabelAt> m_labelAt; ///< per label
    std::vector<QRectF> m_labelRects; ///< per label, as placed (empty: left out)
    double m_barWidth = 0.3;
    std::vector<core::SizingRow> m_rows;
    std::vector<std::string> m_gpus; ///< gpu ids in first-seen order
    std::vector<std::string> m_strategies; ///< labels in first-seen order
    Metric m_metric = Metric::MinGpus;
};

} // namespace shardscope::ui
