// SPDX-License-Identifier: GPL-3.0-or-later
// Breaks the build the day someone links Qt into the core.
#ifdef QT_CORE_LIB
#error "shardscope_core must stay Qt-free"
#endif
