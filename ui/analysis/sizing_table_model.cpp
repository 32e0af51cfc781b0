// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/sizing_table_model.h"

#include "util/units.h"

#include <limits>

namespace shardscope::ui {

SizingTableModel::SizingTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void SizingTableModel::setRows(std::vector<core::SizingRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int SizingTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }
int SizingTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant SizingTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Gpu: return tr("GPU");
        case Strategy: return tr("Strategy");
        case MinGpus: return tr("Min GPUs");
        case Memory: return tr("Memory/GPU");
        case StepTime: return tr("Step time");
        case TokensPerSecond: return tr("Tokens/s");
        case Mfu: return tr("MFU");
        case TrainDays: return tr("Train time");
        case Cost: return tr("Cost");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case MinGpus:
            return tr("Fewest GPUs (whole nodes) on which this strategy fits, with the scenario's other settings.");
        case TrainDays: return tr("Token budget ÷ tokens/s on the minimum GPU count.");
        case Cost: return tr("GPUs × hours × hourly price (catalog price unless overridden).");
        }
    }
    return {};
}

QVariant SizingTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const core::SizingRow& r = m_rows[size_t(index.row())];
    const bool fits = r.minGpus > 0;
    constexpr double kLast = std::numeric_limits<double>::max();
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Gpu: return QString::fromStdString(r.gpuName);
        case Strategy: return QString::fromStdString(r.strategy);
        case MinGpus: return fits ? QVariant(r.minGpus) : QVariant(tr("does not fit"));
        case Memory: return fits ? Units::bytes(r.memory) : QString();
        case StepTime: return fits ? Units::seconds(r.stepTime) : QString();
        case TokensPerSecond: return fits ? Units::tokensPerSecond(r.tokensPerSecond) : QString();
        case Mfu: return fits ? Units::percent(r.mfu) : QString();
        case TrainDays: return fits ? Units::days(r.trainSeconds) : QString();
        case Cost:
            if (!fits)
                return QString();
            return r.trainCostUsd > 0 ? Units::dollars(r.trainCostUsd) : QStringLiteral("—");
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Gpu: return QString::fromStdString(r.gpuName);
        case Strategy: return index.row(); // strategies in their usual order
        case MinGpus: return fits ? double(r.minGpus) : kLast;
        case Memory: return fits ? r.memory : kLast;
        case StepTime: return fits ? r.stepTime : kLast;
        case TokensPerSecond: return fits ? r.tokensPerSecond : -1.0;
        case Mfu: return fits ? r.mfu : -1.0;
        case TrainDays: return fits ? r.trainSeconds : kLast;
        case Cost: return fits && r.trainCostUsd > 0 ? r.trainCostUsd : kLast;
        }
    }
    if (role == Qt::TextAlignmentRole)
        return int((index.column() <= Strategy ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && !fits)
        return tr("%1 does not fit on %2 with any GPU count the search tries.")
            .arg(QString::fromStdString(r.strategy), QString::fromStdString(r.gpuName));
    return {};
}

} // namespace shardscope::ui
