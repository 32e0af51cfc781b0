// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared set-up of the GUI tests and gui_bench: the catalog from the compiled-in resources, paths in the
// source tree, settings in a throwaway INI file.

#include "document/catalog_resources.h"
#include "document/scenario_file.h"

#include <shardscope/core/catalog.h>

#include <QDir>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>

namespace shardscope::test {

/// The catalog the app uses, read once from :/catalog/*.json. Aborts the test run if it does not load.
inline const core::Catalog& catalog()
{
    static const core::Catalog c = [] {
        core::Catalog cat;
        const QStringList problems = ui::loadCatalogFromResources(cat);
        for (const QString& p : problems)
            std::fprintf(stderr, "catalog: %s\n", qPrintable(p));
        if (cat.gpus.empty() || cat.models.empty() || cat.links.empty()) {
            std::fprintf(stderr, "catalog resources missing\n");
            std::abort();
        }
        return cat;
    }();
    return c;
}

inline QString sourcePath(const QString& relative)
{
    return QDir(QStringLiteral(SHARDSCOPE_SOURCE_DIR)).filePath(relative);
}

inline core::Scenario loadScenario(const QString& relative)
{
    const ui::ScenarioLoad load = ui::readScenarioFile(sourcePath(relative), catalog());
    if (!load.ok()) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(relative), qPrintable(load.errors.join(QLatin1Char(';'))));
        std::abort();
    }
    return load.scenario;
}

} // namespace shardscope::test
