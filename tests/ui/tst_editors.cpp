// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario editor: controls show the document, write through it, offer only sensible values and mark
// the controls issues name. Issue 12: spin-box ranges are core validation's; a document (at the limits, beyond
// them, with a 40,000-character name) is shown as it is and never modified by being shown.
#include "settle.h"
#include "test_support.h"

#include "document/scenario_document.h"
#include "document/scenario_file.h"
#include "editors/editor_panel.h"
#include "editors/scenario_editor.h"
#include "editors/value_slider.h"

#include <shardscope/core/evaluate.h>
#include <shardscope/core/scenario_json.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLabel>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <QWheelEvent>

using namespace shardscope;
using ui::ScenarioDocument;
using ui::ScenarioEditor;
using ui::ValueSlider;

namespace {
/// Sets a dotted path ("model.moe.top_k") in a JSON object, creating objects on the way.
void setPath(QJsonObject& object, const QStringList& path, double value)
{
    if (path.size() == 1) {
        object.insert(path.front(), value);
        return;
    }
    QJsonObject inner = object.value(path.front()).toObject();
    setPath(inner, path.mid(1), value);
    object.insert(path.front(), inner);
}

/// The scenario with field set to value, through its file form (so values no widget offers can be tried).
core::Scenario withValue(const core::Scenario& s, const QString& field, double value)
{
    QJsonObject json
        = QJsonDocument::fromJson(QByteArray::fromStdString(core::scenarioToJson(s, test::catalog()))).object();
    setPath(json, field.split(QLatin1Char('.')), value);
    const QByteArray text = QJsonDocument(json).toJson();
    const core::ScenarioParse parsed
        = core::parseScenario(std::string_view(text.constData(), size_t(text.size())), test::catalog());
    if (!parsed.ok())
        qFatal("%s = %g does not parse: %s", qPrintable(field), value, parsed.errors.front().message.c_str());
    return parsed.scenario;
}

/// Whether validation refuses field's value as out of its range (the "must be between" rule).
bool outOfRange(const core::Scenario& s, const QString& field)
{
    for (const core::Issue& i : core::validate(s))
        if (QString::fromStdString(i.field) == field
            && QString::fromStdString(i.message).contains(QStringLiteral("must be between")))
            return true;
    return false;
}
} // namespace

class TestEditors : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void controlsShowScenario();
    void tpOffersDivisorsOfHeads();
    void sliderKeyEditsDocument();
    void sliderDragIsOneUndoStep();
    void spinBoxEditsDocument();
    void comboEditsDocument();
    void moeOverlapAndRoutingEditable();
    void cpCommTypeEditable();
    void expertTpDispatcherAndRecomputeModulesEditable();
    void presetChangesModel();
    void gpuChangeBringsItsLinks();
    void microBatchValuesDivideReplicaBatch();
    void issueMarksControl();
    void undoRefreshesControls();
    void oneRefreshPerEdit();
    void pipelineLayoutEditsDocument();
    void rangesMatchValidation();
    void documentIsShownAsItIs_data();
    void documentIsShownAsItIs();
    void wheelScrollsPanelNotControls();

private:
    template <class W> W* control(const QString& field) const
    {
        return qobject_cast<W*>(m_editor->widgetForField(field));
    }
    ScenarioDocument* m_doc = nullptr;
    ScenarioEditor* m_editor = nullptr;
};

void TestEditors::init()
{
    m_doc = new ScenarioDocument(test::catalog());
    m_editor = new ScenarioEditor(m_doc);
    m_editor->resize(420, 900);
    m_editor->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_editor));
}

void TestEditors::cleanup()
{
    delete m_editor;
    delete m_doc;
}

void TestEditors::controlsShowScenario()
{
    const core::Scenario& s = m_doc->scenario();
    QCOMPARE(control<ValueSlider>(QStringLiteral("cluster.nodes"))->value(), qint64(s.cluster.nodes));
    QCOMPARE(control<ValueSlider>(QStringLiteral("cluster.nodes"))->spinBox()->value(), double(s.cluster.nodes));
    QCOMPARE(control<ValueSlider>(QStringLiteral("training.seq_len"))->value(), qint64(s.training.seqLen));
    QCOMPARE(control<QSpinBox>(QStringLiteral("model.layers"))->value(), s.model.layers);
    QCOMPARE(control<ValueSlider>(QStringLiteral("parallelism.tp"))->value(), qint64(s.parallelism.tp));
    // Building the editor must not edit the document.
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QCOMPARE(m_doc->scenario(), core::defaultScenario(test::catalog()));
}

