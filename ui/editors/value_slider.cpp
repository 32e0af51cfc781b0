// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/value_slider.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSlider>

namespace shardscope::ui {

ValueSlider::ValueSlider(QWidget* parent)
    : QWidget(parent)
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_label(new QLabel(this))
    , m_format([](qint64 v) { return QLocale().toString(v); })
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

void ValueSlider::setValues(const QList<qint64>& values)
{
    if (values == m_values)
        return;
    m_values = values;
    rebuild();
}

void ValueSlider::setFreeEntry(qint64 min, qint64 max)
{
    if (!m_spin) {
        m_spin = new QDoubleSpinBox(this);
        m_spin->setDecimals(0);
        m_spin->setKeyboardTracking(false);
        m_spin->setAccelerated(true);
        m_spin->setGroupSeparatorShown(true);
        delete layout()->replaceWidget(m_label, m_spin); // the caller owns the returned layout item
        m_label->hide();
        connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double d) {
            const auto v = qint64(d);
            if (v == m_value)
                return;
            m_value = v;
            rebuild();
            emit valueEdited(v);
        });
    }
    m_min = min;
    m_max = max;
    showValue();
}

void ValueSlider::setFormatter(std::function<QString(qint64)> format)
{
    m_format = std::move(format);
    showValue();
}

void ValueSlider::setValue(qint64 value)
{
    if (value == m_value && m_display.contains(value))
        return;
    m_value = value;
    rebuild();
}

void ValueSlider::rebuild()
{
    QList<qint64> display = m_values;
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
    if (m_spin)
        showInSpinBox(m_spin, double(m_min), double(m_max), double(m_value));
    else
        m_label->setText(m_format(m_value));
}

void ValueSlider::onSliderMoved(int index)
{
    if (index < 0 || index >= m_display.size())
        return;
    const qint64 v = m_display.at(index);
    if (v == m_value)
        return;
    m_value = v;
    showValue();
    emit valueEdited(v);
}

} // namespace shardscope::ui
