// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared helpers of the core tests: the shipped catalog, scenarios built from presets or JSON text,
// and a relative comparison that prints both values when it fails.
//
// Rule of these tests: every expected value is worked out in the test from the source formula
// (formulas.md / calibration.md / catalogs.md, cited beside it), never copied from the program's output.

#include "shardscope/core/catalog.h"
#include "shardscope/core/evaluate.h"
#include "shardscope/core/scenario_json.h"
#include "shardscope/core/catalog_files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef SHARDSCOPE_TEST_RESOURCES
#error "SHARDSCOPE_TEST_RESOURCES must name the resources/ directory"
#endif

namespace sstest {

using namespace shardscope::core;

/// The shipped catalogs (resources/catalog), loaded once. A broken catalog aborts the test binary.
inline const Catalog& catalog()
{
    static const Catalog loaded = [] {
        Catalog c;
        const CatalogErrors e = loadCatalogDirectory(SHARDSCOPE_TEST_RESOURCES "/catalog", c);
        if (!e.ok()) {
            std::fprintf(stderr, "cannot load the catalog from %s:\n", SHARDSCOPE_TEST_RESOURCES "/catalog");
            for (const auto& m : e.errors)
                std::fprintf(stderr, "  %s\n", m.c_str());
            std::abort();
        }
        return c;
    }();
    return loaded;
}

inline const ModelSpec& presetModel(const std::string& id)
{
    const ModelSpec* m = catalog().model(id);
    if (!m) {
        std::fprintf(stderr, "model preset '%s' is not in the catalog\n", id.c_str());
        std::abort();
    }
    return *m;
}

inline const GpuSpec& gpu(const std::string& id)
{
    const GpuSpec* g = catalog().gpu(id);
    if (!g) {
        std::fprintf(stderr, "GPU '%s' is not in the catalog\n", id.c_str());
        std::abort();
    }
    return *g;
}

inline const LinkSpec& link(const std::string& id)
{
    const LinkSpec* l = catalog().link(id);
    if (!l) {
        std::fprintf(stderr, "link '%s' is not in the catalog\n", id.c_str());
        std::abort();
    }
    return *l;
}

/// A scenario on a preset: the app's default scenario with the model, GPU and cluster shape replaced.
/// Training defaults: bf16-mixed AdamW, zero-paper accounting, micro-batch 1, global batch = one
/// micro-batch per data-parallel rank (so one micro-batch per step), tp = pp = cp = ep = 1.
inline Scenario presetScenario(const std::string& modelId, int nodes = 1, int gpusPerNode = 8,
    const std::string& gpuId = "h100-sxm5-80gb", const std::string& intra = "nvlink4",
    const std::string& inter = "ib-ndr400")
{
    Scenario s = defaultScenario(catalog());
    s.name = "test: " + modelId;
    s.model = presetModel(modelId);
    s.cluster.gpu = gpu(gpuId);
    s.cluster.intraNode = link(intra);
    s.cluster.interNode = link(inter);
    s.cluster.nodes = nodes;
    s.cluster.gpusPerNode = gpusPerNode;
    s.training.microBatch = 1;
    s.training.globalBatch = static_cast<int64_t>(nodes) * gpusPerNode;
    s.parallelism = Parallelism {};
    s.offload = Offload {};
    s.nccl = Nccl {};
    return s;
}

/// A GPT-style custom model (GPT-3 / Megatron: LayerNorm with bias, GELU MLP, learned positions,
/// tied embeddings, biases on every linear layer, MHA).
inline ModelSpec gptModel(int layers, int64_t hidden, int heads, int64_t ffn, int64_t vocab, int64_t maxSeq)
{
    ModelSpec m;
    m.name = "test GPT";
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kvHeads = heads;
    m.ffnHidden = ffn;
    m.vocab = vocab;
    m.maxSeq = maxSeq;
    m.mlp = Mlp::Gelu;
    m.norm = Norm::LayerNorm;
    m.position = PositionEmbedding::Learned;
    m.tiedEmbeddings = true;
    m.linearBias = true;
    return m;
}

/// Sets the data-parallel batch so that every rank runs `microBatchesPerStep` micro-batches of `micro`.
inline void setBatch(Scenario& s, int64_t micro, int64_t microBatchesPerStep)
{
    s.training.microBatch = micro;
    s.training.globalBatch = micro * microBatchesPerStep * dataParallel(s);
}

inline bool relClose(double actual, double expected, double tol)
{
    if (!std::isfinite(actual) || !std::isfinite(expected))
        return false;
    if (expected == 0)
        return std::fabs(actual) <= tol;
    return std::fabs(actual - expected) <= tol * std::fabs(expected);
}

inline QString relMessage(const char* what, double actual, double expected, double tol)
{
    const double err = expected != 0 ? (actual - expected) / expected : actual;
    return QStringLiteral("%1 = %2, expected %3 (relative error %4, tolerance %5)")
        .arg(QString::fromLatin1(what))
        .arg(actual, 0, 'g', 17)
        .arg(expected, 0, 'g', 17)
        .arg(err, 0, 'g', 4)
        .arg(tol, 0, 'g', 3);
}

/// Everything the validator or parser said, one item per line (for failure messages).
inline QString issuesText(const std::vector<Issue>& issues)
{
    QStringList out;
    for (const auto& i : issues)
        out << QString::fromStdString(i.field + ": " + i.message);
    return out.join(QStringLiteral("; "));
}

inline bool hasIssue(const std::vector<Issue>& issues, const std::string& field, const std::string& fragment = {})
{
    for (const auto& i : issues)
        if (i.field == field && (fragment.empty() || i.message.find(fragment) != std::string::npos))
            return true;
    return false;
}

/// Parses scenario JSON text with the shipped catalog.
inline ScenarioParse parse(const std::string& json) { return parseScenario(json, catalog()); }

/// The collectives of one group and op (there may be several, e.g. dense and expert gradients).
inline double collectiveBytes(const Result& r, Group g, CollectiveOp op)
{
    double b = 0;
    for (const auto& c : r.collectives)
        if (c.group == g && c.op == op)
            b += c.bytes;
    return b;
}

inline const Collective* findCollective(const Result& r, Group g, CollectiveOp op)
{
    for (const auto& c : r.collectives)
        if (c.group == g && c.op == op)
            return &c;
    return nullptr;
}

inline double modelStates(const MemoryBreakdown& m) { return m.parameters + m.gradients + m.optimizerStates; }

/// Shipped scenario files (resources/scenarios/*.json), sorted by name.
inline QStringList shippedScenarioFiles()
{
    QDir dir(QStringLiteral(SHARDSCOPE_TEST_RESOURCES "/scenarios"));
    QStringList files = dir.entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name);
    for (QString& f : files)
        f = dir.filePath(f);
    return files;
}

inline std::string readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

} // namespace sstest

/// QVERIFY that |actual − expected| ≤ tol·|expected|, printing both values on failure.
#define SS_COMPARE_REL(actual, expected, tol)                                                                          \
    do {                                                                                                               \
        const double ss_a_ = static_cast<double>(actual);                                                              \
        const double ss_e_ = static_cast<double>(expected);                                                            \
        QVERIFY2(                                                                                                      \
            ::sstest::relClose(ss_a_, ss_e_, (tol)), qPrintable(::sstest::relMessage(#actual, ss_a_, ss_e_, (tol))));  \
    } while (false)

/// evaluate() the scenario into `var` and QVERIFY that it is valid.
#define SS_EVALUATE(var, scenario)                                                                                     \
    const ::shardscope::core::Result var = ::shardscope::core::evaluate(scenario);                                     \
    QVERIFY2(var.valid, qPrintable(QStringLiteral("invalid scenario: ") + ::sstest::issuesText(var.issues)))
