// SPDX-License-Identifier: GPL-3.0-or-later
#include "session/file_controller.h"

#include "session/open_file_watch.h"
#include "document/catalog_resources.h"
#include "document/scenario_document.h"
#include "settings/app_settings.h"
#include "util/message.h"

#include <shardscope/core/scenario_json.h>
#include <shardscope/core/scenario_name.h>

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QProgressDialog>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <memory>

namespace shardscope::ui {

namespace {
QString fileFilter() { return FileController::tr("ShardScope scenarios (*.shardscope.json *.json);;All files (*)"); }
} // namespace

FileController::FileController(ScenarioDocument* doc, AppSettings* settings, QWidget* window)
    : QObject(window)
    , m_doc(doc)
    , m_settings(settings)
    , m_window(window)
    , m_autosave(new Autosaver(doc, this))
    , m_watch(new OpenFileWatch(this))
{
    connect(m_settings, &AppSettings::recentFilesChanged, this, &FileController::rebuildRecentMenu);
    connect(m_autosave, &Autosaver::statusMessage, this, &FileController::statusMessage);
    connect(m_autosave, &Autosaver::failed, this, [this](const QString& text) {
        showMessage(m_window, tr("Autosave failed"),
            tr("%1\n\nYour unsaved changes are only in memory; the previous autosave is kept.").arg(text), m_message);
    });
    connect(m_doc, &ScenarioDocument::filePathChanged, this, &FileController::bindTo);
    connect(m_watch, &OpenFileWatch::changed, this, &FileController::showChangedOnDisk);
}

void FileController::populateMenu(QMenu* menu)
{
    menu->addAction(tr("&New"), QKeySequence::New, this, &FileController::newScenario)
        ->setToolTip(tr("Start from the default scenario"));
    menu->addAction(tr("&Open…"), QKeySequence::Open, this, &FileController::openDialog);
    m_recentMenu = menu->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    QMenu* examples = menu->addMenu(tr("&Examples"));
    examples->setObjectName(QStringLiteral("examplesMenu"));
    examples->setToolTipsVisible(true);
    for (const QString& path : exampleScenarioPaths()) {
        // Each example by its scenario's title ("Mixtral 8x22B, 16 x 8 H100, TP 2 x PP 4 x EP 8, ZeRO-1"), not its file.
        const ScenarioLoad load = readScenarioFile(path, m_doc->catalog());
        QString title
            = load.ok() ? QString::fromStdString(core::scenarioTitle(load.scenario)) : QFileInfo(path).fileName();
        QAction* a = examples->addAction(
            title.replace(QLatin1Char('&'), QStringLiteral("&&")), this, [this, path] { openExample(path); });
        a->setToolTip(QFileInfo(path).fileName());
    }
    examples->setEnabled(!examples->isEmpty());
    menu->addSeparator();
    menu->addAction(tr("&Save"), QKeySequence::Save, this, &FileController::save);
    menu->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &FileController::saveAs);
}

void FileController::rebuildRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList files = m_settings->recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        m_recentMenu
            ->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()), this,
                [this, path] {
                    if (maybeSave())
                        open(path);
                })
            ->setToolTip(path);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

