// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "document/strategy_comparison.h"
#include "export/chart_kind.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QDate>
#include <QList>
#include <QString>

namespace shardscope::ui {

/// A PDF report of one scenario (A4): a title page with the status line, headline figures, warnings and the
/// settings table; a page of the memory and step-time terms (the core's labels, values, order and sources); then
/// each chart on its own landscape page with the scenario caption; then the table of collectives (continued on
/// further pages when long).
class ReportWriter
{
public:
    struct Options {
        bool lightTheme = true;
        QDate date = QDate::currentDate();
        QList<ChartKind> charts{kScenarioChartKinds.begin(), kScenarioChartKinds.end()};
    };

    /// Writes the report atomically (util/atomic_file.h): the old file stays on any failure. Returns "" on success,
    /// otherwise the reason.
    [[nodiscard]] QString write(const QString& path, const core::Scenario& scenario, const core::Result& result,
                                const StrategyComparison& comparison, const Options& options);
    [[nodiscard]] QString write(const QString& path, const core::Scenario& scenario, const core::Result& result,
                                const StrategyComparison& comparison)
    {
        return write(path, scenario, result, comparison, Options{});
    }
    /// Pages of the last report written.
    [[nodiscard]] int pageCount() const { return m_pages; }

private:
    int m_pages = 0;
};

} // namespace shardscope::ui
