// SPDX-License-Identifier: GPL-3.0-or-later
#include "help/model_reference.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QDesktopServices>
#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QRegularExpression>
#include <QScrollBar>
#include <QShortcut>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

/// GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens ("Total and fit" → "total-and-fit").
QString slug(const QString& heading)
{
    QString out;
    for (const QChar c : heading.toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
            out += c;
        else if (c == QLatin1Char(' '))
            out += QLatin1Char('-');
    }
    return out;
}

/// A Markdown heading of the source: its text and the ids of the `<a id="…"></a>` lines above it (the first is the
/// section's id, the others aliases), if any.
struct SourceHeading {
    QString text;
    QStringList ids;
};

/// Strips the `<a id="…"></a>` anchor lines (Qt's Markdown reader would leave an empty paragraph and no anchor)
/// and lists the ATX headings outside code fences with the anchor that precedes each.
QString prepare(const QString& markdown, QList<SourceHeading>* headings)
{
    static const QRegularExpression anchorLine(
        QStringLiteral(R"re(^\s*<a\s+(?:id|name)\s*=\s*"([^"]+)"\s*>\s*</a>\s*$)re"));
    static const QRegularExpression heading(QStringLiteral(R"re(^(#{1,6})\s+(.*?)\s*#*\s*$)re"));
    QStringList out;
    QStringList pendingIds;
    bool fence = false;
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    for (const QString& line : lines) {
        if (line.trimmed().startsWith(QLatin1String("```")))
            fence = !fence;
        if (!fence) {
            if (const auto m = anchorLine.match(line); m.hasMatch()) {
                pendingIds.append(m.captured(1));
                continue;
            }
            if (const auto m = heading.match(line); m.hasMatch()) {
                headings->append({ m.captured(2), pendingIds });
                pendingIds.clear();
            }
        }
        out.append(line);
    }
    return out.join(QLatin1Char('\n'));
}

/// Text as the document shows it: Markdown emphasis and code marks removed (for matching headings).
QString plain(QString text)
{
    text.remove(QLatin1Char('`'));
    text.remove(QLatin1Char('*'));
    return text.trimmed();
}

QPointer<ModelReferenceWindow>& instance()
{
    static QPointer<ModelReferenceWindow> window;
    return window;
}

} // namespace

QString modelReferenceMarkdown()
{
    QFile f(QStringLiteral(":/docs/model.md"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

ModelReferenceWindow::ModelReferenceWindow(QWidget* parent)
    : QWidget(parent, Qt::Window)
{
    setObjectName(QStringLiteral("modelReference"));
    setWindowTitle(tr("ShardScope Model Reference"));
    setWindowModality(Qt::NonModal);

    m_find = new QLineEdit(this);
    m_find->setObjectName(QStringLiteral("find"));
    m_find->setPlaceholderText(tr("Find in the reference (Ctrl+F)"));
    m_find->setClearButtonEnabled(true);
    m_find->installEventFilter(this);
    auto* previous = new QToolButton(this);
    previous->setArrowType(Qt::UpArrow);
    previous->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* next = new QToolButton(this);
    next->setArrowType(Qt::DownArrow);
    next->setToolTip(tr("Next match (Enter, F3)"));
    m_findStatus = new QLabel(this);
    m_findStatus->setMinimumWidth(fontMetrics().horizontalAdvance(tr("Not found")) + 8);
    auto* findRow = new QHBoxLayout;
    findRow->setContentsMargins(0, 0, 0, 0);
    findRow->setSpacing(4);
    findRow->addWidget(m_find, 1);
    findRow->addWidget(previous);
    findRow->addWidget(next);
    findRow->addWidget(m_findStatus);

    m_contents = new QTreeWidget(this);
    m_contents->setObjectName(QStringLiteral("contents"));
    m_contents->setHeaderHidden(true);
    m_contents->setRootIsDecorated(true);
    m_contents->setUniformRowHeights(true);

    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("text"));
    m_browser->setOpenLinks(false); // #anchors are ours; web links go to the desktop's browser
    m_browser->viewport()->installEventFilter(this);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_contents);
    split->addWidget(m_browser);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setSizes({ 240, 760 });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    layout->addLayout(findRow);
    layout->addWidget(split, 1);

    connect(m_find, &QLineEdit::textEdited, this, [this](const QString& text) {
        // Incremental: search again from the start of the current match.
        QTextCursor c = m_browser->textCursor();
        c.setPosition(c.selectionStart());
        m_browser->setTextCursor(c);
        find(text);
    });
    connect(m_find, &QLineEdit::returnPressed, this, [this] { find(m_find->text()); });
    connect(next, &QToolButton::clicked, this, [this] { find(m_find->text()); });
    connect(previous, &QToolButton::clicked, this, [this] { find(m_find->text(), true); });
    auto* focusFind = new QShortcut(QKeySequence::Find, this);
    connect(focusFind, &QShortcut::activated, this, [this] {
        m_find->setFocus(Qt::ShortcutFocusReason);
        m_find->selectAll();
    });
    auto* findNext = new QShortcut(QKeySequence::FindNext, this);
    connect(findNext, &QShortcut::activated, this, [this] { find(m_find->text()); });
    auto* findPrevious = new QShortcut(QKeySequence::FindPrevious, this);
    connect(findPrevious, &QShortcut::activated, this, [this] { find(m_find->text(), true); });
    connect(m_browser, &QTextBrowser::anchorClicked, this, &ModelReferenceWindow::openLink);
    connect(m_contents, &QTreeWidget::itemActivated, this,
        [this](QTreeWidgetItem* item) { showSection(item->data(0, Qt::UserRole).toString()); });
    connect(m_contents, &QTreeWidget::itemClicked, this,
        [this](QTreeWidgetItem* item) { showSection(item->data(0, Qt::UserRole).toString()); });

    load();
    resize(1040, 760);
}

void ModelReferenceWindow::load()
{
    m_loading = true;
    QList<SourceHeading> headings;
    const QString markdown = prepare(modelReferenceMarkdown(), &headings);
    QTextDocument* doc = m_browser->document();
    doc->setDocumentMargin(14);
    if (markdown.isEmpty())
        m_browser->setPlainText(tr("The model reference (docs/model.md) is not part of this build."));
    else
        m_browser->setMarkdown(markdown);

    // Pair the document's heading blocks with the source headings, in order, and give each its anchor.
    m_sections.clear();
    int k = 0;
    for (QTextBlock block = doc->begin(); block.isValid(); block = block.next()) {
        const int level = block.blockFormat().headingLevel();
        if (level <= 0)
            continue;
        Section s;
        s.title = block.text();
        s.level = level;
        s.position = block.position();
        if (k < headings.size() && plain(headings[k].text) == s.title && !headings[k].ids.isEmpty()) {
            s.anchor = headings[k].ids.front();
            s.aliases = headings[k].ids.mid(1);
        }
        ++k;
        if (s.anchor.isEmpty())
            s.anchor = slug(s.title);
        // Anchor names on the heading text, so QTextBrowser::scrollToAnchor and "#id" links work too.
        QTextCursor c(block);
        c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        QTextCharFormat f;
        f.setAnchor(true);
        f.setAnchorNames(QStringList(s.anchor) + s.aliases);
        c.mergeCharFormat(f);
        m_sections.append(s);
    }
    styleDocument();

    m_contents->clear();
    QTreeWidgetItem* parent = nullptr;
    for (const Section& s : std::as_const(m_sections)) {
        if (s.level == 1)
            continue; // the title
        auto* item = new QTreeWidgetItem(QStringList(s.title));
        item->setData(0, Qt::UserRole, s.anchor);
        item->setToolTip(0, QStringLiteral("#") + s.anchor);
        if (s.level == 2 || !parent) {
            m_contents->addTopLevelItem(item);
            parent = item;
        } else {
            parent->addChild(item);
        }
    }
    m_contents->expandAll();
    m_contents->resizeColumnToContents(0);
    m_loading = false;
}

/// Colours from the current palette (Qt's Markdown reader hard-codes blue links): links, code block shading,
/// table rules; roomier tables.
void ModelReferenceWindow::styleDocument()
{
    QTextDocument* doc = m_browser->document();
    const QPalette pal = palette(); // the window's: on a palette change it is updated before its children's
    QTextCursor edit(doc);
    edit.beginEditBlock();
    for (QTextBlock block = doc->begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().hasProperty(QTextFormat::BlockCodeFence)) {
            QTextBlockFormat bf;
            bf.setBackground(pal.color(QPalette::AlternateBase));
            QTextCursor c(block);
            c.mergeBlockFormat(bf);
        }
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment frag = it.fragment();
            if (!frag.isValid() || frag.charFormat().anchorHref().isEmpty())
                continue;
            QTextCursor c(doc);
            c.setPosition(frag.position());
            c.setPosition(frag.position() + frag.length(), QTextCursor::KeepAnchor);
            QTextCharFormat f;
            f.setForeground(pal.color(QPalette::Link));
            c.mergeCharFormat(f);
        }
    }
    const QList<QTextFrame*> frames = doc->rootFrame()->childFrames();
    for (QTextFrame* frame : frames) {
        if (auto* table = qobject_cast<QTextTable*>(frame)) {
            QTextTableFormat tf = table->format();
            tf.setBorder(1);
            tf.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
            tf.setBorderBrush(pal.color(QPalette::Mid));
            tf.setBorderCollapse(true);
            tf.setCellSpacing(0);
            tf.setCellPadding(4);
            table->setFormat(tf);
        }
    }
    edit.endEditBlock();
}

const ModelReferenceWindow::Section* ModelReferenceWindow::section(const QString& anchor) const
{
    QString id = anchor;
    if (id.startsWith(QLatin1Char('#')))
        id.remove(0, 1);
    for (const Section& s : m_sections)
        if (s.anchor == id || s.aliases.contains(id))
            return &s;
    for (const Section& s : m_sections) // a heading's slug also works where an explicit id replaced it
        if (slug(s.title) == id)
            return &s;
    return nullptr;
}

bool ModelReferenceWindow::showSection(const QString& anchor)
{
    const Section* s = section(anchor);
    if (!s)
        return false;
    QTextCursor c(m_browser->document());
    c.setPosition(s->position);
    m_browser->setTextCursor(c);
    m_pending = s->anchor;
    scrollToPending();
    // The text is laid out again when the window first gets its size: scroll again then.
    QTimer::singleShot(0, this, &ModelReferenceWindow::scrollToPending);
    return true;
}

void ModelReferenceWindow::scrollToPending()
{
    const Section* s = m_pending.isEmpty() ? nullptr : section(m_pending);
    if (!s)
        return;
    QTextDocument* doc = m_browser->document();
    const QTextBlock block = doc->findBlock(s->position);
    const QRectF r = doc->documentLayout()->blockBoundingRect(block);
    QScrollBar* bar = m_browser->verticalScrollBar();
    bar->setValue(qMin(bar->maximum(), qRound(r.top())));
    if (isVisible() && m_browser->viewport()->height() > 0)
        m_pending.clear(); // settled at the final width
}

bool ModelReferenceWindow::find(const QString& text, bool backward)
{
    if (text.isEmpty()) {
        m_findStatus->clear();
        return false;
    }
    const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    bool found = m_browser->find(text, flags);
    if (!found) { // wrap around
        QTextCursor c = m_browser->textCursor();
        c.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
        m_browser->setTextCursor(c);
        found = m_browser->find(text, flags);
    }
    m_findStatus->setText(found ? QString() : tr("Not found"));
    return found;
}

QStringList ModelReferenceWindow::anchors() const
{
    QStringList ids;
    for (const Section& s : m_sections)
        ids.append(s.anchor);
    return ids;
}

QString ModelReferenceWindow::currentSection() const
{
    const int pos = m_browser->textCursor().position();
    QString id;
    for (const Section& s : m_sections) {
        if (s.position > pos)
            break;
        id = s.anchor;
    }
    return id;
}

void ModelReferenceWindow::openLink(const QUrl& url)
{
    if (url.scheme().isEmpty() && url.path().isEmpty() && url.hasFragment()) {
        showSection(url.fragment());
        return;
    }
    if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
        QDesktopServices::openUrl(url);
}

void ModelReferenceWindow::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !m_loading) {
        const int pos = m_browser->verticalScrollBar()->value();
        load(); // link and table colours come from the palette
        m_browser->verticalScrollBar()->setValue(pos);
    }
}

void ModelReferenceWindow::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (!m_pending.isEmpty())
        QTimer::singleShot(0, this, &ModelReferenceWindow::scrollToPending);
}

bool ModelReferenceWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_browser->viewport() && event->type() == QEvent::Resize && !m_pending.isEmpty())
        QTimer::singleShot(0, this, &ModelReferenceWindow::scrollToPending);
    if (watched == m_find && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) && (key->modifiers() & Qt::ShiftModifier)) {
            find(m_find->text(), true);
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            m_find->clear();
            m_findStatus->clear();
            m_browser->setFocus();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

ModelReferenceWindow* showModelReference(const QString& anchor, QWidget* parent)
{
    QPointer<ModelReferenceWindow>& w = instance();
    if (!w)
        w = new ModelReferenceWindow(parent ? parent->window() : nullptr);
    w->show();
    w->raise();
    w->activateWindow();
    if (!anchor.isEmpty())
        w->showSection(anchor);
    return w;
}

} // namespace shardscope::ui
