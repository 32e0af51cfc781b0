// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// GPU, interconnect and model catalogs (resources/catalog/*.json) and framework profiles, parsed from text and files.

#include "shardscope/core/catalog.h"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

/// Parse errors name a JSON pointer-ish path ("gpus[3].memory_bytes") and the rule.
struct CatalogErrors {
    std::vector<std::string> errors;
    [[nodiscard]] bool ok() const { return errors.empty(); }
};

CatalogErrors parseGpuCatalog(std::string_view json, Catalog& into);
CatalogErrors parseLinkCatalog(std::string_view json, Catalog& into);
CatalogErrors parseModelCatalog(std::string_view json, Catalog& into);
/// One shardscope.profile/1 document (resources/profiles/ID.json); replaces a profile of the same id.
CatalogErrors parseProfileInto(std::string_view json, Catalog& into);

/// The framework profiles' files, by id, beside a catalog directory (DIR/../profiles/ID.json).
std::vector<std::string> profileFileNames();

/// Reads gpus.json, links.json and models.json from a directory, and the framework profiles from DIR/../profiles
/// when that folder exists (used by the CLI and tests).
CatalogErrors loadCatalogDirectory(const std::string& directory, Catalog& into);

/// The directory the CLI reads catalogs from: $SHARDSCOPE_CATALOG_DIR, the source tree, or the installed share dir.
std::string defaultCatalogDirectory();

} // namespace shardscope::core
