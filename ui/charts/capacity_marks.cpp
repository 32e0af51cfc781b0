// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/capacity_marks.h"

#include "charts/axis_ticks.h"
#include "charts/qcp.h"
#include "util/units.h"

#include <QFontMetricsF>
#include <QLocale>

#include <algorithm>
#include <limits>
#include <vector>

namespace shardscope::ui {

CapacityMarks::CapacityMarks(QCustomPlot* plot, QCPAxisRect* rect)
    : m_plot(plot)
    , m_rect(rect)
    , m_line(new QCPItemStraightLine(plot))
    , m_ticker(new FitTextTicker)
{
    m_line->setClipAxisRect(rect);
    m_line->point1->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    m_line->point2->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    QCPAxis* right = rect->axis(QCPAxis::atRight);
    right->setVisible(true);
    right->setTicker(m_ticker);
    right->setTickLength(0, 5);
    right->setSubTicks(false);
    // Where a label fits depends on the plot's height in pixels, known once the layout is done (also after a resize).
    m_fit = QObject::connect(plot, &QCustomPlot::afterLayout, plot, [this] { fitLabels(); });
}

CapacityMarks::~CapacityMarks() { QObject::disconnect(m_fit); }

void CapacityMarks::setTheme(const ChartTheme& theme)
{
    m_line->setPen(QPen(theme.foreground, 2, Qt::DashLine));
    QColor bg = theme.background;
    bg.setAlpha(210);
    m_labelBackground = bg;
    QFont f = m_plot->font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    QFont bold = f;
    bold.setBold(true);
    m_rect->axis(QCPAxis::atRight)->setTickLabelFont(bold);
    m_rect->axis(QCPAxis::atRight)->setTickPen(QPen(theme.foreground, 2));
    for (QCPItemText* t : std::as_const(m_texts)) {
        t->setFont(bold);
        t->setBrush(bg);
    }
}

void CapacityMarks::grow(int n)
{
    while (m_boxes.size() < n) {
        auto* box = new QCPItemRect(m_plot);
        box->setClipAxisRect(m_rect);
        for (QCPItemPosition* p : { box->topLeft, box->bottomRight })
            p->setAxes(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
        box->setPen(QPen(okabe_ito::vermillion, 2));
        box->setBrush(QBrush(okabe_ito::vermillion, Qt::BDiagPattern));
        auto* text = new QCPItemText(m_plot);
        text->setClipAxisRect(m_rect);
        text->position->setAxes(m_rect->axis(QCPAxis::atBottom), m_rect->axis(QCPAxis::atLeft));
        text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        text->setColor(okabe_ito::vermillion);
        text->setPadding(QMargins(2, 0, 2, 1));
        QFont f = m_plot->font();
        f.setPointSizeF(f.pointSizeF() * 0.9);
        f.setBold(true);
        text->setFont(f);
        text->setBrush(m_labelBackground);
        m_boxes << box;
        m_texts << text;
        m_boxKey << -1;
        m_labelAt << LabelAt {};
    }
}

void CapacityMarks::set(double capacity, const QString& label, const QVector<double>& keys,
    const QVector<double>& totals, double barWidth, double yMax, const QVector<double>& labelTops)
{
    m_line->point1->setCoords(0, capacity);
    m_line->point2->setCoords(1, capacity);
    m_line->setVisible(capacity > 0);
    QCPAxis* right = m_rect->axis(QCPAxis::atRight);
    right->setRange(m_rect->axis(QCPAxis::atLeft)->range());
    m_ticker->clear();
    if (capacity > 0)
        m_ticker->addTick(capacity, label);
    int used = 0;
    for (qsizetype i = 0; i < keys.size(); ++i) {
        const double total = totals[i];
        const bool over = capacity > 0 && total > capacity * (1 + 1e-9);
        const bool clipped = total > yMax;
        if (!over && !clipped)
            continue;
        grow(used + 1);
        QCPItemRect* box = m_boxes[used];
        QCPItemText* text = m_texts[used];
        const double top = std::min(total, yMax);
        box->setVisible(over);
        box->topLeft->setCoords(keys[i] - barWidth / 2, top);
        box->bottomRight->setCoords(keys[i] + barWidth / 2, capacity);
        text->setVisible(true);
        const double shown = over && !clipped ? total - capacity : total; // display units
        m_labelAt[used] = { keys[i], top, i < labelTops.size() ? std::max(top, std::min(labelTops[i], yMax)) : top,
            clipped, clipped ? total : total - capacity };
        const QString number = m_compact ? QLocale().toString(shown, 'f', shown < 10 ? 1 : 0)
                                         : Units::bytes(shown * Units::bytesPerUnit(), 1);
        text->setText(clipped ? QStringLiteral("↑%1").arg(number) : QStringLiteral("+%1").arg(number));
        m_boxKey[used] = int(i);
        ++used;
    }
    m_used = used;
    fitLabels();
    m_visibleExcess = 0;
    for (int i = 0; i < m_boxes.size(); ++i) {
        if (i >= used) {
            m_boxes[i]->setVisible(false);
            m_texts[i]->setVisible(false);
            m_boxKey[i] = -1;
        } else if (m_boxes[i]->visible()) {
            ++m_visibleExcess;
        }
    }
}

bool CapacityMarks::isCapacityItem(const QCPAbstractItem* item) const { return item == m_line; }

void CapacityMarks::fitLabels()
{
    // A label sits on top of its bar (above its whisker); where the plot has no room above, or the bar runs off the
    // top, it goes inside the bar's top, so that it is never cut by the plot's edge. Where bars stand too close for
    // every label (16 pipeline stages in a narrow chart), the largest excesses keep theirs and a label that would
    // run into one already placed is left out (the bar's tooltip still has it). A label wider than its bar on the
    // first or last bar is moved in from the plot's edge, not cut by it and drawn over the axis (the first stage's
    // "+63.2 GiB" of a pinned PP 4 scenario in the compare window's narrow charts showed as "3.2 GiB").
    const QCPAxis* x = m_rect->axis(QCPAxis::atBottom);
    const QCPAxis* y = m_rect->axis(QCPAxis::atLeft);
    std::vector<int> order(static_cast<size_t>(m_used));
    std::vector<QRectF> placed;
    for (int i = 0; i < m_used; ++i)
        order[size_t(i)] = i;
    std::stable_sort(
        order.begin(), order.end(), [this](int a, int b) { return m_labelAt[a].excess > m_labelAt[b].excess; });
    for (const int i : order) {
        const LabelAt& at = m_labelAt[i];
        QCPItemText* text = m_texts[i];
        const QMargins pad = text->padding();
        const QFontMetricsF fm(text->font());
        const double height = fm.height() + pad.top() + pad.bottom();
        const double width = fm.horizontalAdvance(text->text()) + pad.left() + pad.right();
        const bool inside = at.clipped || y->coordToPixel(at.above) - height < m_rect->top();
        const double left = m_rect->left() + 2; // clear of the axis line, with pixel rounding
        const double right = m_rect->left() + m_rect->width() - 2;
        const double bar = x->coordToPixel(at.key);
        const double centre = right <= left ? bar // not laid out yet: afterLayout places it again
            : width >= right - left         ? (left + right) / 2
                                            : std::clamp(bar, left + width / 2, right - width / 2);
        text->setPositionAlignment(Qt::AlignHCenter | (inside ? Qt::AlignTop : Qt::AlignBottom));
        text->position->setCoords(centre == bar ? at.key : x->pixelToCoord(centre), inside ? at.top : at.above);
        const double anchor = y->coordToPixel(inside ? at.top : at.above);
        const QRectF rect(centre - width / 2, inside ? anchor : anchor - height, width, height);
        const bool apart
            = std::none_of(placed.begin(), placed.end(), [&rect](const QRectF& r) { return r.intersects(rect); });
        text->setVisible(apart);
        if (apart)
            placed.push_back(rect);
    }
}

QRectF CapacityMarks::labelRect(int index) const
{
    for (int i = 0; i < m_texts.size(); ++i)
        if (m_boxKey[i] == index && m_texts[i]->visible())
            return QRectF(m_texts[i]->topLeft->pixelPosition(), m_texts[i]->bottomRight->pixelPosition());
    return {};
}

double CapacityMarks::labelY(int index) const
{
    for (int i = 0; i < m_texts.size(); ++i)
        if (m_boxKey[i] == index && m_texts[i]->visible())
            return m_texts[i]->position->coords().y();
    return std::numeric_limits<double>::quiet_NaN();
}

int CapacityMarks::excessIndexOf(const QCPAbstractItem* item) const
{
    for (int i = 0; i < m_boxes.size(); ++i)
        if ((item == m_boxes[i] || item == m_texts[i]) && m_boxes[i]->visible())
            return m_boxKey[i];
    for (int i = 0; i < m_texts.size(); ++i)
        if (item == m_texts[i] && m_texts[i]->visible())
            return m_boxKey[i];
    return -1;
}

} // namespace shardscope::ui
