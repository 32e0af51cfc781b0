// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Promises both fuzz targets check (fuzz_scenario.cpp: scenario text; fuzz_evaluate.cpp: structured scenarios).
// A broken promise aborts, which libFuzzer reports as a crash and saves the input.
#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/catalog_files.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#ifndef SHARDSCOPE_FUZZ_CATALOG_DIR
#error "SHARDSCOPE_FUZZ_CATALOG_DIR must name resources/catalog"
#endif

namespace shardscope_fuzz {

using namespace shardscope::core;

/// The scenario being checked, as a scenario file, printed with a broken promise (set by checkScenario).
inline std::string& currentScenarioJson()
{
    static std::string text;
    return text;
}

[[noreturn]] inline void fail(const char* what, const std::string& detail = {})
{
    std::fprintf(stderr, "fuzz: broken promise: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    if (!currentScenarioJson().empty())
        std::fprintf(stderr, "--- the scenario (shardscope-cli evaluate reproduces it) ---\n%s--- end ---\n",
            currentScenarioJson().c_str());
    std::abort();
}

inline const Catalog& catalog()
{
    static const Catalog c = [] {
        Catalog cat;
        const char* env = std::getenv("SHARDSCOPE_CATALOG_DIR");
        const auto errors = loadCatalogDirectory(env && *env ? env : SHARDSCOPE_FUZZ_CATALOG_DIR, cat);
        if (!errors.ok())
            fail("the catalog does not load", errors.errors.front());
        return cat;
    }();
    return c;
}

/// SHARDSCOPE_FUZZ_CHECKS=crash: only crashes, exceptions, sanitizer reports and missing messages; otherwise also
/// the numeric promises (finite, non-negative figures, no integer overflow) and the save/reopen round trip.
inline bool allChecks()
{
    static const bool all = [] {
        const char* v = std::getenv("SHARDSCOPE_FUZZ_CHECKS");
        return !(v && std::string_view(v) == "crash");
    }();
    return all;
}

inline void finite(const std::string& name, double v)
{
    if (!std::isfinite(v))
        fail("a figure of a valid result is not finite", name + " = " + std::to_string(v));
    if (v < 0)
        fail("a figure of a valid result is negative", name + " = " + std::to_string(v));
}

inline void checkMemory(const std::string& w, const MemoryBreakdown& m)
{
    finite(w + ".parameters", m.parameters);
    finite(w + ".gradients", m.gradients);
    finite(w + ".optimizer_states", m.optimizerStates);
    finite(w + ".activations", m.activations);
    finite(w + ".gathered_parameters", m.gatheredParameters);
    finite(w + ".communication_buffers", m.communicationBuffers);
    finite(w + ".framework_overhead", m.frameworkOverhead);
    finite(w + ".total", m.total());
}

/// README "Limits": within the limits validation enforces, no computation overflows.
inline void checkValidResult(const Result& r)
{
    finite("model.parameters", r.parameters);
    finite("model.active_parameters", r.activeParameters);
    finite("model.flops_per_token", r.flopsPerToken);
    if (r.gpus < 1 || r.dp < 1 || r.tp < 1 || r.pp < 1 || r.cp < 1 || r.ep < 1)
        fail("a layout degree of a valid result is below 1");
    if (r.microBatches < 1 || r.gradAccumulation < 1)
        fail("micro_batches of a valid result is below 1", std::to_string(r.microBatches));
    checkMemory("memory_per_gpu", r.memory);
    finite("capacity", r.capacity);
    if (r.stages.size() != static_cast<size_t>(r.pp))
        fail("pipeline_stages does not have pp entries");
    for (const auto& s : r.stages) {
        checkMemory("pipeline_stages[" + std::to_string(s.stage) + "].memory", s.memory);
        finite("pipeline_stages[].forward_time", s.forwardTime);
        finite("pipeline_stages[].backward_time", s.backwardTime);
        finite("pipeline_stages[].weight_grad_time", s.weightGradTime);
        if (s.layers < 0 || s.inFlight < 0)
            fail("a pipeline stage has negative layers or in-flight micro-batches");
    }
    finite("host_memory_per_node", r.hostMemoryPerNode);
    finite("nvme_per_node", r.nvmePerNode);
    for (const auto& c : r.collectives) {
        const std::string name = std::string("collective ") + toString(c.group) + " " + toString(c.op);
        if (c.count < 0)
            fail("a collective count is negative (integer overflow)", name + " count " + std::to_string(c.count));
        if (c.groupSize < 2)
            fail("a collective has a group of fewer than 2 GPUs", name);
        finite(name + " message_bytes", c.messageBytes);
        finite(name + " bytes", c.bytes);
        finite(name + " time", c.time);
        finite(name + " exposed_time", c.exposedTime);
    }
    for (double b : r.bytesByGroup)
        finite("communication_per_gpu.by_group", b);
    finite("communication_per_gpu.total_bytes", r.totalCommBytes);
    finite("step_time.compute", r.step.compute);
    finite("step_time.recompute", r.step.recompute);
    finite("step_time.exposed_communication", r.step.exposedCommunication);
    finite("step_time.pipeline_bubble", r.step.pipelineBubble);
    finite("step_time.offload", r.step.offload);
    finite("step_time.optimizer", r.step.optimizer);
    finite("step_time.total", r.step.total());
    if (!(r.step.total() > 0))
        fail("the step time of a valid result is not positive");
    finite("throughput.tokens_per_second", r.throughput.tokensPerSecond);
    finite("throughput.tokens_per_second_per_gpu", r.throughput.tokensPerSecondPerGpu);
    finite("throughput.model_tflops_per_gpu", r.throughput.modelTflopsPerGpu);
    finite("throughput.hardware_tflops_per_gpu", r.throughput.hardwareTflopsPerGpu);
    finite("throughput.mfu", r.throughput.mfu);
    finite("throughput.cost_per_step_usd", r.throughput.costPerStepUsd);
    if (r.minGpus < 0)
        fail("min_gpus is negative (integer overflow)", std::to_string(r.minGpus));
}

inline void checkIssues(const char* what, const std::vector<Issue>& issues, bool needField)
{
    for (const auto& i : issues) {
        if (i.message.empty())
            fail(what, "an issue without a message (field '" + i.field + "')");
        if (needField && i.field.empty())
            fail(what, "an issue that names no field: " + i.message);
    }
}

/// evaluate() agrees with validate(); valid results keep the numeric promises; the saved scenario reopens to the
/// same result (no lost work).
inline void checkScenario(const Scenario& s)
{
    currentScenarioJson() = scenarioToJson(s, catalog());
    const std::vector<Issue> issues = validate(s);
    checkIssues("validation", issues, true);
    const Result r = evaluate(s);
    if (r.valid != issues.empty())
        fail("evaluate().valid disagrees with validate()");
    const std::string json = resultToJson(r);
    if (json.empty())
        fail("resultToJson returned nothing");
    if (!r.valid || !allChecks())
        return;
    checkValidResult(r);

    const std::string saved = currentScenarioJson();
    const ScenarioParse again = parseScenario(saved, catalog());
    if (!again.ok())
        fail("a saved valid scenario does not parse again",
            again.errors.front().field + ": " + again.errors.front().message + "\n--- saved file ---\n" + saved);
    if (!again.warnings.empty())
        fail("a saved scenario has unknown fields", again.warnings.front().field);
    const Result r2 = evaluate(again.scenario);
    if (resultToJson(r2) != json)
        fail("a saved valid scenario evaluates differently after reopening", "--- saved file ---\n" + saved);
}

} // namespace shardscope_fuzz
