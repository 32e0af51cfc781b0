// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/what_if.h>

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
    QString m_text;
    int m_level = 0;
};

} // namespace shardscope::ui
