// SPDX-License-Identifier: GPL-3.0-or-later
// Catalogs from files: resources/catalog/*.json and the framework profiles beside them.
#include "shardscope/core/catalog_files.h"
#include "shardscope/core/profile_json.h"

#include "json_fields.h"

#include "shardscope/core/file_io.h"

#include <cstdlib>
#include <filesystem>

#ifndef SHARDSCOPE_SOURCE_CATALOG_DIR
#define SHARDSCOPE_SOURCE_CATALOG_DIR ""
#endif
#ifndef SHARDSCOPE_INSTALLED_BIN_DIR
#define SHARDSCOPE_INSTALLED_BIN_DIR ""
#endif
#ifndef SHARDSCOPE_INSTALLED_CATALOG_DIR
#define SHARDSCOPE_INSTALLED_CATALOG_DIR ""
#endif

namespace shardscope::core {
namespace {

template <class T, class Read>
CatalogErrors parseList(std::string_view text, const char* listKey, std::vector<T>& into, Read read)
{
    CatalogErrors out;
    detail::json j;
    std::string err;
    if (!detail::parseJsonText(text, j, err)) {
        out.errors.push_back(err);
        return out;
    }
    if (!j.is_object() || !j.contains(listKey) || !j[listKey].is_array()) {
        out.errors.push_back(std::string("the catalog must be an object with a '") + listKey + "' array");
        return out;
    }
    std::vector<Issue> issues;
    detail::FieldReader r(issues, nullptr);
    const auto& list = j[listKey];
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string path = std::string(listKey) + "[" + std::to_string(i) + "]";
        if (!list[i].is_object()) {
            issues.push_back({ path, "must be an object" });
            continue;
        }
        T item;
        read(r, list[i], path, item);
        if (!list[i].contains("id"))
            issues.push_back({ path + ".id", "is required" });
        if (!list[i].contains("source"))
            issues.push_back(
                { path + ".source", "is required: every catalog entry names where its figures come from" });
        into.push_back(std::move(item));
    }
    for (const auto& i : issues)
        out.errors.push_back(i.field + ": " + i.message);
    return out;
}

bool exists(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

} // namespace

CatalogErrors parseProfileInto(std::string_view json, Catalog& into)
{
    ProfileParse parsed = parseProfile(json);
    CatalogErrors out;
    out.errors = std::move(parsed.errors);
    if (!out.ok())
        return out;
    for (auto& p : into.profiles)
        if (p.id == parsed.profile.id) {
            p = std::move(parsed.profile);
            return out;
        }
    into.profiles.push_back(std::move(parsed.profile));
    return out;
}

std::vector<std::string> profileFileNames()
{
    return { "megatron.json", "deepspeed.json", "pytorch.json", "pytorch-compile.json" };
}

CatalogErrors parseGpuCatalog(std::string_view json, Catalog& into)
{
    return parseList(
        json, "gpus", into.gpus, [](detail::FieldReader& r, const detail::json& o, const std::string& p, GpuSpec& g) {
            detail::readGpu(r, o, p, g, true);
        });
}
CatalogErrors parseLinkCatalog(std::string_view json, Catalog& into)
{
    return parseList(json, "links", into.links,
        [](detail::FieldReader& r, const detail::json& o, const std::string& p, LinkSpec& l) {
            detail::readLink(r, o, p, l, true);
        });
}
CatalogErrors parseModelCatalog(std::string_view json, Catalog& into)
{
    return parseList(json, "models", into.models,
        [](detail::FieldReader& r, const detail::json& o, const std::string& p, ModelSpec& m) {
            detail::readModel(r, o, p, m, true);
            r.number(o, "params_published", p, m.paramsPublished);
        });
}

CatalogErrors loadCatalogDirectory(const std::string& dir, Catalog& into)
{
    CatalogErrors all;
    const std::pair<const char*, CatalogErrors (*)(std::string_view, Catalog&)> files[]
        = { { "gpus.json", parseGpuCatalog }, { "links.json", parseLinkCatalog },
              { "models.json", parseModelCatalog } };
    for (const auto& [name, parse] : files) {
        const std::string path = dir + "/" + name;
        std::string text, error;
        if (!readRegularFile(path, detail::kMaxJsonBytes, text, error)) { // a link to /dev/zero, a FIFO: refused
            all.errors.push_back(error);
            continue;
        }
        for (auto& e : parse(text, into).errors)
            all.errors.push_back(path + ": " + e);
    }
    const std::string profiles = dir + "/../profiles";
    std::error_code ec;
    if (std::filesystem::is_directory(profiles, ec)) {
        for (const std::string& name : profileFileNames()) {
            const std::string path = profiles + "/" + name;
            std::string text, error;
            if (!readRegularFile(path, detail::kMaxJsonBytes, text, error)) {
                all.errors.push_back(error);
                continue;
            }
            for (auto& e : parseProfileInto(text, into).errors)
                all.errors.push_back(path + ": " + e);
        }
    }
    return all;
}

std::string defaultCatalogDirectory()
{
    if (const char* env = std::getenv("SHARDSCOPE_CATALOG_DIR"); env && *env)
        return env;
    // An installed program reads the installed catalogs; a build-tree program the source tree's.
    std::error_code ec;
    const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    const std::string bindir = SHARDSCOPE_INSTALLED_BIN_DIR;
    const bool installed = !ec && !bindir.empty() && exe.rfind(bindir + "/", 0) == 0;
    const char* order[2] = { SHARDSCOPE_SOURCE_CATALOG_DIR, SHARDSCOPE_INSTALLED_CATALOG_DIR };
    if (installed)
        std::swap(order[0], order[1]);
    for (const char* dir : order)
        if (*dir && exists(std::string(dir) + "/gpus.json"))
            return dir;
    return SHARDSCOPE_INSTALLED_CATALOG_DIR;
}

} // namespace shardscope::core