void TestEditors::tpOffersDivisorsOfHeads()
{
    const auto* tp = control<ValueSlider>(QStringLiteral("parallelism.tp"));
    QVERIFY(tp);
    const int heads = m_doc->scenario().model.heads;
    QVERIFY(tp->values().size() > 1);
    for (int v : tp->values())
        QVERIFY2(heads % v == 0, qPrintable(QStringLiteral("%1 does not divide %2").arg(v).arg(heads)));
    const auto* pp = control<ValueSlider>(QStringLiteral("parallelism.pp"));
    for (int v : pp->values())
        QCOMPARE(m_doc->scenario().model.layers % v, 0);
}

void TestEditors::sliderKeyEditsDocument()
{
    auto* tp = control<ValueSlider>(QStringLiteral("parallelism.tp"));
    const int next = tp->values().at(tp->values().indexOf(tp->value()) + 1);
    const double memoryBefore = m_doc->result().memory.total();
    tp->slider()->setFocus();
    QTest::keyClick(tp->slider(), Qt::Key_Right);
    QCOMPARE(m_doc->scenario().parallelism.tp, next);
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->result().tp, next);
    QVERIFY(m_doc->result().memory.total() != memoryBefore);
    QCOMPARE(m_doc->undoStack()->count(), 1);
}

void TestEditors::sliderDragIsOneUndoStep()
{
    auto* nodes = control<ValueSlider>(QStringLiteral("cluster.nodes"));
    const int start = m_doc->scenario().cluster.nodes;
    QSlider* slider = nodes->slider();
    emit slider->sliderPressed();
    slider->setValue(slider->value() + 1);
    slider->setValue(slider->value() + 1);
    slider->setValue(slider->value() + 1);
    emit slider->sliderReleased();
    QVERIFY(m_doc->scenario().cluster.nodes > start);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->scenario().cluster.nodes, start);
    QCOMPARE(nodes->value(), qint64(start));
}

void TestEditors::spinBoxEditsDocument()
{
    auto* spin = control<ValueSlider>(QStringLiteral("cluster.nodes"))->spinBox();
    spin->setValue(16);
    QCOMPARE(m_doc->scenario().cluster.nodes, 16);
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->result().gpus, 16 * m_doc->scenario().cluster.gpusPerNode);
    auto* layers = control<QSpinBox>(QStringLiteral("model.layers"));
    layers->setValue(40);
    QCOMPARE(m_doc->scenario().model.layers, 40);
}

void TestEditors::comboEditsDocument()
{
    auto* sharding = control<QComboBox>(QStringLiteral("parallelism.sharding"));
    QVERIFY(sharding);
    sharding->setFocus();
    QTest::keyClick(sharding, Qt::Key_Up); // ZeRO-3 -> ZeRO-2
    QCOMPARE(m_doc->scenario().parallelism.sharding, core::Sharding::Zero2);
    auto* flash = control<QCheckBox>(QStringLiteral("training.flash_attention"));
    const bool was = m_doc->scenario().training.flashAttention;
    flash->click();
    QCOMPARE(m_doc->scenario().training.flashAttention, !was);
}

