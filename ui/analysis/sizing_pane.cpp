// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/sizing_pane.h"

#include "analysis/sizing_chart.h"
#include "analysis/sizing_table_model.h"
#include "analysis/pane_defaults.h"
#include "document/scenario_document.h"
#include "util/message.h"

#include <shardscope/core/sweep.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace shardscope::ui {

SizingPane::SizingPane(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_gpus(new QListWidget(this))
    , m_tokens(new QDoubleSpinBox(this))
    , m_price(new QDoubleSpinBox(this))
    , m_metric(new QComboBox(this))
    , m_note(plainLabel(this))
    , m_model(new SizingTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_chart(new SizingChart(this))
    , m_debounce(new QTimer(this))
{
    const std::vector<std::string>& defaults = defaultSizingGpuIds();
    const std::string own = m_doc->scenario().cluster.gpu.id;
    for (const core::GpuSpec& g : m_doc->catalog().gpus) {
        auto* item = new QListWidgetItem(QString::fromStdString(g.name), m_gpus);
        item->setData(Qt::UserRole, QString::fromStdString(g.id));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool on = std::find(defaults.begin(), defaults.end(), g.id) != defaults.end() || g.id == own;
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(QString::fromStdString(g.source));
    }
    m_gpus->setToolTip(tr("GPU types to compare (check or uncheck)."));

    m_tokens->setRange(0.001, 1000);
    m_tokens->setDecimals(3);
    m_tokens->setValue(kDefaultSizingTokens / 1e12);
    m_tokens->setSingleStep(0.5);
    m_tokens->setSuffix(tr(" T tokens"));
    m_tokens->setToolTip(tr("Training token budget, in trillions of tokens (Llama 3 used about 15 T)."));
    m_price->setRange(0, 1000);
    m_price->setDecimals(2);
    m_price->setPrefix(QStringLiteral("$"));
    m_price->setSuffix(tr(" / GPU-hour"));
    m_price->setSpecialValueText(tr("catalog price"));
    m_price->setToolTip(
        tr("Hourly price per GPU for every type; \"catalog price\" uses each GPU's own (indicative) price."));
    m_metric->addItem(tr("Minimum GPUs"), int(SizingChart::Metric::MinGpus));
    m_metric->addItem(tr("Train time (days)"), int(SizingChart::Metric::TrainDays));
    m_metric->addItem(tr("Cost (USD)"), int(SizingChart::Metric::Cost));
    m_note->setWordWrap(true);

    auto* side = new QWidget(this);
    auto* form = new QFormLayout;
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Tokens"), m_tokens);
    form->addRow(tr("Price"), m_price);
    form->addRow(tr("Chart"), m_metric);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(new QLabel(tr("GPU types"), side));
    sideLayout->addWidget(m_gpus, 1);
    sideLayout->addLayout(form);
    sideLayout->addWidget(m_note);
    side->setMaximumWidth(300);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SizingTableModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder); // GPU order as checked, strategies in order
    m_proxy->sort(-1);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(side);
    layout->addWidget(split, 1);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(200);
    connect(m_debounce, &QTimer::timeout, this, &SizingPane::refresh);
    connect(m_gpus, &QListWidget::itemChanged, this, &SizingPane::schedule);
    connect(m_tokens, &QDoubleSpinBox::valueChanged, this, &SizingPane::schedule);
    connect(m_price, &QDoubleSpinBox::valueChanged, this, &SizingPane::schedule);
    connect(m_metric, &QComboBox::currentIndexChanged, this,
        [this] { m_chart->setRows(m_model->rows(), SizingChart::Metric(m_metric->currentData().toInt())); });
    connect(m_doc, &ScenarioDocument::resultReady, this, &SizingPane::schedule);
}

std::vector<std::string> SizingPane::checkedGpus() const
{
    std::vector<std::string> ids;
    for (int i = 0; i < m_gpus->count(); ++i)
        if (m_gpus->item(i)->checkState() == Qt::Checked)
            ids.push_back(m_gpus->item(i)->data(Qt::UserRole).toString().toStdString());
    return ids;
}

void SizingPane::setCheckedGpus(const std::vector<std::string>& ids)
{
    for (int i = 0; i < m_gpus->count(); ++i) {
        const std::string id = m_gpus->item(i)->data(Qt::UserRole).toString().toStdString();
        m_gpus->item(i)->setCheckState(
            std::find(ids.begin(), ids.end(), id) != ids.end() ? Qt::Checked : Qt::Unchecked);
    }
}

double SizingPane::tokens() const { return m_tokens->value() * 1e12; }

void SizingPane::schedule()
{
    m_dirty = true;
    if (isVisible())
        m_debounce->start();
}

void SizingPane::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

void SizingPane::refresh()
{
    m_debounce->stop();
    m_dirty = false;
    std::vector<const core::GpuSpec*> gpus;
    for (const std::string& id : checkedGpus())
        if (const core::GpuSpec* g = m_doc->catalog().gpu(id))
            gpus.push_back(g);
    const core::Scenario& s = m_doc->scenario();
    std::vector<core::SizingRow> rows = core::sizeCluster(s, gpus, core::sweepStrategies(), tokens(), m_price->value());
    m_model->setRows(rows);
    m_chart->setRows(rows, SizingChart::Metric(m_metric->currentData().toInt()));
    m_table->resizeColumnsToContents();
    m_note->setText(
        tr("%1 with the scenario's sequence length, batch, TP/PP/CP and precision; GPU counts are whole nodes of %2.")
            .arg(QString::fromStdString(s.model.name))
            .arg(s.cluster.gpusPerNode));
}

} // namespace shardscope::ui
