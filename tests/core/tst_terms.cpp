// SPDX-License-Identifier: GPL-3.0-or-later
// Named terms (issue 9): every expression is plain arithmetic that gives its value; memory terms add up to the memory
// total and step-time terms to the step total, for every example scenario; the numbers are the engine's own.
#include "test_support.h"

#include <shardscope/core/term.h>
#include <shardscope/core/term_keys.h>

#include "expr.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include <cmath>

using namespace shardscope::core;

class TestTerms : public QObject
{
    Q_OBJECT
private slots:
    void numbersReadBack();
    void expressionKeepsTheOrderOfOperations();
    void expressionEvaluator_data();
    void expressionEvaluator();
    void everyScenario_data();
    void everyScenario();
    void activationsWithContextParallelByHand();
    void pytorchMemoryPhases_data();
    void pytorchMemoryPhases();
};

void TestTerms::numbersReadBack()
{
    for (double v : { 0.0, 1.0, 8192.0, 0.1, 1.0 / 3.0, 70553706496.0, 1e-300, 6.02e23, -2.5 }) {
        double back = 0;
        QVERIFY(evaluateExpression(exprNumber(v), back));
        QCOMPARE(back, v); // exact: the shortest text that reads back as v
    }
    QCOMPARE(exprNumber(-2.5), std::string("(-2.5)"));
}

// One formula, one place (issue 22): an Expr computes its value with the very operations whose texts it writes.
// FSDP's backward (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py; engine.cpp): w·(R + H) + 3·w·U_l + r·U_l
// with w 2, R 3, H 4, U_l 5, r 4 = 2·7 + 30 + 20 = 64. And floating-point addition is not associative:
// 0.1 + (0.2 + 0.3) = 0.6 exactly, (0.1 + 0.2) + 0.3 = 0.6000000000000001, so the expression keeps the parentheses
// of the right operand that the formula drops.
void TestTerms::expressionKeepsTheOrderOfOperations()
{
    using detail::Expr;
    using detail::Fast;
    const Expr w = Expr::input("w", 2, "B/parameter", "weight bytes"), R = Expr::input("R", 3), H = Expr::input("H", 4);
    const Expr Ul = Expr::input("U_l", 5), r = Expr::input("r", 4);
    const Expr e = w * (R + H) + Expr::constant(3) * w * Ul + r * Ul;
    QCOMPARE(e.formula, std::string("w·(R + H) + 3·w·U_l + r·U_l"));
    QCOMPARE(e.expression, std::string("2*(3+4)+3*2*5+4*5"));
    QCOMPARE(e.value(), 64.0);
    QCOMPARE(e.inputs.size(), size_t(5)); // w once, although it appears twice
    QCOMPARE(e.inputs[0].name, std::string("w"));
    const Fast f = Fast::input("w", 2) * (Fast::input("R", 3) + Fast::input("H", 4))
        + Fast::constant(3) * Fast::input("w", 2) * Fast::input("U_l", 5) + Fast::input("r", 4) * Fast::input("U_l", 5);
    QCOMPARE(f.value(), 64.0);

    const Expr a = Expr::input("a", 0.1), b = Expr::input("b", 0.2), c = Expr::input("c", 0.3);
    const Expr sum = a + (b + c);
    QCOMPARE(sum.formula, std::string("a + b + c"));
    QCOMPARE(sum.expression, std::string("0.1+(0.2+0.3)"));
    double v = 0;
    QVERIFY(evaluateExpression(sum.expression, v));
    QCOMPARE(v, 0.6);
    QCOMPARE(sum.value(), 0.6);
    QVERIFY((a + b + c).value() != 0.6);
    // A named quantity: its symbol in the formula, its arithmetic in the expression, its own row in the inputs.
    const Expr T
        = Expr::named("T", Expr::input("s", 8192) / Expr::input("c", 4) * Expr::input("b", 1), "tokens", "tokens");
    const Expr act = Expr::constant(2) * T;
    QCOMPARE(act.formula, std::string("2·T"));
    QCOMPARE(act.expression, std::string("2*(8192/4*1)"));
    QCOMPARE(act.inputs.back().name, std::string("T"));
    QCOMPARE(act.inputs.back().meaning, std::string("tokens, T = s/c·b"));
    // min keeps its choice in the expression (the evaluator has no min): 2·min(U, P) with U 7, P 5.
    const Expr m = Expr::constant(2) * detail::min(Expr::input("U", 7), Expr::input("P", 5));
    QCOMPARE(m.formula, std::string("2·min(U, P)"));
    QCOMPARE(m.expression, std::string("2*5"));
}

