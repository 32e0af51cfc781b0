// SPDX-License-Identifier: GPL-3.0-or-later
#include "calibrate/calibrate_dialog.h"

#include "charts/chart_theme.h"
#include "charts/qcp.h"
#include "document/scenario_document.h"
#include "util/message.h"
#include "util/screen_fit.h"
#include "util/units.h"

#include <shardscope/core/file_io.h>
#include <shardscope/core/scenario_name.h>
#include <shardscope/core/profile_json.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace shardscope::ui {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0; // the table shows memory in GiB, as torch.cuda reports it
constexpr int kFileLimit = 16 * 1024 * 1024; // = the core's JSON limit (json_fields.h)

// Table columns after the scenario's title: the figures in core::kFigures order, with the unit shown.
double toDisplay(core::Figure f, double v)
{
    return f == core::Figure::AllocatedPeak || f == core::Figure::ReservedPeak ? v / kGiB : v;
}
// An editable cell: a plain number that readTable() reads back (no grouping, no suffix), eight significant digits.
QString cellText(core::Figure f, double v) { return v > 0 ? QString::number(toDisplay(f, v), 'g', 8) : QString(); }
double fromDisplay(core::Figure f, double v)
{
    return f == core::Figure::AllocatedPeak || f == core::Figure::ReservedPeak ? v * kGiB : v;
}
QString figureHeader(core::Figure f)
{
    switch (f) {
    case core::Figure::TokensPerSecondPerGpu: return CalibrateDialog::tr("Tokens/s per GPU");
    case core::Figure::StepTime: return CalibrateDialog::tr("Step time (s)");
    case core::Figure::AllocatedPeak: return CalibrateDialog::tr("Allocated peak (GiB)");
    case core::Figure::ReservedPeak: return CalibrateDialog::tr("Reserved peak (GiB)");
    }
    return {};
}

/// The figure under a residual bar, short: "tokens/s", "step time", "allocated", "reserved".
QString figureShort(core::Figure f)
{
    switch (f) {
    case core::Figure::TokensPerSecondPerGpu: return CalibrateDialog::tr("tokens/s");
    case core::Figure::StepTime: return CalibrateDialog::tr("step time");
    case core::Figure::AllocatedPeak: return CalibrateDialog::tr("allocated");
    case core::Figure::ReservedPeak: return CalibrateDialog::tr("reserved");
    }
    return {};
}

QString issuesText(const std::vector<core::Issue>& issues)
{
    QStringList lines;
    for (const auto& e : issues)
        lines << (e.field.empty() ? QString() : QString::fromStdString(e.field) + QStringLiteral(": "))
                + QString::fromStdString(e.message);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString CalibrateDialog::profileFolder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("profiles"));
}

