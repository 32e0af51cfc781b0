// SPDX-License-Identifier: GPL-3.0-or-later
// Launch configurations from a scenario (issue 5, item 4). Every option name below was checked against the
// framework's own source or documentation; nothing unverified is emitted (what could not be verified is said in
// a comment of the generated text, or left out).
//
// Sources checked (tests/golden/tst_launch_config_keys.cpp repeats them per key, as allowlists):
// * DeepSpeed, microsoft/DeepSpeed @ 38327e07 (2025-02-21):
//   - deepspeed/runtime/constants.py: train_batch_size (17), train_micro_batch_size_per_gpu (93),
//     gradient_accumulation_steps (105), bf16 (123) / enabled (126), fp16 (151) / enabled (153) / loss_scale (157) /
//     initial_scale_power (164), gradient_clipping (214), optimizer (59) / params (61) / type (62),
//     zero_allow_untested_optimizer (73); optimizer "type" is matched case-insensitively against
//     DEEPSPEED_OPTIMIZERS ('adamw', runtime/config.py:75, 847) or else looked up in torch.optim (engine.py:1499).
//   - deepspeed/runtime/zero/config.py: zero_optimization (53), stage (91), contiguous_gradients (98),
//     reduce_bucket_size (109), allgather_bucket_size (128), overlap_comm (134), offload_param (153),
//     offload_optimizer (160), stage3_prefetch_bucket_size (208, alias), stage3_param_persistence_threshold (214),
//     stage3_max_live_parameters (231), mics_shard_size (326; MiCS = shard inside a group, replicate across groups,
//     engine.py:1706).
//   - deepspeed/runtime/zero/offload_config.py: offload_param device (24) / nvme_path (30) / pin_memory (45);
//     offload_optimizer device (55) / nvme_path (61) / pin_memory (72).
//   - deepspeed/runtime/activation_checkpointing/config.py: activation_checkpointing (45), partition_activations (27),
//     contiguous_memory_optimization (33), synchronize_checkpoint_boundary (36), cpu_checkpointing (42);
//     docs/_pages/config-json.md "Activation Checkpointing".
//   - docs/_pages/config-json.md: "Batch Size Related Parameters", "Optimizer Parameters" (params are the torch
//     constructor's: lr, betas, eps, weight_decay), "FP16 training options", "BFLOAT16 training options",
//     "Gradient Clipping", "ZeRO Optimizations for FP16 Training", "Parameter offloading" (nvme_path example
//     /local_nvme), "Optimizer offloading".
//   - deepspeed/__init__.py:158-161: "sequence_parallel_size" + "data_parallel_size" in the config dict build the
//     (data_parallel, sequence_parallel) mesh; runtime/config.py:728 takes the batch check's world size from its
//     data_parallel dim; deepspeed/sequence/layer.py:34, 230 (Ulysses scatters heads over the sequence ranks).
//   - Bucket values are DeepSpeed's defaults, the ones the memory model assumes (engine.h kDs*, DeepSpeed zero/config.py).
// * PyTorch FSDP2, pytorch/pytorch (main, 2025-2026 snapshots):
//   - torch/distributed/fsdp/__init__.py exports fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy; public there
//     since 2.6 (PR #141868 "[FSDP2] Move to public torch.distributed.fsdp", "targeting 2.6 release"); before that
//     torch.distributed._composable.fsdp.
//   - torch/distributed/fsdp/_fully_shard/_fully_shard.py: fully_shard(module, *, mesh, reshard_after_forward,
//     shard_placement_fn, mp_policy, offload_policy, ignored_params); a 2-D mesh is HSDP (replicate dim 0,
//     shard dim 1).
//   - torch/distributed/fsdp/_fully_shard/_fsdp_api.py: MixedPrecisionPolicy(param_dtype, reduce_dtype,
//     output_dtype, cast_forward_inputs); CPUOffloadPolicy(pin_memory=True) offloads parameters, gradients and
//     optimizer states together (there is no optimizer-only offload, and no NVMe offload).
//   - torch/distributed/device_mesh.py: init_device_mesh(device_type, mesh_shape, *, mesh_dim_names);
//     DeviceMesh.__getitem__ takes a name or a tuple of names; DeviceMesh.get_group(mesh_dim).
//   - torch/distributed/tensor/parallel/__init__.py: parallelize_module, ColwiseParallel, RowwiseParallel,
//     SequenceParallel.
//   - torch/distributed/algorithms/_checkpoint/checkpoint_wrapper.py: checkpoint_wrapper(module).
//   - torch/distributed/pipelining: PipelineStage, ScheduleGPipe, Schedule1F1B, ScheduleInterleaved1F1B,
//     ScheduleInterleavedZeroBubble.
//   - torch/distributed/optim/zero_redundancy_optimizer.py: ZeroRedundancyOptimizer(params, optimizer_class,
//     process_group, ..., **defaults) (ZeRO-1 for DDP).
//   - torch/distributed/tensor/experimental (context_parallel(mesh, buffers, buffer_seq_dims, no_restore_buffers));
//     torchtitan/distributed/parallel_dims.py: mesh order pp, dp_replicate, dp_shard, cp, tp, and FSDP over the
//     flattened dp_shard x cp ("dp_shard_cp", DeviceMesh._flatten).
//   - torch/distributed/run.py (torchrun): --nnodes, --nproc-per-node, --rdzv-backend, --rdzv-endpoint.
// * Megatron-LM, NVIDIA/Megatron-LM @ d98e8a64 (2026-08-22): megatron/training/arguments.py adds some flags
//   explicitly and generates the rest from dataclass fields (argument_utils.py ArgumentGroupFactory: --field-name,
//   store_true for bools defaulting False, argparse_meta "arg_names" overrides). Fields read in
//   megatron/core/model_parallel_config.py, megatron/core/transformer/transformer_config.py,
//   megatron/training/config/{training_config,common_config}.py, minus arguments.py's exclude lists.
//   Per-flag lines are in the test's allowlist. Not emitted: --virtual-pipeline-model-parallel-size (excluded,
//   "no CLI argument exists"); --use-flash-attn (defined, arguments.py:2910, but read nowhere in the tree; the
//   attention kernel is --attention-backend); plain ReLU, ALiBi, zero-bubble and GPipe schedules, parameter
//   offload (no flags).
// * NCCL, NVIDIA/nccl @ 5067397c (v2.30.7): NCCL_ALGO / NCCL_PROTO (src/graph/tuning.cc:453-458, names
//   "Tree","Ring",… and "LL","LL128","Simple" in src/init.cc:53-55, matched case-insensitively);
//   NCCL_MIN_CTAS (src/init.cc:1726, added in 2.17.1, git 5d3ab08b; connect.cc:500 uses
//   max(NCCL_MIN_NCHANNELS, minCTAs)); NCCL_MIN_NCHANNELS (src/graph/connect.cc:331); NCCL_NET_GDR_LEVEL
//   (src/graph/paths.cc:512, levels parsed from "LOC","NVL",… in src/graph/topo.cc:34: LOC = 0, so every GPU-NIC
//   distance exceeds it and GPUDirect RDMA is off); NCCL_NVLS_ENABLE (src/transport/nvls.cc:159, default 2,
//   0 skips NVLS initialisation at :262).
#include "shardscope/core/launch_config.h"
#include "shardscope/core/enum_names.h"
#include "shardscope/core/pipeline_layout.h"

#include "shardscope/core/layout.h"

#include "shardscope/core/scenario_json.h"
#include "shardscope/core/scenario_name.h"

#include "engine.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace shardscope::core {

