// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/catalog.h>

#include <QStringList>

namespace shardscope::ui {

/// Reads the catalogs compiled in as Qt resources (:/catalog/gpus.json, links.json, models.json) into `into`.
/// Returns the problems, each naming the file; empty on success.
QStringList loadCatalogFromResources(core::Catalog& into);

/// The example scenarios compiled in (:/scenarios/*.json), sorted by file name.
QStringList exampleScenarioPaths();

} // namespace shardscope::ui
