// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Megatron-LM calibration rows of shared/reference/calibration.md (§A: Narayanan et al. SC21 Table 1; §B:
// Korthikanti et al. MLSys23 Table 5) as scenario JSON: tst_calibration checks them against README's figures,
// tst_published_runs takes their errors into the uncertainty table.
//
// All rows: Selene DGX A100 80GB (312 TFLOP/s BF16 dense), 8 GPUs per node on NVLink 3 / NVSwitch, 8 × HDR 200 Gb/s
// InfiniBand per node; GPT decoder, GELU MLP (4h), MHA, learned positions, LayerNorm, vocabulary 51,200,
// sequence 2048, mixed precision, Megatron-LM (fp32 main gradients: "megatron" accounting).

#include <algorithm>
#include <cstdio>
#include <string>

namespace sstest::megatron {

constexpr double kSeq = 2048, kVocab = 51200;

struct Table1Row {
    double paramsB;
    int heads, hidden, layers, tp, pp, gpus, globalBatch;
    double measuredTflops;
};
// calibration.md §A (Narayanan et al. Table 1): full recomputation, interleaved 1F1B, micro-batch 1.
inline constexpr Table1Row kTable1[] = {
    { 1.7, 24, 2304, 24, 1, 1, 32, 512, 137 },
    { 3.6, 32, 3072, 30, 2, 1, 64, 512, 138 },
    { 7.5, 32, 4096, 36, 4, 1, 128, 512, 142 },
    { 18.4, 48, 6144, 40, 8, 1, 256, 1024, 135 },
    { 39.1, 64, 8192, 48, 8, 2, 512, 1536, 138 },
    { 76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140 },
    { 145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148 },
    { 310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155 },
    { 529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163 },
    { 1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163 },
};

struct Table5Row {
    const char* name;
    int heads, hidden, layers, tp, pp, gpus, globalBatch, microBatch;
    double fullRecomputeSeconds, spSelectiveSeconds;
    int virtualStages; // 3 for 175B and 530B (calibration.md §B); else 2 with pp > 1, 1 without
};
// calibration.md §B (Korthikanti et al. Table 5): TP 8, no data parallelism.
inline constexpr Table5Row kTable5[] = {
    { "22B", 64, 6144, 48, 8, 1, 8, 4, 4, 1.42, 1.10, 1 },
    { "175B", 96, 12288, 96, 8, 8, 64, 64, 1, 18.13, 13.75, 3 },
    { "530B", 128, 20480, 105, 8, 35, 280, 280, 1, 49.05, 37.83, 3 },
    { "1T", 160, 25600, 128, 8, 64, 512, 512, 1, 94.42, 71.49, 2 },
};

/// The scenario JSON of one calibration row (as /tmp/cal/cal.py builds it), parsed like a user's file.
inline std::string rowJson(int heads, int hidden, int layers, int tp, int pp, int gpus, int globalBatch, int micro,
    const char* recompute, bool sp, int v)
{
    const bool interleaved = pp > 1 && v > 1;
    const int nodes = std::max(1, gpus / 8), perNode = std::min(8, gpus);
    char buf[2048];
    std::snprintf(buf, sizeof buf,
        R"({"schema":"shardscope.scenario/1","name":"calibration",
  "model":{"layers":%d,"hidden":%d,"heads":%d,"kv_heads":%d,"ffn_hidden":%d,"vocab":51200,"max_seq":2048,
           "mlp":"gelu","norm":"layernorm","position_embedding":"learned","tied_embeddings":true,"linear_bias":true},
  "cluster":{"gpu":"a100-sxm4-80gb","nodes":%d,"gpus_per_node":%d,"intra_node":"nvlink3","inter_node":"ib-hdr200"},
  "training":{"seq_len":2048,"global_batch":%d,"micro_batch":%d,"precision":"fp16-mixed","optimizer":"adamw",
              "recompute":"%s","flash_attention":false,"dropout":true,"accounting":"megatron"},
  "parallelism":{"sharding":"ddp","tp":%d,"pp":%d,"sequence_parallel":%s,"pp_schedule":"%s","virtual_stages":%d}})",
        layers, hidden, heads, heads, 4 * hidden, nodes, perNode, globalBatch, micro, recompute, tp, pp,
        sp ? "true" : "false", interleaved ? "interleaved" : "1f1b", interleaved ? v : 1);
    return buf;
}

/// Interleaving used for Table 1 (micro-batch and chunking are not printed): 2 chunks when every stage has at
/// least 2 layers, none without pipelining.
inline int table1Chunks(int layers, int pp) { return pp == 1 ? 1 : (layers / pp >= 2 ? 2 : 1); }

/// Narayanan et al. eq. (§3.1): FLOPs per iteration, full recomputation included.
inline double narayananFlops(double B, double l, double h)
{
    return 96 * B * kSeq * l * h * h * (1 + kSeq / (6 * h) + kVocab / (16 * l * h));
}

} // namespace sstest::megatron
