// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QWidget>

#include <functional>

class QLabel;
class QSlider;
class QSpinBox;

namespace shardscope::ui {

/// A slider over a list of allowed values (divisors of the heads, powers of two, ...), with the value shown
/// beside it, either as a label or, with free entry, as a spin box that accepts any value in a range.
/// The slider moves by index, so a log-scale range (sequence length) is just a list of powers of two.
class ValueSlider : public QWidget
{
    Q_OBJECT
public:
    explicit ValueSlider(QWidget* parent = nullptr);

    /// The values the slider offers (sorted, unique). The current value is always shown even if not listed.
    void setValues(const QList<int>& values);
    /// Show a spin box that accepts any value in [min, max] beside the slider.
    void setFreeEntry(int min, int max);
    /// Text for a value in the label ("8 192", "8 k").
    void setFormatter(std::function<QString(int)> format);
    /// Shows value without emitting valueEdited.
    void setValue(int value);
    [[nodiscard]] int value() const { return m_value; }
    [[nodiscard]] QList<int> values() const { return m_display; }
    [[nodiscard]] QSlider* slider() const { return m_slider; }
    [[nodiscard]] QSpinBox* spinBox() const { return m_spin; }

signals:
    /// The user picked a value (by dragging, keys or typing).
    void valueEdited(int value);
    /// A drag starts / ends: edits in between form one undo step.
    void interactionStarted();
    void interactionFinished();

private:
    void rebuild();
    void showValue();
    void onSliderMoved(int index);

    QSlider* m_slider;
    QLabel* m_label;
    QSpinBox* m_spin = nullptr;
    QList<int> m_values;   // allowed
    QList<int> m_display;  // allowed + current
    int m_value = 0;
    std::function<QString(int)> m_format;
};

} // namespace shardscope::ui
