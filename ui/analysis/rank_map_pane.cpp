// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/rank_map_pane.h"

#include "analysis/layout_text.h"
#include "analysis/rank_map_chart.h"
#include "analysis/pane_defaults.h"
#include "document/scenario_document.h"
#include "explain/tooltips.h"

#include <shardscope/core/rank_map.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace shardscope::ui {

RankMapPane::RankMapPane(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_kind(new QComboBox(this))
    , m_maxNodes(new QSpinBox(this))
    , m_note(new QLabel(this))
    , m_warnings(new QLabel(this))
    , m_chart(new RankMapChart(this))
    , m_groups(new QTableWidget(this))
    , m_debounce(new QTimer(this))
{
    for (core::Group g : { core::Group::Tp, core::Group::Cp, core::Group::Dp, core::Group::Pp, core::Group::Ep })
        m_kind->addItem(tr("%1 groups").arg(groupShort(g)), int(g));
    m_kind->setToolTip(tr("Cells of one colour form one group of this kind."));
    m_maxNodes->setRange(1, 512);
    m_maxNodes->setValue(kDefaultRankMapNodes);
    m_maxNodes->setToolTip(tr("Nodes drawn (the first ones): large clusters repeat the same pattern."));
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setWordWrap(true);
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::RichText);
    m_warnings->setContentsMargins(8, 5, 8, 5);

    auto* bar = new QHBoxLayout;
    bar->setSpacing(6);
    bar->addWidget(new QLabel(tr("Colour by"), this));
    bar->addWidget(m_kind);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Nodes shown"), this));
    bar->addWidget(m_maxNodes);
    bar->addSpacing(12);
    bar->addWidget(m_note, 1);

    m_groups->setColumnCount(6);
    m_groups->setHorizontalHeaderLabels(
        { tr("Group"), tr("Size"), tr("Groups"), tr("Nodes spanned"), tr("Network"), tr("Collectives") });
    m_groups->verticalHeader()->setVisible(false);
    m_groups->verticalHeader()->setDefaultSectionSize(m_groups->fontMetrics().height() + 6);
    m_groups->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_groups->setSelectionMode(QAbstractItemView::NoSelection);
    m_groups->horizontalHeader()->setStretchLastSection(true);
    m_groups->setAlternatingRowColors(true);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_chart);
    split->addWidget(m_groups);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(m_warnings);
    layout->addWidget(split, 1);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(120);
    connect(m_debounce, &QTimer::timeout, this, &RankMapPane::refresh);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &RankMapPane::refresh);
    connect(m_maxNodes, &QSpinBox::valueChanged, this, [this] { m_debounce->start(); });
    connect(m_doc, &ScenarioDocument::resultReady, this, &RankMapPane::documentChanged);
}

void RankMapPane::setGroupKind(int group)
{
    const int i = m_kind->findData(group);
    if (i >= 0)
        m_kind->setCurrentIndex(i);
}

void RankMapPane::documentChanged()
{
    m_dirty = true;
    if (isVisible())
        m_debounce->start();
}

void RankMapPane::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

QString RankMapPane::warningsText() const { return m_warnings->text(); }

QString RankMapPane::noteText() const { return m_note->text(); }

