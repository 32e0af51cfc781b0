// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/what_if.h>

#include <QStaticText>
#include <QWidget>

namespace shardscope::ui {

/// One or two lines on what limits the layout (explain/status_summary.h), with a coloured marker. Fixed
/// height and self-painted: a new text repaints it without relayouting (and so resizing) the charts.
class StatusLine : public QWidget
{
    Q_OBJECT
public:
    explicit StatusLine(QWidget* parent = nullptr);
    void setResult(const core::WhatIf& shown);
    [[nodiscard]] QString text() const { return m_text; }
    [[nodiscard]] QSize sizeHint() const override;
    [[nodiscard]] QSize minimumSizeHint() const override { return { 200, sizeHint().height() }; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    /// The text as painted: whole words that fit two lines at this width ("…" when some are cut), laid out once per
    /// change of the text, the width or the font, so that a repaint (the veil, a window above) shapes nothing.
    [[nodiscard]] const QStaticText& fitted(const QRect& box);
    QString m_text;
    int m_level = 0;
    QStaticText m_fitted;
    int m_fittedWidth = -1; ///< box width m_fitted was made for (-1: to make again)
};

} // namespace shardscope::ui