CalibrateDialog::CalibrateDialog(ScenarioDocument* doc, QWidget* parent)
    : QDialog(parent)
    , m_doc(doc)
{
    setWindowTitle(tr("Calibrate to My Cluster"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Runs measured on your cluster: each a scenario and any of its tokens/s per GPU, step "
                                "time, allocated and reserved peak. The fit adjusts the framework profile's constants "
                                "within their physical bounds (Help → Model Reference, Calibration)."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_table = new QTableWidget(0, 1 + int(std::size(core::kFigures)), this);
    QStringList headers { tr("Scenario") };
    for (core::Figure f : core::kFigures)
        headers << figureHeader(f);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < m_table->columnCount(); ++c) // "Allocated peak (GiB)" was clipped at the default width
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 2);

    auto* rowButtons = new QHBoxLayout;
    auto* import = new QPushButton(tr("Import Runs File…"), this);
    auto* add = new QPushButton(tr("Add Current Scenario"), this);
    auto* remove = new QPushButton(tr("Remove Run"), this);
    auto* fitButton = new QPushButton(tr("Fit"), this);
    rowButtons->addWidget(import);
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch();
    rowButtons->addWidget(fitButton);
    layout->addLayout(rowButtons);

    m_message = plainLabel(this); // quotes the runs file
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_message);
    m_values = plainLabel(this);
    m_values->setWordWrap(true); // a long reason wraps: the dialog never grows past the screen after Fit
    m_values->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_values);
    // Empty, they take no room (two empty wrapped labels left a blank band above the chart before a fit).
    m_message->hide();
    m_values->hide();

    m_chart = new QCustomPlot(this);
    m_chart->setMinimumHeight(180);
    m_chart->yAxis->setLabel(tr("Model error (%)"));
    m_chart->xAxis->setLabel(tr("Measured figure"));
    m_chart->legend->setVisible(false); // shown by showFit(): an empty legend box before the first fit says nothing
    applyChartTheme();
    layout->addWidget(m_chart, 2);

    auto* profileRow = new QHBoxLayout;
    m_save = new QPushButton(tr("Save Profile…"), this);
    m_save->setEnabled(false);
    m_saved = new QComboBox(this);
    m_use = new QPushButton(tr("Use for This Scenario"), this);
    profileRow->addWidget(m_save);
    profileRow->addStretch();
    profileRow->addWidget(new QLabel(tr("Saved profiles:"), this));
    profileRow->addWidget(m_saved, 1);
    profileRow->addWidget(m_use);
    layout->addLayout(profileRow);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    layout->addWidget(close);

    connect(import, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Import Runs"), QString(), tr("Runs (*.json)"));
        if (!path.isEmpty())
            importRunsFile(path);
    });
    connect(add, &QPushButton::clicked, this, &CalibrateDialog::addCurrentScenario);
    connect(remove, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row < 0)
            return;
        m_table->removeRow(row);
        m_scenarios.erase(m_scenarios.begin() + row);
    });
    connect(fitButton, &QPushButton::clicked, this, &CalibrateDialog::fit);
    connect(m_save, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString id = QInputDialog::getText(this, tr("Save Profile"), tr("Profile name (file name):"),
            QLineEdit::Normal, QStringLiteral("my-cluster"), &ok);
        if (ok && !id.trimmed().isEmpty())
            saveProfile(id.trimmed());
    });
    connect(m_use, &QPushButton::clicked, this, [this] {
        if (m_saved->currentIndex() >= 0)
            useSavedProfile(m_saved->currentData().toString());
    });
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    refreshSavedProfiles();
    fitToScreen(this, QSize(900, 640));
}

void CalibrateDialog::applyChartTheme()
{
    // The colours of every other chart (charts/chart_theme.h): QCustomPlot ignores QPalette, so a light or dark
    // palette reaches the axes, grid, text and legend only through the theme.
    const ChartTheme theme = ChartTheme::fromPalette(palette());
    theme.apply(m_chart);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.9); // as ChartBase::smallFont()
    for (QCPAxis* axis : m_chart->axisRect()->axes()) {
        axis->setTickLabelFont(small);
        axis->setLabelFont(small);
    }
    m_chart->legend->setFont(small);
    m_chart->replot();
}

void CalibrateDialog::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyChartTheme();
    QDialog::changeEvent(event);
}

int CalibrateDialog::runCount() const { return m_table->rowCount(); }

QString CalibrateDialog::message() const { return m_message->text(); }

void CalibrateDialog::appendRun(const core::CalibrationRun& run)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_scenarios.push_back(run.scenario);
    auto* title
        = new QTableWidgetItem(QString::fromStdString(core::escapeForTerminal(core::scenarioTitle(run.scenario))));
    title->setFlags(title->flags() & ~Qt::ItemIsEditable);
    m_table->setItem(row, 0, title);
    for (core::Figure f : core::kFigures) {
        const double v = run.figure(f);
        m_table->setItem(row, 1 + int(f), new QTableWidgetItem(cellText(f, v)));
    }
}

void CalibrateDialog::addCurrentScenario()
{
    core::CalibrationRun run;
    run.scenario = m_doc->scenario();
    appendRun(run);
}