void TestEditors::moeOverlapAndRoutingEditable()
{
    // Dense model: no all-to-all overlap or routing rows. A MoE scenario with EP: both editable, one undo step each.
    QWidget* overlapRow = m_editor->widgetForField(QStringLiteral("parallelism.moe_overlap"));
    QVERIFY(overlapRow);
    QVERIFY(!m_doc->scenario().model.isMoe());
    QVERIFY(!overlapRow->isVisibleTo(m_editor));
    m_doc->reset(
        test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json")), QString());
    QVERIFY(m_doc->scenario().parallelism.ep > 1);
    auto* overlap = control<QComboBox>(QStringLiteral("parallelism.moe_overlap"));
    QVERIFY(overlap->isVisibleTo(m_editor) && overlap->isEnabled());
    const int dual = overlap->findData(int(core::MoeOverlap::DualPipe));
    QVERIFY(dual >= 0);
    overlap->setCurrentIndex(dual);
    emit overlap->activated(dual);
    QCOMPARE(m_doc->scenario().parallelism.moeOverlap, core::MoeOverlap::DualPipe);
    auto* nodes = control<QSpinBox>(QStringLiteral("model.moe.max_nodes_per_token"));
    QVERIFY(nodes && nodes->isVisibleTo(m_editor));
    nodes->setValue(4);
    QCOMPARE(m_doc->scenario().model.moe.maxNodesPerToken, 4);
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->scenario().model.moe.maxNodesPerToken, 0);
    QCOMPARE(nodes->specialValueText(), nodes->text()); // "no limit"
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->scenario().parallelism.moeOverlap, core::MoeOverlap::None);
}

void TestEditors::cpCommTypeEditable()
{
    // The context-parallel exchange: idle at cp 1, editable with cp > 1, one undo step; an invalid choice (Ulysses
    // over more ranks than Llama 3 70B's 8 KV heads at TP 8) is marked by validation, naming the field.
    auto* type = control<QComboBox>(QStringLiteral("parallelism.cp_comm_type"));
    QCOMPARE(m_doc->scenario().parallelism.cp, 1);
    QVERIFY(!type->isEnabled());
    m_doc->reset(
        test::loadScenario(QStringLiteral("resources/scenarios/cp-llama3-70b-128k.shardscope.json")), QString());
    QVERIFY(test::settle(*m_doc));
    QVERIFY(m_doc->scenario().parallelism.cp > 1);
    QVERIFY(type->isEnabled());
    QCOMPARE(type->currentData().toInt(), int(core::CpCommType::P2p));
    const int a2a = type->findData(int(core::CpCommType::A2a));
    QVERIFY(a2a >= 0);
    type->setCurrentIndex(a2a);
    emit type->activated(a2a);
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->scenario().parallelism.cpCommType, core::CpCommType::A2a);
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QWidget* panel = type->parentWidget();
        while (panel && !panel->inherits("shardscope::ui::ParallelismPanel"))
            panel = panel->parentWidget();
        QVERIFY(panel);
        QVERIFY(panel->grab().save(dir + QStringLiteral("/parallelism-panel.png")));
    }
    QVERIFY(!m_doc->result().valid);
    QVERIFY(std::any_of(m_doc->result().issues.begin(), m_doc->result().issues.end(),
        [](const core::Issue& i) { return i.field == "parallelism.cp_comm_type"; }));
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->scenario().parallelism.cpCommType, core::CpCommType::P2p);
    QCOMPARE(type->currentData().toInt(), int(core::CpCommType::P2p));
}

