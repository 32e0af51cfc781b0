// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/model_panel.h"

#include "document/parameter_count.h"
#include "document/scenario_document.h"
#include "util/units.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

namespace shardscope::ui {

using core::Scenario;

ModelPanel::ModelPanel(ScenarioDocument* doc, QWidget* parent)
    : EditorPanel(doc, parent)
    , m_preset(new QComboBox(this))
    , m_params(new QLabel(this))
{
    m_preset->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_preset->setMinimumContentsLength(18);
    addRow(QStringLiteral("model.preset"), m_preset,
        tr("Model presets from the catalog (resources/catalog/models.json) with their parameter counts. "
           "Editing an architecture field below keeps the preset as the base and overrides that field."));
    fillPresets();
    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        const QString id = m_preset->itemData(index).toString();
        const core::ModelSpec* spec = m_doc->catalog().model(id.toStdString());
        if (!spec)
            return;
        const core::ModelSpec model = *spec;
        m_doc->edit(tr("Choose model %1").arg(QString::fromStdString(model.name)), QStringLiteral("model.preset"),
            [model](Scenario& s) { s.model = model; });
    });
    m_params->setToolTip(tr("Parameter count Ψ of this architecture as the core counts it (embeddings, attention, "
                            "MLP or experts, norms); active = parameters one token passes through."));
    // A long text must not widen the editor. Not word wrap: Qt 6.4's QFormLayout corrupts memory in
    // heightForWidth() when a form has hidden rows (the MoE rows here) and a word-wrapped label.
    m_params->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_form->addRow(tr("Parameters:"), m_params);

    // Ranges are core validation's (core/src/validate.cpp; tst_editors checks them against validate()).
    constexpr int64_t kMaxHidden = 1 << 20;
    constexpr int kMaxLayers = 10000;
    constexpr int kMaxHeads = 1 << 16;
    addSpin(
        QStringLiteral("model.layers"), 1, kMaxLayers, [](const Scenario& s) { return s.model.layers; },
        [](Scenario& s, int64_t v) { s.model.layers = int(v); }, tr("Transformer layers L"));
    addWideSpin(
        QStringLiteral("model.hidden"), 1, kMaxHidden, [](const Scenario& s) { return s.model.hidden; },
        [](Scenario& s, int64_t v) { s.model.hidden = v; }, tr("Hidden size h (d_model)"))
        ->setSingleStep(128);
    addSpin(
        QStringLiteral("model.heads"), 1, kMaxHeads, [](const Scenario& s) { return s.model.heads; },
        [](Scenario& s, int64_t v) { s.model.heads = int(v); }, tr("Attention (query) heads a"));
    addSpin(
        QStringLiteral("model.kv_heads"), 1, kMaxHeads, [](const Scenario& s) { return s.model.kvHeads; },
        [](Scenario& s, int64_t v) { s.model.kvHeads = int(v); },
        tr("Key/value heads g (g = a: multi-head, 1: multi-query, otherwise grouped-query attention)"));
    addWideSpin(
        QStringLiteral("model.ffn_hidden"), 1, 16 * kMaxHidden, [](const Scenario& s) { return s.model.ffnHidden; },
        [](Scenario& s, int64_t v) { s.model.ffnHidden = v; }, tr("MLP intermediate size f"))
        ->setSingleStep(256);
    addWideSpin(
        QStringLiteral("model.vocab"), 1, 100'000'000, [](const Scenario& s) { return s.model.vocab; },
        [](Scenario& s, int64_t v) { s.model.vocab = v; }, tr("Vocabulary size V"))
        ->setSingleStep(1024);
    addEnum(
        QStringLiteral("model.mlp"), mlpChoices(), [](const Scenario& s) { return int(s.model.mlp); },
        [](Scenario& s, int v) { s.model.mlp = core::Mlp(v); }, tr("MLP type (SwiGLU has three weight matrices)"));
    addEnum(
        QStringLiteral("model.norm"), normChoices(), [](const Scenario& s) { return int(s.model.norm); },
        [](Scenario& s, int v) { s.model.norm = core::Norm(v); });
    addEnum(
        QStringLiteral("model.position_embedding"), positionChoices(),
        [](const Scenario& s) { return int(s.model.position); },
        [](Scenario& s, int v) { s.model.position = core::PositionEmbedding(v); });
    addCheck(
        QStringLiteral("model.tied_embeddings"), [](const Scenario& s) { return s.model.tiedEmbeddings; },
        [](Scenario& s, bool v) { s.model.tiedEmbeddings = v; },
        tr("Input embedding and output layer share one weight matrix"));
    auto* window = addWideSpin(
        QStringLiteral("model.sliding_window"), 0, 100'000'000, [](const Scenario& s) { return s.model.slidingWindow; },
        [](Scenario& s, int64_t v) { s.model.slidingWindow = v; },
        tr("Sliding-window attention w: each query attends to at most w keys (Mistral, Gemma 2/3, GPT-OSS); "
           "attention FLOPs fall to w·s − w(w−1)/2 score pairs per layer. 0 = full attention"));
    window->setSpecialValueText(tr("full attention"));
    window->setSingleStep(1024);
    auto* pattern = addSpin(
        QStringLiteral("model.sliding_window_pattern"), 0, kMaxLayers,
        [](const Scenario& s) { return s.model.slidingWindowPattern; },
        [](Scenario& s, int64_t v) { s.model.slidingWindowPattern = int(v); },
        tr("Every n-th layer attends globally (Gemma 3: 6, GPT-OSS: 2); 0 = every layer through the window"));
    pattern->setSpecialValueText(tr("all windowed"));
    addRefresher([pattern](const Scenario& s) {
        pattern->setEnabled(s.model.slidingWindow > 0 || s.model.slidingWindowPattern > 0);
    });
    addSpin(
        QStringLiteral("model.moe.experts"), 0, kMaxHeads, [](const Scenario& s) { return s.model.moe.experts; },
        [](Scenario& s, int64_t v) { s.model.moe.experts = int(v); },
        tr("Routed experts per MoE layer (0 = dense model)"))
        ->setSpecialValueText(tr("dense"));
    m_moeRows << addSpin(
        QStringLiteral("model.moe.top_k"), 1, kMaxHeads, [](const Scenario& s) { return s.model.moe.topK; },
        [](Scenario& s, int64_t v) { s.model.moe.topK = int(v); }, tr("Experts each token visits"));
    m_moeRows << addWideSpin(
        QStringLiteral("model.moe.expert_ffn_hidden"), 1, 16 * kMaxHidden,
        [](const Scenario& s) { return s.model.moe.expertFfnHidden; },
        [](Scenario& s, int64_t v) { s.model.moe.expertFfnHidden = v; }, tr("Intermediate size of one expert"));
    m_moeRows << addSpin(
        QStringLiteral("model.moe.shared_experts"), 0, kMaxHeads,
        [](const Scenario& s) { return s.model.moe.sharedExperts; },
        [](Scenario& s, int64_t v) { s.model.moe.sharedExperts = int(v); }, tr("Always-active experts (DeepSeek)"));
    m_moeRows << addSpin(
        QStringLiteral("model.moe.dense_layers"), 0, kMaxLayers,
        [](const Scenario& s) { return s.model.moe.denseLayers; },
        [](Scenario& s, int64_t v) { s.model.moe.denseLayers = int(v); }, tr("Leading layers with a dense MLP"));
    QSpinBox* nodes = addSpin(
        QStringLiteral("model.moe.max_nodes_per_token"), 0, 1 << 16,
        [](const Scenario& s) { return s.model.moe.maxNodesPerToken; },
        [](Scenario& s, int64_t v) { s.model.moe.maxNodesPerToken = int(v); },
        tr("Node-limited routing: each token goes to experts on at most this many nodes "
           "(DeepSeek-V3: 4; 0 = no limit)"));
    nodes->setSpecialValueText(tr("no limit"));
    m_moeRows << nodes;
    m_moeRows << addEnum(
        QStringLiteral("model.moe.dispatcher"), dispatcherChoices(),
        [](const Scenario& s) { return int(s.model.moe.dispatcher); },
        [](Scenario& s, int v) { s.model.moe.dispatcher = core::MoeDispatcher(v); },
        tr("How tokens reach their experts (Megatron --moe-token-dispatcher-type)"));
}

