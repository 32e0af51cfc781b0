// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The only include of <qcustomplot.h> (precompiled for shardscope_ui). QCUSTOMPLOT_USE_LIBRARY comes from CMake;
// never define QCUSTOMPLOT_USE_OPENGL (Debian's library is built without it and the ABI would differ).
#include <qcustomplot.h>