void TestTerms::expressionEvaluator_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("value");
    QTest::addColumn<bool>("ok");
    QTest::newRow("precedence") << "2+3*4" << 14.0 << true;
    QTest::newRow("left to right") << "100/10/5" << 2.0 << true;
    QTest::newRow("minus") << "10-4-3" << 3.0 << true;
    QTest::newRow("parentheses") << "(2+3)*4" << 20.0 << true;
    QTest::newRow("power right assoc") << "2**3**2" << 512.0 << true;
    QTest::newRow("unary") << "-3*(-2)" << 6.0 << true;
    QTest::newRow("exponent notation") << "1e9*2.5e-3" << 2.5e6 << true;
    QTest::newRow("spaces") << " 8192 * 1 * ( 34 + 5 ) " << 8192.0 * 39 << true;
    QTest::newRow("name") << "s*b" << 0.0 << false;
    QTest::newRow("unbalanced") << "(1+2" << 0.0 << false;
    QTest::newRow("trailing") << "1+2)" << 0.0 << false;
    QTest::newRow("empty") << "" << 0.0 << false;
}

void TestTerms::expressionEvaluator()
{
    QFETCH(QString, text);
    QFETCH(double, value);
    QFETCH(bool, ok);
    double v = 0;
    std::string error;
    QCOMPARE(evaluateExpression(text.toStdString(), v, &error), ok);
    if (ok)
        QCOMPARE(v, value);
    else
        QVERIFY(!error.empty());
}

void TestTerms::everyScenario_data()
{
    QTest::addColumn<QString>("path");
    for (const QString& f : sstest::shippedScenarioFiles())
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

// For every shipped scenario: the figures explain() gives are evaluate()'s; every expression is plain arithmetic that
// gives its value; memory terms add up to the memory total and step-time terms to the step total; every term says
// where it comes from, never an internal note.
void TestTerms::everyScenario()
{
    QFETCH(QString, path);
    const ScenarioParse p = sstest::parse(sstest::readText(path));
    QVERIFY(p.ok());
    const Result plain = evaluate(p.scenario);
    const Result r = explain(p.scenario);
    QVERIFY(r.valid);
    QVERIFY(plain.terms.empty());
    QCOMPARE(r.memory.total(), plain.memory.total());
    QCOMPARE(r.step.total(), plain.step.total());
    QCOMPARE(r.throughput.tokensPerSecond, plain.throughput.tokensPerSecond);
    QCOMPARE(r.minGpus, plain.minGpus);

    double memory = 0, step = 0, comm = 0;
    for (const Term& t : r.terms) {
        const QString key = QString::fromStdString(t.key);
        double v = 0;
        std::string error;
        QVERIFY2(evaluateExpression(t.expression, v, &error),
            qPrintable(key + ": " + QString::fromStdString(error + " in " + t.expression)));
        const double tol = 1e-9 * std::max(1.0, std::abs(t.value));
        QVERIFY2(std::abs(v - t.value) <= tol || (t.value != 0 && std::abs(v / t.value - 1) <= 1e-9),
            qPrintable(QStringLiteral("%1: expression gives %2, value %3: %4")
                           .arg(key)
                           .arg(v, 0, 'g', 17)
                           .arg(t.value, 0, 'g', 17)
                           .arg(QString::fromStdString(t.expression))));
        QVERIFY2(!t.formula.empty() && !t.label.empty() && !t.source.empty() && !t.anchor.empty(), qPrintable(key));
        QVERIFY2(t.source.find("formulas.md") == std::string::npos && t.source.find("shared/") == std::string::npos,
            qPrintable(key));
        if (t.group == TermGroup::Memory)
            memory += t.value;
        else if (t.group == TermGroup::StepTime)
            step += t.value;
        else if (t.group == TermGroup::Communication)
            comm += t.value;
    }
    // The breakdown terms are the fixed table's keys, in its order, with its labels; the result's fields hold their
    // values. The memory terms are computed through their expressions: each evaluates to its value exactly.
    for (const TermGroup g : { TermGroup::Memory, TermGroup::StepTime }) {
        const std::vector<const Term*> terms = termsOf(r.terms, g);
        const auto keys = termKeys(g);
        QCOMPARE(terms.size(), keys.size());
        for (size_t i = 0; i < keys.size(); ++i) {
            QCOMPARE(terms[i]->key, std::string(keys[i].key));
            QCOMPARE(terms[i]->label, std::string(keys[i].label));
            QCOMPARE(terms[i]->value,
                g == TermGroup::Memory ? breakdownValue(r.memory, keys[i].key) : breakdownValue(r.step, keys[i].key));
            if (g == TermGroup::Memory) {
                double v = 0;
                QVERIFY(evaluateExpression(terms[i]->expression, v));
                QVERIFY2(v == terms[i]->value,
                    qPrintable(QString::fromStdString(terms[i]->key + ": " + terms[i]->expression)));
            }
        }
    }
    QCOMPARE(termsOf(r.terms, TermGroup::Memory).size(), size_t(7));
    QCOMPARE(termsOf(r.terms, TermGroup::StepTime).size(), size_t(6));
    QVERIFY(sstest::relClose(memory, r.memory.total(), 1e-12));
    QVERIFY(sstest::relClose(step, r.step.total(), 1e-12));
    QVERIFY(sstest::relClose(comm, r.totalCommBytes, 1e-12) || r.totalCommBytes == 0);
}

// The case the issue reports: with CP = 4 the per-layer activations use s/c tokens, and the term's expression shows it.
// Llama 3 70B (h 8192, 64 heads, 8 KV heads of 128, f 28672, SwiGLU), s 8192, b 1, bf16 (β 2), no dropout (δ 0),
// FlashAttention, no recompute, t 1, c 4: T = 8192/4 = 2048 tokens;
// A = T·h·4β (inputs of the two norms, QKV and the MLP) + T·(2β·q + 2β·kv + 3β·f) (Q, K, V, out-projection input,
// SwiGLU's gate, up and product) + 4·a·T (FlashAttention's fp32 log-sum-exp) (Korthikanti Eq. 2 generalised; Dao
// et al. §3.1).
void TestTerms::activationsWithContextParallelByHand()
{
    Scenario s = sstest::presetScenario("llama3-70b", 4, 8);
    s.training.seqLen = 8192;
    s.training.microBatch = 1;
    s.training.globalBatch = 8;
    s.training.recompute = Recompute::None;
    s.training.dropout = false;
    s.training.flashAttention = true;
    s.parallelism.cp = 4;
    s.parallelism.tp = 1;
    s.parallelism.pp = 1;
    const Result r = explain(s);
    QVERIFY2(r.valid, qPrintable(sstest::issuesText(r.issues)));
    const double T = 8192.0 / 4, h = 8192, q = 64 * 128, kv = 8 * 128, f = 28672, beta = 2;
    const double perLayer = T * h * 4 * beta + T * (2 * beta * q + 2 * beta * kv + 3 * beta * f) + 4 * 64 * T;
    const Term* act = nullptr;
    for (const Term& t : r.terms)
        if (t.key == "memory.activations")
            act = &t;
    QVERIFY(act);
    QVERIFY2(act->expression.find("(8192/4*1)") != std::string::npos, act->expression.c_str()); // s/c visible
    // 1F1B with pp 1 keeps one micro-batch: 80 layers + the embedding (8·T token ids) + the head (2·β·T·h + 6·T·V).
    const double V = 128256;
    const double expected = 80 * perLayer + 8 * T + (2 * beta * T * h + 6 * T * V);
    QVERIFY2(sstest::relClose(act->value, expected, 1e-12),
        qPrintable(sstest::relMessage("activations", act->value, expected, 1e-12)));
    QCOMPARE(act->value, r.memory.activations);
}

void TestTerms::pytorchMemoryPhases_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<int>("seq");
    QTest::newRow("fsdp, full recompute, loss phase") << 1 << 1 << int(Recompute::Full) << 8192;
    QTest::newRow("fsdp, full recompute, backward phase") << 1 << 1 << int(Recompute::Full) << 1024;
    QTest::newRow("fsdp + tp 2, selective-op") << 2 << 1 << int(Recompute::SelectiveOp) << 8192;
    QTest::newRow("fsdp + tp 2 + pp 2, full recompute") << 2 << 2 << int(Recompute::Full) << 8192;
}

