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
    /// The GPU entries' tooltips again, in the byte unit now set (GB or GiB).
    void refreshUnits();

protected:
    void refreshExtras(const core::Scenario& s) override;

private:
    QComboBox* addLinkCombo(const QString& field, bool scaleOut);
    /// Changes the GPU as one undo step, with its own scale-up link and (while the scale-out link is the old
    /// GPU's typical one) its typical scale-out link.
    void setGpu(const core::GpuSpec& spec);
    /// Bold and a tooltip note on the combo entry that is the GPU's own link.
    static void markOwnLinks(QComboBox* combo, int entries, const std::string& own, const QString& gpuName);
    QComboBox* m_gpu;
    QComboBox* m_intra = nullptr;
    QComboBox* m_inter = nullptr;
    int m_intraEntries = 0;
    int m_interEntries = 0;
    QLabel* m_total;
    QLabel* m_ownLinks = nullptr; ///< "The B200 comes with NVLink 5. Use it" while the intra-node link is another
};

} // namespace shardscope::ui
