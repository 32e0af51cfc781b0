// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The names of the scenario's enumerations as the scenario file spells them ("zero3", "bf16-mixed", "1f1b"); the
/// result's (Group, CollectiveOp, Algo, Proto) are declared in result.h and named in the same table.

#include "shardscope/core/scenario.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

/// How the program names a sharding mode, the one table every view reads (the UI translates the labels).
struct ShardingName {
    Sharding sharding;
    const char* key; ///< the scenario file's spelling, "fsdp-full" (toString)
    const char* shortLabel; ///< tables, legends and chart bars: "FSDP full"
    const char* longLabel; ///< generated scenario names and the editor: "FSDP full shard"
    const char* description; ///< one line on what it shards: "PyTorch FSDP FULL_SHARD (= ZeRO-3)."
};
/// Every sharding mode in enum order (DDP, ZeRO-1, ZeRO-2, ZeRO-3, FSDP full, FSDP grad-op, FSDP hybrid).
[[nodiscard]] std::span<const ShardingName> shardingNames();
[[nodiscard]] const ShardingName& shardingName(Sharding v);
/// Where offload goes, as labels spell it: "none", "CPU", "NVMe".
[[nodiscard]] const char* offloadLabel(OffloadTarget v);

const char* toString(Sharding v); ///< shardingName(v).key
const char* toString(Precision v);
const char* toString(Optimizer v);
const char* toString(Recompute v);
const char* toString(Accounting v);
const char* toString(GradReduce v); ///< "framework" (absent in a file), "fp32", "bf16"
const char* toString(MasterWeights v); ///< "fp32" (absent in a file), "fp32-remainder", "fp16"
const char* toString(MomentsDtype v); ///< "fp32" (absent in a file), "bf16", "fp16", "fp8"
const char* toString(PpSchedule v);
const char* toString(MoeOverlap v);
const char* toString(CpCommType v); ///< "p2p" (absent in a file), "a2a", "allgather"
const char* toString(MoeDispatcher v); ///< "alltoall" (absent in a file), "deepep", "allgather"
/// training.recompute_modules names in Megatron's spelling and order (--recompute-modules).
[[nodiscard]] std::vector<std::string> recomputeModuleNames(const RecomputeModules& m);
/// Sets the module named `name` (a Megatron --recompute-modules name); false for a name not in kRecomputeModuleNames.
bool setRecomputeModule(RecomputeModules& m, std::string_view name);
/// The names training.recompute_modules accepts, comma-separated (for messages).
inline constexpr const char* kRecomputeModuleNames = "core_attn, mlp, moe_act, layernorm, moe, shared_experts";
const char* toString(OffloadTarget v);
const char* toString(NcclAlgo v);
const char* toString(NcclProto v);
const char* toString(Mlp v);
const char* toString(Norm v);
const char* toString(PositionEmbedding v);

} // namespace shardscope::core