void RankMapPane::refresh()
{
    m_debounce->stop();
    m_dirty = false;
    const core::Scenario& s = m_doc->scenario();
    const core::Result& r = m_doc->result();
    const core::Group kind = core::Group(m_kind->currentData().toInt());
    m_chart->setScenario(s, r, kind, m_maxNodes->value());
    if (!r.valid) {
        m_note->setText(QString());
        m_warnings->setText(tr("The scenario is invalid: fix the issues to see where its ranks go."));
        m_warnings->setStyleSheet(QString());
        m_groups->setRowCount(0);
        return;
    }
    const int nodes = s.cluster.nodes;
    const int shown = m_chart->nodesShown();
    QString note = nodes > shown ? tr("Showing %1 of %2 nodes (%3 of %4 GPUs); the pattern repeats.")
                                       .arg(shown)
                                       .arg(QLocale().toString(nodes))
                                       .arg(QLocale().toString(shown * s.cluster.gpusPerNode))
                                       .arg(QLocale().toString(s.cluster.gpus()))
                                 : tr("%1 nodes × %2 GPUs").arg(nodes).arg(s.cluster.gpusPerNode);
    if (shown < std::min(nodes, m_maxNodes->value()))
        note += tr(" At most %1 GPUs are drawn.").arg(QLocale().toString(RankMapChart::kMaxCells));
    note += tr(" · rank order: TP fastest, then CP, DP, PP (Megatron-LM). Hover a GPU for its coordinates and groups.");
    m_note->setText(note);

    const std::vector<core::Issue> warnings = core::placementWarnings(s);
    if (warnings.empty()) {
        m_warnings->setText(tr("✓ Tensor-parallel%1 groups stay inside a node's NVLink domain.")
                                .arg(s.parallelism.ep > 1 ? tr(" and expert-parallel") : QString()));
        m_warnings->setStyleSheet(QStringLiteral("QLabel { border-left: 5px solid #009E73; }"));
    } else {
        QStringList lines;
        for (const auto& w : warnings)
            lines << QStringLiteral("⚠ <b>%1</b>: %2")
                         .arg(QString::fromStdString(w.field).toHtmlEscaped(),
                             QString::fromStdString(w.message).toHtmlEscaped());
        m_warnings->setText(lines.join(QStringLiteral("<br>")));
        m_warnings->setStyleSheet(
            QStringLiteral("QLabel { border-left: 5px solid #D55E00; background: rgba(213, 94, 0, 40); }"));
    }
    fillGroupsTable();
}

void RankMapPane::fillGroupsTable()
{
    const core::Scenario& s = m_doc->scenario();
    const core::Result& r = m_doc->result();
    const int gpus = s.cluster.gpus();
    // Megatron's layout gives every group of a kind the same shape; rank 0's and the last rank's groups show it.
    const std::vector<core::RankGroup> first = core::groupsOf(s, 0, 0);
    const std::vector<core::RankGroup> last = core::groupsOf(s, gpus - 1, 0);
    m_groups->setRowCount(0);
    for (const core::RankGroup& g : first) {
        int spanned = g.nodesSpanned;
        bool crosses = g.crossesNodes;
        bool inDomain = g.withinScaleUpDomain;
        for (const auto& h : last)
            if (h.group == g.group && h.expertDataParallel == g.expertDataParallel) {
                spanned = std::max(spanned, h.nodesSpanned);
                crosses = crosses || h.crossesNodes;
                inDomain = inDomain && h.withinScaleUpDomain;
            }
        const int size = g.size;
        QStringList collectives;
        for (const core::Collective& c : r.collectives)
            if (c.group == g.group && c.expertDataParallel == g.expertDataParallel)
                collectives << collectiveLabel(c);
        collectives.removeDuplicates();
        const int row = m_groups->rowCount();
        m_groups->insertRow(row);
        auto set = [&](int col, const QString& text, Qt::Alignment align = Qt::AlignLeft) {
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(align | Qt::AlignVCenter);
            m_groups->setItem(row, col, item);
            return item;
        };
        set(0, g.expertDataParallel ? tr("expert DP") : groupShort(g.group));
        set(1, QString::number(size), Qt::AlignRight);
        set(2, QString::number(size > 0 ? gpus / size : 0), Qt::AlignRight);
        set(3, QString::number(spanned), Qt::AlignRight);
        QTableWidgetItem* net = set(4,
            size <= 1      ? tr("—")
                : crosses  ? tr("inter-node")
                : inDomain ? tr("NVLink (in node)")
                           : tr("scale-up"));
        if (crosses && (g.group == core::Group::Tp || g.group == core::Group::Ep))
            net->setForeground(QColor(0xD5, 0x5E, 0x00));
        set(5, collectives.isEmpty() ? tr("—") : collectives.join(QStringLiteral(", ")));
    }
    m_groups->resizeColumnsToContents();
    m_groups->horizontalHeader()->setSectionResizeMode(5, QHeaderView::Stretch);
    // The table is as tall as its rows; the map takes the rest.
    const int rowsHeight = m_groups->verticalHeader()->length() + m_groups->horizontalHeader()->height()
        + 2 * m_groups->frameWidth() + 2;
    m_groups->setMaximumHeight(rowsHeight);
    m_groups->setMinimumHeight(std::min(
        rowsHeight, m_groups->horizontalHeader()->height() + 3 * m_groups->verticalHeader()->defaultSectionSize()));
}

} // namespace shardscope::ui
