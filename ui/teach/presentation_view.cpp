// SPDX-License-Identifier: GPL-3.0-or-later
#include "teach/presentation_view.h"

#include "charts/memory_chart.h"
#include "charts/qcp.h"
#include "charts/step_time_chart.h"
#include "document/scenario_document.h"
#include "explain/field_names.h"
#include "explain/formulas.h"
#include "editors/scenario_text.h"
#include "util/units.h"

#include <shardscope/core/scenario_json.h>
#include <shardscope/core/waterfall.h>

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>

#include <map>
#include <set>

namespace shardscope::ui {

namespace {
const QColor kAccent(0xFF, 0xD4, 0x00); // yellow on black: the highest-contrast accent
const QColor kChanged(0x56, 0xD4, 0xFF); // light blue for "what changed"
const QColor kText(0xFF, 0xFF, 0xFF);
const QColor kMuted(0xC8, 0xC8, 0xC8);

QPalette highContrastPalette()
{
    QPalette p;
    for (QPalette::ColorGroup g : { QPalette::Active, QPalette::Inactive, QPalette::Disabled }) {
        p.setColor(g, QPalette::Window, Qt::black);
        p.setColor(g, QPalette::Base, Qt::black);
        p.setColor(g, QPalette::AlternateBase, QColor(0x20, 0x20, 0x20));
        p.setColor(g, QPalette::WindowText, g == QPalette::Disabled ? QColor(0x80, 0x80, 0x80) : kText);
        p.setColor(g, QPalette::Text, g == QPalette::Disabled ? QColor(0x80, 0x80, 0x80) : kText);
        p.setColor(g, QPalette::Button, QColor(0x1c, 0x1c, 0x1c));
        p.setColor(g, QPalette::ButtonText, g == QPalette::Disabled ? QColor(0x80, 0x80, 0x80) : kText);
        p.setColor(g, QPalette::Highlight, kAccent);
        p.setColor(g, QPalette::HighlightedText, Qt::black);
        p.setColor(g, QPalette::Link, kChanged);
        p.setColor(g, QPalette::ToolTipBase, Qt::black);
        p.setColor(g, QPalette::ToolTipText, kText);
    }
    return p;
}

/// Plain lesson text (paragraphs split by blank lines, "• " bullets on their own lines) as HTML.
QString textToHtml(const QString& text)
{
    QString html;
    for (const QString& para : text.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts)) {
        const QStringList lines = para.split(QLatin1Char('\n'));
        QString body;
        bool inList = false;
        for (const QString& line : lines) {
            const bool bullet = line.startsWith(QStringLiteral("• "));
            if (bullet && !inList) {
                body += QStringLiteral("<ul style='margin-left: 0.6em; -qt-list-indent: 1;'>");
                inList = true;
            } else if (!bullet && inList) {
                body += QStringLiteral("</ul>");
                inList = false;
            }
            if (bullet)
                body += QStringLiteral("<li>%1</li>").arg(line.mid(2).toHtmlEscaped());
            else
                body += (body.isEmpty() || body.endsWith(QLatin1String("</ul>")) ? QString() : QStringLiteral("<br>"))
                    + line.toHtmlEscaped();
        }
        if (inList)
            body += QStringLiteral("</ul>");
        html += QStringLiteral("<p style='margin-bottom: 0.7em;'>%1</p>").arg(body);
    }
    return html;
}

/// The waterfall setting a scenario path belongs to ("model.preset" -> "model", "cluster.gpu.memory_bytes" ->
/// "cluster.gpu"), or "" for a result figure.
QString settingOf(const QString& path)
{
    for (const std::string& s : core::waterfallSettings()) {
        const QString setting = QString::fromStdString(s);
        if (path == setting || path.startsWith(setting + QLatin1Char('.')))
            return setting;
    }
    return {};
}

/// A group prefix of scenario settings ("parallelism", "cluster")?
bool isSettingGroup(const QString& name)
{
    for (const std::string& s : core::waterfallSettings())
        if (QString::fromStdString(s).startsWith(name + QLatin1Char('.')))
            return true;
    return false;
}

QString figureTitle(const QString& name)
{
    static const std::map<QString, const char*> titles = {
        { QStringLiteral("params"), QT_TRANSLATE_NOOP("PresentationView", "Parameters (Ψ)") },
        { QStringLiteral("active_params"), QT_TRANSLATE_NOOP("PresentationView", "Active parameters") },
        { QStringLiteral("capacity"), QT_TRANSLATE_NOOP("PresentationView", "GPU memory") },
        { QStringLiteral("usable"), QT_TRANSLATE_NOOP("PresentationView", "Usable memory") },
        { QStringLiteral("fits"), QT_TRANSLATE_NOOP("PresentationView", "Fits") },
        { QStringLiteral("min_gpus"), QT_TRANSLATE_NOOP("PresentationView", "Fewest GPUs that fit") },
        { QStringLiteral("host_memory_per_node"), QT_TRANSLATE_NOOP("PresentationView", "Host memory per node") },
        { QStringLiteral("nvme_per_node"), QT_TRANSLATE_NOOP("PresentationView", "NVMe per node") },
        { QStringLiteral("warnings"), QT_TRANSLATE_NOOP("PresentationView", "Warnings") },
        { QStringLiteral("throughput.mfu"), QT_TRANSLATE_NOOP("PresentationView", "MFU") },
        { QStringLiteral("layout.micro_batches"), QT_TRANSLATE_NOOP("PresentationView", "Micro-batches per step") },
        { QStringLiteral("layout.grad_accumulation"), QT_TRANSLATE_NOOP("PresentationView", "Gradient accumulation") },
        { QStringLiteral("comm.total_bytes"), QT_TRANSLATE_NOOP("PresentationView", "Communication per GPU") },
    };
    if (const auto it = titles.find(name); it != titles.end())
        return QCoreApplication::translate("PresentationView", it->second);
    const QString group = name.section(QLatin1Char('.'), 0, 0);
    const QString last = name.section(QLatin1Char('.'), -1);
    if (group == QLatin1String("layout") && name.count(QLatin1Char('.')) == 1)
        return fieldLabel(QStringLiteral("parallelism.") + last); // "Data parallel (DP)"
    if (group == QLatin1String("comm")) {
        // comm.dp, comm.dp_time, comm.dp_exposed, comm.dp_algo
        const QString g = last.section(QLatin1Char('_'), 0, 0).toUpper();
        const QString what = last.section(QLatin1Char('_'), 1);
        if (what.isEmpty())
            return PresentationView::tr("%1 communication per GPU").arg(g);
        if (what == QLatin1String("time"))
            return PresentationView::tr("%1 communication time").arg(g);
        if (what == QLatin1String("exposed"))
            return PresentationView::tr("%1 exposed communication").arg(g);
        if (what == QLatin1String("algo"))
            return PresentationView::tr("%1 NCCL algorithm").arg(g);
    }
    const QString title = explanationTitle(name);
    if (title != name)
        return title;
    QString t = QString(last).replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!t.isEmpty())
        t[0] = t[0].toUpper();
    return t;
}

