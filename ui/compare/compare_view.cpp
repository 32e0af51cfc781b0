// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/compare_view.h"

#include "charts/legend_strip.h"
#include "charts/memory_chart.h"
#include "charts/qcp.h"
#include "compare/compare_time_chart.h"
#include "analysis/waterfall_chart.h"
#include "document/scenario_document.h"
#include "explain/field_names.h"
#include "editors/scenario_text.h"
#include "util/units.h"
#include "util/message.h"

#include <shardscope/core/scenario_name.h>
#include <shardscope/core/waterfall.h>

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>

namespace shardscope::ui {

namespace {
QTableWidgetItem* cell(const QString& text, bool bold = false)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    if (bold) {
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
    }
    return item;
}
constexpr int kMinColumn
    = 260; // pixels: a pin's memory chart (its legend is shared, right of the columns) stays readable
constexpr int kMinTableColumn = 200; // pixels: a pin's column of the differences
// Plot heights in this window (pixels; ChartBase's 180 elsewhere): with up to three pins, the strip, the step times
// and the waterfall tab fit a 1280 x 800 screen's work area (issue 23 item 8: the window was 895 pixels at its smallest).
constexpr int kMinMemoryPlot = 130;
constexpr int kMinTimePlot = 90;

QString signedBytes(double d) { return (d > 0 ? QStringLiteral("+") : QString()) + Units::bytes(d); }
QString signedSeconds(double d) { return (d > 0 ? QStringLiteral("+") : QString()) + Units::seconds(d); }
} // namespace

