// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/search_table_model.h"

#include "analysis/layout_text.h"
#include "util/units.h"
#include "util/sharding_names.h"

#include <QFont>
#include <QStringList>

namespace shardscope::ui {

SearchTableModel::SearchTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SearchTableModel::setPoints(
    std::vector<core::SearchPoint> points, const std::vector<size_t>& pareto, const core::SearchOptions& options)
{
    beginResetModel();
    m_options = options;
    m_points = std::move(points);
    m_pareto.assign(m_points.size(), 0);
    for (size_t i : pareto)
        if (i < m_pareto.size())
            m_pareto[i] = 1;
    endResetModel();
}

void SearchTableModel::clear() { setPoints({}, {}); }

void SearchTableModel::unitsChanged()
{
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, kColumns - 1), { Qt::DisplayRole, Qt::ToolTipRole });
    emit headerDataChanged(Qt::Horizontal, 0, kColumns - 1);
}

int SearchTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_points.size()); }

int SearchTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant SearchTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Rank: return tr("Rank");
        case Gpus: return tr("GPUs");
        case Strategy: return tr("Strategy");
        case Tp: return tr("TP");
        case Pp: return tr("PP");
        case Cp: return tr("CP");
        case Ep: return tr("EP");
        case Schedule: return tr("Schedule");
        case MicroBatch: return tr("Micro-batch");
        case Recompute: return tr("Recompute");
        case Offload: return tr("Offload");
        case StepTime: return withBasis(tr("Step time"), rankedTimeBasis(m_options));
        case TokensPerSecond: return withBasis(tr("Tokens/s"), rankedTimeBasis(m_options));
        case Mfu: return withBasis(tr("MFU"), rankedTimeBasis(m_options));
        case Memory: return withBasis(tr("Memory/GPU"), rankedMemoryBasis(m_options));
        case CostPerMillion: return withBasis(tr("$/M tokens"), rankedTimeBasis(m_options));
        }
    }
    if (role == Qt::ToolTipRole) {
        // What the figure columns hold: the figures the search screened and ranked on.
        QStringList basis;
        if (m_options.pessimistic)
            basis << tr("the slow end of the 80% range (\"guaranteed to fit\")");
        if (m_options.overlapEfficiency < 1)
            basis << tr("with %1 of the communication the model counts hidden charged back to the step (overlap η %2)")
                         .arg(Units::percent(1 - m_options.overlapEfficiency, 0),
                             Units::percent(m_options.overlapEfficiency, 0));
        const QString timeBasis
            = basis.isEmpty() ? tr("The model's point estimate.") : tr("Ranked on %1.").arg(basis.join(tr(", ")));
        switch (section) {
        case Rank: return tr("Order by the search objective; ★ marks layouts on the step-time/memory Pareto front.");
        case Schedule: return tr("Pipeline schedule and virtual stages (only with PP > 1).");
        case MicroBatch: return tr("Sequences per micro-batch per data-parallel rank.");
        case StepTime: return tr("Seconds per optimizer step. %1").arg(timeBasis);
        case TokensPerSecond: return tr("Tokens per second over all GPUs. %1").arg(timeBasis);
        case Memory:
            return m_options.pessimistic
                ? tr("Memory of the most loaded GPU: the top of its 80% range, which must fit in the usable memory.")
                : tr("Memory of the most loaded GPU (the model's point estimate).");
        case Mfu:
            return tr("Model FLOPs utilisation: model FLOPs per second over the GPUs' dense peak. %1").arg(timeBasis);
        case CostPerMillion:
            return tr("GPU rental cost per million tokens, from the catalog's hourly price (— when unknown). %1")
                .arg(timeBasis);
        default: break;
        }
    }
    return {};
}

QVariant SearchTableModel::display(int row, int column) const
{
    const core::SearchPoint& p = m_points[size_t(row)];
    const core::LayoutChoice& l = p.layout;
    switch (column) {
    case Rank: return m_pareto[size_t(row)] ? QStringLiteral("%1 ★").arg(row + 1) : QString::number(row + 1);
    case Gpus: return l.gpus;
    case Strategy: return shardingShort(l.sharding);
    case Tp: return l.tp;
    case Pp: return l.pp;
    case Cp: return l.cp > 1 ? QStringLiteral("%1 %2").arg(l.cp).arg(cpCommTypeShort(l.cpCommType)) : QVariant(l.cp);
    case Ep: return l.ep;
    case Schedule: return scheduleText(l.schedule, l.virtualStages, l.pp);
    case MicroBatch: return l.microBatch;
    case Recompute: return recomputeText(l.recompute);
    case Offload:
        return l.activationLayers > 0 ? tr("act. %1 layers → CPU").arg(l.activationLayers)
                                      : offloadShort(l.offloadOptimizer, l.offloadParameters);
    case StepTime: return Units::seconds(p.stepTime);
    case TokensPerSecond: return Units::tokensPerSecond(p.tokensPerSecond);
    case Mfu: return Units::percent(m_points[size_t(row)].mfu);
    case Memory: return Units::bytes(p.memory);
    case CostPerMillion: return p.costPerToken > 0 ? Units::dollars(p.costPerToken * 1e6) : QStringLiteral("—");
    }
    return {};
}

QVariant SearchTableModel::sortValue(int row, int column) const { return sortKey(row, column); }

double SearchTableModel::sortKey(int row, int column) const
{
    const core::SearchPoint& p = m_points[size_t(row)];
    const core::LayoutChoice& l = p.layout;
    switch (column) {
    case Rank: return row;
    case Gpus: return l.gpus;
    case Strategy: return int(l.sharding);
    case Tp: return l.tp;
    case Pp: return l.pp;
    case Cp: return l.cp * 4 + int(l.cpCommType);
    case Ep: return l.ep;
    case Schedule: return int(l.schedule) * 16 + l.virtualStages;
    case MicroBatch: return l.microBatch;
    case Recompute: return int(l.recompute);
    case Offload: return int(l.offloadOptimizer) * 4 + int(l.offloadParameters) + 16 * l.activationLayers;
    case StepTime: return p.stepTime;
    case TokensPerSecond: return p.tokensPerSecond;
    case Mfu: return m_points[size_t(row)].mfu;
    case Memory: return p.memory;
    case CostPerMillion: return p.costPerToken;
    }
    return 0;
}

bool SearchSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const auto* m = static_cast<const SearchTableModel*>(sourceModel());
    const double a = m->sortKey(left.row(), left.column());
    const double b = m->sortKey(right.row(), right.column());
    return a != b ? a < b : left.row() < right.row(); // ties keep the search's order
}

QVariant SearchTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_points.size()))
        return {};
    const int row = index.row();
    switch (role) {
    case Qt::DisplayRole: return display(row, index.column());
    case SortRole: return sortValue(row, index.column());
    case Qt::TextAlignmentRole: {
        const int c = index.column();
        const bool text = c == Strategy || c == Schedule || c == Recompute || c == Offload;
        return int((text ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    }
    case Qt::ToolTipRole: return layoutSummary(m_points[size_t(row)].layout);
    case Qt::FontRole:
        if (m_pareto[size_t(row)] && index.column() == Rank) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    }
    return {};
}

} // namespace shardscope::ui
