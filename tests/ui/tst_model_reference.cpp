// SPDX-License-Identifier: GPL-3.0-or-later
// Help → Model Reference: docs/model.md is compiled in and shown non-modally; showModelReference(anchor) brings the
// section's heading into view with the cursor on it; every anchor the tooltips will use resolves; links between
// sections work; find finds; the Help menu opens it; the text follows the dark palette.
#include "test_support.h"

#include "session/app_theme.h"
#include "document/scenario_document.h"
#include "help/model_reference.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <shardscope/core/evaluate.h>

#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QAction>
#include <QLineEdit>
#include <QScrollBar>
#include <QSet>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUndoStack>
#include <QUrl>

using namespace shardscope;

namespace {
/// The heading block the text cursor is on, and where it is relative to the top of the viewport.
struct HeadingView {
    QString text;
    int level = 0;
    double top = -1; ///< pixels below the top of the viewport
};

HeadingView headingAtCursor(const ui::ModelReferenceWindow& w)
{
    const QTextBrowser* b = w.browser();
    const QTextBlock block = b->textCursor().block();
    HeadingView h;
    h.text = block.text();
    h.level = block.blockFormat().headingLevel();
    h.top = b->document()->documentLayout()->blockBoundingRect(block).top() - b->verticalScrollBar()->value();
    return h;
}

bool headingVisible(const ui::ModelReferenceWindow& w, const QString& title)
{
    const HeadingView h = headingAtCursor(w);
    return h.text == title && h.level > 0 && h.top >= 0 && h.top < w.browser()->viewport()->height();
}
} // namespace

class TestModelReference : public QObject
{
    Q_OBJECT
private slots:
    void cleanup();
    void markdownIsCompiledIn();
    void opensNonModalAndNonEmpty();
    void showsActivationsSection();
    void everyDocumentedAnchorResolves();
    void everyTermAnchorResolves();
    void sectionLinksScroll();
    void contentsListsSections();
    void findFindsAndWraps();
    void helpMenuOpensIt();
    void followsDarkPalette();
};

void TestModelReference::cleanup()
{
    if (auto* w = ui::showModelReference())
        delete w;
}

void TestModelReference::markdownIsCompiledIn()
{
    const QString md = ui::modelReferenceMarkdown();
    QVERIFY(md.size() > 20000);
    QVERIFY(md.contains(QStringLiteral("<a id=\"activations\"></a>")));
    QVERIFY(md.contains(QStringLiteral("## Validation")));
    // The product never cites internal notes.
    QVERIFY(!md.contains(QStringLiteral("formulas.md")));
    QVERIFY(!md.contains(QStringLiteral("shared/")));
}

void TestModelReference::opensNonModalAndNonEmpty()
{
    ui::ModelReferenceWindow* w = ui::showModelReference();
    QVERIFY(w);
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QVERIFY(w->isWindow());
    QVERIFY(!w->isModal());
    QCOMPARE(w->windowModality(), Qt::NonModal);
    QVERIFY(!w->browser()->document()->isEmpty());
    QVERIFY(w->browser()->document()->characterCount() > 20000);
    QVERIFY(w->browser()->toPlainText().contains(QStringLiteral("Korthikanti")));
    QVERIFY(w->anchors().size() > 30);
    // One window per application: asking again raises the same one.
    QCOMPARE(ui::showModelReference(), w);
    // No raw anchor markup is left in the text.
    QVERIFY(!w->browser()->toPlainText().contains(QStringLiteral("<a id")));
}

void TestModelReference::showsActivationsSection()
{
    ui::ModelReferenceWindow* w = ui::showModelReference(QStringLiteral("activations"));
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QTRY_VERIFY(headingVisible(*w, QStringLiteral("Activations")));
    QCOMPARE(w->currentSection(), QStringLiteral("activations"));
    QVERIFY(w->browser()->verticalScrollBar()->value() > 0); // it did scroll: the section is far from the top
    QVERIFY(headingAtCursor(*w).top < 40); // the heading is at the top, not just somewhere

    // Another section, further down, and back up.
    QVERIFY(w->showSection(QStringLiteral("pipeline-bubble")));
    QTRY_VERIFY(headingVisible(*w, QStringLiteral("Pipeline bubble")));
    QVERIFY(w->showSection(QStringLiteral("#optimizer-states")));
    QTRY_VERIFY(headingVisible(*w, QStringLiteral("Optimizer states")));
    // Unknown anchors change nothing.
    const int before = w->browser()->verticalScrollBar()->value();
    QVERIFY(!w->showSection(QStringLiteral("no-such-section")));
    QCOMPARE(w->browser()->verticalScrollBar()->value(), before);
}