void ModelPanel::fillPresets()
{
    // The core's count (the one the charts use); the published figure goes in the tooltip. Done once.
    for (const core::ModelSpec& m : m_doc->catalog().models) {
        const ParameterCount count = countParameters(m);
        const double params = count.valid ? count.total : m.paramsPublished;
        const QString text = params > 0
            ? QStringLiteral("%1  (%2)").arg(QString::fromStdString(m.name), Units::count(params, 1))
            : QString::fromStdString(m.name);
        m_preset->addItem(text, QString::fromStdString(m.id));
        QString tip = QString::fromStdString(m.source);
        if (m.paramsPublished > 0)
            tip = tr("Published: %1 parameters. Source: %2").arg(Units::count(m.paramsPublished), tip);
        m_preset->setItemData(m_preset->count() - 1, tip, Qt::ToolTipRole);
    }
}

void ModelPanel::refreshExtras(const Scenario& s)
{
    const core::ModelSpec* preset = m_doc->catalog().model(s.model.id);
    const bool custom = !preset || !(*preset == s.model);
    selectCatalogEntry(m_preset, int(m_doc->catalog().models.size()), QString::fromStdString(s.model.id), custom,
        preset ? tr("%1 (modified)").arg(QString::fromStdString(preset->name))
               : tr("Custom: %1").arg(QString::fromStdString(s.model.name)));
    for (QWidget* w : std::as_const(m_moeRows))
        setRowVisible(w, s.model.isMoe());
}

void ModelPanel::resultExtras(const Scenario& s, const core::Result& r)
{
    ParameterCount count;
    if (r.valid && r.parameters > 0)
        count = { r.parameters, r.activeParameters, true };
    else
        count = countParameters(s.model);
    if (!count.valid)
        m_params->setText(tr("— (check the architecture)"));
    else if (s.model.isMoe())
        m_params->setText(tr("%1, %2 active").arg(Units::count(count.total), Units::count(count.active)));
    else
        m_params->setText(Units::count(count.total));
}

} // namespace shardscope::ui
