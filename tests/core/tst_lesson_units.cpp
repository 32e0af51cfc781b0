// SPDX-License-Identifier: GPL-3.0-or-later
// Lesson text in the app's memory units (issue 13, item 9): byte figures without a suffix follow LessonBytes
// (GiB or GB); a suffix written in the lesson ({x:GiB}, {x:GB}) keeps its unit.
#include "test_support.h"

#include "shardscope/core/lesson.h"

#include <QObject>

using namespace shardscope::core;

class TestLessonUnits : public QObject
{
    Q_OBJECT
private slots:
    void bytesFollowTheSetting();
};

void TestLessonUnits::bytesFollowTheSetting()
{
    // The H100 SXM5's 80 GB are taken as 80 GiB = 85,899,345,920 bytes (catalog note): 80.00 GiB, or 85.90 GB.
    const Scenario s = defaultScenario(sstest::catalog());
    const Result r = evaluate(s);
    QVERIFY(r.valid);
    QCOMPARE(QString::fromStdString(renderLessonText("{gpu.memory}", s, r)), QStringLiteral("80.00 GiB"));
    QCOMPARE(QString::fromStdString(renderLessonText("{gpu.memory}", s, r, nullptr, LessonBytes::Decimal)),
        QStringLiteral("85.90 GB"));
    // Unsuffixed figures change unit; a suffixed one does not.
    const QString binary = QString::fromStdString(renderLessonText("{memory.total} | {memory.total:GiB}", s, r));
    const QString decimal = QString::fromStdString(
        renderLessonText("{memory.total} | {memory.total:GiB}", s, r, nullptr, LessonBytes::Decimal));
    QVERIFY2(binary.section(QStringLiteral(" | "), 0, 0).endsWith(QStringLiteral(" GiB")), qPrintable(binary));
    QVERIFY2(decimal.section(QStringLiteral(" | "), 0, 0).endsWith(QStringLiteral(" GB")), qPrintable(decimal));
    QCOMPARE(decimal.section(QStringLiteral(" | "), 1, 1), binary.section(QStringLiteral(" | "), 1, 1));
}

QTEST_APPLESS_MAIN(TestLessonUnits)
#include "tst_lesson_units.moc"
