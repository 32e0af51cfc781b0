// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/kpi_panel.h"

#include "explain/tooltips.h"
#include "util/units.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

namespace shardscope::ui {

KpiPanel::KpiPanel(QWidget* parent)
    : QFrame(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    addCard(QStringLiteral("kpi.step_time"), tr("Step time"));
    addCard(QStringLiteral("kpi.tokens_per_second"), tr("Tokens/s"));
    addCard(QStringLiteral("kpi.mfu"), tr("MFU"));
    addCard(QStringLiteral("kpi.fits"), tr("Memory per GPU"));
    addCard(QStringLiteral("kpi.min_gpus"), tr("Min GPUs"));
    addCard(QStringLiteral("kpi.cost"), tr("Cost per step"));
}

void KpiPanel::addCard(const QString& key, const QString& caption)
{
    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setObjectName(key);
    auto* v = new QVBoxLayout(frame);
    v->setContentsMargins(8, 4, 8, 4);
    v->setSpacing(0);
    auto* title = new QLabel(caption, frame);
    QFont small = title->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    title->setFont(small);
    title->setForegroundRole(QPalette::PlaceholderText);
    auto* value = new QLabel(frame);
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.45);
    big.setBold(true);
    value->setFont(big);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* detail = new QLabel(frame);
    detail->setFont(small);
    detail->setForegroundRole(QPalette::PlaceholderText);
    v->addWidget(title);
    v->addWidget(value);
    v->addWidget(detail);
    static_cast<QHBoxLayout*>(layout())->addWidget(frame, 1);
    m_cards.push_back({key, frame, value, detail});
}

void KpiPanel::setCard(int index, const QString& value, const QString& detail, const QString& toolTip)
{
    Card& c = m_cards[index];
    c.value->setText(value);
    c.detail->setText(detail);
    c.frame->setToolTip(toolTip);
}

QString KpiPanel::valueText(const QString& key) const
{
    for (const Card& c : m_cards)
        if (c.key == key)
            return c.value->text();
    return {};
}

void KpiPanel::setResult(const core::Scenario& s, const core::Result& r)
{
    const QString dash = QStringLiteral("—");
    if (!r.valid) {
        for (int i = 0; i < m_cards.size(); ++i)
            setCard(i, dash, tr("invalid scenario"), explainHtml(m_cards[i].key, dash));
        m_cards[3].value->setStyleSheet(QString());
        m_fitState = -1;
        return;
    }
    const double step = r.step.total();
    setCard(0, Units::seconds(step), tr("%1 micro-batches × %2").arg(r.microBatches).arg(r.pp > 1 ? tr("%1 stages").arg(r.pp) : tr("1 stage")),
            explainHtml(QStringLiteral("kpi.step_time"), Units::seconds(step), timeValues(QStringLiteral("kpi.step_time"), s, r)));
    setCard(1, Units::count(r.throughput.tokensPerSecond, 1), tr("%1 per GPU").arg(Units::count(r.throughput.tokensPerSecondPerGpu, 1)),
            explainHtml(QStringLiteral("kpi.tokens_per_second"), Units::count(r.throughput.tokensPerSecond),
                        timeValues(QStringLiteral("kpi.tokens_per_second"), s, r)));
    setCard(2, Units::percent(r.throughput.mfu), tr("%1 TFLOP/s per GPU").arg(QLocale().toString(r.throughput.modelTflopsPerGpu, 'f', 0)),
            explainHtml(QStringLiteral("kpi.mfu"), Units::percent(r.throughput.mfu), timeValues(QStringLiteral("kpi.mfu"), s, r)));
    const double total = r.memory.total();
    const QString mem = QStringLiteral("%1 / %2").arg(Units::bytes(total), Units::bytes(r.capacity, 0));
    setCard(3, mem,
            r.fits ? tr("fits (%1 free)").arg(Units::bytes(r.capacity - total))
                   : tr("does not fit (+%1)").arg(Units::bytes(total - r.capacity)),
            explainHtml(QStringLiteral("kpi.fits"), r.fits ? tr("yes") : tr("no"), mem));
    if (m_fitState != int(r.fits)) {
        m_fitState = int(r.fits);
        // Okabe-Ito bluish green / vermillion, readable on light and dark backgrounds.
        m_cards[3].value->setStyleSheet(r.fits ? QStringLiteral("color:#009E73") : QStringLiteral("color:#D55E00"));
    }
    setCard(4, r.minGpus > 0 ? QLocale().toString(r.minGpus) : dash,
            r.minGpus > 0 ? tr("this strategy; using %1").arg(r.gpus) : tr("none up to the search limit"),
            explainHtml(QStringLiteral("kpi.min_gpus"), r.minGpus > 0 ? QString::number(r.minGpus) : dash,
                        timeValues(QStringLiteral("kpi.min_gpus"), s, r)));
    const bool priced = r.throughput.costPerStepUsd > 0;
    setCard(5, priced ? QStringLiteral("$%1").arg(QLocale().toString(r.throughput.costPerStepUsd, 'f', r.throughput.costPerStepUsd < 10 ? 3 : 2)) : dash,
            priced ? tr("at $%1/GPU-hour").arg(s.cluster.gpu.hourlyPriceUsd, 0, 'f', 2) : tr("no price in the catalog"),
            explainHtml(QStringLiteral("kpi.cost"), priced ? QString::number(r.throughput.costPerStepUsd, 'f', 3) : dash,
                        timeValues(QStringLiteral("kpi.cost"), s, r)));
}

} // namespace shardscope::ui
