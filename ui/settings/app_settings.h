// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "util/units.h"

#include <QByteArray>
#include <QObject>
#include <QSettings>
#include <QStringList>

namespace shardscope::ui {

enum class ThemeMode { System, Light, Dark };

/// Typed access to QSettings (organisation and application names are set in main): window layout, display
/// units, theme, recent files and the last scenario file. Scenarios themselves live in files, not here.
class AppSettings : public QObject
{
    Q_OBJECT
public:
    explicit AppSettings(QObject* parent = nullptr);
    /// For tests: settings in an INI file of their own.
    AppSettings(const QString& iniPath, QObject* parent);

    [[nodiscard]] QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& geometry);
    [[nodiscard]] QByteArray windowState() const;
    void setWindowState(const QByteArray& state);
    [[nodiscard]] QByteArray splitterState(const QString& name) const;
    void setSplitterState(const QString& name, const QByteArray& state);

    [[nodiscard]] ByteUnit byteUnit() const;
    void setByteUnit(ByteUnit unit);
    [[nodiscard]] ThemeMode theme() const;
    void setTheme(ThemeMode mode);
    /// Share of the communication the model assumes hidden that the search counts as hidden (default 1, the
    /// model's assumption; core::SearchOptions::overlapEfficiency).
    [[nodiscard]] double searchOverlapEfficiency() const;
    void setSearchOverlapEfficiency(double fraction);
    /// The search pane's "guaranteed to fit" (rank on the slow, large ends of the 80% ranges); off by default.
    [[nodiscard]] bool searchGuaranteedFit() const;
    void setSearchGuaranteedFit(bool on);

    [[nodiscard]] QStringList recentFiles() const;
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    [[nodiscard]] QString lastScenario() const;
    void setLastScenario(const QString& path);
    /// The folder File → Import… last imported from ("" before the first import): its dialog starts there.
    [[nodiscard]] QString lastImportFolder() const;
    void setLastImportFolder(const QString& folder);
    /// The file being opened right now ("" when none): set before reading a file and cleared once it is open
    /// or refused, so that a start-up finding it set knows the last open crashed or hung (and does not retry it).
    [[nodiscard]] QString openingScenario() const;
    void setOpeningScenario(const QString& path);

    static constexpr int kMaxRecent = 8;

signals:
    void byteUnitChanged(ByteUnit unit);
    void themeChanged(ThemeMode mode);
    void recentFilesChanged(const QStringList& files);

private:
    QSettings m_settings;
};

} // namespace shardscope::ui
