// SPDX-License-Identifier: GPL-3.0-or-later
// Held-out validation (issue 10): published training runs the model was never fitted on, from
// tests/core/data/validation_runs.json — NeMo 24.07's H100 FP8 pre-training table, the Llama 3 paper's Table 4,
// MT-NLG 530B, BLOOM 176B and DeepSeek-V3. shared/reference/calibration.md names the only sources constants may be
// fitted on; none of these is one, and no row is special-cased anywhere in core/.
//
// Every row is a scenario file, read through the scenario parser and evaluated. The source's measured figure is turned
// into tokens/s per GPU here, by the source's own convention (the row's "measured.kind" and "convention"):
//   tokens_per_s_per_gpu            as printed
//   step_time_s                     global batch × sequence / (seconds × GPUs)
//   gpu_hours_per_trillion_tokens   1e12 / (hours × 3600)
//   model_tflops_per_gpu            TFLOP/s × 1e12 / FLOPs per token, where FLOPs per token is
//     palm-6n-12lhs       6·N + 12·l·h·s (PaLM's model FLOPs, Chowdhery et al. 2022 Appendix B; N as the row states)
//     megatron-recompute  96·l·h²·(1 + s/(6h) + V/(16·l·h)) (Narayanan et al. SC21 Eq. 3 per token, with the
//                         recompute forward; Megatron-DeepSpeed's throughput calculator with checkpointing)
//
// This is a report, not an accuracy test: it asserts that every row builds a valid scenario and that README.md's
// "Validation on held-out runs" table and docs/model.md's per-row table hold exactly the lines this test makes (to
// their printed precision), so a model change that moves the errors fails here until both are regenerated. The lines
// to paste are printed on every run:
//   build/tests/core/tst_validation_runs
#include "test_support.h"
#include "validation_rows.h"

#include "shardscope/core/profile.h"
#include "shardscope/core/uncertainty.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include <map>
#include <vector>

#ifndef SHARDSCOPE_TEST_DATA
#error "SHARDSCOPE_TEST_DATA must name tests/core/data"
#endif
#ifndef SHARDSCOPE_SOURCE_DIR
#error "SHARDSCOPE_SOURCE_DIR must name the source tree (README.md, docs/model.md)"
#endif

using namespace shardscope::core;

class TestValidationRuns : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void everyRowBuilds_data();
    void everyRowBuilds();
    void readmeTableIsMeasured();
    void docsRowTableIsMeasured();
};

namespace {

struct Row {
    QString name;
    QString framework;
    QString kind; ///< runKind(), "plain" or the kinds separated by spaces
    bool built = false;
    QString why;
    double measuredTokensPerGpu = 0;
    Result result;
    [[nodiscard]] double error() const { return result.throughput.tokensPerSecondPerGpu / measuredTokensPerGpu - 1; }
};

std::vector<Row> gRows;

QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

/// Linear interpolation between order statistics (Hyndman & Fan 1996, definition 7; numpy's default).
double quantile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    const double at = (v.size() - 1) * p;
    const size_t i = static_cast<size_t>(std::floor(at));
    const size_t j = std::min(i + 1, v.size() - 1);
    return v[i] + (at - i) * (v[j] - v[i]);
}

QString percent(double e, bool sign)
{
    return (sign && e >= 0 ? QStringLiteral("+") : QString()) + QString::number(100 * e, 'f', 0) + QLatin1Char('%');
}

