// SPDX-License-Identifier: GPL-3.0-or-later
// The names of the scenario's and the result's enumerations, as files, terms and views spell them.
#include "shardscope/core/enum_names.h"
#include "shardscope/core/result.h"

#include <utility>

namespace shardscope::core {

namespace {
/// The ZeRO stages of Rajbhandari et al. (SC'20, §5: P_os, P_os+g, P_os+g+p) and PyTorch FSDP's ShardingStrategy
/// (torch/distributed/fsdp/api.py: FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD), in the enum's order.
constexpr ShardingName kShardingNames[] = {
    { Sharding::Ddp, "ddp", "DDP", "DDP",
        "Every data-parallel rank holds all parameters, gradients and optimizer states." },
    { Sharding::Zero1, "zero1", "ZeRO-1", "ZeRO-1", "Optimizer states sharded across the data-parallel group (P_os)." },
    { Sharding::Zero2, "zero2", "ZeRO-2", "ZeRO-2", "Optimizer states and gradients sharded (P_os+g)." },
    { Sharding::Zero3, "zero3", "ZeRO-3", "ZeRO-3", "Optimizer states, gradients and parameters sharded (P_os+g+p)." },
    { Sharding::FsdpFull, "fsdp-full", "FSDP full", "FSDP full shard", "PyTorch FSDP FULL_SHARD (= ZeRO-3)." },
    { Sharding::FsdpGradOp, "fsdp-grad-op", "FSDP grad-op", "FSDP grad-op shard",
        "PyTorch FSDP SHARD_GRAD_OP (= ZeRO-2)." },
    { Sharding::FsdpHybrid, "fsdp-hybrid", "FSDP hybrid", "FSDP hybrid shard",
        "Full shard inside a shard group, replicated across groups (HSDP)." },
};
} // namespace

std::span<const ShardingName> shardingNames() { return kShardingNames; }
const ShardingName& shardingName(Sharding v) { return kShardingNames[static_cast<int>(v)]; }
const char* toString(Sharding v) { return shardingName(v).key; }

const char* offloadLabel(OffloadTarget v)
{
    static const char* labels[] = { "none", "CPU", "NVMe" };
    return labels[static_cast<int>(v)];
}

#define SS_NAMES(Type, ...)                                                                                            \
    const char* toString(Type v)                                                                                       \
    {                                                                                                                  \
        static const char* names[] = { __VA_ARGS__ };                                                                  \
        return names[static_cast<int>(v)];                                                                             \
    }
SS_NAMES(Precision, "fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp8-mixed", "mxfp8")
SS_NAMES(Optimizer, "adamw", "adamw-8bit", "sgd-momentum", "adafactor")
SS_NAMES(Recompute, "none", "selective", "full", "selective-op")
SS_NAMES(Accounting, "zero-paper", "megatron", "deepspeed")
SS_NAMES(GradReduce, "framework", "fp32", "bf16")
SS_NAMES(MasterWeights, "fp32", "fp32-remainder", "fp16")
SS_NAMES(MomentsDtype, "fp32", "bf16", "fp16", "fp8")
SS_NAMES(PpSchedule, "gpipe", "1f1b", "interleaved", "zero-bubble")
SS_NAMES(MoeOverlap, "none", "ep-overlap", "dualpipe")
SS_NAMES(CpCommType, "p2p", "a2a", "allgather")
SS_NAMES(MoeDispatcher, "alltoall", "deepep", "allgather")
SS_NAMES(OffloadTarget, "none", "cpu", "nvme")
SS_NAMES(NcclAlgo, "auto", "ring", "tree")
SS_NAMES(NcclProto, "auto", "simple", "ll", "ll128")
SS_NAMES(Mlp, "gelu", "relu", "swiglu")
SS_NAMES(Norm, "layernorm", "rmsnorm")
SS_NAMES(PositionEmbedding, "learned", "rope", "alibi")
SS_NAMES(Group, "dp", "tp", "pp", "cp", "ep")
SS_NAMES(CollectiveOp, "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "send_recv")
SS_NAMES(Algo, "ring", "tree", "nvls", "p2p", "pat")
SS_NAMES(Proto, "simple", "ll", "ll128")
#undef SS_NAMES

namespace {
/// Each training.recompute_modules name (Megatron --recompute-modules, transformer_config.py) and its flag.
constexpr std::pair<const char*, bool RecomputeModules::*> kRecomputeModules[]
    = { { "core_attn", &RecomputeModules::coreAttn }, { "mlp", &RecomputeModules::mlp },
          { "moe_act", &RecomputeModules::moeAct }, { "layernorm", &RecomputeModules::layernorm },
          { "moe", &RecomputeModules::moe }, { "shared_experts", &RecomputeModules::sharedExperts } };
} // namespace

std::vector<std::string> recomputeModuleNames(const RecomputeModules& m)
{
    std::vector<std::string> out;
    for (const auto& [name, flag] : kRecomputeModules)
        if (m.*flag)
            out.emplace_back(name);
    return out;
}

bool setRecomputeModule(RecomputeModules& m, std::string_view name)
{
    for (const auto& [n, flag] : kRecomputeModules)
        if (name == n) {
            m.*flag = true;
            return true;
        }
    return false;
}

} // namespace shardscope::core
