// SPDX-License-Identifier: GPL-3.0-or-later
#include "format.h"

#include "shardscope/core/file_io.h"

#include "shardscope/core/scenario_json.h"
#include "shardscope/core/scenario_name.h"
#include "shardscope/core/uncertainty.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace shardscope::cli {

namespace {
std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}
std::string pad(const std::string& s, size_t w, bool right = false)
{
    size_t width = 0; // characters, not bytes: UTF-8 continuation bytes take no column
    for (unsigned char c : s)
        width += (c & 0xc0) != 0x80;
    if (width >= w)
        return s;
    return right ? std::string(w - width, ' ') + s : s + std::string(w - width, ' ');
}
/// Names and ids come from files: shown with control characters escaped, never sent raw to the terminal.
std::string esc(const std::string& text) { return core::escapeForTerminal(text); }
} // namespace

std::string bytes(double b)
{
    const double a = std::fabs(b);
    if (a >= 1024.0 * 1024 * 1024 * 1024)
        return fmt("%.2f TiB", b / (1024.0 * 1024 * 1024 * 1024));
    if (a >= 1024.0 * 1024 * 1024)
        return fmt("%.2f GiB", b / (1024.0 * 1024 * 1024));
    if (a >= 1024.0 * 1024)
        return fmt("%.1f MiB", b / (1024.0 * 1024));
    if (a >= 1024.0)
        return fmt("%.1f KiB", b / 1024.0);
    return fmt("%.0f B", b);
}

std::string seconds(double s)
{
    if (s >= 1)
        return fmt("%.3f s", s);
    if (s >= 1e-3)
        return fmt("%.2f ms", s * 1e3);
    return fmt("%.1f us", s * 1e6);
}

std::string count(double n)
{
    if (n >= 1e12)
        return fmt("%.2f T", n / 1e12);
    if (n >= 1e9)
        return fmt("%.2f B", n / 1e9);
    if (n >= 1e6)
        return fmt("%.2f M", n / 1e6);
    return fmt("%.0f", n);
}

void printResultTable(std::ostream& os, const core::Scenario& s, const core::Result& r)
{
    using namespace core;
    os << "Scenario: " << esc(scenarioTitle(s)) << "\n";
    os << "Model: " << esc(s.model.name.empty() ? s.model.id : s.model.name) << ", " << count(r.parameters)
       << " parameters (" << count(r.activeParameters) << " active)\n";
    os << "Cluster: " << s.cluster.nodes << " x " << s.cluster.gpusPerNode << " " << esc(s.cluster.gpu.name) << "\n";
    os << "Layout: " << r.gpus << " GPUs = dp " << r.dp << " x tp " << r.tp << " x pp " << r.pp << " x cp " << r.cp
       << ", ep " << r.ep << ", " << toString(s.parallelism.sharding) << ", " << r.microBatches
       << " micro-batches per step\n\n";
    os << "Memory per GPU (most loaded: stage " << r.peakStage << ")\n";
    for (const Term* t : termsOf(r.terms, TermGroup::Memory))
        os << "  " << pad(t->label, 24) << pad(bytes(t->value), 12, true) << "\n";
    os << "  " << pad("total", 24) << pad(bytes(r.memory.total()), 12, true) << "  of " << bytes(r.usable) << " usable"
       << (r.fits ? "" : " (OVER)") << "  " << rangePercent(r.memory.total(), r.memoryRange) << " ("
       << bytes(r.memoryRange.lo) << " – " << bytes(r.memoryRange.hi) << ": " << toString(r.verdict) << ")\n";
    os << "  " << pad("usable", 24) << pad(bytes(r.usable), 12, true) << "  = " << bytes(r.capacity)
       << " as the driver reports it − CUDA context − " << fmt("%g", 100 * s.cluster.memoryHeadroom) << "% headroom\n";
    if (r.hostMemoryPerNode > 0)
        os << "  " << pad("host memory per node", 24) << pad(bytes(r.hostMemoryPerNode), 12, true) << "\n";
    if (r.nvmePerNode > 0)
        os << "  " << pad("NVMe per node", 24) << pad(bytes(r.nvmePerNode), 12, true) << "\n";
    os << "\nCommunication per GPU per step: " << bytes(r.totalCommBytes) << "\n";
    os << "  " << pad("group", 6) << pad("op", 16) << pad("size", 6, true) << pad("calls", 9, true)
       << pad("bytes", 12, true) << pad("time", 11, true) << pad("exposed", 11, true) << "  algo/proto\n";
    for (const auto& c : r.collectives)
        os << "  " << pad(toString(c.group), 6) << pad(toString(c.op), 16) << pad(std::to_string(c.groupSize), 6, true)
           << pad(std::to_string(c.count), 9, true) << pad(bytes(c.bytes), 12, true) << pad(seconds(c.time), 11, true)
           << pad(seconds(c.exposedTime), 11, true) << "  " << toString(c.algo) << "/" << toString(c.proto)
           << (c.crossesNodes ? " (inter-node)" : "") << "\n";
    os << "\nStep time\n";
    for (const Term* t : termsOf(r.terms, TermGroup::StepTime))
        os << "  " << pad(t->label, 24) << pad(seconds(t->value), 12, true) << "\n";
    os << "  " << pad("total", 24) << pad(seconds(r.step.total()), 12, true) << "  "
       << rangePercent(r.step.total(), r.stepTimeRange) << "\n\n";
    os << "Throughput: " << fmt("%.0f", r.throughput.tokensPerSecond) << " tokens/s ("
       << fmt("%.0f", r.throughput.tokensPerSecondPerGpu) << " per GPU "
       << rangePercent(r.throughput.tokensPerSecondPerGpu, r.tokensPerGpuRange) << "), "
       << fmt("%.1f", r.throughput.modelTflopsPerGpu) << " model TFLOP/s per GPU, MFU "
       << fmt("%.1f", 100 * r.throughput.mfu) << "%\n";
    os << "Ranges: " << fmt("%.0f", 100 * r.uncertainty.band) << "% bands for a " << r.uncertainty.kind << " run, "
       << r.uncertainty.basis << " (" << fmt("%.0f", 100 * r.uncertainty.coverage)
       << "% of held-out throughput predictions of this kind fell inside their range)\n";
    if (r.throughput.costPerStepUsd > 0)
        os << "Cost per step: $" << fmt("%.4f", r.throughput.costPerStepUsd) << "\n";
    os << "Minimum GPUs for this strategy: " << (r.minGpus > 0 ? std::to_string(r.minGpus) : "none up to the limit")
       << "\n";
    for (const auto& w : r.warnings)
        os << "warning: " << esc(w.field) << ": " << esc(w.message) << "\n";
}

