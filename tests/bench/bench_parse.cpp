// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: parsing hostile documents (issue 12): a 16 MiB list of empty objects (refused by the pre-scan: more than
// 2^20 values) and a 3.5 MB member holding 390,000 objects (parsed whole; the duplicate-key check is linear), and
// explain() (evaluate + the named terms the views list) on the default scenario; and (issue 23) a 1 MB torchtitan
// TOML file of 99,000 keys in one table, imported (18.6 s when each key was looked up by a linear scan).
// Prints `bench: parse_list_16mib_ms`, `bench: parse_members_3mb_ms`, `bench: parse_toml_1mb_ms`, `bench: explain_median_us`.
#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/import.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/catalog_files.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {
double millisecondsToParse(const std::string& text, const shardscope::core::Catalog& catalog)
{
    const auto t0 = std::chrono::steady_clock::now();
    const auto parsed = shardscope::core::parseScenario(text, catalog);
    const auto t1 = std::chrono::steady_clock::now();
    if (parsed.errors.empty() && parsed.warnings.empty())
        std::printf("unexpected: the hostile document parsed cleanly\n");
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}
} // namespace

int main(int argc, char** argv)
{
    const std::string resources = argc > 1 ? argv[1] : SHARDSCOPE_TEST_RESOURCES;
    shardscope::core::Catalog catalog;
    if (!shardscope::core::loadCatalogDirectory(resources + "/catalog", catalog).ok())
        return 1;
    std::string list = "[";
    while (list.size() < 16u * 1024 * 1024 - 8)
        list += "{},";
    list += "{}]";
    std::string members = R"({"schema": "shardscope.scenario/1", "x": [)";
    while (members.size() < 3500000)
        members += R"({"a": 1},)";
    members += "{}]}";
    std::printf("bench: parse_list_16mib_ms %.1f ms\n", millisecondsToParse(list, catalog));
    std::printf("bench: parse_members_3mb_ms %.1f ms\n", millisecondsToParse(members, catalog));
    std::string toml = "[training]\n";
    for (int i = 0; i < 99000; ++i)
        toml += "key" + std::to_string(i) + " = 1\n";
    {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = shardscope::core::importConfig(shardscope::core::ImportSource::TorchTitan, toml,
            shardscope::core::defaultScenario(catalog), true, {}, catalog);
        const auto t1 = std::chrono::steady_clock::now();
        if (r.warnings.empty())
            std::printf("unexpected: 99,000 unknown keys without a warning\n");
        std::printf("bench: parse_toml_1mb_ms %.1f ms (%zu bytes, 99,000 keys)\n",
            std::chrono::duration<double, std::milli>(t1 - t0).count(), toml.size());
    }

    const auto s = shardscope::core::defaultScenario(catalog);
    std::vector<double> us;
    for (int i = 0; i < 200; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = shardscope::core::explain(s);
        const auto t1 = std::chrono::steady_clock::now();
        if (r.terms.empty())
            return 1;
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    std::sort(us.begin(), us.end());
    std::printf("bench: explain_median_us %.1f us\n", us[us.size() / 2]);
    return 0;
}
