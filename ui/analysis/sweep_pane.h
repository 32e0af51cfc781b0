// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/sweep.h>

#include <QWidget>

#include <array>
#include <vector>

class QComboBox;
class QLabel;
class QTimer;

namespace shardscope::ui {

class LegendStrip;
class ScenarioDocument;
class SweepChart;

/// "Which strategy when": one axis of the open scenario swept (model size along its family, GPUs, nodes, TP,
/// PP, micro-batch, sequence length, global batch), four small charts (memory with capacity, step time, MFU,
/// communication), one curve per strategy (core::sweepStrategies). Re-runs, debounced, when the
/// document changes while the pane is visible (a sweep is a few hundred evaluate() calls).
class SweepPane : public QWidget
{
    Q_OBJECT
public:
    explicit SweepPane(ScenarioDocument* doc, QWidget* parent = nullptr);

    [[nodiscard]] core::SweepAxis axis() const;
    void setAxis(core::SweepAxis axis);
    /// The values swept and the curves of the last run.
    [[nodiscard]] const std::vector<double>& values() const { return m_values; }
    [[nodiscard]] const std::vector<core::SweepCurve>& curves() const { return m_curves; }
    [[nodiscard]] SweepChart* chart(int i) const { return m_charts[size_t(i)]; }
    static constexpr int kCharts = 4;

public slots:
    /// Sweeps now (synchronously).
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void documentChanged();
    [[nodiscard]] double currentX() const;

    ScenarioDocument* m_doc;
    QComboBox* m_axis;
    QLabel* m_axisNote;
    LegendStrip* m_legend;
    std::array<SweepChart*, kCharts> m_charts {};
    QLabel* m_note;
    QTimer* m_debounce;
    std::vector<double> m_values;
    std::vector<core::SweepCurve> m_curves;
    bool m_dirty = true;
};

} // namespace shardscope::ui
