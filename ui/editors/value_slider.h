// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QSignalBlocker>
#include <QWidget>

#include <algorithm>
#include <functional>

class QDoubleSpinBox;
class QLabel;
class QSlider;

namespace shardscope::ui {

/// A slider over a list of allowed values (divisors of the heads, powers of two, ...), with the value shown
/// beside it, either as a label or, with free entry, as a spin box that accepts any value in a range.
/// The slider moves by index, so a log-scale range (sequence length) is just a list of powers of two.
/// Values are 64-bit (sequence lengths, batch sizes); the spin box holds whole numbers exactly up to 2^53.
class ValueSlider : public QWidget
{
    Q_OBJECT
public:
    explicit ValueSlider(QWidget* parent = nullptr);

    /// The values the slider offers (sorted, unique). The current value is always shown even if not listed.
    void setValues(const QList<qint64>& values);
    /// Show a spin box that accepts any value in [min, max] beside the slider. A value set from outside the
    /// range is shown as it is (the range widens to hold it until the value is inside again).
    void setFreeEntry(qint64 min, qint64 max);
    /// Text for a value in the label ("8 192", "8 k").
    void setFormatter(std::function<QString(qint64)> format);
    /// Shows value without emitting valueEdited.
    void setValue(qint64 value);
    [[nodiscard]] qint64 value() const { return m_value; }
    [[nodiscard]] QList<qint64> values() const { return m_display; }
    [[nodiscard]] QSlider* slider() const { return m_slider; }
    /// The free-entry spin box (whole numbers), null without free entry.
    [[nodiscard]] QDoubleSpinBox* spinBox() const { return m_spin; }

signals:
    /// The user picked a value (by dragging, keys or typing).
    void valueEdited(qint64 value);
    /// A drag starts / ends: edits in between form one undo step.
    void interactionStarted();
    void interactionFinished();

private:
    void rebuild();
    void showValue();
    void onSliderMoved(int index);

    QSlider* m_slider;
    QLabel* m_label;
    QDoubleSpinBox* m_spin = nullptr;
    qint64 m_min = 0, m_max = 0; // free entry
    QList<qint64> m_values; // allowed
    QList<qint64> m_display; // allowed + current
    qint64 m_value = 0;
    std::function<QString(qint64)> m_format;
};

/// Shows value in a QSpinBox or QDoubleSpinBox without an edit (signals blocked): the range is [min, max], widened
/// to hold a value outside it, so a document's value is shown as it is, never clamped to the range.
template <class SpinBox, class T> void showInSpinBox(SpinBox* spin, T min, T max, T value)
{
    const QSignalBlocker block(spin);
    const T lo = std::min(min, value);
    const T hi = std::max(max, value);
    if (spin->minimum() != lo || spin->maximum() != hi)
        spin->setRange(lo, hi);
    if (spin->value() != value) // QAbstractSpinBox::setValue repaints even when nothing changes
        spin->setValue(value);
}

} // namespace shardscope::ui
