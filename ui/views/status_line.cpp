// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/status_line.h"

#include "explain/status_summary.h"

namespace shardscope::ui {

StatusLine::StatusLine(QWidget* parent)
    : QLabel(parent)
{
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setMinimumHeight(fontMetrics().height() * 2 + 8);
    setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    setToolTip(tr("What limits this layout, in words. Suggestions are checked by evaluating the changed scenario."));
}

void StatusLine::setResult(const core::Scenario& scenario, const core::Result& result)
{
    const StatusSummary summary = summarize(scenario, result);
    setText(summary.text);
    const int level = int(summary.level);
    if (level == m_level)
        return;
    m_level = level;
    // Okabe-Ito: bluish green good, orange warning, vermillion bad, reddish purple invalid.
    static const char* colours[] = {"#009E73", "#E69F00", "#D55E00", "#CC79A7"};
    setStyleSheet(QStringLiteral("QLabel { border-left: 6px solid %1; padding: 2px 6px; }").arg(QLatin1String(colours[level])));
}

} // namespace shardscope::ui
