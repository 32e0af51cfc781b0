// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Help → Model Reference: docs/model.md, compiled in as :/docs/model.md, in a non-modal window with its contents
/// and a find field. Sections are addressed by the stable anchor ids of docs/model.md (`<a id="activations">`
/// before a heading, more such lines for aliases; headings without one get their GitHub-style slug), so tooltips,
/// core::Term::anchor and links can open the reference at a section: showModelReference("activations").

#include <QList>
#include <QString>
#include <QWidget>

class QLabel;
class QLineEdit;
class QTextBrowser;
class QTreeWidget;
class QUrl;

namespace shardscope::ui {

/// The Markdown text of the model reference from the resources (empty if it is not compiled in).
[[nodiscard]] QString modelReferenceMarkdown();

class ModelReferenceWindow : public QWidget
{
    Q_OBJECT
public:
    explicit ModelReferenceWindow(QWidget* parent = nullptr);

    /// Scrolls so that the heading of the section `anchor` is at the top and puts the text cursor on it.
    /// Returns false (and does not move) for an unknown anchor.
    bool showSection(const QString& anchor);
    /// Finds `text` after the cursor (before it when backward), wrapping around; selects it. False if absent.
    bool find(const QString& text, bool backward = false);

    /// Every section's anchor id, in document order (aliases not included).
    [[nodiscard]] QStringList anchors() const;
    /// Whether showSection(anchor) finds a section (ids and aliases).
    [[nodiscard]] bool hasSection(const QString& anchor) const { return section(anchor) != nullptr; }
    /// The anchor of the section the text cursor is in (empty before the first heading).
    [[nodiscard]] QString currentSection() const;
    [[nodiscard]] QTextBrowser* browser() const { return m_browser; }
    [[nodiscard]] QLineEdit* findField() const { return m_find; }
    [[nodiscard]] QTreeWidget* contents() const { return m_contents; }

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Section {
        QString anchor;
        QStringList aliases; ///< further ids that lead here (further `<a id>` lines above the heading)
        QString title;
        int level = 0;
        int position = 0; ///< document position of the heading block
    };
    void load();
    void styleDocument();
    void scrollToPending();
    void openLink(const QUrl& url);
    [[nodiscard]] const Section* section(const QString& anchor) const;

    QTextBrowser* m_browser = nullptr;
    QLineEdit* m_find = nullptr;
    QLabel* m_findStatus = nullptr;
    QTreeWidget* m_contents = nullptr;
    QList<Section> m_sections;
    QString m_pending; ///< section to bring to the top once the text is laid out at its final width
    bool m_loading = false;
};

/// Opens the model reference (one window per application, created on first use as a child window of `parent`)
/// and raises it; with an anchor, scrolls to that section. Returns the window.
ModelReferenceWindow* showModelReference(const QString& anchor = {}, QWidget* parent = nullptr);

} // namespace shardscope::ui