// The memory paths of the PyTorch profiles that no shipped scenario takes (Llama 3 8B on 16 H100s, FSDP): the loss
// and backward phases, FSDP2's root and reduce buffers, the unsharded pipeline stage, PyTorch TP's gathered inputs,
// the cached logits block. Every memory expression gives its value and the memory terms add up to the total.
void TestTerms::pytorchMemoryPhases()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, recompute);
    QFETCH(int, seq);
    Scenario s = sstest::presetScenario("llama3-8b", 2, 8);
    QVERIFY(applyFramework(s, Framework::PyTorch, sstest::catalog()));
    s.parallelism.sharding = Sharding::FsdpFull;
    s.parallelism.tp = tp;
    s.parallelism.pp = pp;
    s.parallelism.sequenceParallel = tp > 1;
    s.training.recompute = Recompute(recompute);
    s.training.seqLen = seq;
    s.training.precision = Precision::Fp8Mixed;
    sstest::setBatch(s, 1, pp);
    const Result r = explain(s);
    QVERIFY2(r.valid, qPrintable(sstest::issuesText(r.issues)));
    double memory = 0;
    for (const Term& t : r.terms) {
        if (t.group != TermGroup::Memory)
            continue;
        double v = 0;
        std::string error;
        QVERIFY2(evaluateExpression(t.expression, v, &error), qPrintable(QString::fromStdString(t.key + ": " + error)));
        QVERIFY2(sstest::relClose(v, t.value, 1e-9) || std::abs(v - t.value) <= 1e-9,
            qPrintable(QString::fromStdString(t.key + ": " + t.expression)));
        memory += t.value;
    }
    QVERIFY(sstest::relClose(memory, r.memory.total(), 1e-12));
}

QTEST_GUILESS_MAIN(TestTerms)
#include "tst_terms.moc"