void TestModelReference::everyDocumentedAnchorResolves()
{
    ui::ModelReferenceWindow* w = ui::showModelReference();
    const QStringList anchors = w->anchors();
    QVERIFY(!anchors.contains(QString())); // raw HTML in the text (an unclosed <tag>) empties the headings after it
    // Every memory item, communication group and step-time part the app shows has its section.
    for (const char* id :
        { "conventions", "layout", "parameter-count", "memory", "model-state-bytes", "sharding-degree", "parameters",
            "gradients", "optimizer-states", "activations", "pipeline-in-flight", "gathered-parameters",
            "communication-buffers", "framework-overhead", "memory-total", "usable-memory", "offload-memory",
            "communication", "collective-bytes", "collective-time", "tensor-parallel", "context-parallel",
            "expert-parallel", "pipeline-parallel", "data-parallel", "step-time", "flops", "compute", "recompute",
            "exposed-communication", "pipeline-bubble", "optimizer-step", "offload-time", "throughput",
            "tokens-per-second", "model-tflops", "mfu", "cost", "min-gpus", "validation", "known-gaps", "sources" })
        QVERIFY2(anchors.contains(QLatin1String(id)), id);
    QCOMPARE(QSet<QString>(anchors.begin(), anchors.end()).size(), anchors.size()); // ids are unique

    // Every #link in the text goes to a section that exists.
    const QTextDocument* doc = w->browser()->document();
    int links = 0;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QString href = it.fragment().charFormat().anchorHref();
            if (href.startsWith(QLatin1Char('#'))) {
                ++links;
                QVERIFY2(anchors.contains(href.mid(1)), qPrintable(href));
            }
        }
    QVERIFY(links > 40);
}

void TestModelReference::everyTermAnchorResolves()
{
    // core::Term::anchor (shardscope-cli evaluate --explain, tooltips) names a section for every term of every
    // example scenario.
    ui::ModelReferenceWindow* w = ui::showModelReference();
    const QStringList files = QDir(test::sourcePath(QStringLiteral("resources/scenarios")))
                                  .entryList({ QStringLiteral("*.shardscope.json") }, QDir::Files);
    QVERIFY(files.size() >= 5);
    QSet<QString> seen;
    for (const QString& f : files) {
        const core::Result r = core::explain(test::loadScenario(QStringLiteral("resources/scenarios/") + f));
        QVERIFY2(r.valid, qPrintable(f));
        for (const core::Term& t : r.terms) {
            const QString anchor = QString::fromStdString(t.anchor);
            QVERIFY2(!anchor.isEmpty(), t.key.c_str());
            QVERIFY2(w->hasSection(anchor),
                qPrintable(
                    f + QStringLiteral(": ") + QString::fromStdString(t.key) + QStringLiteral(" -> #") + anchor));
            seen.insert(anchor);
        }
    }
    QVERIFY(seen.size() >= 10);
    // An alias opens the section it stands for.
    QVERIFY(w->showSection(QStringLiteral("optimizer-time")));
    QCOMPARE(w->currentSection(), QStringLiteral("optimizer-step"));
}

void TestModelReference::sectionLinksScroll()
{
    ui::ModelReferenceWindow* w = ui::showModelReference();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    emit w->browser()->anchorClicked(QUrl(QStringLiteral("#mfu")));
    QTRY_VERIFY(headingVisible(*w, QStringLiteral("MFU")));
    // QTextBrowser's own anchor lookup finds the headings too (the anchor names are in the document).
    QTextBrowser* b = w->browser();
    b->scrollToAnchor(QStringLiteral("tensor-parallel"));
    QTextBlock heading;
    for (QTextBlock block = b->document()->begin(); block.isValid(); block = block.next())
        if (block.text() == QLatin1String("Tensor parallel") && block.blockFormat().headingLevel() > 0)
            heading = block;
    QVERIFY(heading.isValid());
    const double top
        = b->document()->documentLayout()->blockBoundingRect(heading).top() - b->verticalScrollBar()->value();
    QVERIFY2(top > -40 && top < 40, qPrintable(QString::number(top)));
}

