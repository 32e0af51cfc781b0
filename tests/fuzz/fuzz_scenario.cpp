// SPDX-License-Identifier: GPL-3.0-or-later
// Fuzz target over the whole input path of a scenario file: parseScenario -> validate -> evaluate -> resultToJson,
// plus the save/reopen round trip (scenarioToJson -> parseScenario -> evaluate gives the same result).
//
// Built two ways (tests/fuzz/CMakeLists.txt):
//  * with clang and SHARDSCOPE_FUZZ=ON: a libFuzzer binary (`./dev.sh fuzz [SECONDS]`);
//  * otherwise: a replay program (main() below) that runs every file given on its command line through the same
//    checks; ctest runs it over resources/scenarios and tests/fuzz/regressions.
//
// Any broken promise aborts, which libFuzzer reports as a crash and saves the input:
//  - no exception escapes parseScenario, evaluate, resultToJson or scenarioToJson;
//  - every parse error and every validation issue has a message, and every validation issue names its field;
//  - evaluate(s).valid == validate(s).empty();
//  - for a valid scenario every figure is finite and not negative, every collective count is >= 0, min_gpus >= 0
//    (README "Limits": within the limits no computation overflows);
//  - a valid scenario, saved with scenarioToJson and parsed again, evaluates to the same result JSON.
// SHARDSCOPE_FUZZ_CHECKS=crash keeps only the first three (crashes, exceptions, sanitizer reports, missing messages)
// while a known numeric or round-trip defect waits for its fix.
#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/scenario_json.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#ifndef SHARDSCOPE_FUZZ_CATALOG_DIR
#error "SHARDSCOPE_FUZZ_CATALOG_DIR must name resources/catalog"
#endif

namespace {

using namespace shardscope::core;

[[noreturn]] void fail(const char* what, const std::string& detail = {})
{
    std::fprintf(stderr, "fuzz_scenario: broken promise: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}

const Catalog& catalog()
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

void finite(const char* name, double v)
{
    if (!std::isfinite(v))
        fail("a figure of a valid result is not finite", name);
    if (v < 0)
        fail("a figure of a valid result is negative", std::string(name) + " = " + std::to_string(v));
}

void checkMemory(const char* where, const MemoryBreakdown& m)
{
    const std::string w = where;
    finite((w + ".parameters").c_str(), m.parameters);
    finite((w + ".gradients").c_str(), m.gradients);
    finite((w + ".optimizer_states").c_str(), m.optimizerStates);
    finite((w + ".activations").c_str(), m.activations);
    finite((w + ".gathered_parameters").c_str(), m.gatheredParameters);
    finite((w + ".communication_buffers").c_str(), m.communicationBuffers);
    finite((w + ".framework_overhead").c_str(), m.frameworkOverhead);
    finite((w + ".total").c_str(), m.total());
}

void checkValidResult(const Result& r)
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
        checkMemory("pipeline_stages[].memory", s.memory);
        finite("pipeline_stages[].forward_time", s.forwardTime);
        finite("pipeline_stages[].backward_time", s.backwardTime);
        finite("pipeline_stages[].weight_grad_time", s.weightGradTime);
        if (s.layers < 0 || s.inFlight < 0)
            fail("a pipeline stage has negative layers or in-flight micro-batches");
    }
    finite("host_memory_per_node", r.hostMemoryPerNode);
    finite("nvme_per_node", r.nvmePerNode);
    for (const auto& c : r.collectives) {
        if (c.count < 0)
            fail("a collective count is negative (integer overflow)",
                std::string(toString(c.group)) + " " + toString(c.op) + " count " + std::to_string(c.count));
        if (c.groupSize < 2)
            fail("a collective has a group of fewer than 2 GPUs");
        finite("collectives[].message_bytes", c.messageBytes);
        finite("collectives[].bytes", c.bytes);
        finite("collectives[].time", c.time);
        finite("collectives[].exposed_time", c.exposedTime);
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
    finite("throughput.tokens_per_second", r.throughput.tokensPerSecond);
    finite("throughput.tokens_per_second_per_gpu", r.throughput.tokensPerSecondPerGpu);
    finite("throughput.model_tflops_per_gpu", r.throughput.modelTflopsPerGpu);
    finite("throughput.hardware_tflops_per_gpu", r.throughput.hardwareTflopsPerGpu);
    finite("throughput.mfu", r.throughput.mfu);
    finite("throughput.cost_per_step_usd", r.throughput.costPerStepUsd);
    if (r.minGpus < 0)
        fail("min_gpus is negative (integer overflow)", std::to_string(r.minGpus));
}

void checkIssues(const char* what, const std::vector<Issue>& issues, bool needField)
{
    for (const auto& i : issues) {
        if (i.message.empty())
            fail(what, "an issue without a message (field '" + i.field + "')");
        if (needField && i.field.empty())
            fail(what, "an issue that names no field: " + i.message);
    }
}

bool allChecks()
{
    static const bool all = [] {
        const char* v = std::getenv("SHARDSCOPE_FUZZ_CHECKS");
        return !(v && std::string_view(v) == "crash");
    }();
    return all;
}

void run(std::string_view text)
{
    const Catalog& cat = catalog();
    const ScenarioParse parsed = parseScenario(text, cat);
    checkIssues("parse errors", parsed.errors, false);
    checkIssues("parse warnings", parsed.warnings, true);
    if (!parsed.ok())
        return;

    const std::vector<Issue> issues = validate(parsed.scenario);
    checkIssues("validation", issues, true);
    const Result r = evaluate(parsed.scenario);
    if (r.valid != issues.empty())
        fail("evaluate().valid disagrees with validate()");
    const std::string json = resultToJson(r);
    if (json.empty())
        fail("resultToJson returned nothing");
    if (!r.valid || !allChecks())
        return;
    checkValidResult(r);

    // Save and reopen: the saved file must describe the same training run (no lost work).
    const std::string saved = scenarioToJson(parsed.scenario, cat);
    const ScenarioParse again = parseScenario(saved, cat);
    if (!again.ok())
        fail("a saved valid scenario does not parse again", again.errors.front().field + ": " + again.errors.front().message
            + "\n--- saved file ---\n" + saved);
    if (!again.warnings.empty())
        fail("a saved scenario has unknown fields", again.warnings.front().field);
    const Result r2 = evaluate(again.scenario);
    if (resultToJson(r2) != json)
        fail("a saved valid scenario evaluates differently after reopening", "--- saved file ---\n" + saved);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    run(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}

#ifndef SHARDSCOPE_LIBFUZZER
// Replay driver: fuzz_scenario_replay FILE... (directories are not expanded; the shell does that).
#include <fstream>
#include <iterator>

int main(int argc, char** argv)
{
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "fuzz_scenario_replay: %s: cannot be opened\n", argv[i]);
            return 1;
        }
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::fprintf(stderr, "fuzz_scenario_replay: %s\n", argv[i]);
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text.data()), text.size());
        ++n;
    }
    std::printf("fuzz_scenario_replay: %d inputs, all promises kept\n", n);
    return 0;
}
#endif
