// SPDX-License-Identifier: GPL-3.0-or-later
// Structured fuzz target for numeric safety (issue 6, item 5): "no overflow or division by zero anywhere for any
// input that validation accepts". The input bytes do not go through the JSON parser: they pick a catalog model,
// GPU and links, then overwrite up to 24 fields of the Scenario with values chosen to stress arithmetic (validation
// limits and one past them, powers of two, 1e-300, denormals, 1e308, zero, negatives), optionally repair the layout
// so that it is whole (GPU count = tp·pp·cp·dp, global batch a multiple of micro-batch·dp), and check the promises of
// fuzz_checks.h on the result: finite, non-negative figures, no integer overflow, the same result after save and
// reopen. Text-level hostility is fuzz_scenario.cpp's job.
#include "fuzz_checks.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace {

using namespace shardscope_fuzz;

class Bytes
{
public:
    Bytes(const uint8_t* p, size_t n)
        : m_p(p)
        , m_n(n)
    { }
    bool empty() const { return m_n == 0; }
    uint8_t u8()
    {
        if (m_n == 0)
            return 0;
        --m_n;
        return *m_p++;
    }
    uint32_t u32()
    {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i)
            v = (v << 8) | u8();
        return v;
    }
    /// An integer near the interesting points of a field whose validation limit is `limit`.
    int64_t integer(int64_t limit)
    {
        switch (u8() % 10) {
        case 0: return u8() % 17;
        case 1: return int64_t(1) << (u8() % 31);
        case 2: return limit;
        case 3: return limit + 1;
        case 4: return limit > 1 ? limit - 1 : 0;
        case 5: return static_cast<int32_t>(u32());
        case 6: return (int64_t(1) << (u8() % 24)) * (1 + u8() % 12);
        case 7: return -static_cast<int64_t>(u8());
        case 8: return int64_t(1) << (u8() % 63);
        default: return limit / (1 + u8() % 64);
        }
    }
    int integer32(int64_t limit)
    {
        const int64_t v = integer(limit);
        return static_cast<int>(std::clamp<int64_t>(v, INT_MIN, INT_MAX));
    }
    /// A double near `typical` or at the edges of the double range.
    double real(double typical)
    {
        static const double pow10[] = { 1e-300, 1e-200, 1e-100, 1e-30, 1e-15, 1e-9, 1e-6, 1e-3, 1e-1, 1, 10, 1e3, 1e6,
            1e9, 1e15, 1e30, 1e100, 1e200, 1e300 };
        switch (u8() % 12) {
        case 0: return typical * pow10[u8() % (sizeof pow10 / sizeof pow10[0])];
        case 1: return 1e-300;
        case 2: return 5e-324; // smallest denormal
        case 3: return 1e15;
        case 4: return 1e18;
        case 5: return 1e30;
        case 6: return 0.0;
        case 7: return -typical;
        case 8: return typical * (u8() + 1) / 64.0;
        case 9: return DBL_MAX;
        case 10: return DBL_MIN; // smallest normal
        default: return typical;
        }
    }
    template <class T> T oneOf(std::initializer_list<T> values) { return *(values.begin() + u8() % values.size()); }

private:
    const uint8_t* m_p;
    size_t m_n;
};

using Mutator = std::function<void(Scenario&, Bytes&)>;

