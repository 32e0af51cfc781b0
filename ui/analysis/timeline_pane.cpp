// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/timeline_pane.h"

#include "analysis/layout_text.h"
#include "analysis/timeline_chart.h"
#include "document/scenario_document.h"
#include "util/units.h"
#include "util/message.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace shardscope::ui {

TimelinePane::TimelinePane(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_chart(new TimelineChart(this))
    , m_summary(plainLabel(this))
    , m_debounce(new QTimer(this))
{
    auto* reset = new QPushButton(tr("Whole step"), this);
    reset->setToolTip(tr("Zoom out to the whole optimizer step (or double-click the chart)."));
    auto* hint = new QLabel(tr("wheel: zoom · drag: pan · double-click: whole step"), this);
    hint->setEnabled(false); // muted
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    auto* bar = new QHBoxLayout;
    bar->setSpacing(8);
    bar->addWidget(m_summary, 1);
    bar->addWidget(hint);
    bar->addWidget(reset);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(2);
    layout->addLayout(bar);
    layout->addWidget(m_chart, 1);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(120);
    connect(m_debounce, &QTimer::timeout, this, &TimelinePane::refresh);
    connect(reset, &QPushButton::clicked, m_chart, &TimelineChart::resetZoom);
    connect(m_doc, &ScenarioDocument::resultReady, this, &TimelinePane::documentChanged);
}

void TimelinePane::documentChanged()
{
    m_dirty = true;
    if (isVisible())
        m_debounce->start();
}

void TimelinePane::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

QString TimelinePane::summary() const { return m_summary->text(); }

void TimelinePane::refresh()
{
    m_debounce->stop();
    m_dirty = false;
    const core::Scenario& s = m_doc->scenario();
    const core::Result& r = m_doc->result();
    m_chart->setResult(s, r);
    if (!r.valid) {
        m_summary->setText(tr("The scenario is invalid: fix the issues to see its timeline."));
        return;
    }
    const auto& p = s.parallelism;
    const double total = r.step.total();
    QStringList items; // a narrow pane wraps between items, never inside one ("bubble 2.38 / s")
    items << (r.pp > 1 ? tr("%1, %2 stages, %3 micro-batches per step")
                             .arg(scheduleText(p.schedule, p.virtualStages, r.pp))
                             .arg(r.pp)
                             .arg(r.microBatches)
                       : tr("No pipeline: %1 micro-batches per step (gradient accumulation)").arg(r.microBatches));
    items << tr("step %1").arg(Units::seconds(total));
    if (r.pp > 1)
        items << tr("bubble %1 (%2)")
                     .arg(Units::seconds(r.step.pipelineBubble),
                         Units::percent(total > 0 ? r.step.pipelineBubble / total : 0));
    items << tr("exposed comm. %1").arg(Units::seconds(r.step.exposedCommunication));
    const core::Timeline& t = m_chart->timeline();
    if (!t.notDrawn.empty())
        items << tr("schedule not drawn (too many blocks)");
    else if (t.microBatchesDrawn < t.microBatches)
        items << tr("showing %1 of %2 micro-batches").arg(groupedInt(t.microBatchesDrawn), groupedInt(t.microBatches));
    items << tr("%1 blocks").arg(groupedInt(m_chart->blockCount()));
    // Zero bubble: the simulated ZB-H1 schedule and the bubble formula of the step time differ a little.
    if (t.notDrawn.empty() && std::abs(m_chart->total() - total) > 1e-3 * total)
        items << tr("simulated schedule %1 (step time uses the bubble formula)").arg(Units::seconds(m_chart->total()));
    for (QString& item : items)
        item.replace(QLatin1Char(' '), QChar::Nbsp);
    const QString text = items.join(QStringLiteral(" · "));
    m_summary->setText(text);
}

} // namespace shardscope::ui