void printExplanation(std::ostream& os, const core::Result& r)
{
    using namespace core;
    const std::pair<TermGroup, const char*> groups[] = { { TermGroup::Model, "Model" },
        { TermGroup::Memory, "Memory per GPU (most loaded stage); the terms add up to the total" },
        { TermGroup::Capacity, "Usable memory per GPU: what the total must fit in" },
        { TermGroup::StepTime, "Step time (slowest pipeline stage); the terms add up to the total" },
        { TermGroup::Throughput, "Throughput" }, { TermGroup::Communication, "Communication per GPU per step" } };
    for (const auto& [group, title] : groups) {
        const auto terms = termsOf(r.terms, group);
        if (terms.empty())
            continue;
        os << title << "\n";
        for (const Term* t : terms) {
            os << "\n  " << esc(t->label) << " [" << t->key << "] = " << exprNumber(t->value) << " " << t->unit;
            if (t->unit == "B")
                os << " (" << bytes(t->value) << ")";
            else if (t->unit == "s")
                os << " (" << seconds(t->value) << ")";
            os << "\n    formula:    " << t->formula << "\n    expression: " << t->expression << "\n";
            for (const TermInput& in : t->inputs)
                os << "    " << pad(in.name, 10) << "= " << exprNumber(in.value)
                   << (in.unit.empty() ? "" : " " + in.unit) << (in.meaning.empty() ? "" : "  " + in.meaning) << "\n";
            os << "    source:     " << t->source << "\n    reference:  docs/model.md#" << t->anchor << "\n";
        }
        os << "\n";
    }
}

void printCatalogTable(std::ostream& os, const core::Catalog& c, const std::string& which)
{
    if (which == "gpus") {
        os << pad("id", 18) << pad("BF16 TFLOP/s", 14, true) << pad("memory", 12, true) << pad("HBM TB/s", 10, true)
           << pad("scale-up GB/s", 15, true) << "  name\n";
        for (const auto& g : c.gpus)
            os << pad(esc(g.id), 18) << pad(fmt("%.0f", g.bf16DenseFlops / 1e12), 14, true)
               << pad(bytes(g.memoryBytes), 12, true) << pad(fmt("%.2f", g.memoryBandwidth / 1e12), 10, true)
               << pad(fmt("%.0f", g.scaleUpBandwidth / 1e9), 15, true) << "  " << esc(g.name) << "\n";
    } else if (which == "interconnects") {
        os << pad("id", 14) << pad("kind", 11) << pad("GB/s/dir", 10, true) << pad("latency", 10, true)
           << pad("eff.", 6, true) << "  name\n";
        static const char* kinds[] = { "scale-up", "scale-out", "host", "storage" };
        for (const auto& l : c.links)
            os << pad(esc(l.id), 14) << pad(kinds[static_cast<int>(l.kind)], 11)
               << pad(fmt("%.1f", l.bandwidth / 1e9), 10, true) << pad(seconds(l.latency), 10, true)
               << pad(fmt("%.2f", l.efficiency), 6, true) << "  " << esc(l.name) << "\n";
    } else {
        os << pad("id", 18) << pad("params", 10, true) << pad("layers", 7, true) << pad("hidden", 7, true)
           << pad("heads", 6, true) << pad("kv", 4, true) << pad("vocab", 8, true) << "  name\n";
        for (const auto& m : c.models)
            os << pad(esc(m.id), 18) << pad(count(m.paramsPublished), 10, true)
               << pad(std::to_string(m.layers), 7, true) << pad(std::to_string(m.hidden), 7, true)
               << pad(std::to_string(m.heads), 6, true) << pad(std::to_string(m.kvHeads), 4, true)
               << pad(std::to_string(m.vocab), 8, true) << "  " << esc(m.name) << "\n";
    }
}

} // namespace shardscope::cli