const std::vector<Mutator>& mutators()
{
    static const std::vector<Mutator> all = {
        // model
        [](Scenario& s, Bytes& b) { s.model.layers = b.integer32(10000); },
        [](Scenario& s, Bytes& b) { s.model.hidden = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.heads = b.integer32(1 << 16); },
        [](Scenario& s, Bytes& b) { s.model.kvHeads = b.integer32(1 << 16); },
        [](Scenario& s, Bytes& b) { s.model.headDim = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.ffnHidden = b.integer(16 << 20); },
        [](Scenario& s, Bytes& b) { s.model.vocab = b.integer(100000000); },
        [](Scenario& s, Bytes& b) { s.model.maxSeq = b.integer(100000000); },
        [](Scenario& s, Bytes& b) {
            s.model.mlp = b.oneOf({ Mlp::Gelu, Mlp::Relu, Mlp::SwiGlu });
        },
        [](Scenario& s, Bytes& b) {
            s.model.norm = b.oneOf({ Norm::LayerNorm, Norm::RmsNorm });
        },
        [](Scenario& s, Bytes& b) {
            s.model.position
                = b.oneOf({ PositionEmbedding::Learned, PositionEmbedding::Rope, PositionEmbedding::Alibi });
        },
        [](Scenario& s, Bytes& b) { s.model.tiedEmbeddings = b.u8() & 1; },
        [](Scenario& s, Bytes& b) { s.model.qkvBias = b.u8() & 1; },
        [](Scenario& s, Bytes& b) { s.model.linearBias = b.u8() & 1; },
        [](Scenario& s, Bytes& b) { s.model.embeddingNorm = b.u8() & 1; },
        [](Scenario& s, Bytes& b) { s.model.moe.experts = b.integer32(1 << 16); },
        [](Scenario& s, Bytes& b) { s.model.moe.topK = b.integer32(1 << 16); },
        [](Scenario& s, Bytes& b) { s.model.moe.expertFfnHidden = b.integer(16 << 20); },
        [](Scenario& s, Bytes& b) { s.model.moe.sharedExperts = b.integer32(1 << 16); },
        [](Scenario& s, Bytes& b) { s.model.moe.denseLayers = b.integer32(10000); },
        [](Scenario& s, Bytes& b) { s.model.moe.capacityFactor = b.real(1.25); },
        [](Scenario& s, Bytes& b) { s.model.mla.qLoraRank = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.mla.kvLoraRank = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.mla.qkNopeHeadDim = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.mla.qkRopeHeadDim = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.mla.vHeadDim = b.integer(1 << 20); },
        [](Scenario& s, Bytes& b) { s.model.paramsOverride = b.real(1e15); },
        // GPU
        [](Scenario& s, Bytes& b) { s.cluster.gpu.bf16DenseFlops = b.real(1e15); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.fp8DenseFlops = b.real(2e15); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.memoryBytes = b.real(8e10); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.memoryBandwidth = b.real(3e12); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.scaleUpBandwidth = b.real(4.5e11); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.scaleUpDomain = b.integer32(72); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.nvls = b.u8() & 1; },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.hostLinkBandwidth = b.real(6.4e10); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.achievableMatmulFraction = b.real(0.8); },
        [](Scenario& s, Bytes& b) { s.cluster.gpu.hourlyPriceUsd = b.real(3); },
        [](Scenario& s, Bytes& b) {
            s.cluster.gpu.arch = b.oneOf<const char*>({ "ampere", "hopper", "blackwell", "", "x" });
        },
        // cluster and links
        [](Scenario& s, Bytes& b) { s.cluster.nodes = b.integer32(10000000); },
        [](Scenario& s, Bytes& b) { s.cluster.gpusPerNode = b.integer32(1024); },
        [](Scenario& s, Bytes& b) { s.cluster.nicsPerNode = b.integer32(1024); },
        [](Scenario& s, Bytes& b) { s.cluster.intraNode.bandwidth = b.real(4.5e11); },
        [](Scenario& s, Bytes& b) { s.cluster.intraNode.latency = b.real(1e-6); },
        [](Scenario& s, Bytes& b) { s.cluster.intraNode.efficiency = b.real(0.8); },
        [](Scenario& s, Bytes& b) {
            s.cluster.intraNode.kind
                = b.oneOf({ LinkKind::ScaleUp, LinkKind::ScaleOut, LinkKind::Host, LinkKind::Storage });
        },
        [](Scenario& s, Bytes& b) { s.cluster.interNode.bandwidth = b.real(5e10); },
        [](Scenario& s, Bytes& b) { s.cluster.interNode.latency = b.real(5e-6); },
        [](Scenario& s, Bytes& b) { s.cluster.interNode.efficiency = b.real(0.8); },
        [](Scenario& s, Bytes& b) { s.cluster.nvmeBandwidthPerNode = b.real(2.5e10); },
        [](Scenario& s, Bytes& b) { s.cluster.cpuAdamParamsPerSecond = b.real(4e9); },
        [](Scenario& s, Bytes& b) { s.cluster.miscBytes = b.real(1e9); },
        // training
        [](Scenario& s, Bytes& b) { s.training.seqLen = b.integer(100000000); },
        [](Scenario& s, Bytes& b) { s.training.globalBatch = b.integer(1000000000); },
        [](Scenario& s, Bytes& b) { s.training.microBatch = b.integer(1000000000); },
        [](Scenario& s, Bytes& b) {
            s.training.precision = b.oneOf(
                { Precision::Fp32, Precision::Bf16Mixed, Precision::Fp16Mixed, Precision::Bf16, Precision::Fp8Mixed });
        },
        [](Scenario& s, Bytes& b) {
            s.training.optimizer
                = b.oneOf({ Optimizer::AdamW, Optimizer::AdamW8bit, Optimizer::SgdMomentum, Optimizer::Adafactor });
        },
        [](Scenario& s, Bytes& b) {
            s.training.recompute = b.oneOf({ Recompute::None, Recompute::Selective, Recompute::Full });
        },
        [](Scenario& s, Bytes& b) { s.training.flashAttention = b.u8() & 1; },
        [](Scenario& s, Bytes& b) { s.training.dropout = b.u8() & 1; },
        [](Scenario& s, Bytes& b) {
            s.training.accounting = b.oneOf({ Accounting::ZeroPaper, Accounting::Megatron, Accounting::DeepSpeed });
        },
        // parallelism, offload, NCCL
        [](Scenario& s, Bytes& b) {
            s.parallelism.sharding = b.oneOf({ Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3,
                Sharding::FsdpFull, Sharding::FsdpGradOp, Sharding::FsdpHybrid });
        },
        [](Scenario& s, Bytes& b) { s.parallelism.tp = b.integer32(1 << 20); },
        [](Scenario& s, Bytes& b) { s.parallelism.pp = b.integer32(1 << 20); },
        [](Scenario& s, Bytes& b) { s.parallelism.cp = b.integer32(1 << 20); },
        [](Scenario& s, Bytes& b) { s.parallelism.ep = b.integer32(1 << 20); },
        [](Scenario& s, Bytes& b) { s.parallelism.sequenceParallel = b.u8() & 1; },
        [](Scenario& s, Bytes& b) {
            s.parallelism.schedule
                = b.oneOf({ PpSchedule::GPipe, PpSchedule::OneFOneB, PpSchedule::Interleaved, PpSchedule::ZeroBubble });
        },
        [](Scenario& s, Bytes& b) { s.parallelism.virtualStages = b.integer32(1024); },
        [](Scenario& s, Bytes& b) { s.parallelism.shardGroup = b.integer32(10000000); },
        [](Scenario& s, Bytes& b) {
            s.offload.optimizer = b.oneOf({ OffloadTarget::None, OffloadTarget::Cpu, OffloadTarget::Nvme });
        },
        [](Scenario& s, Bytes& b) {
            s.offload.parameters = b.oneOf({ OffloadTarget::None, OffloadTarget::Cpu, OffloadTarget::Nvme });
        },
        [](Scenario& s, Bytes& b) {
            s.nccl.algo = b.oneOf({ NcclAlgo::Auto, NcclAlgo::Ring, NcclAlgo::Tree });
        },
        [](Scenario& s, Bytes& b) {
            s.nccl.proto = b.oneOf({ NcclProto::Auto, NcclProto::Simple, NcclProto::LL, NcclProto::LL128 });
        },
        [](Scenario& s, Bytes& b) { s.nccl.minChannels = b.integer32(64); },
        [](Scenario& s, Bytes& b) { s.nccl.gdr = b.u8() & 1; },
    };
    return all;
}

