// SPDX-License-Identifier: GPL-3.0-or-later
#include "analysis/sweep_pane.h"

#include "analysis/sweep_chart.h"
#include "charts/legend_strip.h"
#include "document/scenario_document.h"
#include "util/message.h"

#include <shardscope/core/evaluate.h>

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

namespace shardscope::ui {

SweepPane::SweepPane(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_axis(new QComboBox(this))
    , m_axisNote(plainLabel(this))
    , m_legend(new LegendStrip(3, this))
    , m_note(plainLabel(this))
    , m_debounce(new QTimer(this))
{
    for (const core::SweepAxis axis :
        { core::SweepAxis::ModelSize, core::SweepAxis::Gpus, core::SweepAxis::Nodes, core::SweepAxis::Tp,
            core::SweepAxis::Pp, core::SweepAxis::MicroBatch, core::SweepAxis::SeqLen, core::SweepAxis::GlobalBatch })
        m_axis->addItem(sweepAxisName(axis), int(axis));
    m_axis->setCurrentIndex(1);
    m_axis->setToolTip(tr("The scenario value varied along the x axis; everything else stays as in the scenario."));
    m_axisNote->setWordWrap(true); // a long model family must not widen the window

    auto* top = new QHBoxLayout;
    top->setSpacing(6);
    top->addWidget(new QLabel(tr("Sweep"), this));
    top->addWidget(m_axis);
    top->addWidget(m_axisNote, 1);

    m_legend->setEntries(SweepChart::legendEntries());

    auto* grid = new QGridLayout;
    grid->setSpacing(2);
    const SweepChart::Metric metrics[] = { SweepChart::Metric::Memory, SweepChart::Metric::StepTime,
        SweepChart::Metric::Mfu, SweepChart::Metric::Communication };
    for (int i = 0; i < kCharts; ++i) {
        m_charts[size_t(i)] = new SweepChart(metrics[i], this);
        grid->addWidget(m_charts[size_t(i)], i / 2, i % 2);
    }
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(3);
    layout->addLayout(top);
    layout->addWidget(m_legend, 0, Qt::AlignHCenter);
    layout->addLayout(grid, 1);
    layout->addWidget(m_note);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &SweepPane::refresh);
    connect(m_axis, &QComboBox::currentIndexChanged, this, &SweepPane::refresh);
    connect(m_doc, &ScenarioDocument::resultReady, this, &SweepPane::documentChanged);
}

core::SweepAxis SweepPane::axis() const { return core::SweepAxis(m_axis->currentData().toInt()); }

void SweepPane::setAxis(core::SweepAxis axis)
{
    const int i = m_axis->findData(int(axis));
    if (i >= 0)
        m_axis->setCurrentIndex(i);
}

void SweepPane::documentChanged()
{
    m_dirty = true;
    if (isVisible())
        m_debounce->start();
}

void SweepPane::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty)
        refresh();
}

double SweepPane::currentX() const
{
    const core::Scenario& s = m_doc->scenario();
    switch (axis()) {
    case core::SweepAxis::ModelSize:
        return m_doc->result().valid ? m_doc->result().parameters : core::modelSize(s.model).total;
    case core::SweepAxis::Gpus: return s.cluster.gpus();
    case core::SweepAxis::Nodes: return s.cluster.nodes;
    case core::SweepAxis::Tp: return s.parallelism.tp;
    case core::SweepAxis::Pp: return s.parallelism.pp;
    case core::SweepAxis::MicroBatch: return double(s.training.microBatch);
    case core::SweepAxis::SeqLen: return double(s.training.seqLen);
    case core::SweepAxis::GlobalBatch: return double(s.training.globalBatch);
    }
    return 0;
}

void SweepPane::refresh()
{
    m_debounce->stop();
    m_dirty = false;
    const core::Scenario& s = m_doc->scenario();
    const core::SweepAxis a = axis();
    m_values = core::defaultSweepValues(s, a);
    QString note;
    if (a == core::SweepAxis::ModelSize) {
        const auto family = core::modelFamily(m_doc->catalog(), s.model.id);
        m_values.clear();
        for (size_t i = 0; i < family.size(); ++i)
            m_values.push_back(double(i));
        QStringList names;
        for (const auto* m : family)
            names << QString::fromStdString(m->name);
        note = family.empty() ? tr("The model is not a catalog preset, so it has no family to sweep.")
                              : tr("Family: %1").arg(names.join(QStringLiteral(", ")));
    } else {
        note = tr("Powers of two around the scenario; log scale.");
    }
    m_axisNote->setText(note);
    m_curves = core::sweep(s, a, m_values, core::sweepStrategies(), m_doc->catalog());
    const double x = currentX();
    for (SweepChart* c : m_charts)
        c->setCurves(m_curves, a, x, core::usableMemory(s));

    // What the gaps are: the first reason each impossible value gives.
    QStringList reasons;
    int impossible = 0;
    if (!m_curves.empty())
        for (const auto& p : m_curves.front().points)
            if (!p.valid) {
                ++impossible;
                if (reasons.size() < 3)
                    reasons << QStringLiteral("%1: %2").arg(
                        SweepChart::axisValueLabel(a, p.x > 0 ? p.x : 0), QString::fromStdString(p.issue));
            }
    QString text = tr("Solid lines and filled markers fit in GPU memory; dashed lines and hollow markers do not. "
                      "The dotted line is the open scenario.");
    if (impossible > 0)
        text += QLatin1Char(' ')
            + tr("%n value(s) not possible, left out: %1", nullptr, impossible).arg(reasons.join(QStringLiteral("; ")));
    m_note->setText(text);
}

} // namespace shardscope::ui