void TestEditors::expertTpDispatcherAndRecomputeModulesEditable()
{
    // Dense model: no expert-TP row. The Mixtral example: expert TP offers divisors of the expert size and stores 0
    // (follow tp) when set to tp; the dispatcher and each recompute module are one undo step each.
    QVERIFY(!m_editor->widgetForField(QStringLiteral("parallelism.expert_tp"))->isVisibleTo(m_editor));
    m_doc->reset(
        test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json")), QString());
    auto* etp = control<ValueSlider>(QStringLiteral("parallelism.expert_tp"));
    QVERIFY(etp && etp->isVisibleTo(m_editor));
    QCOMPARE(etp->value(), qint64(m_doc->scenario().parallelism.tp));
    QVERIFY(etp->values().contains(1) && etp->values().contains(2));
    const int tp = m_doc->scenario().parallelism.tp;
    const qint64 other = tp == 1 ? 2 : 1;
    etp->setValue(other);
    emit etp->valueEdited(other);
    QCOMPARE(m_doc->scenario().parallelism.expertTp, int(other));
    emit etp->valueEdited(tp);
    QCOMPARE(m_doc->scenario().parallelism.expertTp, 0);

    auto* dispatcher = control<QComboBox>(QStringLiteral("model.moe.dispatcher"));
    QVERIFY(dispatcher && dispatcher->isVisibleTo(m_editor));
    const int deepep = dispatcher->findData(int(core::MoeDispatcher::DeepEp));
    QVERIFY(deepep >= 0);
    dispatcher->setCurrentIndex(deepep);
    emit dispatcher->activated(deepep);
    QCOMPARE(m_doc->scenario().model.moe.dispatcher, core::MoeDispatcher::DeepEp);

    QWidget* modules = m_editor->widgetForField(QStringLiteral("training.recompute_modules"));
    QVERIFY(modules && modules->isVisibleTo(m_editor));
    QCOMPARE(m_doc->scenario().training.recompute, core::Recompute::Selective);
    QVERIFY(modules->isEnabled());
    QCheckBox* moe = nullptr;
    QCheckBox* core = nullptr;
    for (QCheckBox* c : modules->findChildren<QCheckBox*>()) {
        if (c->text() == QLatin1String("moe"))
            moe = c;
        if (c->text() == QLatin1String("core_attn"))
            core = c;
    }
    QVERIFY(moe && core);
    QVERIFY(core->isChecked() && !moe->isChecked()); // absent: core_attn alone
    const int before = m_doc->undoStack()->count();
    moe->click();
    QCOMPARE(m_doc->scenario().training.recomputeModules, (core::RecomputeModules { .coreAttn = true, .moe = true }));
    QCOMPARE(m_doc->undoStack()->count(), before + 1);
    moe->click(); // back to core_attn alone: stored as absent
    QVERIFY(!m_doc->scenario().training.recomputeModules.has_value());
}

void TestEditors::presetChangesModel()
{
    auto* preset = control<QComboBox>(QStringLiteral("model.preset"));
    const int index = preset->findData(QStringLiteral("llama3-8b"));
    QVERIFY(index >= 0);
    QVERIFY(preset->itemText(index).contains(QLatin1Char('B'))); // shows its parameter count
    preset->setCurrentIndex(index);
    emit preset->activated(index);
    QCOMPARE(QString::fromStdString(m_doc->scenario().model.id), QStringLiteral("llama3-8b"));
    QCOMPARE(control<QSpinBox>(QStringLiteral("model.layers"))->value(), m_doc->scenario().model.layers);
    // Editing an architecture field marks the preset as modified.
    control<QSpinBox>(QStringLiteral("model.layers"))->setValue(m_doc->scenario().model.layers + 2);
    QVERIFY(preset->currentText().contains(QStringLiteral("modified")));
}

void TestEditors::gpuChangeBringsItsLinks()
{
    // Issue 13 item 2: a new GPU comes with its own scale-up link, and its typical scale-out link while the old one
    // was the previous GPU's typical; a link the user chose stays; a mismatch is offered back with one click.
    auto* gpu = control<QComboBox>(QStringLiteral("cluster.gpu"));
    auto* intra = control<QComboBox>(QStringLiteral("cluster.intra_node"));
    auto* inter = control<QComboBox>(QStringLiteral("cluster.inter_node"));
    QVERIFY(gpu && intra && inter);
    auto choose = [](QComboBox* combo, const char* id) {
        const int i = combo->findData(QString::fromLatin1(id));
        QVERIFY(i >= 0);
        combo->setCurrentIndex(i);
        emit combo->activated(i);
    };
    const auto& c = m_doc->scenario().cluster;
    QCOMPARE(QString::fromStdString(c.intraNode.id), QStringLiteral("nvlink4"));
    const int undo = m_doc->undoStack()->count();
    choose(gpu, "b300"); // NVLink 5 and ConnectX-8 XDR 800 (DGX B300)
    QCOMPARE(QString::fromStdString(c.gpu.id), QStringLiteral("b300"));
    QCOMPARE(QString::fromStdString(c.intraNode.id), QStringLiteral("nvlink5"));
    QCOMPARE(QString::fromStdString(c.interNode.id), QStringLiteral("ib-xdr800"));
    QCOMPARE(m_doc->undoStack()->count(), undo + 1); // one step
    QVERIFY(m_doc->undoStack()->undoText().contains(QStringLiteral("NVLink 5")));
    for (const core::Issue& w : m_doc->result().warnings)
        QVERIFY2(w.field != "cluster.intra_node", w.message.c_str());
    QCOMPARE(
        intra->itemData(intra->currentIndex(), Qt::FontRole).value<QFont>().bold(), true); // marked as the GPU's own
    QVERIFY(intra->itemData(intra->currentIndex(), Qt::ToolTipRole).toString().contains(QStringLiteral("own link")));

    choose(inter, "roce-400"); // the user's network stays through a GPU change
    choose(gpu, "h200-sxm-141gb");
    QCOMPARE(QString::fromStdString(c.intraNode.id), QStringLiteral("nvlink4"));
    QCOMPARE(QString::fromStdString(c.interNode.id), QStringLiteral("roce-400"));

    // A scale-up link that is not the GPU's: a warning, and the editor offers the GPU's own.
    choose(intra, "nvlink3");
    QVERIFY(test::settle(*m_doc));
    QVERIFY(std::any_of(m_doc->result().warnings.begin(), m_doc->result().warnings.end(),
        [](const core::Issue& w) { return w.field == "cluster.intra_node"; }));
    QLabel* offer = nullptr;
    for (QLabel* l : m_editor->findChildren<QLabel*>())
        if (l->text().contains(QStringLiteral("comes with")))
            offer = l;
    QVERIFY(offer && !offer->isHidden());
    QVERIFY(offer->text().contains(QStringLiteral("NVLink 4")));
    emit offer->linkActivated(QStringLiteral("use"));
    QCOMPARE(QString::fromStdString(c.intraNode.id), QStringLiteral("nvlink4"));
    QVERIFY(offer->isHidden());
}

void TestEditors::microBatchValuesDivideReplicaBatch()
{
    const auto* mb = control<ValueSlider>(QStringLiteral("training.micro_batch"));
    const core::Scenario& s = m_doc->scenario();
    const int64_t perReplica = s.training.globalBatch / core::dataParallel(s);
    for (int v : mb->values())
        QCOMPARE(perReplica % v, int64_t(0));
}

void TestEditors::issueMarksControl()
{
    m_doc->edit(
        QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 6; });
    QVERIFY(test::settle(*m_doc));
    QVERIFY(!m_doc->result().valid);
    QWidget* tp = m_editor->widgetForField(QStringLiteral("parallelism.tp"));
    // The form label of the TP row is coloured and carries the message.
    bool marked = false;
    for (QLabel* l : tp->parentWidget()->findChildren<QLabel*>())
        if (l->buddy() == tp)
            marked = l->styleSheet().contains(QStringLiteral("D55E00")) && !l->toolTip().isEmpty();
    QVERIFY(marked);
    m_editor->focusField(QStringLiteral("parallelism.tp"));
    QVERIFY(tp->hasFocus() || tp->isAncestorOf(QApplication::focusWidget()));
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    for (QLabel* l : tp->parentWidget()->findChildren<QLabel*>())
        if (l->buddy() == tp)
            QVERIFY(l->styleSheet().isEmpty());
}