/// Index of the figure with key, or -1.
int figureIndex(const std::vector<TermFigure>& figures, const QString& key)
{
    for (size_t i = 0; i < figures.size(); ++i)
        if (figures[i].key == key)
            return int(i);
    return -1;
}

/// The memory terms (the core's order) a highlight covers: {first, last}, or {-1, -1}. "memory.model_states" are
/// parameters to optimizer states; "memory" and "memory.total" all of them.
std::pair<int, int> memoryItems(const QString& name, const std::vector<TermFigure>& figures)
{
    if (name == QLatin1String("memory") || name == QLatin1String("memory.total"))
        return figures.empty() ? std::pair { -1, -1 } : std::pair { 0, int(figures.size()) - 1 };
    if (name == QLatin1String("memory.model_states"))
        return { figureIndex(figures, QStringLiteral("memory.parameters")),
            figureIndex(figures, QStringLiteral("memory.optimizer_states")) };
    const int i = figureIndex(figures, name);
    return { i, i };
}

/// The step-time terms (the core's order) a highlight covers: {first, last}, or {-1, -1}. Lesson names:
/// "step_time.<part>" (the term keys) with "_share"/"_overhead" variants ("step_time.bubble_share"),
/// "comm.<group>_exposed".
std::pair<int, int> timeParts(const QString& name, const std::vector<TermFigure>& figures)
{
    if (name == QLatin1String("step_time") || name == QLatin1String("step_time.total"))
        return figures.empty() ? std::pair { -1, -1 } : std::pair { 0, int(figures.size()) - 1 };
    QString part;
    if (name.startsWith(QLatin1String("comm.")) && name.endsWith(QLatin1String("_exposed"))) {
        part = QStringLiteral("exposed_communication");
    } else if (name.startsWith(QLatin1String("step_time."))) {
        part = name.mid(10);
        for (const QLatin1String suffix : { QLatin1String("_share"), QLatin1String("_overhead") })
            if (part.endsWith(suffix))
                part.chop(suffix.size());
        if (part == QLatin1String("communication"))
            part = QStringLiteral("exposed_communication");
        else if (part == QLatin1String("bubble"))
            part = QStringLiteral("pipeline_bubble");
    }
    const int i = part.isEmpty() ? -1 : figureIndex(figures, QStringLiteral("step_time.") + part);
    return { i, i };
}
} // namespace

