// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QLabel>

namespace shardscope::ui {

/// One sentence on what limits the layout (explain/status_summary.h), with a coloured marker.
class StatusLine : public QLabel
{
    Q_OBJECT
public:
    explicit StatusLine(QWidget* parent = nullptr);
    void setResult(const core::Scenario& scenario, const core::Result& result);

private:
    int m_level = -1;
};

} // namespace shardscope::ui