bool FileController::maybeSave()
{
    if (!m_doc->isModified())
        return true;
    QMessageBox::StandardButton answer = QMessageBox::Cancel;
    if (m_prompt) {
        answer = m_prompt();
    } else {
        const std::unique_ptr<QMessageBox> box(plainMessageBox(QMessageBox::Warning, tr("Unsaved changes"),
            tr("“%1” has unsaved changes. Save them?").arg(m_doc->displayName()), m_window));
        box->setStandardButtons(QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        box->setDefaultButton(QMessageBox::Save);
        answer = QMessageBox::StandardButton(box->exec());
    }
    if (answer == QMessageBox::Save)
        return save();
    if (answer != QMessageBox::Discard)
        return false;
    m_autosave->discard(); // the user decided: the changes are not offered back after a crash either
    return true;
}

void FileController::newScenario()
{
    if (!maybeSave())
        return;
    m_doc->reset(core::defaultScenario(m_doc->catalog()), QString());
    emit statusMessage(tr("New scenario"));
}

bool FileController::openUntitled(const core::Scenario& scenario, const QString& description)
{
    if (!maybeSave())
        return false;
    m_doc->reset(scenario, QString());
    emit statusMessage(tr("%1 opened as a new untitled scenario").arg(description));
    return true;
}

QString FileController::askPath(bool save)
{
    if (m_fileDialog)
        return m_fileDialog(save);
    const QString dir = m_doc->filePath().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
        : QFileInfo(m_doc->filePath()).absolutePath();
    if (!save)
        return QFileDialog::getOpenFileName(m_window, tr("Open scenario"), dir, fileFilter());
    QString suggested = m_doc->filePath();
    if (suggested.isEmpty()) {
        QString name = QString::fromStdString(core::scenarioTitle(m_doc->scenario())).simplified();
        name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
        suggested = QDir(dir).filePath(
            (name.isEmpty() ? QStringLiteral("scenario") : name) + QStringLiteral(".shardscope.json"));
    }
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save scenario"), suggested, fileFilter());
    if (!path.isEmpty() && !path.endsWith(QLatin1String(".json")))
        path += QStringLiteral(".shardscope.json");
    return path;
}

void FileController::openDialog()
{
    if (!maybeSave())
        return;
    const QString path = askPath(false);
    if (!path.isEmpty())
        open(path);
}

bool FileController::runInBackground(const QString& title, const QString& label, std::function<void()> work)
{
    QThread* worker = QThread::create(std::move(work));
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    QEventLoop loop;
    bool done = false;
    bool cancelled = false;
    connect(worker, &QThread::finished, &loop, [&] {
        done = true;
        loop.quit();
    });
    worker->start();
    // A quick job: no dialog, and no input reaches the window meanwhile.
    QTimer::singleShot(kProgressDelayMs, &loop, &QEventLoop::quit);
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    if (!done) {
        QProgressDialog progress(label, tr("Cancel"), 0, 0, m_window);
        progress.setWindowTitle(title);
        progress.setWindowModality(Qt::WindowModal);
        progress.setMinimumDuration(0);
        const auto cancel = [&] {
            cancelled = true;
            loop.quit();
        };
        connect(&progress, &QProgressDialog::canceled, &loop, cancel);
        connect(&progress, &QDialog::rejected, &loop, cancel); // Escape
        progress.show();
        loop.exec(); // also left by QCoreApplication::exit (SIGTERM): then nothing was done
    }
    return done && !cancelled;
}

std::optional<ScenarioLoad> FileController::readInBackground(const QString& path)
{
    std::function<ScenarioLoad(const QString&)> reader = m_reader;
    if (!reader) // the worker owns a copy: it may outlive a cancel, this controller and main's catalog
        reader = [catalog = std::make_shared<const core::Catalog>(m_doc->catalog())](
                     const QString& p) { return readScenarioFile(p, *catalog); };
    auto result = std::make_shared<ScenarioLoad>();
    if (!runInBackground(tr("Opening scenario"), tr("Opening %1…").arg(QFileInfo(path).fileName()),
            [reader, path, result] { *result = reader(path); }))
        return std::nullopt;
    return std::move(*result);
}

FileController::OpenOutcome FileController::openPath(const QString& path, QString* error)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    const auto fail = [error](OpenOutcome outcome, const QString& why) {
        if (error)
            *error = why;
        return outcome;
    };
    if (abs != m_lock.path()) {
        const qint64 pid = DocumentLock::holder(abs);
        if (pid != 0 && !confirmDespiteOtherInstance(abs, pid, tr("&Open Anyway")))
            return fail(OpenOutcome::Declined, tr("%1 is open in another ShardScope (process %2)").arg(abs).arg(pid));
    }
    m_settings->setOpeningScenario(abs);
    const std::optional<ScenarioLoad> load = readInBackground(abs);
    m_settings->setOpeningScenario(QString());
    if (!load || !load->ok()) {
        if (m_settings->lastScenario() == abs)
            m_settings->setLastScenario(QString()); // failed or too slow: not reopened at the next start
        return load ? fail(OpenOutcome::Failed, load->errors.join(QLatin1Char('\n')))
                    : fail(OpenOutcome::Cancelled, tr("Opening %1 was cancelled").arg(abs));
    }
    m_doc->reset(load->scenario, abs, load->pins);
    bindTo(abs);
    m_settings->addRecentFile(abs);
    m_settings->setLastScenario(abs);
    emit statusMessage(load->warnings.isEmpty()
            ? tr("Opened %1").arg(path)
            : tr("Opened %1 (%2)").arg(path, load->warnings.join(QStringLiteral("; "))));
    return OpenOutcome::Opened;
}

bool FileController::openFile(const QString& path, QString* error)
{
    return openPath(path, error) == OpenOutcome::Opened;
}

bool FileController::open(const QString& path)
{
    QString error;
    switch (openPath(path, &error)) {
    case OpenOutcome::Opened: return true;
    case OpenOutcome::Failed:
        warn(tr("Cannot open scenario"), tr("Cannot open %1:\n%2").arg(path, error));
        if (!QFileInfo::exists(path))
            m_settings->removeRecentFile(path);
        return false;
    case OpenOutcome::Cancelled:
    case OpenOutcome::Declined: emit statusMessage(error); return false;
    }
    return false;
}