PresentationView::PresentationView(const core::Catalog& catalog, std::vector<core::Lesson> lessons, QWidget* parent)
    : QWidget(parent)
    , m_catalog(catalog)
    , m_lessons(std::move(lessons))
    , m_doc(new ScenarioDocument(catalog, this))
    , m_digitTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("presentation"));
    setWindowTitle(tr("ShardScope — Teaching mode"));
    setPalette(highContrastPalette());
    setAutoFillBackground(true);
    setFocusPolicy(Qt::StrongFocus);
    m_digitTimer->setSingleShot(true);
    m_digitTimer->setInterval(1000);
    connect(m_digitTimer, &QTimer::timeout, this, [this] { m_typed = 0; });
    connect(m_doc, &ScenarioDocument::resultReady, this, &PresentationView::drawStep);

    m_lessonTitle = new QLabel(this);
    m_position = new QLabel(this);
    m_position->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_progress = new QProgressBar(this);
    m_progress->setTextVisible(false);
    m_progress->setFixedHeight(6);
    m_progress->setStyleSheet(QStringLiteral("QProgressBar { background: #303030; border: none; }"
                                             "QProgressBar::chunk { background: #FFD400; }"));
    m_stepTitle = new QLabel(this);
    m_stepTitle->setWordWrap(true);
    m_text = new QTextBrowser(this);
    m_text->setFrameShape(QFrame::NoFrame);
    m_text->setFocusPolicy(Qt::NoFocus);
    m_text->setOpenLinks(false);
    m_text->setObjectName(QStringLiteral("lessonText"));
    m_changed = new QLabel(this);
    m_changed->setWordWrap(true);
    m_changed->setTextFormat(Qt::RichText);
    m_look = new QLabel(this);
    m_look->setWordWrap(true);
    m_look->setTextFormat(Qt::RichText);
    m_memory = new MemoryChart(this);
    m_time = new StepTimeChart(this);
    m_hints = new QLabel(tr("→ / Space next  ·  ← back  ·  Home first  ·  N / P lesson  ·  1–%1 go to lesson  ·  "
                            "E open in the explorer  ·  F full screen  ·  Esc leave")
                             .arg(m_lessons.size()),
        this);
    m_hints->setStyleSheet(QStringLiteral("color: #B0B0B0;"));

    auto button = [this](const QString& text, auto slot) {
        auto* b = new QPushButton(text, this);
        b->setFocusPolicy(Qt::NoFocus);
        b->setFlat(true);
        b->setStyleSheet(QStringLiteral("QPushButton { color: white; border: 1px solid #606060; padding: 4px 12px; }"
                                        "QPushButton:hover { border-color: #FFD400; }"));
        connect(b, &QPushButton::clicked, this, slot);
        m_buttons << b;
        return b;
    };
    auto* back = button(tr("◀ Back"), [this] { previous(); });
    auto* forward = button(tr("Next ▶"), [this] { next(); });
    auto* open = button(tr("Open in the explorer"), [this] { openInExplorer(); });
    auto* quit = button(tr("Leave"), [this] { leave(); });

    auto* header = new QHBoxLayout;
    header->addWidget(m_lessonTitle, 1);
    header->addWidget(m_position);
    auto* left = new QVBoxLayout;
    left->addWidget(m_stepTitle);
    left->addWidget(m_text, 1);
    left->addWidget(m_changed);
    left->addWidget(m_look);
    auto* leftWidget = new QWidget(this);
    leftWidget->setLayout(left);
    left->setContentsMargins(0, 0, 12, 0);
    auto* charts = new QSplitter(Qt::Vertical, this);
    charts->addWidget(m_memory);
    charts->addWidget(m_time);
    charts->setStretchFactor(0, 5);
    charts->setStretchFactor(1, 4);
    auto* body = new QSplitter(Qt::Horizontal, this);
    body->addWidget(leftWidget);
    body->addWidget(charts);
    body->setStretchFactor(0, 46);
    body->setStretchFactor(1, 54);
    body->setChildrenCollapsible(false);
    auto* footer = new QHBoxLayout;
    footer->addWidget(m_hints, 1);
    footer->addWidget(back);
    footer->addWidget(forward);
    footer->addWidget(open);
    footer->addWidget(quit);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(36, 20, 36, 14);
    layout->setSpacing(10);
    layout->addLayout(header);
    layout->addWidget(m_progress);
    layout->addWidget(body, 1);
    layout->addLayout(footer);
    for (QWidget* w : findChildren<QWidget*>())
        if (w != this)
            w->setFocusPolicy(Qt::NoFocus);

    applyFonts();
    if (!m_lessons.empty())
        goTo(0, 0);
}

