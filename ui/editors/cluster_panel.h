// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "editors/editor_panel.h"

#include <QStringList>

class QComboBox;
class QLabel;

namespace shardscope::ui {

/// Cluster: GPU type, nodes (slider), GPUs per node, intra- and inter-node links, NICs per node.
class ClusterPanel : public EditorPanel
{
    Q_OBJECT
public:
    ClusterPanel(ScenarioDocument* doc, QWidget* parent);

protected:
    void refreshExtras(const core::Scenario& s) override;

private:
    QComboBox* addLinkCombo(const QString& field, bool scaleOut);
    QComboBox* m_gpu;
    QComboBox* m_intra = nullptr;
    QComboBox* m_inter = nullptr;
    int m_intraEntries = 0;
    int m_interEntries = 0;
    QLabel* m_total;
};

} // namespace shardscope::ui
