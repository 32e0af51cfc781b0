// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/scenario_name.h"

#include "shardscope/core/enum_names.h"

#include <sstream>
#include <vector>

namespace shardscope::core {

namespace {

std::vector<std::string> words(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

bool isFormFactor(const std::string& w)
{
    return w.rfind("SXM", 0) == 0 && w.find_first_not_of("0123456789", 3) == std::string::npos;
}

/// "NVIDIA H100 SXM5 80GB" -> "H100 80GB"; "NVIDIA B200 180GB (HGX B200)" -> "B200 180GB".
std::string gpuShortName(const GpuSpec& gpu)
{
    std::string name = gpu.name.empty() ? gpu.id : gpu.name;
    if (const size_t paren = name.find(" ("); paren != std::string::npos)
        name.erase(paren);
    std::string out;
    for (const std::string& w : words(name)) {
        if ((!gpu.vendor.empty() && w == gpu.vendor && out.empty()) || isFormFactor(w))
            continue;
        out += (out.empty() ? "" : " ") + w;
    }
    return out.empty() ? (gpu.id.empty() ? std::string("GPU") : gpu.id) : out;
}

} // namespace

std::string generatedName(const Scenario& s)
{
    std::string out = !s.model.name.empty() ? s.model.name : (!s.model.id.empty() ? s.model.id : "Custom model");
    out += ", " + std::to_string(s.cluster.nodes) + " x " + std::to_string(s.cluster.gpusPerNode) + " "
        + gpuShortName(s.cluster.gpu);
    out += ", ";
    out += shardingName(s.parallelism.sharding).longLabel;
    if (s.offload.optimizer != OffloadTarget::None && s.offload.optimizer == s.offload.parameters)
        out += std::string(" + ") + offloadLabel(s.offload.optimizer) + " offload";
    else {
        if (s.offload.optimizer != OffloadTarget::None)
            out += std::string(" + ") + offloadLabel(s.offload.optimizer) + " optimizer offload";
        if (s.offload.parameters != OffloadTarget::None)
            out += std::string(" + ") + offloadLabel(s.offload.parameters) + " parameter offload";
    }
    // The model-parallel degrees that are not 1, in Megatron's order; dp follows from the GPU count.
    std::string layout;
    const auto degree = [&layout](const char* label, int value) {
        if (value > 1)
            layout += (layout.empty() ? "" : " x ") + std::string(label) + " " + std::to_string(value);
    };
    degree("TP", s.parallelism.tp);
    degree("PP", s.parallelism.pp);
    degree("CP", s.parallelism.cp);
    degree("EP", s.parallelism.ep);
    if (!layout.empty())
        out += ", " + layout;
    return out;
}

std::string scenarioTitle(const Scenario& s) { return s.name.empty() ? generatedName(s) : s.name; }

} // namespace shardscope::core