PresentationView::~PresentationView() = default;

int PresentationView::stepCount() const { return m_lessons.empty() ? 0 : int(lesson().steps.size()); }

void PresentationView::goTo(int lessonIndex, int stepIndex)
{
    if (m_lessons.empty())
        return;
    m_lesson = std::clamp(lessonIndex, 0, lessonCount() - 1);
    m_step = std::clamp(stepIndex, 0, std::max(0, stepCount() - 1));
    showStep();
}

bool PresentationView::next()
{
    if (m_lessons.empty())
        return false;
    if (m_step + 1 < stepCount()) {
        goTo(m_lesson, m_step + 1);
        return true;
    }
    if (m_lesson + 1 < lessonCount()) {
        goTo(m_lesson + 1, 0);
        return true;
    }
    return false;
}

bool PresentationView::previous()
{
    if (m_lessons.empty())
        return false;
    if (m_step > 0) {
        goTo(m_lesson, m_step - 1);
        return true;
    }
    if (m_lesson > 0) {
        goTo(m_lesson - 1, int(m_lessons[size_t(m_lesson - 1)].steps.size()) - 1);
        return true;
    }
    return false;
}

void PresentationView::nextLesson() { goTo(m_lesson + 1, 0); }
void PresentationView::previousLesson() { goTo(m_lesson - 1, 0); }