void TestEditors::pipelineLayoutEditsDocument()
{
    // The layout text goes to the document when editing finishes, one undo step; a bad layout marks the row.
    m_doc->edit(QStringLiteral("pp"), QStringLiteral("parallelism.pp"), [](core::Scenario& s) {
        s.model.layers = 32;
        s.parallelism.pp = 4;
        s.parallelism.tp = 1;
        s.cluster.nodes = 1;
        s.cluster.gpusPerNode = 8;
        s.training.globalBatch = 64;
    });
    QVERIFY(test::settle(*m_doc));
    QVERIFY2(m_doc->result().valid, "the base scenario is valid");
    auto* layout = control<QLineEdit>(QStringLiteral("parallelism.pipeline_layout"));
    QVERIFY(layout->isEnabled());
    const int steps = m_doc->undoStack()->count();
    layout->setText(QStringLiteral("Et*7|t*9|t*9|t*7L"));
    emit layout->editingFinished();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(m_doc->scenario().parallelism.pipelineLayout, std::string("Et*7|t*9|t*9|t*7L"));
    QCOMPARE(m_doc->undoStack()->count(), steps + 1);
    QVERIFY(m_doc->result().valid);
    layout->setText(QStringLiteral("Et*8|t*8L"));
    emit layout->editingFinished();
    QVERIFY(test::settle(*m_doc));
    QVERIFY(!m_doc->result().valid);
    bool marked = false;
    for (QLabel* l : layout->parentWidget()->findChildren<QLabel*>())
        if (l->buddy() == layout)
            marked = !l->toolTip().isEmpty();
    QVERIFY(marked);
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(layout->text(), QStringLiteral("Et*7|t*9|t*9|t*7L"));
}