void TestModelReference::contentsListsSections()
{
    ui::ModelReferenceWindow* w = ui::showModelReference();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QTreeWidget* tree = w->contents();
    QVERIFY(tree->topLevelItemCount() >= 8);
    QTreeWidgetItem* memory = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(0) == QLatin1String("Memory per GPU"))
            memory = tree->topLevelItem(i);
    QVERIFY(memory);
    QVERIFY(memory->childCount() >= 10);
    QTreeWidgetItem* gathered = nullptr;
    for (int i = 0; i < memory->childCount(); ++i)
        if (memory->child(i)->data(0, Qt::UserRole).toString() == QLatin1String("gathered-parameters"))
            gathered = memory->child(i);
    QVERIFY(gathered);
    emit tree->itemClicked(gathered, 0);
    QTRY_VERIFY(headingVisible(*w, QStringLiteral("Gathered parameters")));
}

void TestModelReference::findFindsAndWraps()
{
    ui::ModelReferenceWindow* w = ui::showModelReference();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QVERIFY(w->find(QStringLiteral("NCCL_BUFFSIZE")));
    QCOMPARE(w->browser()->textCursor().selectedText(), QStringLiteral("NCCL_BUFFSIZE"));
    const int first = w->browser()->textCursor().position();
    QVERIFY(w->find(QStringLiteral("NCCL_BUFFSIZE")));
    QVERIFY(w->browser()->textCursor().position() > first);
    // Past the last match it wraps to the first.
    for (int i = 0; i < 20 && w->browser()->textCursor().position() != first; ++i)
        QVERIFY(w->find(QStringLiteral("NCCL_BUFFSIZE")));
    QCOMPARE(w->browser()->textCursor().position(), first);
    QVERIFY(!w->find(QStringLiteral("no such text anywhere 12345")));
    // Typing in the find field searches as you type.
    QTest::keyClicks(w->findField(), QStringLiteral("Adafactor"));
    QCOMPARE(w->browser()->textCursor().selectedText(), QStringLiteral("Adafactor"));
}

void TestModelReference::helpMenuOpensIt()
{
    QTemporaryDir dir;
    ui::AppSettings settings(dir.filePath(QStringLiteral("settings.ini")), nullptr);
    auto* window = new ui::MainWindow(test::catalog(), &settings);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    auto* action = window->findChild<QAction*>(QStringLiteral("modelReferenceAction"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QKeySequence::HelpContents));
    action->trigger();
    ui::ModelReferenceWindow* w = ui::showModelReference();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    QCOMPARE(w->parentWidget(), window); // closes with the main window
    QVERIFY(window->isEnabled()); // non-modal: the main window still works
    window->document()->undoStack()->setClean();
    delete window; // deletes the reference window with it
    QTRY_VERIFY(ui::showModelReference()->parentWidget() == nullptr); // a fresh one
}

void TestModelReference::followsDarkPalette()
{
    ui::ModelReferenceWindow* w = ui::showModelReference(QStringLiteral("collective-time"));
    QVERIFY(QTest::qWaitForWindowExposed(w));
    ui::AppTheme::apply(ui::ThemeMode::Dark);
    QTRY_COMPARE(w->browser()->palette().color(QPalette::Link), ui::AppTheme::darkPalette().color(QPalette::Link));
    // Links are drawn in the palette's link colour, not Qt's default blue.
    const QTextDocument* doc = w->browser()->document();
    bool checked = false;
    for (QTextBlock b = doc->begin(); b.isValid() && !checked; b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (!it.fragment().charFormat().anchorHref().isEmpty()) {
                QCOMPARE(
                    it.fragment().charFormat().foreground().color(), ui::AppTheme::darkPalette().color(QPalette::Link));
                checked = true;
                break;
            }
    QVERIFY(checked);
    ui::AppTheme::apply(ui::ThemeMode::Light);
}

QTEST_MAIN(TestModelReference)
#include "tst_model_reference.moc"