void PresentationView::openInExplorer()
{
    if (m_lessons.empty())
        return;
    const core::LessonStep& s = lesson().steps[size_t(m_step)];
    emit openInExplorerRequested(s.scenario, QString::fromStdString(lesson().title + ": " + s.title));
}

void PresentationView::leave()
{
    if (isFullScreen())
        showNormal();
    hide();
    emit left();
}

void PresentationView::digit(int d)
{
    // Digits typed within a second form one number: "1" jumps to lesson 1, a following "2" to lesson 12.
    int wanted = m_digitTimer->isActive() ? m_typed * 10 + d : d;
    if (wanted < 1 || wanted > lessonCount())
        wanted = d == 0 ? 10 : d;
    m_typed = wanted;
    m_digitTimer->start();
    if (wanted >= 1 && wanted <= lessonCount())
        goTo(wanted - 1, 0);
}

void PresentationView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_Space:
    case Qt::Key_PageDown:
    case Qt::Key_Return:
    case Qt::Key_Enter: next(); return;
    case Qt::Key_Left:
    case Qt::Key_Backspace:
    case Qt::Key_PageUp: previous(); return;
    case Qt::Key_Home: goTo(m_lesson, 0); return;
    case Qt::Key_End: goTo(m_lesson, stepCount() - 1); return;
    case Qt::Key_N: nextLesson(); return;
    case Qt::Key_P: previousLesson(); return;
    case Qt::Key_E: openInExplorer(); return;
    case Qt::Key_F:
    case Qt::Key_F11: isFullScreen() ? showNormal() : showFullScreen(); return;
    case Qt::Key_Escape: leave(); return;
    default: break;
    }
    if (event->key() >= Qt::Key_0 && event->key() <= Qt::Key_9) {
        digit(event->key() - Qt::Key_0);
        return;
    }
    QWidget::keyPressEvent(event);
}

void PresentationView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    applyFonts();
}

void PresentationView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    setFocus(Qt::OtherFocusReason);
}

void PresentationView::applyFonts()
{
    // Sized for the room: 1080 pixels of height is the reference; smaller windows scale down, not below 60 %.
    const double s = std::clamp(height() / 1080.0, 0.6, 2.0);
    auto font = [this, s](double points, bool bold = false) {
        QFont f = QWidget::font();
        f.setPointSizeF(points * s);
        f.setBold(bold);
        return f;
    };
    m_lessonTitle->setFont(font(19, true));
    m_position->setFont(font(15));
    m_stepTitle->setFont(font(27, true));
    m_text->setFont(font(17));
    m_text->document()->setDefaultFont(font(17));
    m_changed->setFont(font(14));
    m_look->setFont(font(14));
    m_hints->setFont(font(11));
    for (QPushButton* b : std::as_const(m_buttons))
        b->setFont(font(12));
    for (ChartBase* c : { static_cast<ChartBase*>(m_memory), static_cast<ChartBase*>(m_time) }) {
        c->setFont(font(12.5));
        if (c->legend())
            c->legend()->setFont(font(12));
        if (auto* title = c->findChild<QLabel*>())
            title->setFont(font(15, true));
    }
}

namespace {
/// The lesson text's byte unit: the app's memory-units setting (View → Memory units).
core::LessonBytes lessonBytes()
{
    return Units::byteUnit() == ByteUnit::GB ? core::LessonBytes::Decimal : core::LessonBytes::Binary;
}
} // namespace

void PresentationView::showStep()
{
    const core::Lesson& l = lesson();
    const core::LessonStep& step = l.steps[size_t(m_step)];
    // The previous step rides along as a pin: the background job evaluates it with the step, for the text's
    // "before" figures. drawStep() follows with both.
    std::vector<core::Scenario> previous;
    if (m_step > 0)
        previous.push_back(l.steps[size_t(m_step - 1)].scenario);
    m_doc->reset(step.scenario, QString(), std::move(previous));
}

