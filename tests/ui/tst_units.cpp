// SPDX-License-Identifier: GPL-3.0-or-later
// The one display formatter (ui/util/units.h, issue 23 item 9: number formats differed between panes): bytes,
// seconds, counts, bandwidths, FLOP rates, tokens per second, dollars and days, in an English locale (grouping
// "1,200", point "."). Expected texts follow the rules written in units.h, worked by hand.
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
    void tokensPerSecond();
    void dollars();
    void days();
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
    QCOMPARE(Units::bandwidth(50e9), QStringLiteral("50 GB/s")); // 400 Gb/s NDR: trailing zeros dropped
    QCOMPARE(Units::bandwidth(25.6e9), QStringLiteral("25.6 GB/s"));
    QCOMPARE(Units::bandwidth(3.35e12), QStringLiteral("3.35 TB/s")); // H100 SXM HBM3
}

void TestUnits::flopRate()
{
    QCOMPARE(Units::flopRate(989.4e12), QStringLiteral("989 TFLOP/s")); // H100 SXM BF16 dense
    QCOMPARE(Units::flopRate(67.5e12), QStringLiteral("67.5 TFLOP/s"));
    QCOMPARE(Units::flopRate(4.7e12), QStringLiteral("4.7 TFLOP/s"));
}

void TestUnits::tokensPerSecond()
{
    // One style in every pane (KPI card, status line, tables, tooltips, report): k / M suffix from 10,000.
    QCOMPARE(Units::tokensPerSecond(41290), QStringLiteral("41.3 k"));
    QCOMPARE(Units::tokensPerSecond(1.234e6), QStringLiteral("1.2 M"));
    QCOMPARE(Units::tokensPerSecond(8030.4), QStringLiteral("8,030")); // whole tokens below 10,000
    QCOMPARE(Units::tokensPerSecond(3.44), QStringLiteral("3.4")); // one decimal below 10
    QCOMPARE(Units::tokensPerSecond(-1520), QStringLiteral("-1,520")); // a difference between two scenarios
}

void TestUnits::dollars()
{
    QCOMPARE(Units::dollars(2.49), QStringLiteral("$2.49")); // an hourly price: cents, never "$2.490"
    QCOMPARE(Units::dollars(1234.5), QStringLiteral("$1,234.50"));
    QCOMPARE(Units::dollars(0.437), QStringLiteral("$0.437")); // below $1: three significant digits
    QCOMPARE(Units::dollars(0.0022222), QStringLiteral("$0.00222")); // a cheap step is not "$0.00"
    QCOMPARE(Units::dollars(41290), QStringLiteral("$41.3 k"));
    QCOMPARE(Units::dollars(2182996.56), QStringLiteral("$2.2 M")); // 800,000 GPUs, one step
    QCOMPARE(Units::dollars(-0.5), QStringLiteral("-$0.500"));
    QCOMPARE(Units::dollars(0), QStringLiteral("$0.00"));
}

void TestUnits::days()
{
    QCOMPARE(Units::days(3.5 * 86400), QStringLiteral("3.5 days"));
    QCOMPARE(Units::days(9.96 * 86400), QStringLiteral("10.0 days")); // one decimal below 10 days
    QCOMPARE(Units::days(41.4 * 86400), QStringLiteral("41 days"));
    QCOMPARE(Units::days(1250.0 * 86400), QStringLiteral("1,250 days"));
    QCOMPARE(Units::days(1250.0 * 86400, false), QStringLiteral("1,250")); // a bar's label; the axis says "days"
}

QTEST_APPLESS_MAIN(TestUnits)
#include "tst_units.moc"
