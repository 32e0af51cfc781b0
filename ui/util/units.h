// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Display formatting of bytes, seconds, counts and rates. The byte unit (GB = 1e9 or GiB = 2^30) is a
/// process-wide display preference, set by MainWindow from AppSettings.

#include <QString>

namespace shardscope::ui {

enum class ByteUnit { GB, GiB };

class Units
{
public:
    static ByteUnit byteUnit();
    static void setByteUnit(ByteUnit unit);
    /// Bytes per display unit (1e9 or 2^30).
    static double bytesPerUnit();
    /// "GB" or "GiB".
    static QString unitName();
    /// Bytes in the display unit, as a number (for chart axes).
    static double toUnit(double bytes) { return bytes / bytesPerUnit(); }
    /// "61.2 GiB", "512 MiB" (small values step down one prefix).
    static QString bytes(double bytes, int precision = 1);
    /// "842 ms", "12.4 s", "3.1 µs".
    static QString seconds(double seconds);
    /// Scale and unit for an axis that shows times up to maxSeconds: {divisor, "ms"}.
    static std::pair<double, QString> timeScale(double maxSeconds);
    /// "70.55 B", "405 M", "8.03 k".
    static QString count(double value, int precision = 2);
    /// "41.3 %".
    static QString percent(double fraction, int precision = 1);
    /// "450 GB/s", "25.6 GB/s", "3.35 TB/s": bytes per second with the decimal prefixes of datasheets (1000-based
    /// whatever the byte unit), three significant digits, trailing zeros dropped ("50 GB/s").
    static QString bandwidth(double bytesPerSecond);
    /// "989 TFLOP/s", "67.5 TFLOP/s", "4.7 TFLOP/s": floating-point operations per second in TFLOP/s, three
    /// significant digits, trailing zeros dropped.
    static QString flopRate(double flopsPerSecond);
    /// Tokens per second without the unit (captions, headers and sentences say "tokens/s"), the style of the KPI
    /// card: from 10,000 up a k / M / B suffix and one decimal ("41.3 k", "1.2 M"); below that whole tokens with
    /// grouping ("8,030"); below 10 one decimal ("3.4").
    static QString tokensPerSecond(double tokensPerSecond);
    /// US dollars, "$" first, the same style: from $10,000 up a k / M / B suffix and one decimal ("$41.3 k",
    /// "$2.2 M"); from $1 cents with grouping ("$2.49", "$1,234.50"); below $1 three significant digits ("$0.437",
    /// "$0.00222") so a cheap step never shows as "$0.00".
    static QString dollars(double usd);
    /// A duration in days: one decimal below 10 days ("3.5 days"), whole days with grouping from 10 up ("41 days",
    /// "1,250 days"). Without the unit ("1,250") for labels on narrow bars, where the axis names it.
    static QString days(double seconds, bool withUnit = true);
};

} // namespace shardscope::ui
