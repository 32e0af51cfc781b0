// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/uncertainty_text.h"

#include "util/units.h"

#include <shardscope/core/uncertainty.h>

#include <QCoreApplication>

namespace shardscope::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("UncertaintyText", text); }
} // namespace

QString rangeNote(double point, const core::Range& range, const core::Uncertainty& u, int runs)
{
    if (point <= 0 || range.hi <= 0)
        return {};
    const QString pm = QString::fromStdString(core::rangePercent(point, range));
    if (u.basisKind == "calibrated") // sources: "N of your runs"
        return tr("%1 (calibrated on %2)")
            .arg(pm, u.sources.empty() ? QString() : QString::fromStdString(u.sources.front()));
    if (u.basisKind == "extrapolated")
        return tr("%1 (extrapolated)").arg(pm); // the card is narrow: the tooltip's sentence says what is missing
    return tr("%1 (validated on %2 runs)").arg(pm).arg(runs);
}

QString memoryRangeSentence(const core::Result& r)
{
    if (!r.valid)
        return {};
    const QString range
        = tr("80% range %1 – %2 for a %3 run (%4).")
              .arg(Units::bytes(r.memoryRange.lo), Units::bytes(r.memoryRange.hi),
                  QString::fromStdString(r.uncertainty.kind), QString::fromStdString(r.uncertainty.basis));
    const QString why = borderlineSentence(r);
    return why.isEmpty() ? range : range + QLatin1Char(' ') + why + QLatin1Char('.');
}

QString stepRangeSentence(const core::Result& r)
{
    if (!r.valid)
        return {};
    return tr("80% range %1 – %2 for a %3 run (%4).")
        .arg(Units::seconds(r.stepTimeRange.lo), Units::seconds(r.stepTimeRange.hi),
            QString::fromStdString(r.uncertainty.kind), QString::fromStdString(r.uncertainty.basis));
}

QString borderlineSentence(const core::Result& r)
{
    if (!r.valid || r.verdict != core::Verdict::Borderline)
        return {};
    const double total = r.memory.total();
    const QString runs = r.uncertainty.basisKind == "calibrated" ? tr("your calibration runs")
        : r.uncertainty.basisKind == "extrapolated"
        ? tr("published runs of other kinds")
        : tr("published %1 runs").arg(QString::fromStdString(r.uncertainty.kind));
    if (r.fits)
        return tr("Borderline: %1 fits in the %2 usable, but the 80% range reaches %3 (memory of %4 came out up to %5% "
                  "above the model)")
            .arg(Units::bytes(total), Units::bytes(r.usable), Units::bytes(r.memoryRange.hi), runs)
            .arg((r.uncertainty.memoryRatio.hi - 1) * 100, 0, 'f', 0);
    // Over the usable memory; "does not fit" only when the whole range is above what the GPU can allocate at all.
    const double allocatable = r.allocatable;
    if (total <= allocatable)
        return tr("Borderline: %1 is over the %2 usable but within the %3 the GPU can allocate: it runs only inside "
                  "the headroom")
            .arg(Units::bytes(total), Units::bytes(r.usable), Units::bytes(allocatable));
    return tr("Borderline: %1 exceeds the %2 the GPU can allocate, but the 80% range starts at %3 (memory of %4 came "
              "out up to %5% below the model)")
        .arg(Units::bytes(total), Units::bytes(allocatable), Units::bytes(r.memoryRange.lo), runs)
        .arg((1 - r.uncertainty.memoryRatio.lo) * 100, 0, 'f', 0);
}

} // namespace shardscope::ui