void PresentationView::drawStep()
{
    const core::Lesson& l = lesson();
    const core::LessonStep& step = l.steps[size_t(m_step)];
    const core::Scenario& s = m_doc->shown()->scenario;
    const core::Result& r = m_doc->shown()->result;
    const core::Scenario before = m_step > 0 ? l.steps[size_t(m_step - 1)].scenario : core::defaultScenario(m_catalog);
    // The previous step's figures, evaluated with this step by the document's job (showStep() pins it).
    const std::vector<core::Result>& pinned = m_doc->shown()->pinResults;
    const core::Result* previous = m_step > 0 && !pinned.empty() ? &pinned.front() : nullptr;

    m_lessonTitle->setText(tr("Lesson %1 · %2").arg(m_lesson + 1).arg(QString::fromStdString(l.title)));
    m_lessonTitle->setStyleSheet(QStringLiteral("color: #FFD400;"));
    m_position->setText(tr("step %1 of %2  ·  lesson %3 of %4")
                            .arg(m_step + 1)
                            .arg(l.steps.size())
                            .arg(m_lesson + 1)
                            .arg(lessonCount()));
    m_progress->setRange(0, int(l.steps.size()));
    m_progress->setValue(m_step + 1);
    m_stepTitle->setText(QString::fromStdString(step.title));
    m_plainText = QString::fromStdString(core::lessonStepText(l, size_t(m_step), lessonBytes()));
    m_text->setHtml(textToHtml(m_plainText));

    // What this step changed, one line per setting: before → after.
    m_changedLines.clear();
    QStringList changedHtml;
    std::set<QString> seen;
    for (const std::string& c : step.changed) {
        const QString path = QString::fromStdString(c);
        const QString setting = settingOf(path);
        const QString key = setting.isEmpty() ? path : setting;
        if (!seen.insert(key).second)
            continue;
        const QString label = setting.isEmpty() ? fieldLabel(key) : settingLabel(key);
        const QString from = setting.isEmpty() ? QString() : settingText(before, setting);
        const QString to = setting.isEmpty() ? QString() : settingText(s, setting);
        m_changedLines << (from.isEmpty() ? label : tr("%1: %2 → %3").arg(label, from, to));
        changedHtml << (from.isEmpty() ? label.toHtmlEscaped()
                                       : QStringLiteral("<b>%1</b>: %2 → <span style='color:#56D4FF'><b>%3</b></span>")
                                             .arg(label.toHtmlEscaped(), from.toHtmlEscaped(), to.toHtmlEscaped()));
    }
    constexpr int kMaxLines = 6;
    if (changedHtml.size() > kMaxLines) {
        const int more = int(changedHtml.size()) - (kMaxLines - 1);
        changedHtml = changedHtml.mid(0, kMaxLines - 1);
        changedHtml << tr("and %1 more settings").arg(more);
    }
    m_changed->setText(changedHtml.isEmpty()
            ? QString()
            : QStringLiteral("<span style='color:#56D4FF'>%1</span><br>%2")
                  .arg(m_step == 0 ? tr("SET UP") : tr("CHANGED"), changedHtml.join(QStringLiteral("<br>"))));
    m_changed->setVisible(!changedHtml.isEmpty());

    // The figures the text talks about, with their values.
    m_highlightLines.clear();
    QStringList lookHtml;
    QStringList figureNames;
    for (const std::string& h : step.highlight) {
        const QString name = QString::fromStdString(h);
        const QString setting = settingOf(name);
        QString label;
        QString value;
        if (!setting.isEmpty()) {
            label = fieldLabel(name);
            value = settingText(s, setting);
        } else if (isSettingGroup(name)) {
            label = fieldLabel(name);
        } else {
            figureNames << name;
            label = figureTitle(name);
            const std::string rendered = core::renderLessonText("{" + h + "}", s, r, previous, lessonBytes());
            if (rendered != "{" + h + "}")
                value = QString::fromStdString(rendered);
        }
        m_highlightLines << (value.isEmpty() ? label : QStringLiteral("%1: %2").arg(label, value));
        lookHtml << (value.isEmpty() ? QStringLiteral("<b>%1</b>").arg(label.toHtmlEscaped())
                                     : QStringLiteral("%1: <span style='color:#FFD400'><b>%2</b></span>")
                                           .arg(label.toHtmlEscaped(), value.toHtmlEscaped()));
    }
    m_look->setText(lookHtml.isEmpty() ? QString()
                                       : QStringLiteral("<span style='color:#FFD400'>%1</span><br>%2")
                                             .arg(tr("LOOK AT"), lookHtml.join(QStringLiteral(" &nbsp;·&nbsp; "))));
    m_look->setVisible(!lookHtml.isEmpty());

    m_memory->setResult(s, r);
    m_time->setResult(r, m_doc->comparison());
    clearCallouts();
    if (r.valid) {
        addMemoryCallouts(figureNames);
        addTimeCallouts(figureNames);
    }
    m_memory->replotNow();
    m_time->replotNow();
}