namespace {

using ojson = nlohmann::ordered_json;

// The buckets the memory and time model assume (engine.h), as whole numbers of elements for the JSON.
constexpr int64_t kReduceBucket = static_cast<int64_t>(detail::kDsReduceBucket);
constexpr int64_t kAllgatherBucket = static_cast<int64_t>(detail::kDsAllgatherBucket);
constexpr int64_t kPrefetchBucket = static_cast<int64_t>(detail::kDsPrefetchBucket);
constexpr int64_t kPersistence = 100000; // stage3_param_persistence_threshold, elements
constexpr int64_t kMaxLive = 1000000000; // stage3_max_live_parameters, elements

// Optimizer hyper-parameters: the scenario has none, so these are the usual LLM pre-training values
// (GPT-3 / Llama papers: AdamW β = (0.9, 0.95), weight decay 0.1, clip 1.0). Change them for your run.
constexpr const char* kLr = "3e-4";
constexpr double kLrValue = 3e-4;
constexpr double kBeta1 = 0.9, kBeta2 = 0.95, kEps = 1e-8, kWeightDecay = 0.1, kClip = 1.0, kMomentum = 0.9;

constexpr const char* kNvmePath = "/local_nvme"; // DeepSpeed config-json.md's example path

bool shardsParameters(Sharding s)
{
    return s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpHybrid;
}
bool isFsdpFamily(Sharding s)
{
    return s == Sharding::Zero2 || s == Sharding::Zero3 || s == Sharding::FsdpFull || s == Sharding::FsdpGradOp
        || s == Sharding::FsdpHybrid;
}

std::string layoutLine(const Scenario& s, const Layout& l)
{
    std::ostringstream o;
    o << "# Layout: " << l.gpus << " GPUs (" << l.nodes << " x " << l.gpusPerNode << " "
      << commentText(s.cluster.gpu.id) << ") = dp " << l.dp << " x tp " << l.tp << " x pp " << l.pp << " x cp " << l.cp;
    if (l.ep > 1)
        o << ", ep " << l.ep;
    o << "; sharding " << toString(s.parallelism.sharding);
    if (s.parallelism.sharding == Sharding::FsdpHybrid)
        o << " (shard groups of " << l.shardGroup << ", " << l.replicas << " replicas)";
    o << "\n# Batch: " << s.training.globalBatch << " sequences of " << s.training.seqLen
      << " tokens per step = micro-batch " << s.training.microBatch << " x " << std::max<int64_t>(1, l.microBatches)
      << " accumulation steps x dp " << l.dp << "\n";
    return o.str();
}

std::string torchrunLine(const Layout& l, const std::string& script)
{
    return "torchrun --nnodes " + std::to_string(l.nodes) + " --nproc-per-node " + std::to_string(l.gpusPerNode)
        + " --rdzv-backend c10d --rdzv-endpoint $MASTER_ADDR:29500 " + script;
}

// ---------------------------------------------------------------------------------------------------------------
// DeepSpeed config JSON (pure JSON: DeepSpeed's config has no comments).

int zeroStage(Sharding s)
{
    switch (s) {
    case Sharding::Ddp: return 0;
    case Sharding::Zero1: return 1;
    case Sharding::Zero2: return 2;
    case Sharding::Zero3:
    case Sharding::FsdpFull:
    case Sharding::FsdpGradOp:
    case Sharding::FsdpHybrid: return 3;
    }
    return 3;
}

ojson offloadBlock(OffloadTarget t)
{
    ojson o;
    o["device"] = t == OffloadTarget::Nvme ? "nvme" : "cpu";
    if (t == OffloadTarget::Nvme)
        o["nvme_path"] = kNvmePath;
    o["pin_memory"] = true;
    return o;
}

std::string deepSpeed(const Scenario& s, const Layout& l)
{
    ojson j;
    j["train_batch_size"] = s.training.globalBatch;
    j["train_micro_batch_size_per_gpu"] = s.training.microBatch;
    j["gradient_accumulation_steps"] = std::max<int64_t>(1, l.microBatches);
    if (l.cp > 1) {
        // DeepSpeed-Ulysses: with both keys, deepspeed.initialize builds a (data_parallel, sequence_parallel) mesh
        // (deepspeed/__init__.py:158-161) and the batch check counts only its data-parallel ranks
        // (runtime/config.py:728, 931). Pass the config as a dict: the keys are looked up in it.
        j["sequence_parallel_size"] = l.cp;
        j["data_parallel_size"] = l.dp;
    }

    switch (s.training.precision) {
    case Precision::Bf16Mixed:
    case Precision::Bf16:
    case Precision::Fp8Mixed: // FP8 GEMMs come from Transformer Engine in the model code; DeepSpeed runs bf16
    case Precision::Mxfp8: j["bf16"] = { { "enabled", true } }; break;
    case Precision::Fp16Mixed:
        j["fp16"] = { { "enabled", true }, { "loss_scale", 0 }, { "initial_scale_power", 16 } }; // 0 = dynamic
        break;
    case Precision::Fp32: break; // DeepSpeed trains in fp32 when neither bf16 nor fp16 is enabled
    }
    // communication_data_type (deepspeed/runtime/config.py): the dtype of the gradient reduction.
    if (s.training.gradReduce != GradReduce::Framework)
        j["communication_data_type"] = s.training.gradReduce == GradReduce::Bf16 ? "bf16" : "fp32";

    const Sharding sh = s.parallelism.sharding;
    const int stage = zeroStage(sh);
    ojson z;
    z["stage"] = stage;
    if (stage > 0) {
        if (s.offload.optimizer != OffloadTarget::None)
            z["offload_optimizer"] = offloadBlock(s.offload.optimizer);
        if (s.offload.parameters != OffloadTarget::None && stage == 3)
            z["offload_param"] = offloadBlock(s.offload.parameters);
        // the time model overlaps gradient reduction with backward unless parallelism.overlap_grad_reduce is false,
        // which the scenario allows for stage 1 only (docs/model.md)
        z["overlap_comm"] = stage > 1 || s.parallelism.overlapGradReduce;
        z["contiguous_gradients"] = true;
        z["reduce_bucket_size"] = kReduceBucket;
        if (stage < 3) {
            z["allgather_bucket_size"] = kAllgatherBucket;
        } else {
            z["stage3_prefetch_bucket_size"] = kPrefetchBucket;
            z["stage3_param_persistence_threshold"] = kPersistence;
            z["stage3_max_live_parameters"] = kMaxLive;
            if (sh == Sharding::FsdpHybrid && l.replicas > 1)
                z["mics_shard_size"] = l.shardGroup; // MiCS: shard inside groups, replicate across them (HSDP)
        }
    }
    j["zero_optimization"] = z;
    j["gradient_clipping"] = kClip;

    if (s.training.recompute == Recompute::Full) {
        // Configures deepspeed.checkpointing (used by model code that calls it); partitioning needs model parallelism.
        j["activation_checkpointing"] = { { "partition_activations", l.tp > 1 }, { "cpu_checkpointing", false },
            { "contiguous_memory_optimization", false }, { "synchronize_checkpoint_boundary", false } };
    }

    switch (s.training.optimizer) {
    case Optimizer::AdamW:
        j["optimizer"] = { { "type", "AdamW" },
            { "params",
                { { "lr", kLrValue }, { "betas", { kBeta1, kBeta2 } }, { "eps", kEps },
                    { "weight_decay", kWeightDecay } } } };
        break;
    case Optimizer::SgdMomentum: // torch.optim.SGD through DeepSpeed's torch.optim fallback (engine.py:1499)
        j["optimizer"] = { { "type", "SGD" }, { "params", { { "lr", kLrValue }, { "momentum", kMomentum } } } };
        if (stage > 0)
            j["zero_allow_untested_optimizer"] = true;
        break;
    case Optimizer::AdamW8bit:
    case Optimizer::Adafactor:
        // Not DeepSpeed optimizers: pass the client optimizer (bitsandbytes AdamW8bit, torch.optim.Adafactor) to
        // deepspeed.initialize(optimizer=...); ZeRO then needs this flag (engine.py:1311).
        if (stage > 0)
            j["zero_allow_untested_optimizer"] = true;
        break;
    }
    return j.dump(2) + "\n";
}

// ---------------------------------------------------------------------------------------------------------------
// PyTorch FSDP2 fragment (Python) + torchrun line.

std::string fsdp(const Scenario& s, const Layout& l)
{
    const Sharding sh = s.parallelism.sharding;
    const bool fsdp2 = isFsdpFamily(sh);
    const bool hybrid = sh == Sharding::FsdpHybrid && l.replicas > 1;
    const bool reshard = shardsParameters(sh);
    const bool cpuOffload = fsdp2 && s.offload.parameters == OffloadTarget::Cpu;
    const Precision prec = s.training.precision;
    std::ostringstream o;

    // The scenario's name is not on the first two lines: Python reads a "coding:" declaration there (PEP 263),
    // and a name could otherwise choose an encoding (utf-7) in which later bytes decode to code.
    o << "# PyTorch FSDP2 fragment generated by ShardScope.\n"
      << "# Model-specific names (build_model, model.layers, loader, loss_fn) are yours.\n"
      << "# Scenario: \"" << commentText(scenarioTitle(s)) << "\"\n"
      << "# Needs PyTorch >= 2.6, where FSDP2 is public as torch.distributed.fsdp (pytorch/pytorch#141868);\n"
      << "# on 2.4 and 2.5 import the same names from torch.distributed._composable.fsdp.\n#\n"
      << "# Launch on each of the " << l.nodes << " node(s), MASTER_ADDR = the first node:\n"
      << "#   " << torchrunLine(l, "train.py") << "\n#\n"
      << layoutLine(s, l);

    // Mesh dimensions, outermost first, in torchtitan's order (torchtitan/distributed/parallel_dims.py:
    // pp, dp_replicate, dp_shard, cp, tp).
    std::string shape, names;
    auto addDim = [&](int size, const char* name) {
        shape += (shape.empty() ? "" : ", ") + std::to_string(size);
        names += std::string(names.empty() ? "" : ", ") + "\"" + name + "\"";
    };
    if (l.pp > 1)
        addDim(l.pp, "pp");
    if (hybrid) {
        addDim(l.replicas, "dp_replicate");
        addDim(l.shardGroup / l.cp, "dp_shard"); // launchConfigIssues: cp divides the shard group
    } else {
        addDim(l.dp, "dp");
    }
    if (l.cp > 1)
        addDim(l.cp, "cp");
    if (l.tp > 1)
        addDim(l.tp, "tp");
    const int dims = (l.pp > 1) + (hybrid ? 2 : 1) + (l.cp > 1) + (l.tp > 1);
    // The mesh that shards parameters, gradients and optimizer states and reduces gradients: dp × cp ranks (the
    // cp ranks of a sequence hold the same weights), flattened as torchtitan does (DeviceMesh._flatten).
    std::string dpMesh, meshSetup;
    if (l.cp > 1 && hybrid) {
        meshSetup = "mesh[\"dp_shard\", \"cp\"]._flatten(\"dp_shard_cp\")  # FSDP shards over dp_shard x cp\n";
        dpMesh = "mesh[\"dp_replicate\", \"dp_shard_cp\"]";
    } else if (l.cp > 1) {
        meshSetup
            = "dp_cp_mesh = mesh[\"dp\", \"cp\"]._flatten(\"dp_cp\")  # weights sharded and gradients reduced over "
              "dp x cp\n";
        dpMesh = "dp_cp_mesh";
    } else if (hybrid) {
        dpMesh = dims == 2 ? "mesh" : "mesh[\"dp_replicate\", \"dp_shard\"]";
    } else {
        dpMesh = dims == 1 ? "mesh" : "mesh[\"dp\"]";
    }

    o << (fsdp2 ? "" : "import contextlib\n") << "import os\n\nimport torch\nimport torch.distributed as dist\n"
      << "from torch.distributed.device_mesh import init_device_mesh\n";
    if (fsdp2)
        o << "from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy"
          << (cpuOffload ? ", CPUOffloadPolicy" : "") << "\n";
    if (s.training.recompute == Recompute::Full || s.training.recompute == Recompute::SelectiveOp)
        o << "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper\n";
    if (s.training.recompute == Recompute::SelectiveOp)
        o << "from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts\n";
    if (l.tp > 1)
        o << "from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel\n";
    if (l.cp > 1)
        o << "from torch.distributed.tensor.experimental import context_parallel\n"
          << "from torch.distributed.tensor.experimental._attention import set_rotate_method\n";
    if (!fsdp2)
        o << "from torch.nn.parallel import DistributedDataParallel as DDP\n";
    if (sh == Sharding::Zero1)
        o << "from torch.distributed.optim import ZeroRedundancyOptimizer\n";

    o << "\nlocal_rank = int(os.environ[\"LOCAL_RANK\"])\ntorch.cuda.set_device(local_rank)\n"
      << "dist.init_process_group(\"nccl\")\n"
      << "mesh = init_device_mesh(\"cuda\", (" << shape << (dims == 1 ? "," : "") << "), mesh_dim_names=(" << names
      << (dims == 1 ? "," : "") << "))\n"
      << meshSetup << "\n"
      << "model = build_model()  # " << (s.model.name.empty() ? "your model" : commentText(s.model.name)) << ", "
      << s.model.layers << " transformer blocks in model.layers\n";
    if (prec == Precision::Bf16)
        o << "model = model.to(torch.bfloat16)  # pure bf16: parameters, gradients and optimizer states in bf16\n";

    if (l.pp > 1) {
        const char* sched = "Schedule1F1B";
        if (s.parallelism.schedule == PpSchedule::GPipe)
            sched = "ScheduleGPipe";
        else if (s.parallelism.schedule == PpSchedule::Interleaved)
            sched = "ScheduleInterleaved1F1B";
        else if (s.parallelism.schedule == PpSchedule::ZeroBubble)
            sched = "ScheduleInterleavedZeroBubble";
        const int chunks
            = s.parallelism.schedule == PpSchedule::Interleaved ? std::max(1, s.parallelism.virtualStages) : 1;
        std::string blocks = "about " + std::to_string(s.model.layers / std::max(1, l.pp * chunks));
        if (!s.parallelism.pipelineLayout.empty()) { // parallelism.pipeline_layout: each virtual stage's own count
            blocks = "(in stage order, as pipeline_layout puts them)";
            for (const PipelineChunk& c : parsePipelineLayout(s.parallelism.pipelineLayout).chunks)
                blocks += " " + std::to_string(c.layers);
        }
        o << "# Pipeline parallel (pp " << l.pp << "): split model.layers into " << l.pp * chunks << " stage(s)"
          << (chunks > 1 ? " (" + std::to_string(chunks) + " per rank)" : std::string()) << " of " << blocks
          << " blocks, wrap each in\n"
          << "# torch.distributed.pipelining.PipelineStage (group=mesh[\"pp\"].get_group()) and drive them with "
          << sched << ";\n# apply the calls below to each stage's module.\n";
    }
    if (l.ep > 1)
        o << "# Expert parallel (ep " << l.ep << "): FSDP2 has no built-in expert parallelism; shard the experts "
          << "yourself. Not emitted.\n";

    if (l.tp > 1) {
        o << "\ntp_mesh = mesh[\"tp\"]\nfor block in model.layers:\n"
          << "    # Megatron-style tensor parallelism; the module names are examples, use your model's\n"
          << "    parallelize_module(block, tp_mesh, {\n"
          << "        \"attention.wq\": ColwiseParallel(), \"attention.wk\": ColwiseParallel(),\n"
          << "        \"attention.wv\": ColwiseParallel(), \"attention.wo\": RowwiseParallel(),\n";
        if (s.model.mlp == Mlp::SwiGlu)
            o << "        \"feed_forward.w1\": ColwiseParallel(), \"feed_forward.w3\": ColwiseParallel(),\n"
              << "        \"feed_forward.w2\": RowwiseParallel(),\n";
        else
            o << "        \"feed_forward.w1\": ColwiseParallel(), \"feed_forward.w2\": RowwiseParallel(),\n";
        o << "    })\n";
        if (s.parallelism.sequenceParallel)
            o << "    # sequence parallel: also shard the norms' activations with "
              << "torch.distributed.tensor.parallel.SequenceParallel (and matching input/output layouts)\n";
    }

    if (s.training.recompute == Recompute::Full) {
        o << "\nfor i, block in enumerate(model.layers):\n"
          << "    model.layers[i] = checkpoint_wrapper(block)  # recompute: full (each block re-run in backward)\n";
    } else if (s.training.recompute == Recompute::SelectiveOp) {
        // torchtitan/models/llama3/infra/parallelize.py: save the outputs of every other matmul and of attention.
        o << "\n# recompute: selective-op (torchtitan's op-level policy): keep attention outputs and every other "
          << "matmul output\n"
          << "_save_list = {torch.ops.aten.mm.default, "
          << "torch.ops.aten._scaled_dot_product_flash_attention.default,\n"
          << "              torch.ops.aten._scaled_dot_product_efficient_attention.default}\n\n"
          << "def _op_policy():\n"
          << "    mm_count = {\"forward\": 0, \"recompute\": 0}  # counted apart so both passes save the same\n\n"
          << "    def policy(ctx, func, *args, **kwargs):\n"
          << "        mode = \"recompute\" if ctx.is_recompute else \"forward\"\n"
          << "        if func == torch.ops.aten.mm.default:\n"
          << "            mm_count[mode] += 1\n"
          << "        save = func in _save_list and not (func == torch.ops.aten.mm.default and mm_count[mode] % 2 == "
             "0)\n"
          << "        return CheckpointPolicy.MUST_SAVE if save else CheckpointPolicy.PREFER_RECOMPUTE\n"
          << "    return create_selective_checkpoint_contexts(policy)\n\n"
          << "for i, block in enumerate(model.layers):\n"
          << "    model.layers[i] = checkpoint_wrapper(block, context_fn=_op_policy, preserve_rng_state=False)\n";
    } else if (s.training.recompute == Recompute::Selective) {
        o << "\n# recompute: selective -> keep attention in a fused SDPA/FlashAttention kernel, whose backward "
          << "recomputes the\n# attention scores; no per-op checkpoint policy is emitted.\n";
    }

    // Mixed precision.
    std::string mp;
    switch (prec) {
    case Precision::Bf16Mixed:
    case Precision::Fp8Mixed:
    case Precision::Mxfp8:
        mp = s.training.gradReduce == GradReduce::Bf16
            ? "MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16)"
            : "MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)";
        break;
    case Precision::Fp16Mixed:
        mp = "MixedPrecisionPolicy(param_dtype=torch.float16, reduce_dtype=torch.float32)";
        break;
    case Precision::Bf16:
    case Precision::Fp32: mp = "MixedPrecisionPolicy()"; break;
    }

    if (fsdp2) {
        o << "\nmp_policy = " << mp << "\n";
        if (prec == Precision::Mxfp8)
            o << "# mxfp8: the MXFP8 GEMMs come from Transformer Engine's MXFP8BlockScaling recipe (te.fp8_autocast); "
              << "not emitted.\n";
        if (prec == Precision::Fp8Mixed)
            o << "# fp8-mixed: the FP8 GEMMs come from converting the Linear layers (torchao float8 or Transformer "
              << "Engine); not emitted.\n";
        if (prec == Precision::Fp16Mixed)
            o << "# fp16-mixed: add dynamic loss scaling to the loop below.\n";
        o << "fsdp_kwargs = dict(mesh=" << dpMesh << ", reshard_after_forward=" << (reshard ? "True" : "False")
          << ", mp_policy=mp_policy" << (cpuOffload ? ", offload_policy=CPUOffloadPolicy()" : "") << ")\n";
        if (hybrid)
            o << "# HSDP: a 2-D mesh replicates over dim 0 (" << l.replicas << " groups) and shards over dim 1 ("
              << l.shardGroup << " ranks)\n";
        if (!reshard)
            o << "# reshard_after_forward=False: parameters stay gathered from forward to backward "
              << "(ZeRO-2-like, " << toString(sh) << ")\n";
        if (cpuOffload)
            o << "# CPUOffloadPolicy: sharded parameters, gradients and optimizer states live in pinned host memory; "
              << "the optimizer step runs on CPU\n";
        if (s.offload.parameters == OffloadTarget::Nvme || s.offload.optimizer == OffloadTarget::Nvme)
            o << "# offload to NVMe: FSDP2 has no NVMe offload (DeepSpeed ZeRO-Infinity has); not emitted.\n";
        else if (s.offload.optimizer == OffloadTarget::Cpu && s.offload.parameters == OffloadTarget::None)
            o << "# optimizer-only CPU offload: FSDP2's CPUOffloadPolicy always offloads parameters, gradients and "
              << "optimizer states together; not emitted.\n";
        o << "for block in model.layers:  # one FSDP unit per transformer block\n"
          << "    fully_shard(block, **fsdp_kwargs)\n"
          << "fully_shard(model, **fsdp_kwargs)  # root unit: embeddings, final norm, output layer\n";
    } else {
        o << "\ndp_group = "
          << (l.cp > 1           ? "dp_cp_mesh.get_group()"
                     : dims == 1 ? "mesh.get_group()"
                                 : "mesh.get_group(\"dp\")")
          << "\n"
          << "model = DDP(model, device_ids=[local_rank], process_group=dp_group)  # 25 MiB gradient buckets "
          << "(bucket_cap_mb default)\n";
        if (s.offload.optimizer != OffloadTarget::None)
            o << "# optimizer offload: not available with DDP / ZeroRedundancyOptimizer; not emitted.\n";
    }
    if (s.offload.activationLayers > 0)
        o << "# activation offload of " << s.offload.activationLayers
          << " layers: Megatron-Core's cpu_offloading; in plain PyTorch, torch.autograd.graph.save_on_cpu("
          << "pin_memory=True) around those blocks' forward; not emitted.\n";

    // Optimizer.
    std::ostringstream hyper;
    std::string cls;
    switch (s.training.optimizer) {
    case Optimizer::AdamW:
        cls = "torch.optim.AdamW";
        hyper << "lr=" << kLr << ", betas=(0.9, 0.95), weight_decay=0.1";
        break;
    case Optimizer::SgdMomentum:
        cls = "torch.optim.SGD";
        hyper << "lr=" << kLr << ", momentum=0.9";
        break;
    case Optimizer::AdamW8bit:
        cls = "bitsandbytes.optim.AdamW8bit";
        hyper << "lr=" << kLr << ", betas=(0.9, 0.95), weight_decay=0.1";
        break;
    case Optimizer::Adafactor:
        cls = "torch.optim.Adafactor";
        hyper << "lr=1e-2";
        break;
    }
    o << "\n";
    if (s.training.optimizer == Optimizer::AdamW8bit)
        o << "import bitsandbytes  # 8-bit AdamW is not part of PyTorch\n";
    if (sh == Sharding::Zero1)
        o << "optimizer = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=" << cls
          << ", process_group=dp_group, " << hyper.str() << ")  # ZeRO-1\n";
    else
        o << "optimizer = " << cls << "(model.parameters(), " << hyper.str() << ")\n";

    // Training loop. With cp, each micro-batch runs inside torch's context_parallel, which shards the listed
    // buffers along the sequence and swaps SDPA for ring attention over mesh["cp"]
    // (torch/distributed/tensor/experimental/_attention.py: context_parallel(mesh, buffers, buffer_seq_dims,
    // no_restore_buffers); torchtitan/distributed/utils.py create_context_parallel_ctx).
    o << "\nGRAD_ACCUM = " << std::max<int64_t>(1, l.microBatches) << "  # micro-batches of " << s.training.microBatch
      << " sequence(s) per data-parallel rank per optimizer step\n";
    if (l.cp > 1)
        o << "# Context parallel (cp " << l.cp << "): the " << l.cp
          << " ranks of a cp group load the same full-length\n"
          << "# sequences (one of " << l.dp
          << " data-parallel shards of the batch); context_parallel splits them along\n"
          << "# the sequence (dim 1). Attention must go through SDPA; add position buffers such as RoPE's freqs_cis\n"
          << "# (sequence dim 0) to buffers, as torchtitan does.\n"
          << "set_rotate_method(\"" << (s.parallelism.cpCommType == CpCommType::AllGather ? "allgather" : "alltoall")
          << "\")  # K/V shards: "
          << (s.parallelism.cpCommType == CpCommType::AllGather
                     ? "one all-gather (parallelism.cp_comm_type allgather)"
                     : "passed around the ring (parallelism.cp_comm_type p2p)")
          << "\n";
    o << "for micro_batches in loader:  # GRAD_ACCUM (inputs, labels) pairs per step\n";
    std::vector<std::string> body; // the forward and backward of one micro-batch, unindented
    const bool autocast = !fsdp2 && prec != Precision::Fp32 && prec != Precision::Bf16;
    if (autocast) {
        body.push_back(std::string("with torch.autocast(\"cuda\", dtype=torch.")
            + (prec == Precision::Fp16Mixed ? "float16" : "bfloat16") + "):");
        body.push_back("    loss = loss_fn(model(inputs), labels) / GRAD_ACCUM");
    } else {
        body.push_back("loss = loss_fn(model(inputs), labels) / GRAD_ACCUM");
    }
    body.push_back(fsdp2 ? "loss.backward()  # FSDP reduce-scatters every micro-batch, as ShardScope models it"
                         : "loss.backward()");
    if (l.cp > 1) {
        for (auto& line : body)
            line = "    " + line;
        body.insert(body.begin(),
            "with context_parallel(mesh[\"cp\"], buffers=[inputs, labels], buffer_seq_dims=[1, 1], "
            "no_restore_buffers={inputs, labels}):");
    }
    std::string indent = "        ";
    if (fsdp2) {
        o << "    for inputs, labels in micro_batches:\n";
    } else {
        o << "    for i, (inputs, labels) in enumerate(micro_batches):\n"
          << "        # DDP all-reduces only after the last micro-batch (no_sync before it), as ShardScope models it\n"
          << "        with contextlib.nullcontext() if i == GRAD_ACCUM - 1 else model.no_sync():\n";
        indent += "    ";
    }
    for (const auto& line : body)
        o << indent << line << "\n";
    o << "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
      << "    optimizer.step()\n"
      << "    optimizer.zero_grad()\n";
    return o.str();
}

// ---------------------------------------------------------------------------------------------------------------
// Megatron-LM arguments (bash array + torchrun line).

std::string megatron(const Scenario& s, const Layout& l)
{
    const ModelSpec& m = s.model;
    const Sharding sh = s.parallelism.sharding;
    const bool megatronFsdp = isFsdpFamily(sh);
    std::ostringstream a; // the MEGATRON_ARGS entries
    auto flag = [&](const std::string& f) { a << "  " << f << "\n"; };
    auto arg = [&](const std::string& f, const std::string& v) { a << "  " << f << " " << v << "\n"; };
    auto num = [&](const std::string& f, int64_t v) { arg(f, std::to_string(v)); };
    auto note = [&](const std::string& text) { a << "  # " << text << "\n"; };

    note("parallelism");
    num("--tensor-model-parallel-size", l.tp);
    num("--pipeline-model-parallel-size", l.pp);
    if (l.cp > 1)
        num("--context-parallel-size", l.cp);
    // --cp-comm-type (arguments.py, default p2p); Transformer Engine spells the all-gather all_gather
    // (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, attn_forward_func_with_cp)
    if (l.cp > 1 && s.parallelism.cpCommType != CpCommType::P2p)
        arg("--cp-comm-type", s.parallelism.cpCommType == CpCommType::A2a ? "a2a" : "all_gather");
    if (m.isMoe())
        num("--expert-model-parallel-size", l.ep);
    if (m.isMoe() && s.parallelism.expertTp > 0) // megatron/training/arguments.py: absent means tp
        num("--expert-tensor-parallel-size", l.etp);
    if (s.parallelism.sequenceParallel && l.tp > 1)
        flag("--sequence-parallel");
    if (s.parallelism.tpCommOverlap && l.tp > 1)
        flag("--tp-comm-overlap");
    // A layout sets the virtual stages itself (arguments.py allows at most one of the layout and the two VPP flags).
    // Validated layouts hold only E t m L | ( ) * digits and commas: single quotes keep bash from reading | and ( ).
    if (!s.parallelism.pipelineLayout.empty())
        arg("--pipeline-model-parallel-layout", "'" + s.parallelism.pipelineLayout + "'");
    if (l.pp > 1) {
        switch (s.parallelism.schedule) {
        case PpSchedule::Interleaved: {
            const int v = std::max(1, s.parallelism.virtualStages);
            if (v > 1 && s.parallelism.pipelineLayout.empty()) {
                const int perStage = m.layers / l.pp;
                if (m.layers % l.pp == 0 && perStage % v == 0)
                    num("--num-layers-per-virtual-pipeline-stage", perStage / v);
                else
                    num("--num-virtual-stages-per-pipeline-rank", v);
            }
            break;
        }
        case PpSchedule::OneFOneB: break;
        case PpSchedule::GPipe: note("schedule gpipe: Megatron-LM has no GPipe flag; it runs 1F1B"); break;
        case PpSchedule::ZeroBubble:
            note("schedule zero-bubble: no flag for it in Megatron-LM's arguments.py; it runs 1F1B");
            break;
        }
    }

    switch (sh) {
    case Sharding::Ddp: note("data parallel: ddp -> Megatron DDP, nothing sharded"); break;
    case Sharding::Zero1:
        note("data parallel: zero1 -> distributed optimizer (optimizer states sharded)");
        flag("--use-distributed-optimizer");
        break;
    case Sharding::Zero2:
    case Sharding::FsdpGradOp:
        note(std::string("data parallel: ") + toString(sh) + " -> Megatron-FSDP, gradients + optimizer states sharded");
        flag("--use-megatron-fsdp");
        arg("--data-parallel-sharding-strategy", "optim_grads");
        flag("--use-distributed-optimizer");
        arg("--ckpt-format", "fsdp_dtensor");
        break;
    case Sharding::Zero3:
    case Sharding::FsdpFull:
    case Sharding::FsdpHybrid:
        note(std::string("data parallel: ") + toString(sh)
            + " -> Megatron-FSDP, parameters + gradients + optimizer states sharded");
        flag("--use-megatron-fsdp");
        arg("--data-parallel-sharding-strategy", "optim_grads_params");
        flag("--use-distributed-optimizer");
        arg("--ckpt-format", "fsdp_dtensor");
        if (sh == Sharding::FsdpHybrid && l.replicas > 1) {
            note("hybrid: " + std::to_string(l.replicas) + " replicas of " + std::to_string(l.shardGroup)
                + "-rank shard groups (Megatron-FSDP HSDP)");
            num("--num-distributed-optimizer-instances", l.replicas);
        }
        break;
    }
    if (megatronFsdp && l.pp == 1 && l.ep == 1 && sh != Sharding::FsdpHybrid)
        note(std::string("alternative to the 4 lines above: PyTorch FSDP2, --use-torch-fsdp2")
            + (shardsParameters(sh) ? "" : " --torch-fsdp2-no-reshard-after-forward")
            + " (also needs --untie-embeddings-and-output-weights and --no-gradient-accumulation-fusion)");
    if (l.dpcp > 1) {
        if (s.parallelism.overlapGradReduce)
            flag("--overlap-grad-reduce");
        if (sh == Sharding::Zero1 && s.parallelism.overlapParamGather)
            flag("--overlap-param-gather");
        else if (sh == Sharding::Zero1 || sh == Sharding::Zero2)
            note("ShardScope counts the post-step parameter all-gather as exposed; --overlap-param-gather hides it");
    }
    if (s.offload.optimizer == OffloadTarget::Cpu) {
        note("optimizer states offloaded to CPU (hybrid-device optimizer)");
        flag("--optimizer-cpu-offload");
        flag("--use-precision-aware-optimizer");
        arg("--optimizer-offload-fraction", "1.0");
    } else if (s.offload.optimizer == OffloadTarget::Nvme) {
        note("optimizer offload to NVMe: no Megatron-LM flag; not emitted");
    }
    if (s.offload.parameters != OffloadTarget::None)
        note(std::string("parameter offload to ") + toString(s.offload.parameters)
            + ": no Megatron-LM flag; not emitted");
    if (s.offload.activationLayers > 0) {
        note("activations of " + std::to_string(s.offload.activationLayers)
            + " layers offloaded to CPU memory (turns cpu_offloading on)");
        num("--cpu-offloading-num-layers", s.offload.activationLayers);
    }

    note("model: " + (m.name.empty() ? std::string("custom") : commentText(m.name)));
    num("--num-layers", m.layers);
    num("--hidden-size", m.hidden);
    num("--num-attention-heads", m.heads);
    if (m.isMla()) {
        flag("--multi-latent-attention");
        if (m.mla.qLoraRank > 0)
            num("--q-lora-rank", m.mla.qLoraRank);
        num("--kv-lora-rank", m.mla.kvLoraRank);
        num("--qk-head-dim", m.mla.qkNopeHeadDim);
        num("--qk-pos-emb-head-dim", m.mla.qkRopeHeadDim);
        num("--v-head-dim", m.mla.vHeadDim);
    } else {
        if (m.kvHeads > 0 && m.kvHeads < m.heads) {
            flag("--group-query-attention");
            num("--num-query-groups", m.kvHeads);
        }
        if (m.heads > 0 && m.effectiveHeadDim() != m.hidden / m.heads)
            num("--kv-channels", m.effectiveHeadDim());
    }
    num("--ffn-hidden-size", m.ffnHidden);
    switch (m.mlp) {
    case Mlp::SwiGlu: flag("--swiglu"); break;
    case Mlp::Gelu: break; // Megatron's default MLP activation
    case Mlp::Relu: note("ReLU MLP: Megatron-LM has no flag for plain ReLU (only --squared-relu); not emitted"); break;
    }
    arg("--normalization", m.norm == Norm::RmsNorm ? "RMSNorm" : "LayerNorm");
    switch (m.position) {
    case PositionEmbedding::Rope: arg("--position-embedding-type", "rope"); break;
    case PositionEmbedding::Learned: arg("--position-embedding-type", "learned_absolute"); break;
    case PositionEmbedding::Alibi: note("ALiBi: not a Megatron-LM --position-embedding-type; not emitted"); break;
    }
    if (!m.tiedEmbeddings)
        flag("--untie-embeddings-and-output-weights");
    if (!m.linearBias) {
        flag("--disable-bias-linear");
        if (m.qkvBias)
            flag("--add-qkv-bias");
    }
    if (m.embeddingNorm)
        note("embedding layer norm (BLOOM): no Megatron-LM flag; not emitted");
    if (m.isMoe()) {
        num("--num-experts", m.moe.experts);
        num("--moe-router-topk", m.moe.topK);
        num("--moe-ffn-hidden-size", m.moe.expertFfnHidden);
        if (m.moe.sharedExperts > 0)
            num("--moe-shared-expert-intermediate-size",
                static_cast<int64_t>(m.moe.sharedExperts) * m.moe.expertFfnHidden);
        if (m.moe.denseLayers > 0)
            arg("--moe-layer-freq",
                "\"([0]*" + std::to_string(m.moe.denseLayers) + "+[1]*" + std::to_string(m.layers - m.moe.denseLayers)
                    + ")\"");
        // transformer_config.py moe_token_dispatcher_type (its default is allgather, so it is always written);
        // DeepEP is the flex dispatcher's deepep backend (moe_flex_dispatcher_backend)
        switch (m.moe.dispatcher) {
        case MoeDispatcher::AllToAll: arg("--moe-token-dispatcher-type", "alltoall"); break;
        case MoeDispatcher::AllGather: arg("--moe-token-dispatcher-type", "allgather"); break;
        case MoeDispatcher::DeepEp:
            arg("--moe-token-dispatcher-type", "flex");
            arg("--moe-flex-dispatcher-backend", "deepep");
            break;
        }
        // node-limited routing as group-limited routing with one group per node of the expert-parallel group, and
        // the all-to-all overlap (megatron/core/transformer/transformer_config.py moe_router_num_groups,
        // moe_router_group_topk, overlap_moe_expert_parallel_comm)
        if (m.moe.maxNodesPerToken > 0 && l.epGroup.nodes > 1) {
            num("--moe-router-num-groups", l.epGroup.nodes);
            num("--moe-router-group-topk", std::min(m.moe.maxNodesPerToken, l.epGroup.nodes));
        }
        if (l.ep > 1 && s.parallelism.moeOverlap == MoeOverlap::EpOverlap)
            flag("--overlap-moe-expert-parallel-comm");
        else if (l.ep > 1 && s.parallelism.moeOverlap == MoeOverlap::DualPipe)
            note("DualPipe (deepseek-ai/DualPipe) has no Megatron-LM flag; not emitted");
    }
    note("vocabulary: " + std::to_string(m.vocab) + " tokens, from your tokenizer (--tokenizer-type, --vocab-size)");

    note("batch and sequence");
    num("--micro-batch-size", s.training.microBatch);
    num("--global-batch-size", s.training.globalBatch);
    num("--seq-length", s.training.seqLen);
    const int64_t maxPos
        = m.position == PositionEmbedding::Learned ? std::max(m.maxSeq, s.training.seqLen) : s.training.seqLen;
    num("--max-position-embeddings", maxPos);

    note("precision, attention, recompute");
    switch (s.training.precision) {
    case Precision::Bf16Mixed: flag("--bf16"); break;
    case Precision::Fp16Mixed: flag("--fp16"); break;
    case Precision::Bf16:
        flag("--bf16");
        note("pure bf16: Megatron-LM keeps fp32 main weights; this runs as bf16-mixed");
        break;
    case Precision::Fp8Mixed:
        flag("--bf16");
        arg("--fp8-format", "hybrid");
        if (s.training.fp8ParamGather)
            flag("--fp8-param-gather");
        break;
    case Precision::Mxfp8: // transformer_config.py fp8_recipe 'mxfp8' (Blackwell only); TE's MXFP8 recipe is E4M3
        flag("--bf16");
        arg("--fp8-format", "e4m3");
        arg("--fp8-recipe", "mxfp8");
        if (s.training.fp8ParamGather)
            flag("--fp8-param-gather");
        break;
    case Precision::Fp32: break;
    }
    // megatron/training/arguments.py: bf16 accumulates and reduces gradients in fp32 unless --grad-reduce-in-bf16.
    if (s.training.gradReduce == GradReduce::Bf16)
        flag("--grad-reduce-in-bf16");
    else if (s.training.gradReduce == GradReduce::Fp32)
        flag("--accumulate-allreduce-grads-in-fp32");
    // The precision-aware optimizer (megatron/core/optimizer/optimizer_config.py): 16-bit master weights (bf16
    // weights: fp32 as remainders, store_param_remainders; or --main-params-dtype fp16) and the moments' dtypes.
    const MasterWeights master = s.training.masterWeights;
    const MomentsDtype moments = s.training.momentsDtype;
    if (master != MasterWeights::Fp32 || moments != MomentsDtype::Fp32) {
        if (s.offload.optimizer != OffloadTarget::Cpu) // the CPU offload above gives the flag already
            flag("--use-precision-aware-optimizer");
        if (master == MasterWeights::Fp16)
            arg("--main-params-dtype", "fp16");
        else if (master == MasterWeights::Fp32 && s.training.precision != Precision::Fp16Mixed
            && !s.training.fp8ParamGather)
            note("with bf16 weights Megatron's precision-aware optimizer keeps fp32 master weights as 16-bit "
                 "remainders (store_param_remainders): 2 B, where ShardScope counts 4 B (master_weights fp32)");
        if (moments != MomentsDtype::Fp32) {
            arg("--exp-avg-dtype", toString(moments));
            arg("--exp-avg-sq-dtype", toString(moments));
        }
    }
    arg("--attention-backend", s.training.flashAttention ? "flash" : "unfused");
    switch (s.training.recompute) {
    case Recompute::None:
    case Recompute::SelectiveOp: break; // refused by launchConfigIssues
    case Recompute::Selective:
        arg("--recompute-granularity", "selective");
        if (s.training.recomputeModules) { // names from a fixed list (scenario_json.cpp): no quoting needed
            std::string names;
            for (const std::string& n : recomputeModuleNames(*s.training.recomputeModules))
                names += (names.empty() ? "" : " ") + n;
            if (names.empty())
                flag("--recompute-modules"); // argparse nargs='*': an empty list, nothing recomputed
            else
                arg("--recompute-modules", names);
        }
        break;
    case Recompute::Full:
        arg("--recompute-granularity", "full");
        arg("--recompute-method", "uniform");
        num("--recompute-num-layers", 1);
        break;
    }
    if (!s.training.dropout) {
        arg("--hidden-dropout", "0.0");
        arg("--attention-dropout", "0.0");
    }

    switch (s.training.optimizer) {
    case Optimizer::AdamW:
        note("optimizer: AdamW (Megatron's adam decouples weight decay by default)");
        arg("--optimizer", "adam");
        arg("--lr", kLr);
        arg("--weight-decay", "0.1");
        arg("--adam-beta1", "0.9");
        arg("--adam-beta2", "0.95");
        break;
    case Optimizer::SgdMomentum:
        note("optimizer: SGD with momentum");
        arg("--optimizer", "sgd");
        arg("--lr", kLr);
        arg("--sgd-momentum", "0.9");
        break;
    case Optimizer::AdamW8bit:
    case Optimizer::Adafactor:
        note(std::string("optimizer ") + toString(s.training.optimizer) + ": not a Megatron-LM --optimizer choice; "
            + "not emitted");
        break;
    }
    arg("--clip-grad", "1.0");

    std::ostringstream o;
    o << "#!/usr/bin/env bash\n"
      << "# Megatron-LM arguments for "
      << "\"" + commentText(scenarioTitle(s)) + "\""
      << "\n"
      << "# Generated by ShardScope; flags checked against NVIDIA/Megatron-LM megatron/training/arguments.py and the\n"
      << "# config dataclasses it builds flags from (commit d98e8a64, 2026-08). Add your data and tokenizer\n"
      << "# arguments (--data-path, --tokenizer-type, ...) and run from the Megatron-LM checkout.\n"
      << layoutLine(s, l);
    if (megatronFsdp)
        o << "# Leave CUDA_DEVICE_MAX_CONNECTIONS unset: Megatron-FSDP asserts it is not 1.\n";
    else if (l.tp > 1 || l.cp > 1)
        o << "export CUDA_DEVICE_MAX_CONNECTIONS=1  # Megatron-LM asserts this with TP or CP before Blackwell\n";
    o << "\nMEGATRON_ARGS=(\n"
      << a.str() << ")\n\n"
      << torchrunLine(l, "pretrain_gpt.py \"${MEGATRON_ARGS[@]}\"") << "\n";
    return o.str();
}

// ---------------------------------------------------------------------------------------------------------------
// NCCL environment exports (bash).

std::string ncclEnv(const Scenario& s, const Layout& l)
{
    const Nccl& n = s.nccl;
    std::ostringstream o;
    o << "# NCCL environment for "
      << "\"" + commentText(scenarioTitle(s)) + "\""
      << "\n"
      << "# Generated by ShardScope; variable names checked against NVIDIA/nccl v2.30.7 (src/graph/tuning.cc,\n"
      << "# src/init.cc, src/graph/connect.cc, src/graph/paths.cc, src/transport/nvls.cc). Export on every node.\n"
      << "# " << l.gpus << " GPUs: " << l.nodes << " node(s) x " << l.gpusPerNode << " "
      << commentText(s.cluster.gpu.id) << ", " << commentText(s.cluster.intraNode.id) << " inside a node";
    if (l.nodes > 1)
        o << ", " << commentText(s.cluster.interNode.id) << " between nodes";
    o << "\n";
    int exports = 0;

    switch (n.algo) {
    case NcclAlgo::Auto:
        o << "# algorithm: auto (NCCL_ALGO unset: NCCL's tuner picks per collective and size)\n";
        break;
    case NcclAlgo::Ring:
        o << "export NCCL_ALGO=Ring\n";
        ++exports;
        break;
    case NcclAlgo::Tree:
        o << "export NCCL_ALGO=Tree\n";
        ++exports;
        break;
    }
    switch (n.proto) {
    case NcclProto::Auto: o << "# protocol: auto (NCCL_PROTO unset)\n"; break;
    case NcclProto::Simple:
        o << "export NCCL_PROTO=Simple\n";
        ++exports;
        break;
    case NcclProto::LL:
        o << "export NCCL_PROTO=LL\n";
        ++exports;
        break;
    case NcclProto::LL128:
        o << "export NCCL_PROTO=LL128  # only where NCCL enables LL128 itself: forced elsewhere it can corrupt data\n";
        ++exports;
        break;
    }
    if (n.minChannels > 0) {
        o << "export NCCL_MIN_CTAS=" << n.minChannels << "  # at least " << n.minChannels
          << " CTAs (channels) per collective; NCCL >= 2.17\n"
          << "# export NCCL_MIN_NCHANNELS=" << n.minChannels
          << "  # the pre-2.17 name of the same floor (deprecated); only for older NCCL\n";
        ++exports;
    } else {
        o << "# channels: NCCL's default (NCCL_MIN_CTAS unset)\n";
    }
    if (!n.gdr) {
        o << "export NCCL_NET_GDR_LEVEL=LOC  # GPUDirect RDMA off: no GPU-NIC distance is within LOC";
        if (l.nodes == 1)
            o << " (single node: no network traffic)";
        o << "\n";
        ++exports;
    } else {
        o << "# GPUDirect RDMA: on (NCCL_NET_GDR_LEVEL unset: NCCL's default GPU-NIC distance rule)\n";
    }
    if (s.cluster.gpu.nvls) {
        if (n.algo != NcclAlgo::Auto) {
            o << "export NCCL_NVLS_ENABLE=0  # NCCL_ALGO already excludes NVLS; 0 also skips NVLS setup and its "
                 "buffers\n";
            ++exports;
        } else {
            o << "# NVLS (NVLink SHARP): available on " << commentText(s.cluster.gpu.id)
              << "; NCCL_NVLS_ENABLE unset (default 2 = use it when the driver supports multicast)\n";
        }
    }
    if (exports == 0)
        o << "# nothing to export: every setting is NCCL's default\n";
    return o.str();
}

} // namespace