bool FileController::reopenLastScenario()
{
    const QString last = m_settings->lastScenario();
    const QString interrupted = m_settings->openingScenario();
    if (!interrupted.isEmpty()) {
        m_settings->setOpeningScenario(QString());
        if (interrupted == last) {
            m_settings->setLastScenario(QString());
            emit statusMessage(tr("Not reopening %1: ShardScope stopped while opening it last time").arg(last));
            return false;
        }
    }
    return !last.isEmpty() && QFileInfo::exists(last) && openFile(last); // a failure or cancel forgets it
}

bool FileController::reload()
{
    const QString path = m_doc->filePath();
    if (path.isEmpty())
        return false;
    QString error;
    switch (openPath(path, &error)) {
    case OpenOutcome::Opened: return true;
    case OpenOutcome::Failed: warn(tr("Cannot reload"), tr("Cannot reload %1:\n%2").arg(path, error)); return false;
    case OpenOutcome::Cancelled:
    case OpenOutcome::Declined: emit statusMessage(error); return false;
    }
    return false;
}

void FileController::bindTo(const QString& absolutePath)
{
    if (m_changedNotice) // the document now matches the file (reloaded, saved) or belongs to another one
        m_changedNotice->close();
    m_watch->remember(absolutePath);
    m_lock.lock(absolutePath); // false: another instance has it and the user went ahead; nothing held then
}

bool FileController::confirmDespiteOtherInstance(const QString& absolutePath, qint64 pid, const QString& action)
{
    if (m_secondInstance)
        return m_secondInstance(absolutePath, pid);
    const std::unique_ptr<QMessageBox> owner(plainMessageBox(QMessageBox::Warning, tr("Open in another ShardScope"),
        tr("“%1” is open in another ShardScope (process %2).").arg(QFileInfo(absolutePath).fileName()).arg(pid),
        m_window,
        tr("If both change it, the one that saves last replaces the other's changes "
           "(ShardScope asks before saving over a file that changed on disk).")));
    QMessageBox& box = *owner;
    QPushButton* go = box.addButton(action, QMessageBox::AcceptRole);
    box.setDefaultButton(box.addButton(QMessageBox::Cancel));
    box.exec();
    return box.clickedButton() == go;
}

