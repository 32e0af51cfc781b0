// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/training_panel.h"

#include "document/scenario_document.h"
#include "editors/value_slider.h"

#include <shardscope/core/catalog.h>

#include <QCheckBox>
#include <QGridLayout>
#include <QSignalBlocker>
#include <QSpinBox>

namespace shardscope::ui {

using core::Scenario;

TrainingPanel::TrainingPanel(ScenarioDocument* doc, QWidget* parent)
    : EditorPanel(doc, parent)
{
    auto* seq = addSlider(
        QStringLiteral("training.seq_len"), [](const Scenario& s) { return s.training.seqLen; },
        [](Scenario& s, int64_t v) { s.training.seqLen = v; },
        tr("Tokens per sequence s (the slider moves in powers of two; type any value)"));
    QList<qint64> powers;
    for (qint64 v = 128; v <= (1 << 20); v *= 2)
        powers << v;
    seq->setValues(powers);
    seq->setFreeEntry(1, 100'000'000); // core validation's limits (validate.cpp)
    addWideSpin(
        QStringLiteral("training.global_batch"), 1, 1'000'000'000,
        [](const Scenario& s) { return s.training.globalBatch; },
        [](Scenario& s, int64_t v) { s.training.globalBatch = v; }, tr("Sequences per optimizer step B"));
    m_microBatch = addSlider(
        QStringLiteral("training.micro_batch"), [](const Scenario& s) { return s.training.microBatch; },
        [](Scenario& s, int64_t v) { s.training.microBatch = v; },
        tr("Sequences per micro-batch per data-parallel replica b (values that divide B / DP)"));
    addEnum(
        QStringLiteral("training.precision"), precisionChoices(),
        [](const Scenario& s) { return int(s.training.precision); },
        [](Scenario& s, int v) { s.training.precision = core::Precision(v); });
    addEnum(
        QStringLiteral("training.optimizer"), optimizerChoices(),
        [](const Scenario& s) { return int(s.training.optimizer); },
        [](Scenario& s, int v) { s.training.optimizer = core::Optimizer(v); });
    addEnum(
        QStringLiteral("training.recompute"), recomputeChoices(),
        [](const Scenario& s) { return int(s.training.recompute); },
        [](Scenario& s, int v) { s.training.recompute = core::Recompute(v); },
        tr("Activation recomputation (checkpointing)"));
    addRecomputeModules();
    addCheck(
        QStringLiteral("training.flash_attention"), [](const Scenario& s) { return s.training.flashAttention; },
        [](Scenario& s, bool v) { s.training.flashAttention = v; },
        tr("Fused attention that never stores the s × s score matrix"));
    addCheck(
        QStringLiteral("training.dropout"), [](const Scenario& s) { return s.training.dropout; },
        [](Scenario& s, bool v) { s.training.dropout = v; },
        tr("Store dropout masks (Korthikanti et al.'s formulas assume they are stored)"));
    addEnum(
        QStringLiteral("training.accounting"), accountingChoices(),
        [](const Scenario& s) { return int(s.training.accounting); },
        [](Scenario& s, int v) { s.training.accounting = core::Accounting(v); },
        tr("How model-state bytes per parameter are counted"));
    addEnum(
        QStringLiteral("training.grad_reduce_dtype"), gradReduceChoices(),
        [](const Scenario& s) { return int(s.training.gradReduce); },
        [](Scenario& s, int v) { s.training.gradReduce = core::GradReduce(v); },
        tr("Dtype of the gradient buffer and its data-parallel reduction (mixed precision)"));
    addEnum(
        QStringLiteral("training.master_weights"), masterWeightsChoices(),
        [](const Scenario& s) { return int(s.training.masterWeights); },
        [](Scenario& s, int v) { s.training.masterWeights = core::MasterWeights(v); },
        tr("How the optimizer keeps its master weights (mixed precision)"));
    addEnum(
        QStringLiteral("training.moments_dtype"), momentsDtypeChoices(),
        [](const Scenario& s) { return int(s.training.momentsDtype); },
        [](Scenario& s, int v) { s.training.momentsDtype = core::MomentsDtype(v); },
        tr("Dtype of AdamW's two moments (mixed precision)"));
    addCheck(
        QStringLiteral("training.fp8_param_gather"), [](const Scenario& s) { return s.training.fp8ParamGather; },
        [](Scenario& s, bool v) { s.training.fp8ParamGather = v; },
        tr("FP8 weights are the parameters (Megatron --fp8-param-gather): no bf16 copy beside the FP8 one"));
    addEnum(
        QStringLiteral("training.framework"), frameworkChoices(),
        [](const Scenario& s) { return int(s.training.framework); },
        [this](Scenario& s, int v) { core::applyFramework(s, core::Framework(v), m_doc->catalog()); },
        tr("Training framework: selects its profile (resources/profiles): kernel fusion, host overhead, "
           "allocator, loss memory"));
}

void TrainingPanel::addRecomputeModules()
{
    // Megatron's names, each a check box, three to a row so the form keeps its width.
    static const struct {
        const char* name;
        bool core::RecomputeModules::*flag;
        const char* hint;
    } modules[] = {
        { "core_attn", &core::RecomputeModules::coreAttn, QT_TR_NOOP("Core attention (the default)") },
        { "mlp", &core::RecomputeModules::mlp, QT_TR_NOOP("A dense layer's MLP") },
        { "moe_act", &core::RecomputeModules::moeAct, QT_TR_NOOP("The routed experts' activation function") },
        { "layernorm", &core::RecomputeModules::layernorm, QT_TR_NOOP("The input and pre-MLP norms") },
        { "moe", &core::RecomputeModules::moe, QT_TR_NOOP("The whole MoE block, its all-to-alls included") },
        { "shared_experts", &core::RecomputeModules::sharedExperts, QT_TR_NOOP("The shared experts") },
    };
    auto* box = new QWidget(this);
    auto* grid = new QGridLayout(box);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(0);
    const QString field = QStringLiteral("training.recompute_modules");
    int i = 0;
    for (const auto& m : modules) {
        auto* check = new QCheckBox(QString::fromLatin1(m.name), box);
        check->setToolTip(tr(m.hint));
        grid->addWidget(check, i / 3, i % 3);
        ++i;
        const auto flag = m.flag;
        connect(check, &QCheckBox::toggled, this, [this, field, flag, check](bool on) {
            commit(field, check->text() + (on ? tr(" on") : tr(" off")), [flag, on](Scenario& s) {
                core::RecomputeModules mods = s.training.effectiveRecomputeModules();
                mods.*flag = on;
                // Megatron's default is kept as "absent", so files stay as they were.
                if (mods == core::RecomputeModules { .coreAttn = true })
                    s.training.recomputeModules.reset();
                else
                    s.training.recomputeModules = mods;
            });
        });
        addRefresher([check, flag](const Scenario& s) {
            const QSignalBlocker block(check);
            check->setChecked(s.training.effectiveRecomputeModules().*flag);
        });
    }
    addRow(field, box,
        tr("Modules selective recompute re-runs in backward (Megatron --recompute-modules); used with recompute "
           "selective"));
    addRefresher([box](const Scenario& s) {
        box->setEnabled(s.training.recompute == core::Recompute::Selective || s.training.recomputeModules.has_value());
    });
}

void TrainingPanel::refreshExtras(const Scenario& s)
{
    // Micro-batch sizes that divide the per-replica batch B / DP; powers of two when that is not whole.
    const int dp = core::dataParallel(s);
    QList<qint64> values;
    if (dp > 0 && s.training.globalBatch % dp == 0) {
        const int64_t perReplica = s.training.globalBatch / dp;
        for (int64_t b = 1; b <= std::min<int64_t>(perReplica, 1024); ++b)
            if (perReplica % b == 0)
                values << b;
    } else {
        for (qint64 b = 1; b <= 64; b *= 2)
            values << b;
    }
    m_microBatch->setValues(values);
}

} // namespace shardscope::ui