std::string commentText(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) { // C0 controls (\n, \r, ESC, ...) and DEL end or hide a comment line
            out += (c < 0x20 || c == 0x7f) ? ' ' : static_cast<char>(c);
            ++i;
            continue;
        }
        const size_t len = (c >= 0xc2 && c <= 0xdf) ? 2
            : (c >= 0xe0 && c <= 0xef)              ? 3
            : (c >= 0xf0 && c <= 0xf4)              ? 4
                                                    : 0;
        uint32_t cp = len == 2 ? (c & 0x1fu) : len == 3 ? (c & 0x0fu) : (c & 0x07u);
        bool valid = len != 0 && i + len <= text.size();
        for (size_t k = 1; valid && k < len; ++k) {
            const auto cc = static_cast<unsigned char>(text[i + k]);
            valid = (cc & 0xc0) == 0x80;
            cp = (cp << 6) | (cc & 0x3fu);
        }
        valid = valid && !(len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
            && !(len == 4 && (cp < 0x10000 || cp > 0x10ffff));
        if (!valid) { // not UTF-8: Python refuses such a source file
            out += '?';
            ++i;
            continue;
        }
        // C1 controls (NEL, CSI), line/paragraph separators, bidirectional marks and overrides.
        const bool hidden = (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e)
            || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c || cp == 0xfeff;
        if (hidden)
            out += ' ';
        else
            out.append(text.substr(i, len));
        i += len;
    }
    return out;
}