void PresentationView::clearCallouts()
{
    for (QCPAbstractItem* item : std::as_const(m_callouts))
        item->parentPlot()->removeItem(item);
    m_callouts.clear();
}

void PresentationView::addMemoryCallouts(const QStringList& names)
{
    const core::Result& r = m_doc->result();
    QCustomPlot* plot = m_memory->plot();
    const bool perStage = r.pp > 1 && r.stages.size() > 1;
    const int bar = perStage ? std::clamp(r.peakStage, 0, int(r.stages.size()) - 1) : 0;
    const std::vector<TermFigure> figures
        = perStage ? memoryFigures(r.stages[size_t(bar)].memory) : termFigures(r, core::TermGroup::Memory);
    const double key = bar + 1;
    const double half = (perStage ? 0.7 : 0.45) / 2;
    const QCPRange yRange = plot->yAxis->range();
    QFont bold = m_memory->font();
    bold.setBold(true);

    struct Label {
        double y;
        QString text;
        double target; ///< middle of the outlined item
    };
    QList<Label> labels;
    for (const QString& name : names) {
        if (name == QLatin1String("capacity") || name == QLatin1String("usable") || name == QLatin1String("fits")) {
            auto* line = new QCPItemLine(plot);
            line->start->setTypeX(QCPItemPosition::ptAxisRectRatio);
            line->end->setTypeX(QCPItemPosition::ptAxisRectRatio);
            line->start->setCoords(0, Units::toUnit(r.usable)); // the line "fits" is judged against
            line->end->setCoords(1, Units::toUnit(r.usable));
            line->setPen(QPen(kAccent, 3, Qt::DashLine));
            line->setSelectable(false);
            m_callouts << line;
            continue;
        }
        const auto [first, last] = memoryItems(name, figures);
        if (first < 0 || last < first)
            continue;
        double lower = 0;
        for (int i = 0; i < first; ++i)
            lower += figures[size_t(i)].value;
        double upper = lower;
        for (int i = first; i <= last; ++i)
            upper += figures[size_t(i)].value;
        if (upper - lower <= 0)
            continue;
        auto* box = new QCPItemRect(plot);
        box->topLeft->setCoords(key - half - 0.03, Units::toUnit(upper));
        box->bottomRight->setCoords(key + half + 0.03, Units::toUnit(lower));
        box->setPen(QPen(kAccent, 3.5));
        box->setBrush(Qt::NoBrush);
        box->setSelectable(false);
        m_callouts << box;
        const double middle = Units::toUnit((upper + lower) / 2);
        labels.push_back(
            { middle, QStringLiteral("%1  %2").arg(figureTitle(name), Units::bytes(upper - lower)), middle });
    }
    if (labels.isEmpty())
        return;
    // Room for the labels right of the last bar: widen the key axis of the view's own chart.
    const double bars = perStage ? double(r.stages.size()) : 1.0;
    const double labelX = bars + (perStage ? 0.5 : 0.35);
    plot->xAxis->setRange(0.4, bars + (perStage ? 2.6 : 1.9));
    // At their item's height, top to bottom, at least `gap` apart and inside the plot.
    std::sort(labels.begin(), labels.end(), [](const Label& a, const Label& b) { return a.y > b.y; });
    const double gap = yRange.size() * 0.09;
    for (int i = 0; i < labels.size(); ++i) {
        labels[i].y = std::min(labels[i].y, yRange.upper - gap / 2);
        if (i > 0)
            labels[i].y = std::min(labels[i].y, labels[i - 1].y - gap);
    }
    const double shortfall = (yRange.lower + gap / 2) - labels.back().y;
    if (shortfall > 0)
        for (Label& l : labels)
            l.y += shortfall;
    for (const Label& l : std::as_const(labels)) {
        auto* text = new QCPItemText(plot);
        text->position->setCoords(labelX, l.y);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        text->setText(l.text);
        text->setFont(bold);
        text->setColor(kAccent);
        text->setBrush(QColor(0, 0, 0, 230)); // readable over grid and capacity lines
        text->setPadding(QMargins(4, 1, 4, 1));
        text->setSelectable(false);
        m_callouts << text;
        // A leader from the label to its item (which may be another bar's height away).
        auto* leader = new QCPItemLine(plot);
        leader->start->setParentAnchor(text->left);
        leader->end->setCoords(key + half + 0.04, l.target);
        leader->setPen(QPen(kAccent, 1.5));
        leader->setTail(QCPLineEnding::esNone);
        leader->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 8, 10));
        leader->setSelectable(false);
        m_callouts << leader;
    }
}

