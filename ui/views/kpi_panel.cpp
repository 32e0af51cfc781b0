// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/kpi_panel.h"

#include "explain/tooltips.h"
#include "util/units.h"

#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

namespace shardscope::ui {

namespace {
constexpr int kGap = 6;
constexpr int kPad = 8;
} // namespace

KpiPanel::KpiPanel(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    const struct {
        const char* key;
        QString caption;
    } cards[] = {{"kpi.step_time", tr("Step time")},       {"kpi.tokens_per_second", tr("Tokens/s")},
                 {"kpi.mfu", tr("MFU")},                   {"kpi.fits", tr("Memory per GPU")},
                 {"kpi.min_gpus", tr("Min GPUs")},         {"kpi.cost", tr("Cost per step")}};
    for (const auto& c : cards)
        m_cards.push_back({QString::fromLatin1(c.key), c.caption, QStringLiteral("—"), QString(), explainHtml(QString::fromLatin1(c.key)), {}});
    updateFonts();
}

void KpiPanel::updateFonts()
{
    m_small = font();
    m_small.setPointSizeF(font().pointSizeF() * 0.9);
    m_big = font();
    m_big.setPointSizeF(font().pointSizeF() * 1.45);
    m_big.setBold(true);
    updateGeometry();
}

void KpiPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        updateFonts();
    QWidget::changeEvent(event);
}

QSize KpiPanel::sizeHint() const
{
    const int h = 2 * QFontMetrics(m_small).height() + QFontMetrics(m_big).height() + 2 * kPad - 4;
    return {6 * 150, h};
}

QSize KpiPanel::minimumSizeHint() const { return {6 * 80, sizeHint().height()}; }

QRect KpiPanel::cardRect(int index) const
{
    const int n = int(m_cards.size());
    const int w = (width() - (n - 1) * kGap) / n;
    return {index * (w + kGap), 0, w, height() - 1};
}

void KpiPanel::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor muted = pal.color(QPalette::PlaceholderText);
    for (int i = 0; i < m_cards.size(); ++i) {
        const Card& c = m_cards[i];
        const QRect r = cardRect(i);
        p.setPen(pal.color(QPalette::Mid));
        p.setBrush(pal.color(QPalette::Base));
        p.drawRoundedRect(r.adjusted(0, 0, -1, 0), 4, 4);
        const QRect inner = r.adjusted(kPad, kPad / 2, -kPad / 2, -kPad / 2);
        const int smallH = QFontMetrics(m_small).height();
        const int bigH = QFontMetrics(m_big).height();
        p.setFont(m_small);
        p.setPen(muted);
        p.drawText(QRect(inner.left(), inner.top(), inner.width(), smallH), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(m_small).elidedText(c.caption, Qt::ElideRight, inner.width()));
        p.drawText(QRect(inner.left(), inner.top() + smallH + bigH, inner.width(), smallH), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(m_small).elidedText(c.detail, Qt::ElideRight, inner.width()));
        p.setFont(m_big);
        p.setPen(c.valueColor.isValid() ? c.valueColor : pal.color(QPalette::Text));
        p.drawText(QRect(inner.left(), inner.top() + smallH, inner.width(), bigH), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(m_big).elidedText(c.value, Qt::ElideRight, inner.width()));
    }
}

bool KpiPanel::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        for (int i = 0; i < m_cards.size(); ++i)
            if (cardRect(i).contains(help->pos())) {
                QToolTip::showText(help->globalPos(), m_cards[i].toolTip, this, cardRect(i));
                return true;
            }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void KpiPanel::setCard(int index, const QString& value, const QString& detail, const QString& toolTip, QColor colour)
{
    Card& c = m_cards[index];
    c.value = value;
    c.detail = detail;
    c.toolTip = toolTip;
    c.valueColor = colour;
}

QString KpiPanel::valueText(const QString& key) const
{
    for (const Card& c : m_cards)
        if (c.key == key)
            return c.value;
    return {};
}

void KpiPanel::setResult(const core::Scenario& s, const core::Result& r)
{
    const QString dash = QStringLiteral("—");
    update();
    if (!r.valid) {
        for (int i = 0; i < m_cards.size(); ++i)
            setCard(i, dash, tr("invalid scenario"), explainHtml(m_cards[i].key, dash));
        return;
    }
    const double step = r.step.total();
    setCard(0, Units::seconds(step),
            tr("%1 micro-batches").arg(r.microBatches),
            explainHtml(QStringLiteral("kpi.step_time"), Units::seconds(step), timeValues(QStringLiteral("kpi.step_time"), s, r)));
    setCard(1, Units::count(r.throughput.tokensPerSecond, 1),
            tr("%1 per GPU").arg(Units::count(r.throughput.tokensPerSecondPerGpu, 1)),
            explainHtml(QStringLiteral("kpi.tokens_per_second"), Units::count(r.throughput.tokensPerSecond),
                        timeValues(QStringLiteral("kpi.tokens_per_second"), s, r)));
    setCard(2, Units::percent(r.throughput.mfu),
            tr("%1 TFLOP/s per GPU").arg(QLocale().toString(r.throughput.modelTflopsPerGpu, 'f', 0)),
            explainHtml(QStringLiteral("kpi.mfu"), Units::percent(r.throughput.mfu), timeValues(QStringLiteral("kpi.mfu"), s, r)));
    const double total = r.memory.total();
    const QString mem = QStringLiteral("%1 / %2").arg(Units::bytes(total), Units::bytes(r.capacity, 0));
    // Okabe-Ito bluish green / vermillion, readable on light and dark backgrounds.
    setCard(3, Units::bytes(total),
            r.fits ? tr("%1 free of %2").arg(Units::bytes(r.capacity - total), Units::bytes(r.capacity, 0))
                   : tr("+%1 over %2").arg(Units::bytes(total - r.capacity), Units::bytes(r.capacity, 0)),
            explainHtml(QStringLiteral("kpi.fits"), r.fits ? tr("yes") : tr("no"), mem),
            r.fits ? QColor(0x00, 0x9E, 0x73) : QColor(0xD5, 0x5E, 0x00));
    setCard(4, r.minGpus > 0 ? QLocale().toString(r.minGpus) : dash,
            r.minGpus > 0 ? tr("this strategy; now %1").arg(r.gpus) : tr("none fits"),
            explainHtml(QStringLiteral("kpi.min_gpus"), r.minGpus > 0 ? QString::number(r.minGpus) : dash,
                        timeValues(QStringLiteral("kpi.min_gpus"), s, r)));
    const double cost = r.throughput.costPerStepUsd;
    const bool priced = cost > 0;
    setCard(5, priced ? QStringLiteral("$%1").arg(QLocale().toString(cost, 'f', cost < 10 ? 3 : 2)) : dash,
            priced ? tr("at $%1/GPU-hour").arg(s.cluster.gpu.hourlyPriceUsd, 0, 'f', 2) : tr("no price in catalog"),
            explainHtml(QStringLiteral("kpi.cost"), priced ? QStringLiteral("$%1").arg(cost, 0, 'f', 3) : dash,
                        timeValues(QStringLiteral("kpi.cost"), s, r)));
}

} // namespace shardscope::ui
