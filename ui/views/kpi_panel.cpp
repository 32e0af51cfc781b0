// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/kpi_panel.h"

#include "explain/tooltips.h"
#include "util/units.h"
#include "explain/uncertainty_text.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {
constexpr int kGap = 6;
constexpr int kPad = 8;
enum CardIndex { StepCard, TokensCard, MfuCard, MemoryCard, MinGpusCard, CostCard };

double sum(const std::vector<TermFigure>& figures)
{
    double s = 0;
    for (const TermFigure& f : figures)
        s += f.value;
    return s;
}
} // namespace

KpiPanel::KpiPanel(QWidget* parent)
    : QWidget(parent)
{
    // Not Fixed: a fixed height is the size hint's (three cards a row at its width), and where the panel is narrower
    // (beside the launch configuration at 1280 x 800: two a row) the layout cut the third row and centred the other
    // two in the height it had made for them. The height follows the width (heightForWidth); the analysis tabs below
    // take the rest.
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    const struct {
        const char* key;
        QString caption;
    } cards[] = { { "kpi.step_time", tr("Step time") }, { "kpi.tokens_per_second", tr("Tokens/s") },
        { "kpi.mfu", tr("MFU") }, { "kpi.fits", tr("Memory per GPU") }, { "kpi.min_gpus", tr("Min GPUs") },
        { "kpi.cost", tr("Cost per step") } };
    for (const auto& c : cards)
        m_cards.push_back({ QString::fromLatin1(c.key), c.caption, QStringLiteral("—"), QString(), {}, QString(), {} });
    updateFonts();
}

void KpiPanel::updateFonts()
{
    m_small = font();
    m_small.setPointSizeF(font().pointSizeF() * 0.9);
    m_big = font();
    m_big.setPointSizeF(font().pointSizeF() * 1.45);
    m_big.setBold(true);
    m_neededWidth = -1;
    for (Card& c : m_cards)
        layOut(c, true);
    updateGeometry();
}

void KpiPanel::layOut(Card& card, bool fontsChanged) const
{
    const auto lay = [fontsChanged](Line& line, const QString& text, const QFont& font) {
        if (!fontsChanged && line.laid.text() == text)
            return;
        line.laid.setText(text);
        line.laid.setTextFormat(Qt::PlainText);
        line.laid.prepare(QTransform(), font);
        line.width = int(std::ceil(line.laid.size().width()));
    };
    lay(card.lines[CaptionLine], card.caption, m_small);
    lay(card.lines[ValueLine], card.value, m_big);
    lay(card.lines[DetailLine], card.detail, m_small);
    lay(card.lines[RangeLine], card.range, m_small);
}

void KpiPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange)
        updateFonts();
    if (event->type() == QEvent::PaletteChange)
        m_frame = QPixmap(); // drawn again in the new colours
    QWidget::changeEvent(event);
}

int KpiPanel::cardHeight() const
{
    return 3 * QFontMetrics(m_small).height() + QFontMetrics(m_big).height() + 2 * kPad - 4;
}

int KpiPanel::neededCardWidth() const
{
    if (m_neededWidth >= 0)
        return m_neededWidth;
    int w = 0;
    for (const Card& c : m_cards)
        for (const Line& line : c.lines)
            w = std::max(w, line.width);
    m_neededWidth = w + kPad + kPad / 2 + 2;
    return m_neededWidth;
}

int KpiPanel::columnsFor(int width) const
{
    const int need = neededCardWidth();
    for (int columns : { 6, 3 })
        if (columns * need + (columns - 1) * kGap <= width)
            return columns;
    return 2;
}

int KpiPanel::heightForWidth(int width) const
{
    const int rows = (int(m_cards.size()) + columnsFor(width) - 1) / columnsFor(width);
    return rows * cardHeight() + (rows - 1) * kGap;
}

QSize KpiPanel::sizeHint() const { return { 6 * 150, heightForWidth(6 * 150) }; }

QSize KpiPanel::minimumSizeHint() const { return { 2 * 80 + kGap, cardHeight() }; }

QRect KpiPanel::cardRect(int index) const
{
    const int columns = columnsFor(width());
    const int w = (width() - (columns - 1) * kGap) / columns;
    const int h = cardHeight();
    return { (index % columns) * (w + kGap), (index / columns) * (h + kGap), w, h - 1 };
}

bool KpiPanel::textFits() const
{
    for (int i = 0; i < m_cards.size(); ++i) {
        const int inner = cardRect(i).width() - kPad - kPad / 2;
        const Card& c = m_cards[i];
        if (QFontMetrics(m_small).horizontalAdvance(c.caption) > inner
            || QFontMetrics(m_small).horizontalAdvance(c.detail) > inner
            || QFontMetrics(m_small).horizontalAdvance(c.range) > inner
            || QFontMetrics(m_big).horizontalAdvance(c.value) > inner || cardRect(i).bottom() >= height())
            return false;
    }
    return true;
}