void TestEditors::undoRefreshesControls()
{
    auto* layers = control<QSpinBox>(QStringLiteral("model.layers"));
    const int before = layers->value();
    layers->setValue(before + 8);
    m_doc->undoStack()->undo();
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(layers->value(), before);
}

void TestEditors::oneRefreshPerEdit()
{
    // An edit redraws every panel's controls once, when the scenario changes; its result (resultReady) marks the
    // fields and shows the parameter count without redrawing the controls a second time.
    QVERIFY(test::settle(*m_doc));
    const QList<ui::EditorPanel*>& panels = m_editor->panels();
    QVERIFY(!panels.isEmpty());
    std::vector<int> before;
    for (const ui::EditorPanel* p : panels)
        before.push_back(p->refreshCount());
    QSignalSpy results(m_doc, &ScenarioDocument::resultReady);
    m_doc->edit(QStringLiteral("nodes"), QStringLiteral("cluster.nodes"),
        [](core::Scenario& s) { s.cluster.nodes = s.cluster.nodes + 1; });
    QVERIFY(test::settle(*m_doc));
    QCOMPARE(results.count(), 1);
    for (qsizetype i = 0; i < panels.size(); ++i)
        QCOMPARE(panels[i]->refreshCount(), before[size_t(i)] + 1);
}

void TestEditors::rangesMatchValidation()
{
    // On a MoE scenario (every row live): each spin box's maximum passes validation's range rule and one more fails
    // it; so does its minimum and one less, unless the minimum is a special value ("dense", "default", "one node").
    const core::Scenario base
        = test::loadScenario(QStringLiteral("resources/scenarios/moe-mixtral-8x22b-h100.shardscope.json"));
    int checked = 0;
    for (ui::EditorPanel* panel : m_editor->findChildren<ui::EditorPanel*>()) {
        for (const QString& field : panel->fields()) {
            QWidget* w = panel->widgetForField(field);
            std::function<void(double)> set;
            double min = 0, max = 0;
            bool special = false;
            auto* wide = qobject_cast<QDoubleSpinBox*>(w);
            if (auto* slider = qobject_cast<ValueSlider*>(w))
                wide = slider->spinBox();
            if (auto* spin = qobject_cast<QSpinBox*>(w)) {
                set = [spin](double v) { spin->setValue(int(v)); };
                min = spin->minimum();
                max = spin->maximum();
                special = !spin->specialValueText().isEmpty();
            } else if (wide) {
                set = [wide](double v) { wide->setValue(v); };
                min = wide->minimum();
                max = wide->maximum();
            } else {
                continue; // combo boxes, check boxes, sliders over a list of values
            }
            for (const auto& [limit, beyond] : { std::pair { max, max + 1 }, std::pair { min, min - 1 } }) {
                if (limit == min && special)
                    continue;
                m_doc->reset(base, QString());
                set(limit);
                QVERIFY2(m_doc->undoStack()->count() <= 1, qPrintable(field)); // 0: the scenario has that value already
                QVERIFY2(!outOfRange(m_doc->scenario(), field),
                    qPrintable(QStringLiteral("%1 = %2 is refused").arg(field).arg(limit)));
                QVERIFY2(outOfRange(withValue(m_doc->scenario(), field, beyond), field),
                    qPrintable(QStringLiteral("%1 = %2 is accepted, the control stops at %3")
                                   .arg(field)
                                   .arg(beyond)
                                   .arg(limit)));
            }
            ++checked;
        }
    }
    QCOMPARE(checked, 24); // with model.sliding_window, model.sliding_window_pattern, offload.activation_layers
}