ExternalChangeChoice FileController::askExternalChange(const QString& path)
{
    if (m_externalChange)
        return m_externalChange(path);
    const std::unique_ptr<QMessageBox> owner(plainMessageBox(QMessageBox::Warning, tr("File changed on disk"),
        tr("“%1” was changed on disk since you opened or saved it.").arg(QFileInfo(path).fileName()), m_window,
        tr("Reload drops your changes and opens the file as it is now. Overwrite replaces it "
           "with your version. Save As writes your version to another file.")));
    QMessageBox& box = *owner;
    QPushButton* reload = box.addButton(tr("&Reload"), QMessageBox::DestructiveRole);
    QPushButton* overwrite = box.addButton(tr("&Overwrite"), QMessageBox::AcceptRole);
    QPushButton* saveAs = box.addButton(tr("Save &As…"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(saveAs);
    box.exec();
    if (box.clickedButton() == reload)
        return ExternalChangeChoice::Reload;
    if (box.clickedButton() == overwrite)
        return ExternalChangeChoice::Overwrite;
    if (box.clickedButton() == saveAs)
        return ExternalChangeChoice::SaveAs;
    return ExternalChangeChoice::Cancel;
}

void FileController::showChangedOnDisk(const QString& path)
{
    emit fileChangedOnDisk(path);
    emit statusMessage(tr("%1 was changed on disk by another program").arg(path));
    if (m_changedNotice) { // one notice however often it changes
        m_changedNotice->raise();
        return;
    }
    auto* box = plainMessageBox(QMessageBox::Information, tr("File changed on disk"),
        tr("“%1” was changed on disk by another program.").arg(QFileInfo(path).fileName()), m_window,
        m_doc->isModified() ? tr("Reload drops your unsaved changes and opens the file as it is now. Keep leaves your "
                                 "version open; saving it asks before replacing the file.")
                            : tr("Reload opens the file as it is now."));
    box->setObjectName(QStringLiteral("changedOnDiskNotice"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::NonModal);
    QPushButton* reloadButton = box->addButton(tr("&Reload"), QMessageBox::AcceptRole);
    box->addButton(tr("&Keep"), QMessageBox::RejectRole);
    connect(box, &QMessageBox::buttonClicked, this, [this, reloadButton](QAbstractButton* clicked) {
        if (clicked == reloadButton)
            QTimer::singleShot(0, this, [this] { reload(); }); // once the notice has closed
    });
    m_changedNotice = box;
    box->show();
}

void FileController::openExample(const QString& resourcePath)
{
    if (!maybeSave())
        return;
    const ScenarioLoad load = readScenarioFile(resourcePath, m_doc->catalog());
    if (!load.ok()) {
        warn(tr("Cannot open example"), load.errors.join(QLatin1Char('\n')));
        return;
    }
    m_doc->reset(load.scenario, QString(), load.pins); // examples are read-only: saving asks for a file
    emit statusMessage(tr("Example: %1").arg(QString::fromStdString(core::scenarioTitle(load.scenario))));
}

bool FileController::saveTo(const QString& path, QString* error)
{
    const QString reason = writeScenarioFile(path, m_doc->scenario(), m_doc->catalog(), m_doc->pins());
    if (!reason.isEmpty()) {
        if (error)
            *error = reason;
        return false; // the document stays modified, so its autosave stays too
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_doc->markSaved(abs);
    bindTo(abs);
    m_settings->addRecentFile(abs);
    m_settings->setLastScenario(abs);
    emit statusMessage(tr("Saved %1").arg(path));
    return true;
}

bool FileController::save()
{
    if (m_doc->filePath().isEmpty())
        return saveAs();
    if (m_watch->changedOnDisk()) {
        switch (askExternalChange(m_doc->filePath())) {
        case ExternalChangeChoice::Overwrite: break;
        case ExternalChangeChoice::SaveAs: return saveAs();
        case ExternalChangeChoice::Reload: reload(); return false; // nothing was saved
        case ExternalChangeChoice::Cancel: return false;
        }
    }
    QString error;
    if (saveTo(m_doc->filePath(), &error))
        return true;
    warn(tr("Cannot save"), tr("Cannot save %1:\n%2").arg(m_doc->filePath(), error));
    return false;
}

bool FileController::saveAs()
{
    const QString path = askPath(true);
    if (path.isEmpty())
        return false;
    const QString abs = QFileInfo(path).absoluteFilePath();
    if (abs != m_lock.path()) {
        const qint64 pid = DocumentLock::holder(abs);
        if (pid != 0 && !confirmDespiteOtherInstance(abs, pid, tr("&Save Anyway")))
            return false;
    }
    QString error;
    if (saveTo(path, &error))
        return true;
    warn(tr("Cannot save"), tr("Cannot save %1:\n%2").arg(path, error));
    return false;
}

void FileController::warn(const QString& title, const QString& text)
{
    showMessage(m_window, title, text, m_message); // window-modal, not blocking: the caller and the event loop go on
}

RecoveryDecision FileController::askRecovery(const QList<AutosaveEntry>& entries)
{
    RecoveryDialog dialog(entries, m_window);
    dialog.exec();
    return dialog.decision();
}

bool FileController::offerRecovery()
{
    const QList<AutosaveEntry> entries = m_autosave->orphans();
    if (entries.isEmpty())
        return false;
    const RecoveryDecision decision = m_recoveryPrompt ? m_recoveryPrompt(entries) : askRecovery(entries);
    for (int i : decision.discard)
        if (i >= 0 && i < entries.size() && i != decision.restore)
            Autosaver::removeEntry(entries[i]);
    if (decision.restore < 0 || decision.restore >= entries.size())
        return false;
    const AutosaveEntry& entry = entries[decision.restore];
    QString error;
    if (restoreAutosave(entry, &error))
        return true; // one document: any others are offered at the next start
    if (!error.isEmpty())
        warn(
            tr("Cannot restore"), tr("Cannot restore %1:\n%2").arg(QDir::toNativeSeparators(entry.contentPath), error));
    return false;
}

bool FileController::restoreAutosave(const AutosaveEntry& entry, QString* error)
{
    const ScenarioLoad load = readScenarioFile(entry.contentPath, m_doc->catalog());
    if (!load.ok()) {
        if (error)
            *error = load.errors.join(QLatin1Char('\n'));
        return false;
    }
    if (!maybeSave())
        return false; // cancelled: the autosave stays
    // The original file (as on disk, with its pins) is the clean state and the autosave (scenario and pins) is one
    // undoable edit on top of it.
    const QString path = entry.originalPath.isEmpty() ? QString() : QFileInfo(entry.originalPath).absoluteFilePath();
    ScenarioLoad base;
    base.scenario = core::defaultScenario(m_doc->catalog());
    if (!path.isEmpty()) {
        if (ScenarioLoad disk = readScenarioFile(path, m_doc->catalog()); disk.ok())
            base = std::move(disk);
    }
    m_doc->reset(base.scenario, path, base.pins);
    m_doc->replace(tr("Restore unsaved changes"), load.scenario, load.pins);
    // Safe in this process's autosave before the crashed one's files go.
    if (m_autosave->autosaveNow())
        Autosaver::removeEntry(entry);
    emit statusMessage(tr("Restored unsaved changes to %1").arg(m_doc->displayName()));
    return true;
}

} // namespace shardscope::ui