/// Makes the layout whole so that validation's divisibility rules pass more often: GPUs = tp·pp·cp·dp,
/// global batch = micro-batch · dp · k.
void repairLayout(Scenario& s, Bytes& b)
{
    auto& p = s.parallelism;
    const int64_t dp = int64_t(1) << (b.u8() % 21);
    // in double first: tp·pp·cp·dp of fuzzed degrees can exceed int64
    const double gpusD = double(std::max(1, p.tp)) * std::max(1, p.pp) * std::max(1, p.cp) * double(dp);
    if (gpusD > 10000000)
        return;
    const int64_t gpus = static_cast<int64_t>(gpusD);
    const int gpn = std::max(1, s.cluster.gpusPerNode);
    if (gpus % gpn == 0) {
        s.cluster.nodes = static_cast<int>(gpus / gpn);
    } else if (gpus <= 1024) {
        s.cluster.gpusPerNode = static_cast<int>(gpus);
        s.cluster.nodes = 1;
    }
    const int64_t mb = std::max<int64_t>(1, s.training.microBatch);
    const int64_t k = 1 + b.u8() % 64;
    if (mb <= 1000000000 / (dp * k))
        s.training.globalBatch = mb * dp * k;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace shardscope_fuzz;
    const Catalog& cat = catalog();
    Bytes b(data, size);
    Scenario s = defaultScenario(cat);
    s.model = cat.models[b.u8() % cat.models.size()];
    s.cluster.gpu = cat.gpus[b.u8() % cat.gpus.size()];
    s.cluster.intraNode = cat.links[b.u8() % cat.links.size()];
    s.cluster.interNode = cat.links[b.u8() % cat.links.size()];
    const uint8_t flags = b.u8();
    const auto& m = mutators();
    for (int i = 0; i < 24 && !b.empty(); ++i) {
        const uint8_t which = b.u8();
        if (which == 0xff)
            break;
        m[which % m.size()](s, b);
    }
    if (flags & 1)
        repairLayout(s, b);
    checkScenario(s);
    return 0;
}

#include "fuzz_main.h"
