// SPDX-License-Identifier: GPL-3.0-or-later
// save_victim: a helper of tst_no_lost_work that is killed (SIGKILL) while it works. Not a test by itself.
//   save_victim save TARGET FIRST SETTINGS.ini     saves victimScenario(FIRST), (FIRST+1), ... to TARGET through
//                                                  FileController::saveTo, forever; prints "ready", then
//                                                  "begin N" and "end N" around each save
//   save_victim autosave DIR ORIGINAL|- SETTINGS.ini opens ORIGINAL (- : untitled), makes victimEdit, pins
//                                                  victimPin, lets the autosave timer write them to DIR, prints
//                                                  "autosaved PATH", waits
//   save_victim exit                               prints its pid and exits (a pid that is surely not running)
#include "save_victim.h"
#include "test_support.h"

#include "session/autosave.h"
#include "session/file_controller.h"
#include "document/scenario_document.h"
#include "settings/app_settings.h"

#include <QApplication>

#include <cstdio>

using namespace shardscope;

namespace {
void say(const QString& line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout); // the test reads what was said before the kill
}

int fail(const QString& why)
{
    std::fprintf(stderr, "save_victim: %s\n", qPrintable(why));
    return 3;
}
} // namespace

int main(int argc, char* argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments().mid(1);
    const QString mode = args.value(0);
    if (mode == QLatin1String("exit")) {
        say(QString::number(QCoreApplication::applicationPid()));
        return 0;
    }
    if (args.size() != 4 || (mode != QLatin1String("save") && mode != QLatin1String("autosave")))
        return fail(QStringLiteral(
            "usage: save_victim save TARGET FIRST SETTINGS.ini | autosave DIR ORIGINAL|- SETTINGS.ini | exit"));

    const core::Catalog& catalog = test::catalog();
    ui::AppSettings settings(args[3], nullptr);
    ui::ScenarioDocument doc(catalog);
    ui::FileController files(&doc, &settings, nullptr);

    if (mode == QLatin1String("save")) {
        const QString target = args[1];
        bool ok = false;
        const int first = args[2].toInt(&ok);
        if (!ok)
            return fail(QStringLiteral("FIRST must be a number"));
        say(QStringLiteral("ready"));
        for (int n = first;; ++n) {
            doc.reset(test::victimScenario(n, catalog), QString());
            say(QStringLiteral("begin %1").arg(n));
            QString error;
            if (!files.saveTo(target, &error))
                return fail(error);
            say(QStringLiteral("end %1").arg(n));
        }
    }

    // autosave
    files.autosave()->setDirectory(args[1]);
    files.autosave()->setInterval(50);
    if (args[2] != QLatin1String("-")) {
        QString error;
        if (!files.openFile(args[2], &error))
            return fail(error);
    }
    QObject::connect(files.autosave(), &ui::Autosaver::autosaved, &app,
        [](const QString& path) { say(QStringLiteral("autosaved %1").arg(path)); });
    QObject::connect(files.autosave(), &ui::Autosaver::statusMessage, &app, [](const QString& text) { fail(text); });
    doc.edit(QStringLiteral("crash"), QStringLiteral("cluster.nodes"), [](core::Scenario& s) { test::victimEdit(s); });
    doc.pin(test::victimPin(catalog));
    return QApplication::exec(); // until SIGKILL
}
