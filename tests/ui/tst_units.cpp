// SPDX-License-Identifier: GPL-3.0-or-later
// The one display formatter (ui/util/units.h, issue 23 item 9: number formats differed between panes): bytes,
// seconds, counts, bandwidths and FLOP rates, in an English locale (grouping "1,200", point "."). Expected texts
// follow the rules written in units.h, worked by hand.
#include "util/units.h"

#include <QLocale>
#include <QTest>

using shardscope::ui::ByteUnit;
using shardscope::ui::Units;

class TestUnits : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    void bytes();
    void seconds();
    void counts();
    void bandwidth();
    void flopRate();
};

void TestUnits::bytes()
{
    Units::setByteUnit(ByteUnit::GiB);
    QCOMPARE(Units::bytes(61.25 * 1073741824.0), QStringLiteral("61.3 GiB")); // one decimal in every pane
    QCOMPARE(Units::bytes(80.0 * 1073741824.0, 0), QStringLiteral("80 GiB"));
    QCOMPARE(Units::bytes(50.0 * 1048576.0), QStringLiteral("50.0 MiB")); // below 0.1 GiB: one prefix down
    Units::setByteUnit(ByteUnit::GB);
    QCOMPARE(Units::bytes(80e9, 0), QStringLiteral("80 GB"));
    Units::setByteUnit(ByteUnit::GiB);
}

void TestUnits::seconds()
{
    QCOMPARE(Units::seconds(0.842), QStringLiteral("842 ms"));
    QCOMPARE(Units::seconds(0.0123), QStringLiteral("12.3 ms"));
    QCOMPARE(Units::seconds(12.4), QStringLiteral("12.40 s"));
    QCOMPARE(Units::seconds(102.0), QStringLiteral("102 s"));
    QCOMPARE(Units::seconds(2e-6), QStringLiteral("2.0 µs"));
}

void TestUnits::counts()
{
    QCOMPARE(Units::count(1200), QStringLiteral("1,200")); // never "1.2e+03"
    QCOMPARE(Units::count(41290), QStringLiteral("41.29 k"));
    QCOMPARE(Units::count(70.55e9), QStringLiteral("70.55 B"));
}

void TestUnits::bandwidth()
{
    QCOMPARE(Units::bandwidth(450e9), QStringLiteral("450 GB/s")); // NVLink 4 per direction
    QCOMPARE(Units::bandwidth(50e9), QStringLiteral("50 GB/s"));    // 400 Gb/s NDR: trailing zeros dropped
    QCOMPARE(Units::bandwidth(25.6e9), QStringLiteral("25.6 GB/s"));
    QCOMPARE(Units::bandwidth(3.35e12), QStringLiteral("3.35 TB/s")); // H100 SXM HBM3
}

void TestUnits::flopRate()
{
    QCOMPARE(Units::flopRate(989.4e12), QStringLiteral("989 TFLOP/s")); // H100 SXM BF16 dense
    QCOMPARE(Units::flopRate(67.5e12), QStringLiteral("67.5 TFLOP/s"));
    QCOMPARE(Units::flopRate(4.7e12), QStringLiteral("4.7 TFLOP/s"));
}

QTEST_APPLESS_MAIN(TestUnits)
#include "tst_units.moc"
