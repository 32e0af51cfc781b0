// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/parallelism_panel.h"

#include "document/scenario_document.h"
#include "editors/value_slider.h"

#include <shardscope/core/evaluate.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

namespace shardscope::ui {

using core::Scenario;

namespace {
/// Divisors of n up to limit, ascending (at least {1}). Trial division up to √n, each divisor i giving n/i too, and
/// at most 2²² steps: the refresh runs on the GUI thread, and a file may hold any 64-bit size (validation refuses
/// the absurd ones; their lists are then cut short, never slow).
QList<qint64> divisors(int64_t n, int64_t limit)
{
    constexpr int64_t kMaxSteps = int64_t(1) << 22;
    QList<qint64> low, high;
    for (int64_t i = 1; n > 0 && i <= limit && i <= n / i && i <= kMaxSteps; ++i)
        if (n % i == 0) {
            low << i;
            if (const int64_t j = n / i; j != i && j <= limit)
                high.prepend(j);
        }
    low << high;
    if (low.isEmpty())
        low << 1;
    return low;
}
} // namespace

ParallelismPanel::ParallelismPanel(ScenarioDocument* doc, QWidget* parent)
    : EditorPanel(doc, parent)
    , m_dp(new QLabel(this))
{
    addEnum(
        QStringLiteral("parallelism.sharding"), shardingChoices(),
        [](const Scenario& s) { return int(s.parallelism.sharding); },
        [](Scenario& s, int v) { s.parallelism.sharding = core::Sharding(v); },
        tr("How model states are split across the data-parallel group"));
    m_tp = addSlider(
        QStringLiteral("parallelism.tp"), [](const Scenario& s) { return s.parallelism.tp; },
        [](Scenario& s, int64_t v) { s.parallelism.tp = int(v); },
        tr("Tensor-parallel degree t: offered values divide the attention heads and the KV heads"));
    m_pp = addSlider(
        QStringLiteral("parallelism.pp"), [](const Scenario& s) { return s.parallelism.pp; },
        [](Scenario& s, int64_t v) { s.parallelism.pp = int(v); },
        tr("Pipeline stages p: offered values divide the layers"));
    m_cp = addSlider(
        QStringLiteral("parallelism.cp"), [](const Scenario& s) { return s.parallelism.cp; },
        [](Scenario& s, int64_t v) { s.parallelism.cp = int(v); },
        tr("Context-parallel degree c: the sequence is split c ways (powers of two dividing s)"));
    m_cpCommType = addEnum(
        QStringLiteral("parallelism.cp_comm_type"), cpCommTypeChoices(),
        [](const Scenario& s) { return int(s.parallelism.cpCommType); },
        [](Scenario& s, int v) { s.parallelism.cpCommType = core::CpCommType(v); },
        tr("How the CP ranks exchange attention inputs (Megatron --cp-comm-type)"));
    m_ep = addSlider(
        QStringLiteral("parallelism.ep"), [](const Scenario& s) { return s.parallelism.ep; },
        [](Scenario& s, int64_t v) { s.parallelism.ep = int(v); },
        tr("Expert-parallel degree e: offered values divide the routed experts"));
    // Stored as 0 (follow tp) when it equals tp, so that changing tp keeps Megatron's default.
    m_etp = addSlider(
        QStringLiteral("parallelism.expert_tp"), [](const Scenario& s) { return s.parallelism.effectiveExpertTp(); },
        [](Scenario& s, int64_t v) { s.parallelism.expertTp = v == s.parallelism.tp ? 0 : int(v); },
        tr("Expert tensor-parallel degree (Megatron --expert-tensor-parallel-size; default = TP): the "
           "experts are split this many ways instead of TP, and EP may then span TP × DP × CP"));
    // A long text must not widen the editor (no word wrap: see ModelPanel, the EP row can be hidden).
    m_dp->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_form->addRow(tr("Data parallel (DP):"), m_dp);
    m_dp->setToolTip(tr("Derived: DP = GPUs / (TP × PP × CP) (docs/model.md §layout)"));
    m_sp = addCheck(
        QStringLiteral("parallelism.sequence_parallel"),
        [](const Scenario& s) { return s.parallelism.sequenceParallel; },
        [](Scenario& s, bool v) { s.parallelism.sequenceParallel = v; },
        tr("Megatron sequence parallelism: shards norms and dropout along the sequence (needs TP > 1)"));
    m_schedule = addEnum(
        QStringLiteral("parallelism.pp_schedule"), scheduleChoices(),
        [](const Scenario& s) { return int(s.parallelism.schedule); },
        [](Scenario& s, int v) { s.parallelism.schedule = core::PpSchedule(v); });
    m_virtual = addSpin(
        QStringLiteral("parallelism.virtual_stages"), 1, 1024,
        [](const Scenario& s) { return s.parallelism.virtualStages; },
        [](Scenario& s, int64_t v) { s.parallelism.virtualStages = int(v); },
        tr("Model chunks per pipeline rank v (interleaved schedule)"));
    m_layout = new QLineEdit(this);
    m_layout->setPlaceholderText(tr("even split"));
    m_layout->setClearButtonEnabled(true);
    addRow(QStringLiteral("parallelism.pipeline_layout"), m_layout,
        tr("Layers per virtual pipeline stage, as Megatron-Core's --pipeline-model-parallel-layout: E embedding, "
           "t transformer layer, L loss, | between stages, (…)*n and x*n repeat; e.g. Et*7|t*8|t*8|t*7L for "
           "30 layers on 4 stages. pp × virtual stages stages; empty = layers split evenly"));
    connect(m_layout, &QLineEdit::editingFinished, this, [this] {
        const std::string text = m_layout->text().trimmed().toStdString();
        if (text == m_doc->scenario().parallelism.pipelineLayout)
            return;
        commit(QStringLiteral("parallelism.pipeline_layout"),
            text.empty() ? tr("even split") : m_layout->text().trimmed(),
            [text](Scenario& s) { s.parallelism.pipelineLayout = text; });
    });
    addRefresher([this](const Scenario& s) {
        const QSignalBlocker block(m_layout);
        m_layout->setText(QString::fromStdString(s.parallelism.pipelineLayout));
    });
    m_shardGroup = addSpin(
        QStringLiteral("parallelism.shard_group"), 0, 10'000'000,
        [](const Scenario& s) { return s.parallelism.shardGroup; },
        [](Scenario& s, int64_t v) { s.parallelism.shardGroup = int(v); },
        tr("FSDP hybrid: GPUs that fully shard among themselves (0 = one node)"));
    m_shardGroup->setSpecialValueText(tr("one node"));
    m_tpOverlap = addCheck(
        QStringLiteral("parallelism.tp_comm_overlap"), [](const Scenario& s) { return s.parallelism.tpCommOverlap; },
        [](Scenario& s, bool v) { s.parallelism.tpCommOverlap = v; },
        tr("Overlap TP all-gathers and reduce-scatters with the GEMMs (Megatron --tp-comm-overlap; "
           "needs sequence parallelism)"));
    m_gradOverlap = addCheck(
        QStringLiteral("parallelism.overlap_grad_reduce"),
        [](const Scenario& s) { return s.parallelism.overlapGradReduce; },
        [](Scenario& s, bool v) { s.parallelism.overlapGradReduce = v; },
        tr("Reduce gradients bucket by bucket during the last backward (Megatron --overlap-grad-reduce, DeepSpeed "
           "ZeRO-1 overlap_comm); off: the reduction runs after the backward, all of it exposed. DDP and ZeRO-1 "
           "only: the other strategies reduce inside the backward"));
    m_paramOverlap = addCheck(
        QStringLiteral("parallelism.overlap_param_gather"),
        [](const Scenario& s) { return s.parallelism.overlapParamGather; },
        [](Scenario& s, bool v) { s.parallelism.overlapParamGather = v; },
        tr("Gather the updated parameters bucket by bucket during the next step's first forward (Megatron "
           "--overlap-param-gather, needs the gradient reduce overlap); off: the all-gather runs inside the optimizer "
           "step, all of it exposed. ZeRO-1 on Megatron-LM only"));
    m_moeOverlap = addEnum(
        QStringLiteral("parallelism.moe_overlap"), moeOverlapChoices(),
        [](const Scenario& s) { return int(s.parallelism.moeOverlap); },
        [](Scenario& s, int v) { s.parallelism.moeOverlap = core::MoeOverlap(v); });
}

void ParallelismPanel::refreshExtras(const Scenario& s)
{
    const qint64 gpus
        = std::max<qint64>(1, qint64(s.cluster.nodes) * s.cluster.gpusPerNode); // no int overflow at the limits
    // The TP values the core's rule allows (core::tensorParallelIssues: heads, KV heads, ffn_hidden, vocab).
    QList<qint64> tp;
    for (qint64 d : divisors(s.model.heads, gpus))
        if (core::tensorParallelIssues(s.model, int(d)).empty())
            tp << d;
    m_tp->setValues(tp);
    m_pp->setValues(divisors(s.model.layers, gpus));
    QList<qint64> cp;
    for (qint64 c = 1; c <= gpus && s.training.seqLen % c == 0 && c <= 64; c *= 2)
        cp << c;
    m_cp->setValues(cp);
    m_cpCommType->setEnabled(s.parallelism.cp > 1);
    m_ep->setValues(s.model.isMoe() ? divisors(s.model.moe.experts, gpus) : QList<qint64> { 1 });
    setRowVisible(m_ep, s.model.isMoe() || s.parallelism.ep != 1);
    m_etp->setValues(
        s.model.isMoe() ? divisors(s.model.moe.expertFfnHidden, gpus) : QList<qint64> { s.parallelism.tp });
    setRowVisible(m_etp, s.model.isMoe() || s.parallelism.expertTp != 0);
    m_tpOverlap->setEnabled(s.parallelism.tp > 1 || s.parallelism.tpCommOverlap);
    // a switch that is off stays editable, so that the warning it raises can be mended where it is
    m_gradOverlap->setEnabled(s.parallelism.reducesGradientsOncePerStep() || !s.parallelism.overlapGradReduce);
    m_paramOverlap->setEnabled(
        (s.parallelism.sharding == core::Sharding::Zero1 && s.training.framework == core::Framework::Megatron)
        || s.parallelism.overlapParamGather);
    setRowVisible(m_moeOverlap, s.model.isMoe() || s.parallelism.moeOverlap != core::MoeOverlap::None);
    m_moeOverlap->setEnabled(s.parallelism.ep > 1 || s.parallelism.moeOverlap != core::MoeOverlap::None);
    const int dp = core::dataParallel(s);
    m_dp->setText(dp > 0 ? QStringLiteral("%1 / (%2 × %3 × %4) = %5")
                               .arg(gpus)
                               .arg(s.parallelism.tp)
                               .arg(s.parallelism.pp)
                               .arg(s.parallelism.cp)
                               .arg(dp)
                         : tr("not whole (see Issues)"));
    m_sp->setEnabled(s.parallelism.tp > 1 || s.parallelism.sequenceParallel);
    m_schedule->setEnabled(s.parallelism.pp > 1);
    m_virtual->setEnabled(s.parallelism.schedule == core::PpSchedule::Interleaved || s.parallelism.virtualStages != 1);
    m_layout->setEnabled(s.parallelism.pp > 1 || !s.parallelism.pipelineLayout.empty());
    m_shardGroup->setEnabled(s.parallelism.sharding == core::Sharding::FsdpHybrid || s.parallelism.shardGroup != 0);
}

} // namespace shardscope::ui
