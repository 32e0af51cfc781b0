// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "settings/app_settings.h"

#include <QPalette>

namespace shardscope::ui {

/// Fusion style with a light or dark palette. Qt 6.4 has no colour-scheme query, so "system" means the
/// palette the platform theme gave before Fusion was set (captureSystemPalette() in main, first thing).
class AppTheme
{
public:
    /// Remembers whether the platform's palette is dark. Call before apply().
    static void captureSystemPalette();
    [[nodiscard]] static bool systemIsDark();
    /// Sets Fusion (with a 2 px focus ring in the link colour on a dark palette) and the palette for mode on the
    /// application; charts re-colour on the PaletteChange.
    static void apply(ThemeMode mode);
    [[nodiscard]] static bool isDark(ThemeMode mode);
    [[nodiscard]] static QPalette lightPalette();
    [[nodiscard]] static QPalette darkPalette();
};

} // namespace shardscope::ui
