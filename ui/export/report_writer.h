// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/chart_kind.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>
#include <shardscope/core/what_if.h>

#include <QDate>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

namespace shardscope::ui {

class ChartBase;

/// A PDF report of one scenario (A4): a title page with the status line, headline figures with their 80% ranges,
/// warnings and the settings table; a page of the memory and step-time terms (the core's labels, values, order and
/// sources); the pinned scenarios' headline figures; then each chart on its own landscape page with the scenario
/// caption (the search, sweep, sizing and rank-map charts too when Options::analysisChart makes them); then the table
/// of collectives. A table that does not fit in what is left of a page but fits on a page of its own starts on a new
/// page (with its heading), so no page holds a table's first few rows alone.
class ReportWriter
{
public:
    struct Options {
        bool lightTheme = true;
        QDate date = QDate::currentDate();
        QList<ChartKind> charts { kCliChartKinds.begin(), kCliChartKinds.end() };
        /// Makes the analysis charts (not isScenarioChart()): the window's panes, or makeAnalysisChart(); without it
        /// they are left out.
        std::function<std::unique_ptr<ChartBase>(ChartKind)> analysisChart;
        /// The pinned scenarios, their results and labels (ScenarioDocument::pinLabel), for their table.
        std::vector<core::Scenario> pins;
        std::vector<core::Result> pinResults;
        QStringList pinLabels;
    };

    /// Writes the report atomically (util/atomic_file.h): the old file stays on any failure. Returns "" on success,
    /// otherwise the reason.
    /// shown is the scenario's core::whatIf().
    [[nodiscard]] QString write(const QString& path, const core::WhatIf& shown, const Options& options);
    [[nodiscard]] QString write(const QString& path, const core::WhatIf& shown)
    {
        return write(path, shown, Options {});
    }
    /// Pages of the last report written.
    [[nodiscard]] int pageCount() const { return m_pages; }

private:
    int m_pages = 0;
};

} // namespace shardscope::ui
