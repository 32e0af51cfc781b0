// SPDX-License-Identifier: GPL-3.0-or-later
// The names of the scenario's and the result's enumerations, as files, terms and views spell them.
#include "shardscope/core/enum_names.h"
#include "shardscope/core/result.h"

#include <utility>

namespace shardscope::core {

#define SS_NAMES(Type, ...)                                                                                            \
    const char* toString(Type v)                                                                                       \
    {                                                                                                                  \
        static const char* names[] = { __VA_ARGS__ };                                                                  \
        return names[static_cast<int>(v)];                                                                             \
    }
SS_NAMES(Sharding, "ddp", "zero1", "zero2", "zero3", "fsdp-full", "fsdp-grad-op", "fsdp-hybrid")
SS_NAMES(Precision, "fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp8-mixed", "mxfp8")
SS_NAMES(Optimizer, "adamw", "adamw-8bit", "sgd-momentum", "adafactor")
SS_NAMES(Recompute, "none", "selective", "full", "selective-op")
SS_NAMES(Accounting, "zero-paper", "megatron", "deepspeed")
SS_NAMES(GradReduce, "framework", "fp32", "bf16")
SS_NAMES(MasterWeights, "fp32", "fp32-remainder", "fp16")
SS_NAMES(MomentsDtype, "fp32", "bf16", "fp16", "fp8")
SS_NAMES(PpSchedule, "gpipe", "1f1b", "interleaved", "zero-bubble")
SS_NAMES(MoeOverlap, "none", "ep-overlap", "dualpipe")
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