void KpiPanel::relayoutIfRowsChange()
{
    const int rows = (int(m_cards.size()) + columnsFor(width()) - 1) / columnsFor(width());
    if (rows != m_rows) {
        m_rows = rows;
        updateGeometry(); // the height follows the width: ask the layout for heightForWidth again
    }
}

void KpiPanel::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    const QColor muted = pal.color(QPalette::PlaceholderText);
    if (!m_cards.isEmpty()) {
        // Every card has the first one's size: one frame, drawn with a pixel of margin on each side, since the pen
        // straddles the rectangle's edges (half a pixel outside it at any pixel ratio) and passes its bottom by one.
        const QSize card = cardRect(0).size();
        const QSize frame = card + QSize(2, 3);
        const qreal ratio = devicePixelRatioF();
        if (m_frame.deviceIndependentSize().toSize() != frame || m_frame.devicePixelRatio() != ratio) {
            m_frame = QPixmap(frame * ratio);
            m_frame.setDevicePixelRatio(ratio);
            m_frame.fill(Qt::transparent);
            QPainter f(&m_frame);
            f.setPen(pal.color(QPalette::Mid));
            f.setBrush(pal.color(QPalette::Base));
            f.drawRoundedRect(QRect(QPoint(1, 1), card).adjusted(0, 0, -1, 0), 4, 4);
        }
    }
    for (int i = 0; i < m_cards.size(); ++i) {
        const Card& c = m_cards[i];
        const QRect r = cardRect(i);
        p.drawPixmap(r.topLeft() - QPoint(1, 1), m_frame);
        const QRect inner = r.adjusted(kPad, kPad / 2, -kPad / 2, -kPad / 2);
        const int smallH = QFontMetrics(m_small).height();
        const int bigH = QFontMetrics(m_big).height();
        // The widest text of any card (rounded to whole pixels, hence the one pixel) fits: nothing to elide, and
        // eliding would lay out every text a second time in each paint.
        const bool fits = neededCardWidth() - (kPad + kPad / 2 + 2) + 1 <= inner.width();
        // A line in its row, vertically centred: its shaped glyphs, or (too narrow a card) its text elided.
        const auto draw = [&](int line, const QString& text, const QFont& font, int top, int rowHeight) {
            const QStaticText& laid = c.lines[size_t(line)].laid;
            if (fits)
                p.drawStaticText(QPointF(inner.left(), top + (rowHeight - laid.size().height()) / 2), laid);
            else
                p.drawText(QRect(inner.left(), top, inner.width(), rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetrics(font).elidedText(text, Qt::ElideRight, inner.width()));
        };
        p.setFont(m_small);
        p.setPen(muted);
        draw(CaptionLine, c.caption, m_small, inner.top(), smallH);
        draw(DetailLine, c.detail, m_small, inner.top() + smallH + bigH, smallH);
        draw(RangeLine, c.range, m_small, inner.top() + 2 * smallH + bigH, smallH);
        p.setFont(m_big);
        p.setPen(c.valueColor.isValid() ? c.valueColor : pal.color(QPalette::Text));
        draw(ValueLine, c.value, m_big, inner.top() + smallH, bigH);
    }
}

int KpiPanel::cardAt(const QPoint& pos) const
{
    for (int i = 0; i < m_cards.size(); ++i)
        if (cardRect(i).contains(pos))
            return i;
    return -1;
}

bool KpiPanel::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (const int i = cardAt(help->pos()); i >= 0) {
            QToolTip::showText(help->globalPos(), toolTipOf(i), this, cardRect(i));
            return true;
        }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void KpiPanel::mouseReleaseEvent(QMouseEvent* event)
{
    const int i = cardAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && i >= 0 && openDerivation(toolTipOf(i), window()))
        return;
    QWidget::mouseReleaseEvent(event);
}

void KpiPanel::setCard(int index, const QString& value, const QString& detail, QColor colour, const QString& range)
{
    Card& c = m_cards[index];
    m_neededWidth = -1;
    c.value = value;
    c.detail = detail;
    c.valueColor = colour;
    c.range = range;
    layOut(c, false);
}

QString KpiPanel::cardToolTip(const QString& key) const
{
    for (int i = 0; i < m_cards.size(); ++i)
        if (m_cards[i].key == key)
            return toolTipOf(i);
    return {};
}

