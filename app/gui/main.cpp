// SPDX-License-Identifier: GPL-3.0-or-later
// shardscope: the desktop explorer. Usage: shardscope [FILE.shardscope.json]
#include "analysis/analysis_tabs.h"
#include "session/app_theme.h"
#include "session/file_controller.h"
#include "session/termination_signals.h"
#include "document/catalog_resources.h"
#include "document/scenario_document.h"
#include "main_window.h"
#include "settings/app_settings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QScreen>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>

using namespace shardscope;

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ShardScope"));
    QApplication::setApplicationName(QStringLiteral("ShardScope"));
    QApplication::setApplicationDisplayName(QStringLiteral("ShardScope"));
    QApplication::setApplicationVersion(QStringLiteral(SHARDSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("shardscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/shardscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::tr("Explore the memory, communication and time of sharded LLM training."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QApplication::tr("Scenario file to open (.shardscope.json)."),
        QStringLiteral("[file]"));
    // Hidden helpers for documentation and visual checks.
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"), QStringLiteral("Save a PNG of the window and quit."), QStringLiteral("png"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size WxH."), QStringLiteral("WxH"));
    QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light, dark or system."), QStringLiteral("mode"));
    QCommandLineOption fresh(QStringLiteral("default"), QStringLiteral("Open the default scenario, not the last one."));
    QCommandLineOption tab(QStringLiteral("tab"),
        QStringLiteral("Show a tab: explorer, search, sweep, sizing, timeline, rankmap."), QStringLiteral("name"));
    for (QCommandLineOption* o : { &screenshot, &size, &theme, &tab })
        o->setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOptions({ screenshot, size, theme, fresh, tab });
    parser.process(app);

    ui::AppTheme::captureSystemPalette();
    ui::AppSettings settings;
    ui::ThemeMode mode = settings.theme();
    if (parser.isSet(theme)) {
        const QString t = parser.value(theme);
        mode = t == QLatin1String("dark") ? ui::ThemeMode::Dark
            : t == QLatin1String("light") ? ui::ThemeMode::Light
                                          : ui::ThemeMode::System;
    }
    ui::AppTheme::apply(mode);

    core::Catalog catalog;
    const QStringList problems = ui::loadCatalogFromResources(catalog);
    if (catalog.gpus.empty() || catalog.links.empty() || catalog.models.empty()) {
        const QString text
            = QApplication::tr("The built-in catalogs could not be read:\n%1").arg(problems.join(QLatin1Char('\n')));
        std::fprintf(stderr, "%s\n", qPrintable(text));
        if (!parser.isSet(screenshot))
            QMessageBox::critical(nullptr, QApplication::tr("ShardScope"), text);
        return 1;
    }
    for (const QString& p : problems)
        std::fprintf(stderr, "catalog: %s\n", qPrintable(p));

    ui::MainWindow window(catalog, &settings);
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        // At the screen's corner: the first start centres a smaller window there, so a screen-sized one would overhang.
        if (wh.size() == 2)
            window.setGeometry(
                QRect(window.screen()->availableGeometry().topLeft(), QSize(wh[0].toInt(), wh[1].toInt())));
    }
    window.show();

    // SIGTERM / SIGHUP (logout): the unsaved changes are autosaved at once, then quit without prompting; the
    // autosave stays for the next start to offer back.
    bool terminated = false;
    ui::TerminationSignals termination(window.files()->autosave());
    QObject::connect(&termination, &ui::TerminationSignals::terminationRequested, &app, [&terminated] {
        terminated = true;
        QCoreApplication::exit(0);
    });

    if (parser.isSet(screenshot)) // no one to close a message box: say it on stderr and take the picture
        window.files()->setMessageHandler([](const QString& title, const QString& text) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(title), qPrintable(text));
        });
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty()) {
        window.files()->open(args.front());
    } else if (!parser.isSet(fresh) && !parser.isSet(screenshot)) {
        // The last saved or opened scenario, unless the last run stopped while opening it or it fails now;
        // otherwise (first run) the default scenario.
        window.files()->reopenLastScenario();
    }
    if (terminated) // a signal while the file was being opened, before the event loop ran
        return 0;
    // Unsaved changes autosaved by a ShardScope that crashed: Restore / Discard / Later, once the window shows.
    if (!parser.isSet(screenshot))
        QTimer::singleShot(0, window.files(), [&window] { window.files()->offerRecovery(); });

    if (parser.isSet(tab))
        window.analysis()->showTab(parser.value(tab));
    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        QTimer::singleShot(400, &window, [&window, path] {
            window.statusBar()->clearMessage(); // no local paths in documentation pictures
            window.replotAllNow();
            const bool ok = window.grab().save(path);
            std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(path));
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return QApplication::exec();
}