bool CalibrateDialog::importRunsFile(const QString& path)
{
    std::string text, error;
    if (!core::readRegularFile(path.toStdString(), kFileLimit, text, error)) {
        showMessage(QString::fromStdString(error), true);
        return false;
    }
    const core::RunsParse parsed = core::parseRuns(text, m_doc->catalog());
    if (!parsed.ok()) {
        showMessage(tr("%1 was not imported:\n%2").arg(QFileInfo(path).fileName(), issuesText(parsed.errors)), true);
        return false;
    }
    for (const auto& run : parsed.runs)
        appendRun(run);
    showMessage(
        tr("Imported %n run(s) from %1.", nullptr, int(parsed.runs.size())).arg(QFileInfo(path).fileName()), false);
    return true;
}

void CalibrateDialog::setMeasured(int row, core::Figure figure, double value)
{
    m_table->item(row, 1 + int(figure))->setText(cellText(figure, value));
}

bool CalibrateDialog::readTable(std::vector<core::CalibrationRun>& runs)
{
    runs.clear();
    for (int row = 0; row < m_table->rowCount(); ++row) {
        core::CalibrationRun run;
        run.scenario = m_scenarios[size_t(row)];
        int figures = 0;
        for (core::Figure f : core::kFigures) {
            const QString text = m_table->item(row, 1 + int(f))->text().trimmed();
            if (text.isEmpty())
                continue;
            bool ok = false;
            const double v = text.toDouble(&ok);
            if (!ok || !std::isfinite(v) || v <= 0) {
                showMessage(
                    tr("Run %1, %2: must be a number > 0, not '%3'.").arg(row + 1).arg(figureHeader(f), text), true);
                return false;
            }
            run.measured[int(f)] = fromDisplay(f, v);
            ++figures;
        }
        if (figures == 0) {
            showMessage(tr("Run %1 has no measured figure: enter one or more, or remove the run.").arg(row + 1), true);
            return false;
        }
        if (!runs.empty() && run.scenario.training.framework != runs.front().scenario.training.framework) {
            showMessage(tr("Run %1 is %2, run 1 %3: calibrate one framework at a time.")
                            .arg(row + 1)
                            .arg(QString::fromLatin1(core::toString(run.scenario.training.framework)),
                                QString::fromLatin1(core::toString(runs.front().scenario.training.framework))),
                true);
            return false;
        }
        runs.push_back(std::move(run));
    }
    if (runs.empty()) {
        showMessage(tr("No runs: import a runs file or add the current scenario with what you measured."), true);
        return false;
    }
    return true;
}

bool CalibrateDialog::fit()
{
    m_fitted = false;
    m_save->setEnabled(false);
    std::vector<core::CalibrationRun> runs;
    if (!readTable(runs))
        return false;
    m_fit = core::calibrate(runs, runs.front().scenario.profile);
    m_fitRuns = runs;
    if (!m_fit.ok()) {
        showMessage(tr("The fit was refused:\n%1").arg(issuesText(m_fit.errors)), true);
        m_values->clear();
        m_values->hide();
        m_chart->clearPlottables();
        m_chart->legend->setVisible(false);
        m_chart->replot();
        return false;
    }
    m_fitted = true;
    m_save->setEnabled(true);
    showMessage(tr("Fitted on %1 runs: error %2 rms before, %3 after.")
                    .arg(runs.size())
                    .arg(Units::percent(std::exp(m_fit.rmsLogErrorBefore) - 1),
                        Units::percent(std::exp(m_fit.rmsLogErrorAfter) - 1)),
        false);
    showFit();
    return true;
}

