// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/search.h>

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <vector>

namespace shardscope::ui {

/// The feasible layouts of a search, best first (rank = row + 1). Sorting goes through a
/// QSortFilterProxyModel on SortRole, which holds plain numbers (or text for the text columns).
class SearchTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Rank,
        Gpus,
        Strategy,
        Tp,
        Pp,
        Cp,
        Ep,
        Schedule,
        MicroBatch,
        Recompute,
        Offload,
        StepTime,
        TokensPerSecond,
        Mfu,
        Memory,
        CostPerMillion,
        kColumns
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit SearchTableModel(QObject* parent = nullptr);

    /// pareto holds indices into points; options are the search's (which figures it ranked on: the headers say).
    void setPoints(std::vector<core::SearchPoint> points, const std::vector<size_t>& pareto,
        const core::SearchOptions& options = {});
    void clear();
    /// The byte unit changed: every cell and header is text again (views repaint, proxies re-read).
    void unitsChanged();
    [[nodiscard]] const core::SearchPoint& point(int row) const { return m_points[size_t(row)]; }
    [[nodiscard]] double mfu(int row) const { return m_points[size_t(row)].mfu; }
    [[nodiscard]] bool onPareto(int row) const { return m_pareto[size_t(row)] != 0; }
    [[nodiscard]] const std::vector<core::SearchPoint>& points() const { return m_points; }
    /// The number SortRole holds for (row, column), without a QVariant (the sort proxy compares these).
    [[nodiscard]] double sortKey(int row, int column) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    [[nodiscard]] QVariant display(int row, int column) const;
    [[nodiscard]] QVariant sortValue(int row, int column) const;
    std::vector<core::SearchPoint> m_points;
    std::vector<char> m_pareto;
    core::SearchOptions m_options;
};

/// Sorts a SearchTableModel on its numbers directly: a QVariant per comparison is too slow for the 200k rows
/// a mixture-of-experts search returns.
class SearchSortProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    [[nodiscard]] bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace shardscope::ui
