// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Scenario settings and headline figures as display text, shared by exports (caption, report), the compare view
/// (difference table) and the teaching mode (changed fields). Labels come from explain/field_names.h and the
/// editors' enum choices; numbers use QLocale and util/units.h.

#include <shardscope/core/result.h>
#include <shardscope/core/scenario.h>

#include <QDate>
#include <QList>
#include <QString>

namespace shardscope::ui {

/// A setting (waterfall path, "parallelism.sharding") as the editors show it: "ZeRO-3", "H100 SXM5
/// 80GB", "400 GB/s", "yes".
[[nodiscard]] QString settingText(const core::Scenario& s, const QString& path);

/// The label of a setting (waterfall path): explain/field_names.h, plus the settings the editor has no control for.
[[nodiscard]] QString settingLabel(const QString& path);

/// "ZeRO-3, TP 8 · PP 4 (1F1B) · CP 1 · DP 4"
[[nodiscard]] QString strategyText(const core::Scenario& s, const core::Result& r);

/// "32 × H100 SXM5 80GB (4 nodes × 8)"
[[nodiscard]] QString clusterText(const core::Scenario& s);

/// The caption drawn under exported charts: scenario name; model, GPUs, strategy; program and date.
[[nodiscard]] QString scenarioCaption(
    const core::Scenario& s, const core::Result& r, const QDate& date = QDate::currentDate());

struct LabelledValue {
    QString label;
    QString value;
};

/// Every setting of the scenario, grouped as in the editor ("Model", "Cluster", ...): {group label, ""} rows
/// followed by {setting label, value} rows.
[[nodiscard]] QList<LabelledValue> settingsRows(const core::Scenario& s);

/// The headline figures: memory per GPU (and fits), step time, tokens/s, MFU, communication per GPU, min GPUs,
/// layout. Empty values for an invalid result.
struct Headline {
    QString key; ///< "memory", "step_time", "tokens_per_second", "mfu", "comm", "min_gpus", "cost"
    QString label;
    double value = 0; ///< raw (bytes, seconds, tokens/s, fraction, bytes, GPUs, USD)
    QString text;
};
[[nodiscard]] QList<Headline> headlines(const core::Result& r);

/// "+12.3 GiB (+25.0 %)" for the compare table: the change from `base` to `value` of a headline.
[[nodiscard]] QString headlineDelta(const Headline& base, const Headline& value);

} // namespace shardscope::ui
