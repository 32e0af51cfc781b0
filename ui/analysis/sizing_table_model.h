// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/sweep.h>

#include <QAbstractTableModel>

#include <vector>

namespace shardscope::ui {

/// Rows of core::sizeCluster: per GPU type and strategy, the fewest GPUs that fit and the time and cost to
/// train the token budget on them. SortRole holds numbers (rows that do not fit sort last).
class SizingTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Gpu, Strategy, MinGpus, Memory, StepTime, TokensPerSecond, Mfu, TrainDays, Cost, kColumns };
    static constexpr int SortRole = Qt::UserRole;

    explicit SizingTableModel(QObject* parent = nullptr);
    void setRows(std::vector<core::SizingRow> rows);
    [[nodiscard]] const std::vector<core::SizingRow>& rows() const { return m_rows; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<core::SizingRow> m_rows;
};

} // namespace shardscope::ui