/// README's table: one line per framework and kind of run (a row counts under each of its kinds), then "all".
QStringList summaryLines()
{
    std::map<std::pair<QString, QString>, std::vector<double>> groups;
    for (const Row& r : gRows) {
        if (!r.built)
            continue;
        for (const QString& k : r.kind.split(QLatin1Char(' ')))
            groups[{ r.framework, k }].push_back(r.error());
        groups[{ QStringLiteral("all"), QStringLiteral("all") }].push_back(r.error());
    }
    QStringList lines;
    for (const auto& [key, errors] : groups) {
        std::vector<double> abs;
        for (double e : errors)
            abs.push_back(std::fabs(e));
        const auto worst = std::max_element(
            errors.begin(), errors.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
        lines << QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 |")
                     .arg(key.first, key.second)
                     .arg(errors.size())
                     .arg(percent(quantile(errors, 0.5), true), percent(quantile(abs, 0.5), false),
                         percent(quantile(abs, 0.8), false), percent(*worst, true));
    }
    return lines;
}

/// docs/model.md's table: one line per row, with the memory verdict (every row really ran).
QStringList rowLines()
{
    QStringList lines;
    for (const Row& r : gRows)
        lines << QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 |")
                     .arg(r.name, r.framework, r.kind)
                     .arg(QString::number(r.measuredTokensPerGpu, 'f', 0))
                     .arg(QString::number(r.result.throughput.tokensPerSecondPerGpu, 'f', 0), percent(r.error(), true),
                         QLatin1String(toString(r.result.verdict)));
    return lines;
}

void requireLinesIn(const QString& file, const QStringList& lines, const char* section)
{
    const QString text = readText(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/") + file);
    QVERIFY2(!text.isEmpty(), qPrintable(file + QStringLiteral(" cannot be read")));
    QStringList missing;
    for (const QString& l : lines)
        if (!text.contains(l))
            missing << l;
    QVERIFY2(missing.isEmpty(),
        qPrintable(QStringLiteral(
            "%1 %2 does not hold the measured lines; regenerate it from this test's output. Missing:\n%3")
                       .arg(file, QLatin1String(section), missing.join(QLatin1Char('\n')))));
}

} // namespace

void TestValidationRuns::initTestCase()
{
    QFile f(QStringLiteral(SHARDSCOPE_TEST_DATA "/validation_runs.json"));
    QVERIFY2(f.open(QIODevice::ReadOnly), "tests/core/data/validation_runs.json cannot be read");
    const QJsonArray rows = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("rows")).toArray();
    QVERIFY2(rows.size() >= 15, "fewer than 15 validation rows");
    for (const QJsonValue& v : rows) {
        const QJsonObject o = v.toObject();
        Row row;
        row.name = o.value(QStringLiteral("name")).toString();
        const std::string json = QJsonDocument(o.value(QStringLiteral("scenario")).toObject()).toJson().toStdString();
        const ScenarioParse p = sstest::parse(json);
        if (!p.ok() || !p.warnings.empty()) {
            row.why = sstest::issuesText(p.ok() ? p.warnings : p.errors);
            gRows.push_back(std::move(row));
            continue;
        }
        row.framework = QLatin1String(toString(p.scenario.training.framework));
        row.kind = QString::fromStdString(toString(runKind(p.scenario)));
        row.measuredTokensPerGpu = sstest::validation::measuredTokensPerGpu(
            o.value(QStringLiteral("measured")).toObject(), p.scenario, row.why);
        row.result = evaluate(p.scenario);
        row.built = row.result.valid && row.measuredTokensPerGpu > 0;
        if (!row.result.valid)
            row.why = sstest::issuesText(row.result.issues);
        gRows.push_back(std::move(row));
    }

    std::printf("\nValidation on held-out runs (tokens/s per GPU; error = predicted/measured - 1)\n"
                "| Run | Framework | Kind | Measured | Predicted | Error | Memory verdict "
                "|\n|---|---|---|---:|---:|---:|---|\n");
    for (const QString& l : rowLines())
        std::printf("%s\n", qPrintable(l));
    std::printf("\n| Framework | Kind | N | Median error | Median abs error | 80%% abs error | Largest error |\n"
                "|---|---|---:|---:|---:|---:|---:|\n");
    for (const QString& l : summaryLines())
        std::printf("%s\n", qPrintable(l));
    for (const Row& r : gRows)
        if (r.built && r.result.verdict == Verdict::DoesNotFit)
            std::printf("note: %s ran, but the model says it does not fit\n", qPrintable(r.name));
    std::fflush(stdout);
}

void TestValidationRuns::everyRowBuilds_data()
{
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < gRows.size(); ++i)
        QTest::newRow(qPrintable(gRows[i].name)) << static_cast<int>(i);
}

void TestValidationRuns::everyRowBuilds()
{
    QFETCH(int, index);
    const Row& r = gRows[static_cast<size_t>(index)];
    QVERIFY2(r.built, qPrintable(r.name + QStringLiteral(": ") + r.why));
    QVERIFY(r.result.throughput.tokensPerSecondPerGpu > 0);
}

void TestValidationRuns::readmeTableIsMeasured()
{
    requireLinesIn(QStringLiteral("README.md"), summaryLines(), "\"Validation on held-out runs\"");
}

void TestValidationRuns::docsRowTableIsMeasured()
{
    requireLinesIn(QStringLiteral("docs/model.md"), rowLines(), "§validation");
}

QTEST_APPLESS_MAIN(TestValidationRuns)
#include "tst_validation_runs.moc"