void TestEditors::documentIsShownAsItIs_data()
{
    QTest::addColumn<QByteArray>("values");
    // At core validation's limits (each field on its own; together they break other rules, which is fine here).
    QTest::newRow("at the limits") << QByteArray(
        R"("model": {"preset": "mixtral-8x7b", "layers": 10000, "hidden": 1048576, "heads": 65536,
                         "kv_heads": 65536, "ffn_hidden": 16777216, "vocab": 100000000,
                         "moe": {"experts": 65536, "top_k": 65536, "expert_ffn_hidden": 16777216, "shared_experts": 65536,
                                 "dense_layers": 10000}},
                      "cluster": {"gpu": "h100-sxm5-80gb", "nodes": 9765, "gpus_per_node": 1024, "nics_per_node": 1024},
                      "training": {"seq_len": 100000000, "global_batch": 1000000000, "micro_batch": 1000000000},
                      "parallelism": {"sharding": "fsdp-hybrid", "tp": 1048576, "pp": 1048576, "cp": 1048576, "ep": 1048576,
                                      "pp_schedule": "interleaved", "virtual_stages": 1024, "shard_group": 10000000},
                      "nccl": {"min_channels": 64})");
    // Beyond them (validation reports each), 64-bit sizes past 2^31 included: shown, not clamped.
    QTest::newRow("beyond the limits") << QByteArray(
        R"("model": {"preset": "mixtral-8x7b", "layers": 20000, "hidden": 5000000000000, "heads": 100000,
                         "kv_heads": 100000, "ffn_hidden": 70000000000, "vocab": 3000000000,
                         "moe": {"experts": 70000, "top_k": 70000, "expert_ffn_hidden": 40000000000, "shared_experts": 70000,
                                 "dense_layers": 20000}},
                      "cluster": {"gpu": "h100-sxm5-80gb", "nodes": 10000001, "gpus_per_node": 200, "nics_per_node": 2000},
                      "training": {"seq_len": 5000000000, "global_batch": 5000000000000, "micro_batch": 4000000000},
                      "parallelism": {"sharding": "fsdp-hybrid", "tp": 3000000, "pp": 3000000, "cp": 3000000, "ep": 3000000,
                                      "pp_schedule": "interleaved", "virtual_stages": 5000, "shard_group": 20000000},
                      "nccl": {"min_channels": 100})");
}