void CalibrateDialog::showFit()
{
    QStringList lines;
    for (const auto& f : m_fit.fitted)
        lines << tr("%1: %2 → %3").arg(QString::fromStdString(f.key)).arg(f.before, 0, 'g', 4).arg(f.after, 0, 'g', 4);
    for (const auto& f : m_fit.fixed)
        lines << tr("%1 kept at %2: %3")
                     .arg(QString::fromStdString(f.key))
                     .arg(f.value, 0, 'g', 4)
                     .arg(QString::fromStdString(f.reason));
    m_values->setText(lines.join(QLatin1Char('\n')));
    m_values->setVisible(!lines.isEmpty());

    m_chart->clearPlottables();
    QVector<double> x, before, after;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (size_t i = 0; i < m_fit.figures.size(); ++i) {
        const auto& f = m_fit.figures[i];
        x << double(i + 1);
        before << 100 * (f.before / f.measured - 1);
        after << 100 * (f.after / f.measured - 1);
        ticker->addTick(double(i + 1), tr("run %1\n%2").arg(f.run + 1).arg(figureShort(f.figure)));
    }
    auto* b = new QCPBars(m_chart->xAxis, m_chart->yAxis);
    b->setName(tr("default profile"));
    b->setWidth(0.35);
    // Okabe–Ito, as every chart's data series (charts/chart_theme.h), the waterfall's pair: vermillion the default
    // profile's error, bluish green the calibrated one's; each at least 3:1 on the light and the dark background.
    b->setBrush(okabe_ito::vermillion);
    b->setPen(QPen(okabe_ito::vermillion, 1));
    b->setData(x, before);
    auto* a = new QCPBars(m_chart->xAxis, m_chart->yAxis);
    a->setName(tr("calibrated"));
    a->setWidth(0.35);
    a->setBrush(okabe_ito::bluishGreen);
    a->setPen(QPen(okabe_ito::bluishGreen, 1));
    QVector<double> shifted = x;
    for (double& v : shifted)
        v += 0.35;
    a->setData(shifted, after);
    m_chart->legend->setVisible(true);
    m_chart->xAxis->setTicker(ticker);
    m_chart->xAxis->setRange(0.3, double(m_fit.figures.size()) + 1);
    m_chart->yAxis->rescale();
    m_chart->replot();
}

bool CalibrateDialog::saveProfile(const QString& id)
{
    if (!m_fitted)
        return false;
    if (!QDir().mkpath(profileFolder())) {
        showMessage(tr("Cannot create %1.").arg(profileFolder()), true);
        return false;
    }
    const QString path = QDir(profileFolder()).filePath(id + QStringLiteral(".json"));
    const std::string name = m_fit.profile.name + ", calibrated on " + std::to_string(m_fitRuns.size()) + " runs";
    std::string error;
    if (!core::writeFileAtomically(path.toStdString(),
            core::calibratedProfileJson(m_fit, m_fitRuns, id.toStdString(), name, "ShardScope calibration table"),
            error)) {
        showMessage(QString::fromStdString(error), true);
        return false;
    }
    showMessage(tr("Saved %1.").arg(path), false);
    refreshSavedProfiles();
    return true;
}

void CalibrateDialog::refreshSavedProfiles()
{
    m_saved->clear();
    const QDir dir(profileFolder());
    for (const QFileInfo& fi : dir.entryInfoList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name))
        m_saved->addItem(fi.completeBaseName(), fi.completeBaseName());
    m_use->setEnabled(m_saved->count() > 0);
}

bool CalibrateDialog::useSavedProfile(const QString& id)
{
    std::string text, error;
    const QString path = QDir(profileFolder()).filePath(id + QStringLiteral(".json"));
    if (!core::readRegularFile(path.toStdString(), kFileLimit, text, error)) {
        showMessage(QString::fromStdString(error), true);
        return false;
    }
    const core::ProfileParse parsed = core::parseProfile(text);
    if (!parsed.ok()) {
        showMessage(tr("%1 is not a profile:\n%2").arg(path, QString::fromStdString(parsed.errors.front())), true);
        return false;
    }
    core::Scenario probe = m_doc->scenario();
    const auto issues = core::applyProfile(probe, parsed.profile);
    if (!issues.empty()) {
        showMessage(issuesText(issues), true);
        return false;
    }
    const core::FrameworkProfile profile = parsed.profile;
    m_doc->edit(tr("Use Profile %1").arg(id), QStringLiteral("training.framework"),
        [profile](core::Scenario& s) { s.profile = profile; });
    showMessage(tr("The scenario now uses the profile %1.").arg(id), false);
    return true;
}

void CalibrateDialog::showMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
    m_message->setStyleSheet(error ? QStringLiteral("font-weight: bold;") : QString()); // a refusal stands out
}

} // namespace shardscope::ui
