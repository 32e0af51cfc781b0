// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings/app_settings.h"

#include <shardscope/core/search.h>

#include <QFileInfo>

namespace shardscope::ui {

namespace {
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kSplitters = QStringLiteral("window/splitters/");
const QString kUnit = QStringLiteral("display/byteUnit");
const QString kTheme = QStringLiteral("display/theme");
const QString kSearchOverlap = QStringLiteral("search/overlap_efficiency");
const QString kSearchGuaranteedFit = QStringLiteral("search/guaranteed_fit");
const QString kRecent = QStringLiteral("files/recent");
const QString kLast = QStringLiteral("files/lastScenario");
const QString kOpening = QStringLiteral("files/opening");
const QString kImportFolder = QStringLiteral("files/lastImportFolder");
} // namespace

AppSettings::AppSettings(QObject* parent)
    : QObject(parent)
{ }

AppSettings::AppSettings(const QString& iniPath, QObject* parent)
    : QObject(parent)
    , m_settings(iniPath, QSettings::IniFormat)
{ }

QByteArray AppSettings::windowGeometry() const { return m_settings.value(kGeometry).toByteArray(); }
void AppSettings::setWindowGeometry(const QByteArray& geometry) { m_settings.setValue(kGeometry, geometry); }
QByteArray AppSettings::windowState() const { return m_settings.value(kState).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& state) { m_settings.setValue(kState, state); }
QByteArray AppSettings::splitterState(const QString& name) const
{
    return m_settings.value(kSplitters + name).toByteArray();
}
void AppSettings::setSplitterState(const QString& name, const QByteArray& state)
{
    m_settings.setValue(kSplitters + name, state);
}

ByteUnit AppSettings::byteUnit() const
{
    return m_settings.value(kUnit, QStringLiteral("GiB")).toString() == QLatin1String("GB") ? ByteUnit::GB
                                                                                            : ByteUnit::GiB;
}

void AppSettings::setByteUnit(ByteUnit unit)
{
    if (unit == byteUnit() && m_settings.contains(kUnit))
        return;
    m_settings.setValue(kUnit, unit == ByteUnit::GB ? QStringLiteral("GB") : QStringLiteral("GiB"));
    emit byteUnitChanged(unit);
}

ThemeMode AppSettings::theme() const
{
    const QString v = m_settings.value(kTheme, QStringLiteral("system")).toString();
    return v == QLatin1String("light") ? ThemeMode::Light
        : v == QLatin1String("dark")   ? ThemeMode::Dark
                                       : ThemeMode::System;
}

void AppSettings::setTheme(ThemeMode mode)
{
    static const char* names[] = { "system", "light", "dark" };
    m_settings.setValue(kTheme, QString::fromLatin1(names[int(mode)]));
    emit themeChanged(mode);
}

double AppSettings::searchOverlapEfficiency() const
{
    bool ok = false;
    const double v = m_settings.value(kSearchOverlap, 1.0).toDouble(&ok);
    return ok && v >= 0 && v <= 1 ? v : 1.0;
}

void AppSettings::setSearchOverlapEfficiency(double fraction) { m_settings.setValue(kSearchOverlap, fraction); }

bool AppSettings::searchGuaranteedFit() const { return m_settings.value(kSearchGuaranteedFit, false).toBool(); }

void AppSettings::setSearchGuaranteedFit(bool on) { m_settings.setValue(kSearchGuaranteedFit, on); }

QStringList AppSettings::recentFiles() const { return m_settings.value(kRecent).toStringList(); }

void AppSettings::addRecentFile(const QString& path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecent)
        files.removeLast();
    m_settings.setValue(kRecent, files);
    emit recentFilesChanged(files);
}

void AppSettings::removeRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    m_settings.setValue(kRecent, files);
    emit recentFilesChanged(files);
}

QString AppSettings::lastScenario() const { return m_settings.value(kLast).toString(); }
void AppSettings::setLastScenario(const QString& path) { m_settings.setValue(kLast, path); }

QString AppSettings::lastImportFolder() const { return m_settings.value(kImportFolder).toString(); }
void AppSettings::setLastImportFolder(const QString& folder) { m_settings.setValue(kImportFolder, folder); }

QString AppSettings::openingScenario() const { return m_settings.value(kOpening).toString(); }

void AppSettings::setOpeningScenario(const QString& path)
{
    if (path.isEmpty())
        m_settings.remove(kOpening);
    else
        m_settings.setValue(kOpening, path);
    m_settings.sync(); // on disk before a parse that may hang or crash
}

} // namespace shardscope::ui
