// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/cluster_panel.h"

#include "document/scenario_document.h"
#include "editors/value_slider.h"
#include "util/units.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include <cmath>
#include <optional>

namespace shardscope::ui {

using core::Scenario;

namespace {
/// A link entry's tooltip without the "the GPU's own link" note.
constexpr int kBaseToolTipRole = Qt::UserRole + 1;

QList<qint64> nodeSteps()
{
    // 1..16 one by one, then 24, 32, 48, 64, ... 8192 (about log scale).
    QList<qint64> v;
    for (int i = 1; i <= 16; ++i)
        v << i;
    for (int base = 16; base < 8192; base *= 2)
        v << base * 3 / 2 << base * 2;
    return v;
}
} // namespace

ClusterPanel::ClusterPanel(ScenarioDocument* doc, QWidget* parent)
    : EditorPanel(doc, parent)
    , m_gpu(new QComboBox(this))
    , m_total(new QLabel(this))
{
    m_gpu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpu->setMinimumContentsLength(18);
    for (const core::GpuSpec& g : m_doc->catalog().gpus)
        m_gpu->addItem(QString::fromStdString(g.name), QString::fromStdString(g.id));
    refreshUnits();
    addRow(QStringLiteral("cluster.gpu"), m_gpu, tr("Accelerator type (resources/catalog/gpus.json)"));
    connect(m_gpu, &QComboBox::activated, this, [this](int index) {
        const core::GpuSpec* gpu = m_doc->catalog().gpu(m_gpu->itemData(index).toString().toStdString());
        if (gpu)
            setGpu(*gpu);
    });

    auto* nodes = addSlider(
        QStringLiteral("cluster.nodes"), [](const Scenario& s) { return s.cluster.nodes; },
        [](Scenario& s, int64_t v) { s.cluster.nodes = int(v); }, tr("Number of nodes (servers)"));
    nodes->setValues(nodeSteps());
    nodes->setFreeEntry(1, 10'000'000); // core validation: at most 10^7 GPUs
    addSpin(
        QStringLiteral("cluster.gpus_per_node"), 1, 1024, [](const Scenario& s) { return s.cluster.gpusPerNode; },
        [](Scenario& s, int64_t v) { s.cluster.gpusPerNode = int(v); },
        tr("GPUs in one node (8 in an HGX/DGX server, 72 in an NVL72 rack)"));
    m_total->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_form->addRow(tr("Total GPUs:"), m_total);
    m_intra = addLinkCombo(QStringLiteral("cluster.intra_node"), false);
    m_ownLinks = new QLabel(this);
    m_ownLinks->setWordWrap(true);
    m_ownLinks->setTextFormat(Qt::RichText);
    m_ownLinks->setToolTip(tr("The GPU's own scale-up link (resources/catalog/gpus.json, scale_up_link)"));
    connect(m_ownLinks, &QLabel::linkActivated, this, [this] {
        const core::Scenario& s = m_doc->scenario();
        if (const core::LinkSpec* up = m_doc->catalog().link(s.cluster.gpu.scaleUpLink)) {
            const core::LinkSpec spec = *up;
            commit(QStringLiteral("cluster.intra_node"), QString::fromStdString(spec.name),
                [spec](Scenario& sc) { sc.cluster.intraNode = spec; });
        }
    });
    m_form->addRow(QString(), m_ownLinks);
    m_inter = addLinkCombo(QStringLiteral("cluster.inter_node"), true);
    addSpin(
        QStringLiteral("cluster.nics_per_node"), 0, 1024, [](const Scenario& s) { return s.cluster.nicsPerNode; },
        [](Scenario& s, int64_t v) { s.cluster.nicsPerNode = int(v); },
        tr("Scale-out ports per node (0 = one per GPU, the rail-optimised default)"))
        ->setSpecialValueText(tr("one per GPU"));
    addSpin(
        QStringLiteral("cluster.memory_headroom"), 0, 50,
        [](const Scenario& s) { return int64_t(std::lround(s.cluster.memoryHeadroom * 100)); },
        [](Scenario& s, int64_t v) { s.cluster.memoryHeadroom = double(v) / 100; },
        tr("Share of the GPU's memory kept free when judging \"fits\" (fragmentation, spikes): usable memory = "
           "memory as the driver reports it − CUDA context − headroom. Search, sizing and Compare use the same."))
        ->setSuffix(tr(" %"));
}

QComboBox* ClusterPanel::addLinkCombo(const QString& field, bool scaleOut)
{
    auto* combo = new QComboBox(this);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(14);
    int& entries = scaleOut ? m_interEntries : m_intraEntries;
    for (const core::LinkSpec& l : m_doc->catalog().links) {
        const bool out = l.kind == core::LinkKind::ScaleOut;
        const bool in = l.kind == core::LinkKind::ScaleUp || l.kind == core::LinkKind::Host;
        if (scaleOut ? !out : !in)
            continue;
        // The name up to its parenthesis ("NVLink 4", not "NVLink 4 (H100/H200, NVSwitch)"): the whole name is in the
        // tooltip, and the short one is not cut off in the editor's column at 1280 pixels.
        const QString name = QString::fromStdString(l.name);
        const qsizetype paren = name.indexOf(QLatin1String(" ("));
        combo->addItem(paren > 0 ? name.left(paren) : name, QString::fromStdString(l.id));
        const QString tip = tr("%1: %2 per direction, %3 latency. Source: %4")
                                .arg(name, Units::bandwidth(l.bandwidth), Units::seconds(l.latency),
                                    QString::fromStdString(l.source));
        combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
        combo->setItemData(combo->count() - 1, tip, kBaseToolTipRole);
        ++entries;
    }
    addRow(field, combo,
        scaleOut ? tr("Network between nodes; bandwidth per port per direction (resources/catalog/links.json)")
                 : tr("Link between the GPUs of one node; bandwidth per GPU per direction"));
    connect(combo, &QComboBox::activated, this, [this, combo, field, scaleOut](int index) {
        const core::LinkSpec* link = m_doc->catalog().link(combo->itemData(index).toString().toStdString());
        if (!link)
            return;
        const core::LinkSpec spec = *link;
        commit(field, QString::fromStdString(spec.name),
            [spec, scaleOut](Scenario& s) { (scaleOut ? s.cluster.interNode : s.cluster.intraNode) = spec; });
    });
    return combo;
}

void ClusterPanel::setGpu(const core::GpuSpec& spec)
{
    // The GPU's own links come with it (catalog: scale_up_link, scale_out_link): a B200 keeps no NVLink 4. The
    // scale-out link follows only while it is the previous GPU's typical one; a NIC the user chose stays.
    const core::Catalog& cat = m_doc->catalog();
    const core::Cluster& now = m_doc->scenario().cluster;
    const core::LinkSpec* up = cat.link(spec.scaleUpLink);
    const core::LinkSpec* out = now.interNode.id == now.gpu.scaleOutLink ? cat.link(spec.scaleOutLink) : nullptr;
    QStringList links;
    if (up && up->id != now.intraNode.id)
        links << QString::fromStdString(up->name);
    if (out && out->id != now.interNode.id)
        links << QString::fromStdString(out->name);
    const QString text = links.isEmpty()
        ? QString::fromStdString(spec.name)
        : tr("%1 with %2").arg(QString::fromStdString(spec.name), links.join(tr(" and ")));
    const std::optional<core::LinkSpec> upSpec = up ? std::optional(*up) : std::nullopt;
    const std::optional<core::LinkSpec> outSpec = out ? std::optional(*out) : std::nullopt;
    commit(QStringLiteral("cluster.gpu"), text, [spec, upSpec, outSpec](Scenario& s) {
        s.cluster.gpu = spec;
        if (upSpec)
            s.cluster.intraNode = *upSpec;
        if (outSpec)
            s.cluster.interNode = *outSpec;
    });
}

void ClusterPanel::markOwnLinks(QComboBox* combo, int entries, const std::string& own, const QString& gpuName)
{
    for (int i = 0; i < entries; ++i) {
        const bool mine = !own.empty() && combo->itemData(i).toString().toStdString() == own;
        QFont f = combo->font();
        f.setBold(mine);
        combo->setItemData(i, mine ? QVariant(f) : QVariant(), Qt::FontRole);
        const QString tip = combo->itemData(i, kBaseToolTipRole).toString();
        combo->setItemData(i, mine ? tr("The %1's own link. %2").arg(gpuName, tip) : tip, Qt::ToolTipRole);
    }
}

void ClusterPanel::refreshUnits()
{
    int i = 0;
    for (const core::GpuSpec& g : m_doc->catalog().gpus)
        m_gpu->setItemData(i++,
            tr("%1 memory, %2 BF16 dense, %3 HBM. Source: %4")
                .arg(Units::bytes(g.memoryBytes, 0), Units::flopRate(g.bf16DenseFlops),
                    Units::bandwidth(g.memoryBandwidth), QString::fromStdString(g.source)),
            Qt::ToolTipRole);
}

void ClusterPanel::refreshExtras(const Scenario& s)
{
    const auto& cat = m_doc->catalog();
    const core::GpuSpec* gpu = cat.gpu(s.cluster.gpu.id);
    selectCatalogEntry(m_gpu, int(cat.gpus.size()), QString::fromStdString(s.cluster.gpu.id),
        !gpu || !(*gpu == s.cluster.gpu), tr("%1 (custom)").arg(QString::fromStdString(s.cluster.gpu.name)));
    const core::LinkSpec* intra = cat.link(s.cluster.intraNode.id);
    selectCatalogEntry(m_intra, m_intraEntries, QString::fromStdString(s.cluster.intraNode.id),
        !intra || !(*intra == s.cluster.intraNode),
        tr("%1 (custom)").arg(QString::fromStdString(s.cluster.intraNode.name)));
    const core::LinkSpec* inter = cat.link(s.cluster.interNode.id);
    selectCatalogEntry(m_inter, m_interEntries, QString::fromStdString(s.cluster.interNode.id),
        !inter || !(*inter == s.cluster.interNode),
        tr("%1 (custom)").arg(QString::fromStdString(s.cluster.interNode.name)));
    const QString gpuName = QString::fromStdString(s.cluster.gpu.name);
    markOwnLinks(m_intra, m_intraEntries, s.cluster.gpu.scaleUpLink, gpuName);
    markOwnLinks(m_inter, m_interEntries, s.cluster.gpu.scaleOutLink, gpuName);
    const core::LinkSpec* own = cat.link(s.cluster.gpu.scaleUpLink);
    const bool mismatch = own && s.cluster.intraNode.id != own->id;
    if (mismatch)
        m_ownLinks->setText(tr("⚠ The %1 comes with %2. <a href=\"use\">Use it</a>")
                                .arg(gpuName.toHtmlEscaped(), QString::fromStdString(own->name).toHtmlEscaped()));
    setRowVisible(m_ownLinks, mismatch);
    // In 64 bits: each factor may be at its limit (validation then refuses the product).
    m_total->setText(tr("%1 × %2 = %3")
                         .arg(s.cluster.nodes)
                         .arg(s.cluster.gpusPerNode)
                         .arg(qint64(s.cluster.nodes) * s.cluster.gpusPerNode));
}

} // namespace shardscope::ui
