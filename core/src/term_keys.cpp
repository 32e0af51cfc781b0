// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/term_keys.h"

#include <algorithm>
#include <array>

namespace shardscope::core {

namespace {
using M = MemoryBreakdown;
using S = StepTime;
// The order of MemoryBreakdown::total() and StepTime::total() (docs/model.md §memory, §step-time).
constexpr std::array<TermKey, 13> kTermKeys = { {
    { "memory.parameters", TermGroup::Memory, "Parameters", "B", "model-states", &M::parameters, nullptr },
    { "memory.gradients", TermGroup::Memory, "Gradients", "B", "model-states", &M::gradients, nullptr },
    { "memory.optimizer_states", TermGroup::Memory, "Optimizer states", "B", "model-states", &M::optimizerStates,
        nullptr },
    { "memory.activations", TermGroup::Memory, "Activations", "B", "activations", &M::activations, nullptr },
    { "memory.gathered_parameters", TermGroup::Memory, "Gathered parameters", "B", "gathered-parameters",
        &M::gatheredParameters, nullptr },
    { "memory.communication_buffers", TermGroup::Memory, "Communication buffers", "B", "communication-buffers",
        &M::communicationBuffers, nullptr },
    { "memory.framework_overhead", TermGroup::Memory, "Framework overhead", "B", "framework-overhead",
        &M::frameworkOverhead, nullptr },
    { "step_time.compute", TermGroup::StepTime, "Compute", "s", "compute-time", nullptr, &S::compute },
    { "step_time.recompute", TermGroup::StepTime, "Recompute", "s", "recompute", nullptr, &S::recompute },
    { "step_time.exposed_communication", TermGroup::StepTime, "Exposed communication", "s", "communication-time",
        nullptr, &S::exposedCommunication },
    { "step_time.pipeline_bubble", TermGroup::StepTime, "Pipeline bubble", "s", "pipeline-bubble", nullptr,
        &S::pipelineBubble },
    { "step_time.offload", TermGroup::StepTime, "Offload", "s", "offload-time", nullptr, &S::offload },
    { "step_time.optimizer", TermGroup::StepTime, "Optimizer step", "s", "optimizer-time", nullptr, &S::optimizer },
} };
constexpr auto kMemoryKeys
    = std::count_if(kTermKeys.begin(), kTermKeys.end(), [](const TermKey& k) { return k.group == TermGroup::Memory; });
} // namespace

std::span<const TermKey> termKeys() { return kTermKeys; }

std::span<const TermKey> termKeys(TermGroup group)
{
    const std::span<const TermKey> all = kTermKeys;
    switch (group) {
    case TermGroup::Memory: return all.first(kMemoryKeys);
    case TermGroup::StepTime: return all.subspan(kMemoryKeys);
    default: return {};
    }
}

const TermKey* findTermKey(std::string_view key)
{
    const auto it = std::find_if(kTermKeys.begin(), kTermKeys.end(), [key](const TermKey& k) { return k.key == key; });
    return it == kTermKeys.end() ? nullptr : &*it;
}

double breakdownValue(const MemoryBreakdown& memory, std::string_view key)
{
    const TermKey* k = findTermKey(key);
    return k && k->memory ? memory.*(k->memory) : 0.0;
}

double breakdownValue(const StepTime& step, std::string_view key)
{
    const TermKey* k = findTermKey(key);
    return k && k->step ? step.*(k->step) : 0.0;
}

} // namespace shardscope::core