void TestEditors::documentIsShownAsItIs()
{
    QFETCH(QByteArray, values);
    QString name;
    while (name.size() < 40000)
        name += QStringLiteral("Zürich – 東京 ");
    name.truncate(40000);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("limits.shardscope.json"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray quoted
            = QJsonDocument(QJsonArray { name }).toJson(QJsonDocument::Compact).mid(1).chopped(1); // "…"
        f.write(R"({"schema": "shardscope.scenario/1", "name": )" + quoted + ", " + values + "}");
    }
    const ui::ScenarioLoad load = ui::readScenarioFile(path, test::catalog());
    QVERIFY2(load.ok(), qPrintable(load.errors.join(QLatin1Char('\n'))));
    const core::Scenario loaded = load.scenario;
    QCOMPARE(QString::fromStdString(loaded.name), name);
    m_doc->reset(loaded, path);
    QVERIFY(test::settle(*m_doc));
    QVERIFY(!m_doc->result().valid);
    QApplication::processEvents();

    // Leaving the name field (as a click elsewhere would) is not an edit.
    auto* nameEdit = qobject_cast<QLineEdit*>(m_editor->widgetForField(QStringLiteral("name")));
    QCOMPARE(nameEdit->text(), name);
    emit nameEdit->editingFinished();
    // Every control shows the document's value, not its range's end.
    QCOMPARE(control<QSpinBox>(QStringLiteral("model.layers"))->value(), loaded.model.layers);
    QCOMPARE(control<QSpinBox>(QStringLiteral("model.heads"))->value(), loaded.model.heads);
    QCOMPARE(control<QDoubleSpinBox>(QStringLiteral("model.hidden"))->value(), double(loaded.model.hidden));
    QCOMPARE(control<QDoubleSpinBox>(QStringLiteral("model.vocab"))->value(), double(loaded.model.vocab));
    QCOMPARE(control<QSpinBox>(QStringLiteral("model.moe.top_k"))->value(), loaded.model.moe.topK);
    QCOMPARE(control<ValueSlider>(QStringLiteral("cluster.nodes"))->spinBox()->value(), double(loaded.cluster.nodes));
    QCOMPARE(control<QSpinBox>(QStringLiteral("cluster.gpus_per_node"))->value(), loaded.cluster.gpusPerNode);
    QCOMPARE(
        control<ValueSlider>(QStringLiteral("training.seq_len"))->spinBox()->value(), double(loaded.training.seqLen));
    QCOMPARE(
        control<QDoubleSpinBox>(QStringLiteral("training.global_batch"))->value(), double(loaded.training.globalBatch));
    QCOMPARE(control<ValueSlider>(QStringLiteral("training.micro_batch"))->value(), qint64(loaded.training.microBatch));
    QCOMPARE(control<ValueSlider>(QStringLiteral("parallelism.tp"))->value(), qint64(loaded.parallelism.tp));
    QCOMPARE(
        control<QSpinBox>(QStringLiteral("parallelism.virtual_stages"))->value(), loaded.parallelism.virtualStages);
    QCOMPARE(control<QSpinBox>(QStringLiteral("parallelism.shard_group"))->value(), loaded.parallelism.shardGroup);
    QCOMPARE(control<QSpinBox>(QStringLiteral("nccl.min_channels"))->value(), loaded.nccl.minChannels);
    // And the document is as loaded: no edit, not modified.
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QVERIFY(!m_doc->isModified());
    QVERIFY(m_doc->scenario() == loaded);
}

void TestEditors::wheelScrollsPanelNotControls()
{
    // Issue 23 item 7: scrolling the panel with the wheel over a combo box, spin box or slider that does not have the
    // focus scrolls the panel and leaves the scenario alone; with the focus (click or Tab), the wheel steps the value.
    m_editor->resize(420, 300); // the form is taller: the panel scrolls
    QApplication::processEvents();
    QVERIFY(QTest::qWaitForWindowActive(m_editor));
    m_editor->widgetForField(QStringLiteral("name"))->setFocus(); // no guarded control has the focus
    QScrollBar* bar = m_editor->verticalScrollBar();
    QVERIFY(bar->maximum() > 0);
    const core::Scenario before = m_doc->scenario();
    const auto wheelDown = [](QWidget* w) {
        const QPointF at = QRectF(w->rect()).center();
        QWheelEvent e(
            at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(w, &e);
    };
    const QList<QWidget*> controls = {
        control<QComboBox>(QStringLiteral("cluster.inter_node")),
        control<QSpinBox>(QStringLiteral("model.layers")),
        control<QDoubleSpinBox>(QStringLiteral("model.hidden")),
        control<ValueSlider>(QStringLiteral("parallelism.tp"))->slider(),
        control<ValueSlider>(QStringLiteral("cluster.nodes"))->spinBox(),
    };
    for (QWidget* w : controls) {
        QVERIFY(w);
        QCOMPARE(w->focusPolicy(), Qt::StrongFocus); // a wheel does not give it the focus
        bar->setValue(0);
        m_editor->ensureWidgetVisible(w);
        const int scrolled = bar->value();
        wheelDown(w);
        QVERIFY2(bar->value() > scrolled, qPrintable(w->metaObject()->className()));
        QCOMPARE(m_doc->undoStack()->count(), 0);
        QVERIFY(m_doc->scenario() == before);
    }
    // A focused spin box takes the wheel: one step down, one undo step.
    auto* layers = control<QSpinBox>(QStringLiteral("model.layers"));
    m_editor->ensureWidgetVisible(layers);
    layers->setFocus();
    QVERIFY(layers->hasFocus());
    const int scrolled = bar->value();
    wheelDown(layers);
    QCOMPARE(m_doc->scenario().model.layers, before.model.layers - 1);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(bar->value(), scrolled);
}

QTEST_MAIN(TestEditors)
#include "tst_editors.moc"
