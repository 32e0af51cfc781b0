// SPDX-License-Identifier: GPL-3.0-or-later
// Catalog lookups by id, and a framework's profile applied to a scenario.
#include "shardscope/core/catalog.h"

namespace shardscope::core {

const GpuSpec* Catalog::gpu(std::string_view id) const
{
    for (const auto& g : gpus)
        if (g.id == id)
            return &g;
    return nullptr;
}
const LinkSpec* Catalog::link(std::string_view id) const
{
    for (const auto& l : links)
        if (l.id == id)
            return &l;
    return nullptr;
}
const ModelSpec* Catalog::model(std::string_view id) const
{
    for (const auto& m : models)
        if (m.id == id)
            return &m;
    return nullptr;
}

const FrameworkProfile* Catalog::profile(std::string_view id) const
{
    for (const auto& p : profiles)
        if (p.id == id)
            return &p;
    return nullptr;
}

bool applyFramework(Scenario& s, Framework f, const Catalog& catalog)
{
    const FrameworkProfile* p = catalog.profile(toString(f));
    if (!p && f != Framework::Megatron)
        return false;
    s.training.framework = f;
    s.profile = p ? *p : megatronProfile();
    return true;
}

} // namespace shardscope::core
