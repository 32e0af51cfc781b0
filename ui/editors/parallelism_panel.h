// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/editor_panel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace shardscope::ui {

class ValueSlider;

/// Parallelism: sharding strategy, TP (divisors of the heads), PP (divisors of the layers), CP, EP (divisors of
/// the experts), expert TP (divisors of the expert size), sequence parallelism, pipeline schedule, virtual stages, pipeline
/// layout, shard group; shows the derived DP.
class ParallelismPanel : public EditorPanel
{
    Q_OBJECT
public:
    ParallelismPanel(ScenarioDocument* doc, QWidget* parent);

protected:
    void refreshExtras(const core::Scenario& s) override;

private:
    ValueSlider* m_tp;
    ValueSlider* m_pp;
    ValueSlider* m_cp;
    ValueSlider* m_ep;
    ValueSlider* m_etp;
    QCheckBox* m_sp;
    QComboBox* m_schedule;
    QSpinBox* m_virtual;
    QLineEdit* m_layout;
    QSpinBox* m_shardGroup;
    QComboBox* m_moeOverlap;
    QComboBox* m_cpCommType;
    QCheckBox* m_tpOverlap;
    QCheckBox* m_gradOverlap;
    QCheckBox* m_paramOverlap;
    QLabel* m_dp;
};

} // namespace shardscope::ui