QString KpiPanel::toolTipOf(int index) const
{
    const core::Result& r = m_result;
    const Card& c = m_cards[index];
    if (!r.valid)
        return QStringLiteral("<b>%1: %2</b><br>%3")
            .arg(c.caption.toHtmlEscaped(), c.value, tr("The scenario is invalid (see Issues)."));
    const auto term = [&](std::string_view key) -> QString {
        if (const core::Term* t = findTerm(r.terms, key))
            return termHtml(*t);
        return explainHtml(QString::fromUtf8(key.data(), qsizetype(key.size())), c.value);
    };
    switch (index) {
    case StepCard:
        return sumHtml(QStringLiteral("step_time.total"), termFigures(r, core::TermGroup::StepTime), "s", c.value,
            tr("%1 micro-batches per pipeline; the most loaded GPU.").arg(r.microBatches) + QLatin1Char(' ')
                + stepRangeSentence(r));
    case TokensCard: return term("throughput.tokens_per_second");
    case MfuCard: return term("throughput.mfu");
    case MemoryCard:
        return sumHtml(QStringLiteral("memory.total"), termFigures(r, core::TermGroup::Memory), "B",
            tr("%1 / %2 usable").arg(c.value, Units::bytes(r.usable)),
            (r.fits ? tr("Within the usable memory: total ≤ usable.") : tr("Over the usable memory: total > usable."))
                + QLatin1Char(' ') + memoryRangeSentence(r) + QStringLiteral("<br>") + term("memory.usable"));
    case MinGpusCard:
        return explainHtml(c.key, c.value,
            tr("now %1 GPUs: DP %2 × TP %3 × PP %4 × CP %5, EP %6")
                .arg(r.gpus)
                .arg(r.dp)
                .arg(r.tp)
                .arg(r.pp)
                .arg(r.cp)
                .arg(r.ep));
    case CostCard:
        // The core's term when the GPU has a price (its formula and arithmetic); the card's explanation otherwise.
        return findTerm(r.terms, "throughput.cost_per_step_usd")
            ? term("throughput.cost_per_step_usd")
            : explainHtml(c.key, c.value, tr("The catalog has no hourly price for this GPU."));
    }
    return {};
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
    m_result = r;
    update();
    if (!r.valid) {
        for (int i = 0; i < m_cards.size(); ++i)
            setCard(i, dash, tr("invalid scenario"));
        relayoutIfRowsChange();
        return;
    }
    const core::Uncertainty& u = r.uncertainty;
    setCard(StepCard, Units::seconds(sum(termFigures(r, core::TermGroup::StepTime))),
        tr("%1 micro-batches").arg(r.microBatches), {},
        rangeNote(r.step.total(), r.stepTimeRange, u, u.throughputRuns));
    setCard(TokensCard,
        Units::tokensPerSecond(termValue(r, "throughput.tokens_per_second", r.throughput.tokensPerSecond)),
        tr("%1 per GPU")
            .arg(Units::tokensPerSecond(
                termValue(r, "throughput.tokens_per_second_per_gpu", r.throughput.tokensPerSecondPerGpu))),
        {}, rangeNote(r.throughput.tokensPerSecondPerGpu, r.tokensPerGpuRange, u, u.throughputRuns));
    setCard(MfuCard, Units::percent(termValue(r, "throughput.mfu", r.throughput.mfu)),
        tr("%1 per GPU")
            .arg(Units::flopRate(
                1e12 * termValue(r, "throughput.model_tflops_per_gpu", r.throughput.modelTflopsPerGpu))));
    const double total = sum(termFigures(r, core::TermGroup::Memory));
    // Okabe-Ito bluish green / orange (amber) / vermillion, readable on light and dark backgrounds.
    const QColor verdictColour = r.verdict == core::Verdict::Fits ? QColor(0x00, 0x9E, 0x73)
        : r.verdict == core::Verdict::Borderline                  ? QColor(0xE6, 0x9F, 0x00)
                                                                  : QColor(0xD5, 0x5E, 0x00);
    setCard(MemoryCard, Units::bytes(total),
        r.fits ? tr("%1 free of %2 usable").arg(Units::bytes(r.usable - total), Units::bytes(r.usable))
               : tr("+%1 over %2 usable").arg(Units::bytes(total - r.usable), Units::bytes(r.usable)),
        verdictColour, rangeNote(total, r.memoryRange, u, u.memoryRuns));
    setCard(MinGpusCard, r.minGpus > 0 ? QLocale().toString(r.minGpus) : dash,
        r.minGpus > 0 ? tr("this strategy; now %1").arg(r.gpus) : tr("none fits"));
    const double cost = r.throughput.costPerStepUsd;
    const bool priced = cost > 0;
    setCard(CostCard, priced ? Units::dollars(cost) : dash,
        priced ? tr("at %1/GPU-hour").arg(Units::dollars(s.cluster.gpu.hourlyPriceUsd)) : tr("no price in catalog"));
    relayoutIfRowsChange();
}

} // namespace shardscope::ui
