// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/app_theme.h"

#include <QApplication>
#include <QPainter>
#include <QProxyStyle>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleOption>

namespace shardscope::ui {

namespace {
bool g_systemDark = false;
bool g_captured = false;

/// Fusion with a focus ring that shows on a dark palette: Fusion draws keyboard focus in a translucent, darkened
/// highlight (and line-edit focus as a slightly bluer border), which all but vanishes on dark grey. On a dark
/// palette this draws a 2 px ring in the palette's link colour (Okabe-Ito sky blue) around the focused control.
class FocusRingStyle : public QProxyStyle
{
public:
    FocusRingStyle()
        : QProxyStyle(QStyleFactory::create(QStringLiteral("Fusion")))
    { }

    void drawPrimitive(
        PrimitiveElement element, const QStyleOption* option, QPainter* painter, const QWidget* widget) const override
    {
        if (element == PE_FrameFocusRect && isDark(option)) {
            if (option->state & State_KeyboardFocusChange)
                ring(option, painter, option->rect);
            return;
        }
        QProxyStyle::drawPrimitive(element, option, painter, widget);
        if (element == PE_PanelLineEdit && isDark(option) && (option->state & State_HasFocus))
            ring(option, painter, option->rect);
        if ((element == PE_IndicatorCheckBox || element == PE_IndicatorItemViewItemCheck) && isDark(option))
            boxEdge(option, painter);
    }

    void drawComplexControl(ComplexControl control, const QStyleOptionComplex* option, QPainter* painter,
        const QWidget* widget) const override
    {
        QProxyStyle::drawComplexControl(control, option, painter, widget);
        if ((control == CC_SpinBox || control == CC_ComboBox) && isDark(option) && (option->state & State_HasFocus))
            ring(option, painter, option->rect);
    }

private:
    static bool isDark(const QStyleOption* option)
    {
        return option->palette.color(QPalette::Window).lightnessF() < 0.5;
    }

    /// Fusion outlines a check box in the window colour darkened, which on a dark window is all but invisible
    /// (#1E1F22 on #2B2D30, 1.2:1): the edge in the text colour at 60%, over 3:1 (WCAG 2.1 §1.4.11, non-text contrast).
    static void boxEdge(const QStyleOption* option, QPainter* painter)
    {
        QColor edge = option->palette.color(QPalette::Text);
        edge.setAlphaF(0.6);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->setPen(QPen(edge, 1));
        painter->setBrush(Qt::NoBrush);
        const QRect box = option->rect.adjusted(0, 0, -1, -1);
        painter->drawRect(box);
        painter->restore();
    }

    static void ring(const QStyleOption* option, QPainter* painter, const QRect& rect)
    {
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(QPen(option->palette.color(QPalette::Link), 2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(QRectF(rect).adjusted(1, 1, -1, -1), 2, 2);
        painter->restore();
    }
};
} // namespace

void AppTheme::captureSystemPalette()
{
    g_systemDark = QApplication::palette().color(QPalette::Window).lightnessF() < 0.5;
    g_captured = true;
}

bool AppTheme::systemIsDark() { return g_captured && g_systemDark; }

bool AppTheme::isDark(ThemeMode mode)
{
    return mode == ThemeMode::Dark || (mode == ThemeMode::System && systemIsDark());
}

QPalette AppTheme::lightPalette()
{
    QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
    QPalette p = fusion ? fusion->standardPalette() : QPalette();
    delete fusion;
    return p;
}

QPalette AppTheme::darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Light, QColor(0x45, 0x47, 0x4a));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3c, 0x3f));
    p.setColor(QPalette::Mid, QColor(0x25, 0x26, 0x28));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9).darker(140)); // Okabe-Ito sky blue, darkened
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x56, 0xB4, 0xE9));
    p.setColor(QPalette::LinkVisited, QColor(0xCC, 0x79, 0xA7));
    for (auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

void AppTheme::apply(ThemeMode mode)
{
    if (!dynamic_cast<FocusRingStyle*>(qApp->style()))
        QApplication::setStyle(new FocusRingStyle); // the application owns it
    QApplication::setPalette(isDark(mode) ? darkPalette() : lightPalette());
}

} // namespace shardscope::ui
