// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "charts/chart_base.h"

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

class QCPAxisRect;
class QCPAxisTickerText;
class QCPBars;

namespace shardscope::ui {

/// Communication per GPU per step, one row per group and collective: bytes sent (left) and time (right),
/// split into the part hidden behind compute and the exposed part.
class CommChart : public ChartBase
{
    Q_OBJECT
public:
    explicit CommChart(QWidget* parent = nullptr);
    void setResult(const core::Scenario& scenario, const core::Result& result);
    [[nodiscard]] int rowCount() const { return int(m_result.valid ? m_result.collectives.size() : 0); }
    [[nodiscard]] QCPBars* bytesBars() const { return m_bytes; }
    /// Bytes per unit of the bytes axis: the display unit (GiB or GB), or TiB/TB from 1000 of them.
    [[nodiscard]] double bytesScale() const { return m_bytesScale; }

protected:
    QString plottableToolTip(QCPAbstractPlottable* plottable, int index) const override;

private:
    QCPAxisRect* m_bytesRect;
    QCPAxisRect* m_timeRect;
    QCPBars* m_bytes;
    QCPBars* m_hidden;
    QCPBars* m_exposed;
    QSharedPointer<QCPAxisTickerText> m_ticker;
    double m_timeScale = 1;
    double m_bytesScale = 1;
    core::Scenario m_scenario;
    core::Result m_result;
};

} // namespace shardscope::ui