void PresentationView::addTimeCallouts(const QStringList& names)
{
    const core::Result& r = m_doc->result();
    const std::vector<TermFigure> figures = termFigures(r, core::TermGroup::StepTime);
    QCustomPlot* plot = m_time->plot();
    const double scale = m_time->timeScale();
    const double key = 1; // the "this scenario" row
    QFont bold = m_time->font();
    bold.setBold(true);
    std::set<std::pair<int, int>> done;
    int n = 0;
    for (const QString& name : names) {
        const auto range = timeParts(name, figures);
        if (range.first < 0 || !done.insert(range).second)
            continue;
        double start = 0;
        for (int p = 0; p < range.first; ++p)
            start += figures[size_t(p)].value;
        double end = start;
        for (int p = range.first; p <= range.second; ++p)
            end += figures[size_t(p)].value;
        if (end - start <= 0)
            continue;
        auto* box = new QCPItemRect(plot);
        box->topLeft->setCoords(start / scale, key - 0.38);
        box->bottomRight->setCoords(end / scale, key + 0.38);
        box->setPen(QPen(kAccent, 3.5));
        box->setBrush(Qt::NoBrush);
        box->setSelectable(false);
        m_callouts << box;
        // Under the row, anchored at the side of the part that has room.
        const bool rightHalf = (start + end) / 2 / scale > plot->xAxis->range().center();
        auto* text = new QCPItemText(plot);
        text->position->setCoords(rightHalf ? end / scale : start / scale, key + 0.42 + 0.42 * n);
        text->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        const QString title = range.first == range.second ? figures[size_t(range.first)].label : tr("Step time");
        text->setText(QStringLiteral("▲ %1  %2").arg(title, Units::seconds(end - start)));
        text->setFont(bold);
        text->setColor(kAccent);
        text->setBrush(QColor(0, 0, 0, 220));
        text->setPadding(QMargins(4, 1, 4, 1));
        text->setSelectable(false);
        m_callouts << text;
        ++n;
    }
}

} // namespace shardscope::ui
