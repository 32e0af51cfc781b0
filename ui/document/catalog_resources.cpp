// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/catalog_resources.h"

#include <shardscope/core/catalog_files.h>

#include <QDir>
#include <QFile>

#include <string_view>

namespace shardscope::ui {

namespace {
using Parser = core::CatalogErrors (*)(std::string_view, core::Catalog&);

void loadOne(const QString& path, Parser parse, core::Catalog& into, QStringList& problems)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        problems << QStringLiteral("%1: %2").arg(path, file.errorString());
        return;
    }
    const QByteArray bytes = file.readAll();
    const core::CatalogErrors errors = parse(std::string_view(bytes.constData(), size_t(bytes.size())), into);
    for (const std::string& e : errors.errors)
        problems << QStringLiteral("%1: %2").arg(path, QString::fromStdString(e));
}
} // namespace

QStringList loadCatalogFromResources(core::Catalog& into)
{
    QStringList problems;
    loadOne(QStringLiteral(":/catalog/gpus.json"), &core::parseGpuCatalog, into, problems);
    loadOne(QStringLiteral(":/catalog/links.json"), &core::parseLinkCatalog, into, problems);
    loadOne(QStringLiteral(":/catalog/models.json"), &core::parseModelCatalog, into, problems);
    for (const std::string& name : core::profileFileNames())
        loadOne(QStringLiteral(":/profiles/") + QString::fromStdString(name), &core::parseProfileInto, into, problems);
    return problems;
}

QStringList exampleScenarioPaths()
{
    QStringList paths;
    const QDir dir(QStringLiteral(":/scenarios"));
    for (const QString& name : dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name))
        paths << dir.filePath(name);
    return paths;
}

} // namespace shardscope::ui
