// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario editor: controls show the document, write through it, offer only sensible values and mark
// the controls issues name.
#include "test_support.h"

#include "document/scenario_document.h"
#include "editors/scenario_editor.h"
#include "editors/value_slider.h"

#include <shardscope/core/scenario_json.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

using namespace shardscope;
using ui::ScenarioDocument;
using ui::ScenarioEditor;
using ui::ValueSlider;

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
    void presetChangesModel();
    void microBatchValuesDivideReplicaBatch();
    void issueMarksControl();
    void undoRefreshesControls();

private:
    template <class W>
    W* control(const QString& field) const
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
    QCOMPARE(control<ValueSlider>(QStringLiteral("cluster.nodes"))->value(), s.cluster.nodes);
    QCOMPARE(control<ValueSlider>(QStringLiteral("cluster.nodes"))->spinBox()->value(), s.cluster.nodes);
    QCOMPARE(control<ValueSlider>(QStringLiteral("training.seq_len"))->value(), int(s.training.seqLen));
    QCOMPARE(control<QSpinBox>(QStringLiteral("model.layers"))->value(), s.model.layers);
    QCOMPARE(control<ValueSlider>(QStringLiteral("parallelism.tp"))->value(), s.parallelism.tp);
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
    QCOMPARE(m_doc->scenario().cluster.nodes, start);
    QCOMPARE(nodes->value(), start);
}

void TestEditors::spinBoxEditsDocument()
{
    auto* spin = control<ValueSlider>(QStringLiteral("cluster.nodes"))->spinBox();
    spin->setValue(16);
    QCOMPARE(m_doc->scenario().cluster.nodes, 16);
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
    m_doc->edit(QStringLiteral("tp"), QStringLiteral("parallelism.tp"), [](core::Scenario& s) { s.parallelism.tp = 6; });
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
    for (QLabel* l : tp->parentWidget()->findChildren<QLabel*>())
        if (l->buddy() == tp)
            QVERIFY(l->styleSheet().isEmpty());
}

void TestEditors::undoRefreshesControls()
{
    auto* layers = control<QSpinBox>(QStringLiteral("model.layers"));
    const int before = layers->value();
    layers->setValue(before + 8);
    m_doc->undoStack()->undo();
    QCOMPARE(layers->value(), before);
}

QTEST_MAIN(TestEditors)
#include "tst_editors.moc"
