// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/launch_config.h>

#include <QDockWidget>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace shardscope::ui {

class ScenarioDocument;

/// The launch configuration of the open scenario (core::launchConfig): target selector (DeepSpeed config JSON,
/// FSDP2 fragment with torchrun, Megatron-LM arguments, NCCL environment), the text read-only in a monospace
/// font, updated on every edit, with Copy and Save.
class LaunchConfigPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LaunchConfigPanel(ScenarioDocument* doc, QWidget* parent = nullptr);

    [[nodiscard]] core::LaunchTarget target() const;
    void setTarget(core::LaunchTarget target);
    /// The text shown ("" when the scenario is invalid).
    [[nodiscard]] QString text() const;
    /// Copies the text to the clipboard.
    void copy();
    /// Writes the text to path. "" on success, otherwise the reason.
    [[nodiscard]] QString saveTo(const QString& path) const;
    /// Replaces the save dialog (tests).
    void setFileDialogHandler(std::function<QString(const QString& suggested)> handler)
    {
        m_fileDialog = std::move(handler);
    }
    /// Wide enough for 88 columns of the monospace text (most lines of every target), but docked at most
    /// kDockSharePercent of the main window's width (the charts keep the main area; a dragged width stays).
    [[nodiscard]] QSize sizeHint() const override;
    static constexpr int kDockSharePercent = 30;

signals:
    void statusMessage(const QString& text);

private:
    void refresh();
    /// Puts text into the editor unless it holds it already; a hidden panel (the dock closed) lays it out only once
    /// it is shown.
    void showText(const QString& text);
    /// Puts m_shown into the editor, keeping its scroll position.
    void putText();
    void showEvent(QShowEvent* event) override;
    void saveDialog();
    /// Until the user picks a target: the scenario's own framework's target if it expresses the layout, else the
    /// first that does (a panel never opens on a refusal another target would not give).
    void chooseTarget();
    [[nodiscard]] QString suggestedName() const;

    ScenarioDocument* m_doc;
    QComboBox* m_target;
    QLabel* m_note;
    QPlainTextEdit* m_text;
    QPushButton* m_copy;
    QPushButton* m_save;
    QString m_config;
    QString m_shown; ///< the text the editor holds, or will once the panel is shown (m_pending)
    bool m_pending = false; ///< m_shown is not in the editor yet
    bool m_chosen = false; ///< the user (or setTarget) picked the target: it stays
    std::function<QString(const QString&)> m_fileDialog;
};

/// The panel in a dock (View → Launch Configuration), hidden at first.
class LaunchConfigDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit LaunchConfigDock(ScenarioDocument* doc, QWidget* parent = nullptr);
    [[nodiscard]] LaunchConfigPanel* panel() const { return m_panel; }

private:
    LaunchConfigPanel* m_panel;
};

} // namespace shardscope::ui