CompareView::CompareView(ScenarioDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_hint(plainLabel(this))
    , m_pinButton(new QPushButton(tr("&Pin Current Scenario"), this))
    , m_clearButton(new QPushButton(tr("C&lear Pins"), this))
    , m_columnsArea(new QScrollArea(this))
    , m_columns(new QHBoxLayout)
    , m_memoryLegend(new LegendStrip(1, this))
    , m_time(new CompareTimeChart(this))
    , m_table(new QTableWidget(this))
    , m_a(new QComboBox(this))
    , m_b(new QComboBox(this))
    , m_waterfall(new WaterfallChart(this))
    , m_steps(new QTableWidget(this))
    , m_tabs(new QTabWidget(this))
{
    auto* top = new QHBoxLayout;
    top->addWidget(m_pinButton);
    top->addWidget(m_clearButton);
    top->addWidget(m_hint, 1);
    connect(m_pinButton, &QPushButton::clicked, this, &CompareView::pinCurrentRequested);
    connect(m_clearButton, &QPushButton::clicked, m_doc, &ScenarioDocument::clearPins);

    // One column per pin, side by side; more than fit scroll sideways (a chart narrower than kMinColumn is unreadable).
    m_columnsArea->setWidgetResizable(true);
    m_columnsArea->setFrameShape(QFrame::NoFrame);
    m_columnsArea->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* strip = new QWidget(m_columnsArea);
    strip->setLayout(m_columns);
    m_columnsArea->setWidget(strip);
    m_columns->setContentsMargins(0, 0, 0, 0);
    // Every pin's chart has the same legend: one, right of the columns, leaves each plot the column's width (a legend
    // per column lay over the usable-memory label of three pins at 1020 pixels; issue 23's walkthrough).
    m_memoryLegend->setToolTipProvider(
        [this](int i) { return m_memory.isEmpty() ? QString() : m_memory.front()->legendExplanation(i); });
    auto* memoryRow = new QWidget(this);
    auto* memoryLayout = new QHBoxLayout(memoryRow);
    memoryLayout->setContentsMargins(0, 0, 0, 0);
    memoryLayout->addWidget(m_columnsArea, 1);
    memoryLayout->addWidget(m_memoryLegend, 0, Qt::AlignTop);

    for (QTableWidget* t : { m_table, m_steps }) {
        t->setAlternatingRowColors(true);
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
        t->setWordWrap(false); // multi-line cells say so with '\n'; rows fit their lines
        t->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    }
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(kMinTableColumn); // many pins: scroll, not squeeze
    m_steps->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_steps->horizontalHeader()->setStretchLastSection(true);
    m_steps->verticalHeader()->setVisible(false);
    m_steps->setMinimumHeight(48); // its header and a row: the waterfall above it keeps the tab's height

    auto* walk = new QWidget(this);
    auto* walkLayout = new QVBoxLayout(walk);
    auto* ends = new QHBoxLayout;
    ends->addWidget(new QLabel(tr("From &A:"), walk));
    ends->addWidget(m_a, 1);
    ends->addWidget(new QLabel(tr("to &B:"), walk));
    ends->addWidget(m_b, 1);
    static_cast<QLabel*>(ends->itemAt(0)->widget())->setBuddy(m_a);
    static_cast<QLabel*>(ends->itemAt(2)->widget())->setBuddy(m_b);
    walkLayout->addLayout(ends);
    auto* walkSplit = new QSplitter(Qt::Vertical, walk);
    walkSplit->addWidget(m_waterfall);
    walkSplit->addWidget(m_steps);
    walkSplit->setStretchFactor(0, 3);
    walkSplit->setStretchFactor(1, 2);
    walkLayout->addWidget(walkSplit, 1);
    connect(m_a, &QComboBox::currentIndexChanged, this, &CompareView::updateWaterfall);
    connect(m_b, &QComboBox::currentIndexChanged, this, &CompareView::updateWaterfall);

    m_tabs->addTab(m_table, tr("&Differences"));
    m_tabs->addTab(walk, tr("&Waterfall A → B"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(memoryRow);
    split->addWidget(m_time);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 6);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 6);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(m_doc, &ScenarioDocument::pinsChanged, this, &CompareView::rebuild);
    rebuild();
}

namespace {
/// Pin i of the shown pins (those whose results are shown) by its title, as ScenarioDocument::pinLabel names it.
QString pinTitle(const ScenarioDocument* doc, int i)
{
    return QString::fromStdString(core::scenarioTitle(doc->shown()->pins[size_t(i)]));
}
} // namespace

QString CompareView::letter(int i)
{
    QString text;
    for (int n = i + 1; n > 0; n = (n - 1) / 26)
        text.prepend(QChar(u'A' + (n - 1) % 26));
    return text;
}

void CompareView::rebuild()
{
    const int n = int(m_doc->shown()->pins.size());
    m_hint->setText(n == 0 ? tr("Pin scenarios to compare them (Compare → Pin Current Scenario).")
                           : tr("%n pin(s).", nullptr, n)
                + (n < 2 ? tr(" Pin another scenario for the differences and the waterfall.") : QString()));
    m_clearButton->setEnabled(n > 0);

    qDeleteAll(m_columnWidgets);
    m_columnWidgets.clear();
    m_memory.clear();
    QStringList labels;
    double yMax = 0;
    for (int i = 0; i < n; ++i) {
        labels << pinTitle(m_doc, i);
        auto* column = new QWidget;
        auto* v = new QVBoxLayout(column);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(2);
        auto* header = new QHBoxLayout;
        auto* name = new QLabel(QStringLiteral("<b>%1</b> %2").arg(letter(i), labels[i].toHtmlEscaped()), column);
        name->setToolTip(scenarioCaption(m_doc->shown()->pins[size_t(i)], m_doc->pinResults()[size_t(i)]));
        name->setTextFormat(Qt::RichText);
        name->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        auto* open = new QToolButton(column);
        open->setText(tr("Open"));
        open->setToolTip(tr("Load this pin into the explorer (one undo step)"));
        connect(open, &QToolButton::clicked, this, [this, i] { emit openPinRequested(i); });
        auto* remove = new QToolButton(column);
        remove->setText(QStringLiteral("✕"));
        remove->setToolTip(tr("Unpin"));
        connect(remove, &QToolButton::clicked, m_doc, [this, i] { m_doc->unpin(i); });
        header->addWidget(name, 1);
        header->addWidget(open);
        header->addWidget(remove);
        v->addLayout(header);
        auto* chart = new MemoryChart(column);
        chart->legend()->hide(); // the shared one right of the columns
        chart->plot()->setMinimumHeight(kMinMemoryPlot);
        chart->setResult(m_doc->shown()->pins[size_t(i)], m_doc->pinResults()[size_t(i)]);
        yMax = std::max(yMax, chart->plot()->yAxis->range().upper);
        v->addWidget(chart, 1);
        // Never narrower than its plot and axes need (a set minimum overrides the layout's).
        column->setMinimumWidth(std::max(kMinColumn, column->minimumSizeHint().width()));
        m_columns->addWidget(column, 1);
        // Shown now, not at the next layout pass: a hidden column counts for nothing in the strip's minimum height
        // below (pinned while the window was open, the charts got about 10 pixels; issue 23 item 8).
        column->show();
        m_columnWidgets << column;
        m_memory << chart;
    }
    m_memoryLegend->setVisible(n > 0);
    if (n > 0)
        m_memoryLegend->setEntries(m_memory.front()->legend()->entries());
    // The strip scrolls sideways only: as tall as a column needs, plus the scroll bar.
    m_columnsArea->setMinimumHeight(m_columnsArea->widget()->minimumSizeHint().height()
        + m_columnsArea->horizontalScrollBar()->sizeHint().height());
    // One scale for every pin, or the bars cannot be compared by eye.
    for (MemoryChart* chart : std::as_const(m_memory)) {
        chart->plot()->yAxis->setRange(0, yMax);
        chart->plot()->yAxis2->setRange(0, yMax); // the GPU-memory label sits on the right axis
        chart->requestReplot();
    }
    if (n == 0) {
        auto* empty = new QLabel(tr("No pinned scenarios yet."));
        empty->setAlignment(Qt::AlignCenter);
        m_columns->addWidget(empty, 1);
        m_columnWidgets << empty;
    }
    m_time->setResults(labels, m_doc->pinResults());
    // A row per pin, each keeping its label (closer than a line and a bit, the ticker drops every other one).
    const double line = QFontMetricsF(m_time->plot()->yAxis->tickLabelFont()).height();
    m_time->plot()->setMinimumHeight(std::max(kMinTimePlot, int(std::ceil(line * (1.3 * n + 4.5)))));

    const int a = m_a->currentIndex();
    const int b = m_b->currentIndex();
    for (QComboBox* c : { m_a, m_b }) {
        const QSignalBlocker block(c);
        c->clear();
        for (int i = 0; i < n; ++i)
            c->addItem(QStringLiteral("%1: %2").arg(letter(i), labels[i]));
    }
    {
        const QSignalBlocker blockA(m_a);
        const QSignalBlocker blockB(m_b);
        m_a->setCurrentIndex(a >= 0 && a < n ? a : 0);
        m_b->setCurrentIndex(b >= 0 && b < n && b != m_a->currentIndex() ? b : std::min(1, n - 1));
    }
    updateTable();
    updateWaterfall();
}

void CompareView::setWaterfallPins(int a, int b)
{
    {
        const QSignalBlocker blockA(m_a);
        const QSignalBlocker blockB(m_b);
        m_a->setCurrentIndex(a);
        m_b->setCurrentIndex(b);
    }
    updateWaterfall();
}

void CompareView::updateTable()
{
    const auto& pins = m_doc->shown()->pins;
    const auto& results = m_doc->pinResults();
    const int n = int(pins.size());
    // Settings in which any pin differs from the first, in the walking order.
    std::set<std::string> differing;
    for (int i = 1; i < n; ++i)
        for (const std::string& p : core::differingSettings(pins[0], pins[size_t(i)]))
            differing.insert(p);
    QStringList settings;
    for (const std::string& path : core::waterfallSettings())
        if (differing.count(path))
            settings << QString::fromStdString(path);
    QList<QList<Headline>> figures;
    for (const core::Result& r : results)
        figures << headlines(r);
    const int figureRows = figures.isEmpty() ? 0 : int(figures.front().size());
    m_table->clear();
    m_table->clearSpans();
    m_table->setColumnCount(n);
    m_table->setRowCount(n == 0 ? 0 : int(settings.size()) + 2 + figureRows);
    QStringList headers;
    for (int i = 0; i < n; ++i)
        headers << QStringLiteral("%1: %2").arg(letter(i), pinTitle(m_doc, i));
    m_table->setHorizontalHeaderLabels(headers);
    if (n == 0)
        return;
    int row = 0;
    QStringList rowLabels;
    auto heading = [&](const QString& text) {
        rowLabels << QString();
        m_table->setItem(row, 0, cell(text, true));
        m_table->setSpan(row, 0, 1, n);
        ++row;
    };
    heading(settings.isEmpty() ? tr("Settings: the pins have the same settings") : tr("Settings that differ"));
    for (const QString& path : std::as_const(settings)) {
        rowLabels << settingLabel(path);
        for (int c = 0; c < n; ++c) {
            const QString text = settingText(pins[size_t(c)], path);
            m_table->setItem(row, c, cell(text, c > 0 && text != settingText(pins[0], path)));
        }
        ++row;
    }
    heading(n > 1 ? tr("Figures (and their change from A)") : tr("Figures"));
    for (int f = 0; f < figureRows; ++f) {
        rowLabels << figures.front()[f].label;
        for (int c = 0; c < n; ++c) {
            if (f >= figures[c].size())
                continue;
            const Headline& h = figures[c][f];
            QString text = h.text.isEmpty() ? tr("invalid") : h.text;
            if (c > 0 && !h.text.isEmpty()) {
                const QString delta = headlineDelta(figures[0][f], h);
                if (!delta.isEmpty())
                    text += QStringLiteral("\n") + delta;
            }
            m_table->setItem(row, c, cell(text));
        }
        ++row;
    }
    m_table->setVerticalHeaderLabels(rowLabels);
}

void CompareView::updateWaterfall()
{
    const int n = int(m_doc->shown()->pins.size());
    const int a = m_a->currentIndex();
    const int b = m_b->currentIndex();
    m_steps->clear();
    m_steps->setRowCount(0);
    m_steps->setColumnCount(6);
    m_steps->setHorizontalHeaderLabels({ tr("Settings (A → B)"), tr("Δ memory per GPU"), tr("Δ step time"),
        tr("Memory after"), tr("Step time after"), tr("Fits") });
    if (n < 2 || a < 0 || b < 0 || a == b) {
        core::Waterfall none;
        none.error = n < 2 ? tr("Pin two scenarios to walk from one to the other").toStdString()
                           : tr("Choose two different pins").toStdString();
        m_waterfall->setWaterfall(none, {}, {});
        return;
    }
    const core::Scenario& A = m_doc->shown()->pins[size_t(a)];
    const core::Scenario& B = m_doc->shown()->pins[size_t(b)];
    const core::Waterfall w = core::buildWaterfall(A, B);
    m_waterfall->setWaterfall(w, pinTitle(m_doc, a), pinTitle(m_doc, b));
    if (!w.ok)
        return;
    m_steps->setRowCount(int(w.steps.size()) + 1);
    int row = 0;
    core::Scenario before = A;
    for (const core::WaterfallStep& s : w.steps) {
        QStringList parts;
        for (const std::string& p : s.settings) {
            const QString path = QString::fromStdString(p);
            parts
                << tr("%1: %2 → %3").arg(settingLabel(path), settingText(before, path), settingText(s.scenario, path));
        }
        m_steps->setItem(row, 0, cell(parts.join(QLatin1Char('\n'))));
        m_steps->setItem(row, 1, cell(signedBytes(s.memoryDelta)));
        m_steps->setItem(row, 2, cell(signedSeconds(s.stepTimeDelta)));
        m_steps->setItem(row, 3, cell(Units::bytes(s.memory)));
        m_steps->setItem(row, 4, cell(Units::seconds(s.stepTime)));
        m_steps->setItem(row, 5, cell(s.fits ? tr("yes") : tr("no")));
        before = s.scenario;
        ++row;
    }
    m_steps->setItem(row, 0, cell(tr("Total A → B"), true));
    m_steps->setItem(row, 1, cell(signedBytes(w.memoryB - w.memoryA), true));
    m_steps->setItem(row, 2, cell(signedSeconds(w.stepTimeB - w.stepTimeA), true));
    m_steps->setItem(row, 3, cell(Units::bytes(w.memoryB), true));
    m_steps->setItem(row, 4, cell(Units::seconds(w.stepTimeB), true));
}

} // namespace shardscope::ui