std::vector<Issue> launchConfigIssues(const Scenario& scenario, LaunchTarget target)
{
    std::vector<Issue> issues;
    if (target == LaunchTarget::Megatron && scenario.training.recompute == Recompute::SelectiveOp)
        issues.push_back({ "training.recompute",
            "selective-op is PyTorch's op-level checkpointing policy "
            "(torch.utils.checkpoint.create_selective_checkpoint_contexts); Megatron-LM has no such "
            "flag (--recompute-granularity is selective or full): use selective or full, or --target fsdp" });
    const Layout l = makeLayout(scenario);
    if (l.cp <= 1)
        return issues;
    const auto n = [](int v) { return std::to_string(v); };
    const CpCommType cpType = scenario.parallelism.cpCommType;
    if (target == LaunchTarget::DeepSpeed && cpType != CpCommType::A2a)
        issues.push_back({ "parallelism.cp_comm_type",
            std::string("DeepSpeed's sequence parallelism is DeepSpeed-Ulysses, all-to-all (deepspeed/sequence/"
                        "layer.py): it cannot run cp_comm_type ")
                + toString(cpType) + "; use a2a, or --target megatron" });
    if (target == LaunchTarget::Fsdp && cpType == CpCommType::A2a)
        issues.push_back({ "parallelism.cp_comm_type",
            "torch's context_parallel is ring attention (torch/distributed/tensor/experimental/_attention.py): it "
            "has no all-to-all (Ulysses) attention; use p2p or allgather, or --target megatron or deepspeed" });
    if (target == LaunchTarget::DeepSpeed) {
        if (l.tp > 1 || l.pp > 1)
            issues.push_back({ "parallelism.cp",
                "DeepSpeed's sequence parallelism builds a data x sequence mesh only "
                "(deepspeed/__init__.py): cp ("
                    + n(l.cp) + ") cannot be combined with tp (" + n(l.tp) + ") or pp (" + n(l.pp)
                    + ") there; use --target megatron, or cp 1" });
        const int kv = scenario.model.kvHeads > 0 ? scenario.model.kvHeads : scenario.model.heads;
        if (kv % l.cp != 0 && kv <= l.cp)
            issues.push_back({ "parallelism.cp",
                "DeepSpeed-Ulysses scatters attention heads over the sequence-parallel "
                "ranks (deepspeed/sequence/layer.py): cp ("
                    + n(l.cp) + ") must divide kv_heads (" + n(kv) + ") or be smaller than it" });
    }
    if (target == LaunchTarget::Fsdp && scenario.parallelism.sharding == Sharding::FsdpHybrid && l.replicas > 1
        && l.shardGroup % l.cp != 0)
        issues.push_back({ "parallelism.shard_group",
            "the FSDP2 mesh needs cp (" + n(l.cp)
                + ") to divide the shard "
                  "group ("
                + n(l.shardGroup) + " ranks): each shard group is dp_shard x cp" });
    return issues;
}

