// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/value_slider.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include <algorithm>

namespace shardscope::ui {

ValueSlider::ValueSlider(QWidget* parent)
    : QWidget(parent)
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_label(new QLabel(this))
    , m_format([](int v) { return QLocale().toString(v); })
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_label);
    m_label->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("000 000")));
    m_label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_slider->setPageStep(1);
    m_slider->setTickPosition(QSlider::NoTicks);
    setFocusProxy(m_slider);
    connect(m_slider, &QSlider::valueChanged, this, &ValueSlider::onSliderMoved);
    connect(m_slider, &QSlider::sliderPressed, this, &ValueSlider::interactionStarted);
    connect(m_slider, &QSlider::sliderReleased, this, &ValueSlider::interactionFinished);
}

void ValueSlider::setValues(const QList<int>& values)
{
    if (values == m_values)
        return;
    m_values = values;
    rebuild();
}

void ValueSlider::setFreeEntry(int min, int max)
{
    if (!m_spin) {
        m_spin = new QSpinBox(this);
        m_spin->setKeyboardTracking(false);
        m_spin->setAccelerated(true);
        layout()->replaceWidget(m_label, m_spin);
        m_label->hide();
        connect(m_spin, &QSpinBox::valueChanged, this, [this](int v) {
            if (v == m_value)
                return;
            m_value = v;
            rebuild();
            emit valueEdited(v);
        });
    }
    {
        const QSignalBlocker block(m_spin); // clamping to the new range is not a user edit
        m_spin->setRange(min, max);
    }
    showValue();
}

void ValueSlider::setFormatter(std::function<QString(int)> format)
{
    m_format = std::move(format);
    showValue();
}

void ValueSlider::setValue(int value)
{
    if (value == m_value && m_display.contains(value))
        return;
    m_value = value;
    rebuild();
}

void ValueSlider::rebuild()
{
    QList<int> display = m_values;
    if (!display.contains(m_value))
        display.insert(std::lower_bound(display.begin(), display.end(), m_value), m_value);
    m_display = display;
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, int(m_display.size()) - 1);
    m_slider->setValue(int(m_display.indexOf(m_value)));
    m_slider->setEnabled(m_display.size() > 1);
    showValue();
}

void ValueSlider::showValue()
{
    if (m_spin) {
        if (m_spin->value() == m_value)
            return; // QAbstractSpinBox::setValue repaints even when nothing changes
        const QSignalBlocker block(m_spin);
        m_spin->setValue(m_value);
    } else {
        m_label->setText(m_format(m_value));
    }
}

void ValueSlider::onSliderMoved(int index)
{
    if (index < 0 || index >= m_display.size())
        return;
    const int v = m_display.at(index);
    if (v == m_value)
        return;
    m_value = v;
    showValue();
    emit valueEdited(v);
}

} // namespace shardscope::ui
