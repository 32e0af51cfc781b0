// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/enum_choices.h"

#include <shardscope/core/enum_names.h>
#include <shardscope/core/scenario.h>

#include <QtGlobal>

#include <vector>

namespace shardscope::ui {

#define T(x) QT_TRANSLATE_NOOP("Choices", x)
namespace {
using namespace shardscope::core;
const Choice kPrecision[] = {
    { int(Precision::Fp32), T("FP32") },
    { int(Precision::Bf16Mixed), T("BF16 mixed") },
    { int(Precision::Fp16Mixed), T("FP16 mixed") },
    { int(Precision::Bf16), T("BF16 (pure)") },
    { int(Precision::Fp8Mixed), T("FP8 mixed") },
    { int(Precision::Mxfp8), T("MXFP8 (block-scaled, Blackwell)") },
};
const Choice kOptimizer[] = {
    { int(Optimizer::AdamW), T("AdamW") },
    { int(Optimizer::AdamW8bit), T("AdamW 8-bit") },
    { int(Optimizer::SgdMomentum), T("SGD + momentum") },
    { int(Optimizer::Adafactor), T("Adafactor") },
};
const Choice kRecompute[] = {
    { int(Recompute::None), T("None"), T("Store every activation.") },
    { int(Recompute::Selective), T("Selective"), T("Recompute core attention only (Korthikanti et al. 2022).") },
    { int(Recompute::Full), T("Full"), T("Store only each layer's input; recompute the layer in backward.") },
    { int(Recompute::SelectiveOp), T("Selective (op-level)"),
        T("PyTorch's op-level policy as torchtitan applies it: keep attention outputs and every other matmul "
          "output.") },
};
const Choice kAccounting[] = {
    { int(Accounting::ZeroPaper), T("ZeRO paper (16 B/param)"),
        T("2 + 2 + 12 bytes per parameter for mixed-precision Adam.") },
    { int(Accounting::Megatron), T("Megatron (18 B/param)"),
        T("FP32 main gradients: 2 + 4 + 12 bytes per parameter.") },
    { int(Accounting::DeepSpeed), T("DeepSpeed estimator"), T("DeepSpeed's estimate_zero*_model_states_mem_needs.") },
};
const Choice kGradReduce[] = {
    { int(GradReduce::Framework), T("Framework default"),
        T("Megatron and PyTorch FSDP: fp32; ZeRO paper and DeepSpeed accounting: the half-precision dtype.") },
    { int(GradReduce::Fp32), T("fp32"), T("Gradients accumulated and reduced in fp32 (4 B per parameter).") },
    { int(GradReduce::Bf16), T("bf16"),
        T("Megatron --grad-reduce-in-bf16: a bf16 gradient buffer (2 B per parameter).") },
};
const Choice kMasterWeights[] = {
    { int(MasterWeights::Fp32), T("fp32"), T("fp32 master weights (4 B per parameter).") },
    { int(MasterWeights::Fp32Remainder), T("fp32 remainder"),
        T("The 16 bits of each fp32 master weight that its bf16 weight lacks (2 B per parameter): Megatron's "
          "precision-aware optimizer, NeMo's distributed_fused_adam.") },
    { int(MasterWeights::Fp16), T("fp16"), T("Megatron --main-params-dtype fp16 (2 B per parameter).") },
};
const Choice kMomentsDtype[] = {
    { int(MomentsDtype::Fp32), T("fp32"), T("Adam's two moments in fp32 (8 B per parameter).") },
    { int(MomentsDtype::Bf16), T("bf16"),
        T("Megatron --exp-avg-dtype / --exp-avg-sq-dtype bf16 (4 B per parameter).") },
    { int(MomentsDtype::Fp16), T("fp16"), T("Both moments in fp16 (4 B per parameter).") },
    { int(MomentsDtype::Fp8), T("fp8"), T("Both moments in FP8 (2 B per parameter).") },
};
const Choice kSchedule[] = {
    { int(PpSchedule::GPipe), T("GPipe") },
    { int(PpSchedule::OneFOneB), T("1F1B") },
    { int(PpSchedule::Interleaved), T("Interleaved 1F1B") },
    { int(PpSchedule::ZeroBubble), T("Zero bubble") },
};
const Choice kMoeOverlap[] = {
    { int(MoeOverlap::None), T("None"), T("Expert all-to-alls wait for their data (fully exposed).") },
    { int(MoeOverlap::EpOverlap), T("Megatron EP overlap"),
        T("Megatron-Core --overlap-moe-expert-parallel-comm: a micro-batch's all-to-all runs during another's "
          "compute.") },
    { int(MoeOverlap::DualPipe), T("DualPipe"),
        T("DeepSeek-V3's DualPipe: all-to-alls hidden behind the other direction's compute, 20 of 132 SMs kept for "
          "communication.") },
};
const Choice kCpCommType[] = {
    { int(CpCommType::P2p), T("Ring (p2p)"),
        T("Megatron --cp-comm-type p2p: K/V chunks passed around the CP ring, each step behind the attention on the "
          "chunk already there.") },
    { int(CpCommType::A2a), T("All-to-all (Ulysses)"),
        T("Megatron --cp-comm-type a2a, DeepSpeed-Ulysses: all-to-alls of Q, K, V and the output swap the sequence "
          "split for a head split; exposed. cp must divide the heads per TP rank.") },
    { int(CpCommType::AllGather), T("All-gather K/V"),
        T("Megatron --cp-comm-type all_gather, the Llama 3 paper's CP, torch's allgather rotation: K and V gathered "
          "before attention; exposed.") },
};
const Choice kDispatcher[] = {
    { int(MoeDispatcher::AllToAll), T("All-to-all"),
        T("Megatron --moe-token-dispatcher-type alltoall: NCCL all-to-all of the routed token copies over the EP "
          "group.") },
    { int(MoeDispatcher::DeepEp), T("DeepEP"),
        T("Megatron flex dispatcher with DeepEP: a token crosses the network once per destination node, then "
          "NVLink.") },
    { int(MoeDispatcher::AllGather), T("All-gather"),
        T("Megatron --moe-token-dispatcher-type allgather: every rank gathers all tokens of the EP × expert-TP "
          "group.") },
};
const Choice kOffload[] = {
    { int(OffloadTarget::None), T("None") },
    { int(OffloadTarget::Cpu), T("CPU") },
    { int(OffloadTarget::Nvme), T("NVMe") },
};
const Choice kNcclAlgo[]
    = { { int(NcclAlgo::Auto), T("Auto") }, { int(NcclAlgo::Ring), T("Ring") }, { int(NcclAlgo::Tree), T("Tree") } };
const Choice kNcclProto[] = { { int(NcclProto::Auto), T("Auto") }, { int(NcclProto::Simple), T("Simple") },
    { int(NcclProto::LL), T("LL") }, { int(NcclProto::LL128), T("LL128") } };
const Choice kFramework[] = {
    { int(Framework::Megatron), T("Megatron-Core"), T("Megatron-LM / NeMo: fused kernels, overlapped collectives.") },
    { int(Framework::DeepSpeed), T("DeepSpeed"), T("DeepSpeed ZeRO (Megatron-DeepSpeed kernels).") },
    { int(Framework::PyTorch), T("PyTorch (eager)"),
        T("PyTorch FSDP/FSDP2 or DDP without torch.compile (torchtitan).") },
    { int(Framework::PyTorchCompile), T("PyTorch + compile"),
        T("The same under torch.compile (fused element-wise kernels).") },
};
const Choice kMlp[]
    = { { int(Mlp::Gelu), T("GELU") }, { int(Mlp::Relu), T("ReLU") }, { int(Mlp::SwiGlu), T("SwiGLU") } };
const Choice kNorm[] = { { int(Norm::LayerNorm), T("LayerNorm") }, { int(Norm::RmsNorm), T("RMSNorm") } };
const Choice kPosition[] = { { int(PositionEmbedding::Learned), T("Learned") },
    { int(PositionEmbedding::Rope), T("RoPE") }, { int(PositionEmbedding::Alibi), T("ALiBi") } };
} // namespace
#undef T

std::span<const Choice> shardingChoices()
{
    // The core's name table: each mode's long label, and what it shards as the hint.
    static const std::vector<Choice> choices = [] {
        std::vector<Choice> out;
        for (const core::ShardingName& n : core::shardingNames())
            out.push_back({ int(n.sharding), n.longLabel, n.description });
        return out;
    }();
    return choices;
}
std::span<const Choice> precisionChoices() { return kPrecision; }
std::span<const Choice> optimizerChoices() { return kOptimizer; }
std::span<const Choice> recomputeChoices() { return kRecompute; }
std::span<const Choice> accountingChoices() { return kAccounting; }
std::span<const Choice> gradReduceChoices() { return kGradReduce; }
std::span<const Choice> masterWeightsChoices() { return kMasterWeights; }
std::span<const Choice> momentsDtypeChoices() { return kMomentsDtype; }
std::span<const Choice> frameworkChoices() { return kFramework; }
std::span<const Choice> scheduleChoices() { return kSchedule; }
std::span<const Choice> offloadChoices() { return kOffload; }
std::span<const Choice> moeOverlapChoices() { return kMoeOverlap; }
std::span<const Choice> cpCommTypeChoices() { return kCpCommType; }
std::span<const Choice> dispatcherChoices() { return kDispatcher; }
std::span<const Choice> ncclAlgoChoices() { return kNcclAlgo; }
std::span<const Choice> ncclProtoChoices() { return kNcclProto; }
std::span<const Choice> mlpChoices() { return kMlp; }
std::span<const Choice> normChoices() { return kNorm; }
std::span<const Choice> positionChoices() { return kPosition; }

} // namespace shardscope::ui