bool parseLaunchTarget(std::string_view text, LaunchTarget& out)
{
    if (text == "deepspeed")
        out = LaunchTarget::DeepSpeed;
    else if (text == "fsdp")
        out = LaunchTarget::Fsdp;
    else if (text == "megatron")
        out = LaunchTarget::Megatron;
    else if (text == "nccl-env")
        out = LaunchTarget::NcclEnv;
    else
        return false;
    return true;
}

const char* toString(LaunchTarget target)
{
    switch (target) {
    case LaunchTarget::DeepSpeed: return "deepspeed";
    case LaunchTarget::Fsdp: return "fsdp";
    case LaunchTarget::Megatron: return "megatron";
    case LaunchTarget::NcclEnv: return "nccl-env";
    }
    return "deepspeed";
}

std::string launchConfig(const Scenario& scenario, LaunchTarget target)
{
    const Layout l = makeLayout(scenario);
    switch (target) {
    case LaunchTarget::DeepSpeed: return deepSpeed(scenario, l);
    case LaunchTarget::Fsdp: return fsdp(scenario, l);
    case LaunchTarget::Megatron: return megatron(scenario, l);
    case LaunchTarget::NcclEnv: return ncclEnv(scenario, l);
    }
    return {};
}

} // namespace shardscope::core
