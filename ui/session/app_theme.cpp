// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/app_theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace shardscope::ui {

namespace {
bool g_systemDark = false;
bool g_captured = false;
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
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

void AppTheme::apply(ThemeMode mode)
{
    if (!qApp->style() || qApp->style()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) != 0)
        QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(isDark(mode) ? darkPalette() : lightPalette());
}

} // namespace shardscope::ui
