// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/units.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {
ByteUnit g_unit = ByteUnit::GiB;

QString number(double v, int precision) { return QLocale().toString(v, 'f', precision); }

/// Three significant digits (no more than two decimals), trailing zeros dropped: "450", "25.6", "3.35", "50".
QString significant(double v)
{
    const double a = std::abs(v);
    const int decimals = a > 0 ? std::clamp(2 - int(std::floor(std::log10(a))), 0, 2) : 0;
    QString text = number(v, decimals);
    const QString point = QLocale().decimalPoint();
    if (text.contains(point)) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(point))
            text.chop(point.size());
    }
    return text;
}
} // namespace

ByteUnit Units::byteUnit() { return g_unit; }
void Units::setByteUnit(ByteUnit unit) { g_unit = unit; }
double Units::bytesPerUnit() { return g_unit == ByteUnit::GiB ? 1073741824.0 : 1e9; }
QString Units::unitName() { return g_unit == ByteUnit::GiB ? QStringLiteral("GiB") : QStringLiteral("GB"); }

QString Units::bytes(double bytes, int precision)
{
    const bool binary = g_unit == ByteUnit::GiB;
    const double k = binary ? 1024.0 : 1000.0;
    static const char* binaryNames[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    static const char* decimalNames[] = { "B", "kB", "MB", "GB", "TB", "PB" };
    // GiB is the working unit; step down for values below 0.1 GiB, up from 1000 GiB.
    int exp = 3;
    double v = bytes / std::pow(k, 3);
    while (exp > 0 && std::abs(v) < 0.1 && bytes != 0) {
        v *= k;
        --exp;
    }
    while (exp < 5 && std::abs(v) >= 1000) {
        v /= k;
        ++exp;
    }
    const int prec = exp == 0 ? 0 : precision;
    return QStringLiteral("%1 %2").arg(number(v, prec), QLatin1String(binary ? binaryNames[exp] : decimalNames[exp]));
}

std::pair<double, QString> Units::timeScale(double maxSeconds)
{
    if (maxSeconds >= 1.0)
        return { 1.0, QStringLiteral("s") };
    if (maxSeconds >= 1e-3)
        return { 1e-3, QStringLiteral("ms") };
    return { 1e-6, QStringLiteral("µs") };
}

QString Units::seconds(double seconds)
{
    const double a = std::abs(seconds);
    if (a == 0)
        return QStringLiteral("0 s");
    if (a >= 100)
        return QStringLiteral("%1 s").arg(number(seconds, 0));
    if (a >= 1)
        return QStringLiteral("%1 s").arg(number(seconds, 2));
    if (a >= 1e-3)
        return QStringLiteral("%1 ms").arg(number(seconds * 1e3, a >= 0.1 ? 0 : 1));
    return QStringLiteral("%1 µs").arg(number(seconds * 1e6, 1));
}

QString Units::count(double value, int precision)
{
    const double a = std::abs(value);
    if (a >= 1e12)
        return QStringLiteral("%1 T").arg(number(value / 1e12, precision));
    if (a >= 1e9)
        return QStringLiteral("%1 B").arg(number(value / 1e9, precision));
    if (a >= 1e6)
        return QStringLiteral("%1 M").arg(number(value / 1e6, precision));
    if (a >= 1e4)
        return QStringLiteral("%1 k").arg(number(value / 1e3, precision));
    return number(value, a == std::floor(a) ? 0 : precision);
}

QString Units::percent(double fraction, int precision)
{
    return QStringLiteral("%1 %").arg(number(fraction * 100.0, precision));
}

QString Units::bandwidth(double bytesPerSecond)
{
    if (std::abs(bytesPerSecond) >= 1e12)
        return QStringLiteral("%1 TB/s").arg(significant(bytesPerSecond / 1e12));
    return QStringLiteral("%1 GB/s").arg(significant(bytesPerSecond / 1e9));
}

QString Units::flopRate(double flopsPerSecond)
{
    return QStringLiteral("%1 TFLOP/s").arg(significant(flopsPerSecond / 1e12));
}

QString Units::tokensPerSecond(double tokensPerSecond)
{
    const double a = std::abs(tokensPerSecond);
    if (a >= 1e4)
        return count(tokensPerSecond, 1);
    return number(tokensPerSecond, a < 10 ? 1 : 0);
}

QString Units::dollars(double usd)
{
    const double a = std::abs(usd);
    const QString sign = usd < 0 ? QLocale().negativeSign() : QString();
    if (a >= 1e4)
        return QStringLiteral("%1$%2").arg(sign, count(a, 1));
    // Three significant digits below $1: 0.437 -> 3 decimals, 0.00222 -> 5 (at most 6).
    const int decimals = a >= 1 || a == 0 ? 2 : std::clamp(2 - int(std::floor(std::log10(a))), 3, 6);
    return QStringLiteral("%1$%2").arg(sign, number(a, decimals));
}

QString Units::days(double seconds, bool withUnit)
{
    const double d = seconds / 86400.0;
    const QString n = number(d, std::abs(d) < 10 ? 1 : 0);
    return withUnit ? QStringLiteral("%1 days").arg(n) : n;
}

} // namespace shardscope::ui
