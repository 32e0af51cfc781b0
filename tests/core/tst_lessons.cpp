// SPDX-License-Identifier: GPL-3.0-or-later
// Teaching mode lessons (issue 5, deliverable 3 and 5): every shipped lesson (resources/lessons/*.json) loads
// without errors, every step's scenario is valid, every placeholder is known, `changed` lists exactly the fields a
// step's merge patch changed; malformed lessons report errors that name the step and field; placeholders render in
// human units. The rules-of-thumb lessons state verdicts ("the rule holds here"); the last tests check that the
// model still supports each verdict, so a change in the model that contradicts the prose fails here.
#include "test_support.h"

#include "shardscope/core/lesson.h"

#include <nlohmann/json.hpp>

#include <QObject>

#include <filesystem>
#include <regex>
#include <set>

using namespace shardscope::core;
using nlohmann::json;

class TestLessons : public QObject
{
    Q_OBJECT
private slots:
    void lessonFilesAreSortedJson();
    void firstLessonHasAtLeastFourSteps();
    void shippedLessonsLoad_data();
    void shippedLessonsLoad();
    void everyStepScenarioIsValid_data();
    void everyStepScenarioIsValid();
    void everyPlaceholderIsKnownAndRenders_data();
    void everyPlaceholderIsKnownAndRenders();
    void changedListsThePatchedFields_data();
    void changedListsThePatchedFields();
    void lessonIdsAreUnique();
    void mergePatchChainsAndNullRestoresDefault();
    void malformedLessonsNameTheStep_data();
    void malformedLessonsNameTheStep();
    void unknownPlaceholdersAreReported();
    void renderingUsesHumanUnits();
    void previousStepPlaceholders();
    void highlightNames();
    void rulesOfThumbMemoryVerdicts();
    void rulesOfThumbTimeVerdicts();
    void contextParallelismClaims();
    void expertParallelismClaims();
};

namespace {

const std::string kLessonDir = SHARDSCOPE_TEST_RESOURCES "/lessons";

std::string baseName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

QString errorsText(const LessonParse& p) { return sstest::issuesText(p.errors); }

/// Loads a shipped lesson by file name (QVERIFY-friendly: returns an empty lesson with errors if missing).
LessonParse shipped(const std::string& fileName)
{
    return readLessonFile(kLessonDir + "/" + fileName, sstest::catalog());
}

void addLessonRows()
{
    QTest::addColumn<QString>("path");
    for (const auto& f : lessonFiles(kLessonDir))
        QTest::newRow(baseName(f).c_str()) << QString::fromStdString(f);
}

/// Leaves of a JSON object as dotted paths ("parallelism.tp"); objects recurse, everything else is a leaf.
void leaves(const json& j, const std::string& prefix, std::vector<std::string>& out)
{
    if (!j.is_object() || j.empty()) {
        out.push_back(prefix);
        return;
    }
    for (auto it = j.begin(); it != j.end(); ++it)
        leaves(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
}

const json* at(const json& j, const std::string& dotted)
{
    const json* cur = &j;
    size_t start = 0;
    while (start <= dotted.size()) {
        const size_t dot = dotted.find('.', start);
        const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!cur->is_object() || !cur->contains(key))
            return nullptr;
        cur = &(*cur)[key];
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return cur;
}

bool isPrefixPath(const std::string& prefix, const std::string& path)
{
    return path == prefix
        || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 && path[prefix.size()] == '.');
}

/// A lesson document with one or more steps; `steps` is the JSON text of the steps array's members.
std::string lessonDoc(const std::string& steps, const std::string& schema = "shardscope.lesson/1")
{
    return R"({"schema": ")" + schema + R"(", "id": "test", "title": "Test lesson", "summary": "s", "steps": [)" + steps
        + "]}";
}

bool hasErrorAt(const LessonParse& p, const std::string& field, const std::string& fragment = {})
{
    return sstest::hasIssue(p.errors, field, fragment);
}

Result evaluateStep(const Lesson& l, size_t i) { return evaluate(l.steps.at(i).scenario); }

} // namespace

void TestLessons::lessonFilesAreSortedJson()
{
    const auto files = lessonFiles(kLessonDir);
    QVERIFY2(!files.empty(), "resources/lessons has no *.json files");
    QVERIFY(std::is_sorted(files.begin(), files.end()));
    for (const auto& f : files) {
        QVERIFY2(f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0, f.c_str());
        // Numbered names ("01-...json") so that sorting gives the teaching order.
        const std::string name = baseName(f);
        QVERIFY2(name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0]))
                && std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '-',
            name.c_str());
    }
    QVERIFY(lessonFiles(kLessonDir + "/does-not-exist").empty());
    // From the build tree the default directory is the source tree's resources/lessons (beside the catalog).
    if (!std::getenv("SHARDSCOPE_LESSON_DIR") && !std::getenv("SHARDSCOPE_CATALOG_DIR"))
        QCOMPARE(lessonFiles(defaultLessonDirectory()).size(), files.size());
}

void TestLessons::firstLessonHasAtLeastFourSteps()
{
    const auto files = lessonFiles(kLessonDir);
    QVERIFY(!files.empty());
    QVERIFY2(baseName(files.front()).rfind("01-", 0) == 0, baseName(files.front()).c_str());
    const LessonParse p = readLessonFile(files.front(), sstest::catalog());
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QVERIFY2(p.lesson.steps.size() >= 4, "the first lesson needs at least 4 steps");
}

void TestLessons::shippedLessonsLoad_data() { addLessonRows(); }

void TestLessons::shippedLessonsLoad()
{
    QFETCH(QString, path);
    const LessonParse p = readLessonFile(path.toStdString(), sstest::catalog());
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QVERIFY2(p.warnings.empty(), qPrintable(sstest::issuesText(p.warnings)));
    QVERIFY(!p.lesson.id.empty());
    QVERIFY(!p.lesson.title.empty());
    QVERIFY(!p.lesson.summary.empty());
    // Authoring rule for the built-in lessons (issue 5 brief): 4 to 8 steps each.
    QVERIFY2(p.lesson.steps.size() >= 4 && p.lesson.steps.size() <= 8,
        qPrintable(QStringLiteral("%1 steps").arg(p.lesson.steps.size())));
    for (const auto& s : p.lesson.steps) {
        QVERIFY(!s.title.empty());
        QVERIFY(!s.text.empty());
        QVERIFY2(!s.highlight.empty(), s.title.c_str());
        for (const auto& h : s.highlight)
            QVERIFY2(isLessonHighlight(h), h.c_str());
    }
    // lessonStepText renders every step (and the scenario name tells the lesson and the step).
    for (size_t i = 0; i < p.lesson.steps.size(); ++i) {
        QVERIFY(!lessonStepText(p.lesson, i).empty());
        QVERIFY(!p.lesson.steps[i].scenario.name.empty());
    }
    QVERIFY(lessonStepText(p.lesson, p.lesson.steps.size()).empty());
}

void TestLessons::everyStepScenarioIsValid_data() { addLessonRows(); }

void TestLessons::everyStepScenarioIsValid()
{
    QFETCH(QString, path);
    const LessonParse p = readLessonFile(path.toStdString(), sstest::catalog());
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    for (size_t i = 0; i < p.lesson.steps.size(); ++i) {
        const Scenario& s = p.lesson.steps[i].scenario;
        const auto issues = validate(s);
        QVERIFY2(issues.empty(), qPrintable(QStringLiteral("step %1: %2").arg(i).arg(sstest::issuesText(issues))));
        const Result r = evaluate(s);
        QVERIFY2(r.valid, qPrintable(QStringLiteral("step %1 does not evaluate").arg(i)));
        QVERIFY(std::isfinite(r.step.total()) && r.step.total() > 0);
        QVERIFY(std::isfinite(r.memory.total()) && r.memory.total() > 0);
        // The scenario survives a round trip through the scenario file format (the GUI saves lesson steps).
        const ScenarioParse back = parseScenario(scenarioToJson(s, sstest::catalog()), sstest::catalog());
        QVERIFY2(back.ok(), qPrintable(sstest::issuesText(back.errors)));
        QVERIFY(back.scenario == s);
    }
}

void TestLessons::everyPlaceholderIsKnownAndRenders_data() { addLessonRows(); }

void TestLessons::everyPlaceholderIsKnownAndRenders()
{
    QFETCH(QString, path);
    const LessonParse p = readLessonFile(path.toStdString(), sstest::catalog());
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QVERIFY(unknownPlaceholders(p.lesson.summary).empty());
    for (size_t i = 0; i < p.lesson.steps.size(); ++i) {
        const auto& step = p.lesson.steps[i];
        std::string unknown;
        for (const auto& u : unknownPlaceholders(step.text))
            unknown += " {" + u + "}";
        QVERIFY2(unknown.empty(), qPrintable(QStringLiteral("step %1:%2").arg(i).arg(QString::fromStdString(unknown))));
        // Rendered, no placeholder is left, and nothing says n/a except an unknown price.
        const std::string text = lessonStepText(p.lesson, i);
        QVERIFY2(text.find('{') == std::string::npos || unknownPlaceholders(text).empty(), text.c_str());
        for (const auto& name : lessonPlaceholders())
            QVERIFY2(text.find("{" + name + "}") == std::string::npos, name.c_str());
        std::string scrubbed = text;
        for (const std::string priceless : { "n/a (no price in the catalog)" })
            for (size_t at = scrubbed.find(priceless); at != std::string::npos; at = scrubbed.find(priceless))
                scrubbed.erase(at, priceless.size());
        QVERIFY2(scrubbed.find("n/a") == std::string::npos,
            qPrintable(QStringLiteral("step %1 renders n/a: %2").arg(i).arg(QString::fromStdString(text))));
        static const std::regex notANumber(R"(\b(nan|inf|-nan)\b)");
        QVERIFY2(!std::regex_search(text, notANumber), text.c_str());
    }
}

void TestLessons::changedListsThePatchedFields_data() { addLessonRows(); }

void TestLessons::changedListsThePatchedFields()
{
    QFETCH(QString, path);
    const std::string text = sstest::readText(path);
    const json raw = json::parse(text);
    const LessonParse p = parseLesson(text, sstest::catalog());
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    const Catalog& cat = sstest::catalog();
    json before = json::parse(scenarioToJson(defaultScenario(cat), cat));
    for (size_t i = 0; i < p.lesson.steps.size(); ++i) {
        const LessonStep& step = p.lesson.steps[i];
        const json after = json::parse(scenarioToJson(step.scenario, cat));
        std::vector<std::string> patched;
        if (raw["steps"][i].contains("scenario"))
            leaves(raw["steps"][i]["scenario"], "", patched);
        patched.erase(std::remove_if(patched.begin(), patched.end(),
                          [](const std::string& f) { return f == "name" || f == "schema"; }),
            patched.end());
        // Every patched field whose written value differs from the previous step's is listed (or its parent is,
        // when a catalog id became an object of overrides).
        for (const auto& f : patched) {
            const json* b = at(before, f);
            const json* a = at(after, f);
            const bool differs = (b == nullptr) != (a == nullptr) || (b && a && *b != *a);
            if (!differs)
                continue;
            const bool listed = std::any_of(step.changed.begin(), step.changed.end(),
                [&](const std::string& c) { return isPrefixPath(c, f) || isPrefixPath(f, c); });
            QVERIFY2(listed,
                qPrintable(QStringLiteral("step %1: patched field %2 changed but is not in `changed`")
                               .arg(i)
                               .arg(QString::fromStdString(f))));
        }
        // …and nothing else is listed: every changed field was patched by this step.
        for (const auto& c : step.changed) {
            const bool fromPatch = std::any_of(patched.begin(), patched.end(),
                [&](const std::string& f) { return isPrefixPath(c, f) || isPrefixPath(f, c); });
            QVERIFY2(fromPatch,
                qPrintable(QStringLiteral("step %1: %2 is in `changed` but the step does not patch it")
                               .arg(i)
                               .arg(QString::fromStdString(c))));
            QVERIFY(c != "name" && c != "schema");
        }
        // A step without a patch repeats the previous scenario exactly.
        if (patched.empty()) {
            QVERIFY(step.changed.empty());
            if (i > 0) {
                Scenario a = step.scenario, b = p.lesson.steps[i - 1].scenario;
                a.name = b.name;
                QVERIFY(a == b);
            }
        }
        before = after;
    }
}

void TestLessons::lessonIdsAreUnique()
{
    std::set<std::string> ids, titles;
    for (const auto& f : lessonFiles(kLessonDir)) {
        const LessonParse p = readLessonFile(f, sstest::catalog());
        QVERIFY2(p.ok(), f.c_str());
        QVERIFY2(ids.insert(p.lesson.id).second, p.lesson.id.c_str());
        QVERIFY2(titles.insert(p.lesson.title).second, p.lesson.title.c_str());
    }
}

void TestLessons::mergePatchChainsAndNullRestoresDefault()
{
    const std::string text = lessonDoc(R"(
        {"title": "a", "text": "t", "highlight": ["parallelism.tp"],
         "scenario": {"parallelism": {"tp": 8, "sequence_parallel": true}, "training": {"seq_len": 4096}}},
        {"title": "b", "text": "t", "highlight": ["parallelism.tp"], "scenario": {"parallelism": {"tp": 4}}},
        {"title": "c", "text": "t", "highlight": ["parallelism.tp"]},
        {"title": "d", "text": "t", "highlight": ["training.seq_len"], "scenario": {"training": {"seq_len": null}}},
        {"title": "e", "text": "t", "highlight": ["cluster.gpu"],
         "scenario": {"name": "mine", "cluster": {"gpu": {"id": "h100-sxm5-80gb", "memory_bytes": 103079215104}}}})");
    const LessonParse p = parseLesson(text, sstest::catalog());
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QCOMPARE(p.lesson.steps.size(), size_t(5));
    const Scenario def = defaultScenario(sstest::catalog());
    const auto& s = p.lesson.steps;
    // Step 0 patches the app's default scenario.
    QCOMPARE(s[0].scenario.parallelism.tp, 8);
    QVERIFY(s[0].scenario.parallelism.sequenceParallel);
    QCOMPARE(s[0].scenario.training.seqLen, int64_t(4096));
    QCOMPARE(s[0].scenario.model, def.model);
    QCOMPARE(s[0].changed,
        (std::vector<std::string> { "parallelism.sequence_parallel", "parallelism.tp", "training.seq_len" }));
    // Step 1 keeps step 0's other fields.
    QCOMPARE(s[1].scenario.parallelism.tp, 4);
    QVERIFY(s[1].scenario.parallelism.sequenceParallel);
    QCOMPARE(s[1].scenario.training.seqLen, int64_t(4096));
    QCOMPARE(s[1].changed, std::vector<std::string> { "parallelism.tp" });
    // Step 2 has no patch: same scenario, nothing changed.
    QCOMPARE(s[2].scenario.parallelism, s[1].scenario.parallelism);
    QVERIFY(s[2].changed.empty());
    // null removes the field: back to the default.
    QCOMPARE(s[3].scenario.training.seqLen, def.training.seqLen);
    QCOMPARE(s[3].changed, std::vector<std::string> { "training.seq_len" });
    // A catalog entry with overrides; a name set by the patch is kept, otherwise lesson title + step title.
    QCOMPARE(s[4].scenario.cluster.gpu.memoryBytes, 103079215104.0);
    // (its own memory drops the catalog's driver figure, which was for the catalog's memory: both fields change)
    QCOMPARE(
        s[4].changed, (std::vector<std::string> { "cluster.gpu.memory_bytes", "cluster.gpu.reported_memory_bytes" }));
    QCOMPARE(s[4].scenario.name, std::string("mine"));
    QCOMPARE(s[0].scenario.name, std::string("Test lesson: a"));
}

void TestLessons::malformedLessonsNameTheStep_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("fragment");
    const std::string ok = R"({"title": "fine", "text": "{memory.total}", "highlight": ["memory.total"]})";
    QTest::newRow("not JSON") << "{\"schema\": "
                              << ""
                              << "";
    QTest::newRow("not an object") << "[1, 2]"
                                   << ""
                                   << "object";
    QTest::newRow("bad schema") << QString::fromStdString(lessonDoc(ok, "shardscope.lesson/0")) << "schema"
                                << "not supported";
    QTest::newRow("missing schema") << R"({"id": "x", "title": "t", "steps": [{"title": "a", "text": "b"}]})"
                                    << "schema"
                                    << "required";
    QTest::newRow("missing id")
        << R"({"schema": "shardscope.lesson/1", "title": "t", "steps": [{"title": "a", "text": "b"}]})"
        << "id"
        << "required";
    QTest::newRow("no steps") << QString::fromStdString(lessonDoc("")) << "steps"
                              << "non-empty";
    QTest::newRow("step not an object") << QString::fromStdString(lessonDoc(ok + ", 7")) << "steps[1]"
                                        << "object";
    QTest::newRow("step without text") << QString::fromStdString(lessonDoc(ok + R"(, {"title": "t"})"))
                                       << "steps[1].text"
                                       << "required";
    QTest::newRow("tp does not divide heads") << QString::fromStdString(
        lessonDoc(ok + R"(, {"title": "t", "text": "x", "scenario": {"parallelism": {"tp": 6}}})"))
                                              << "steps[1].scenario.parallelism.tp"
                                              << "must divide heads";
    QTest::newRow("global batch not a multiple") << QString::fromStdString(
        lessonDoc(ok + R"(, {"title": "t", "text": "x", "scenario": {"training": {"global_batch": 100}}})"))
                                                 << "steps[1].scenario.training.global_batch"
                                                 << "multiple";
    QTest::newRow("unknown preset") << QString::fromStdString(
        lessonDoc(R"({"title": "t", "text": "x", "scenario": {"model": {"preset": "gpt-5"}}})"))
                                    << "steps[0].scenario.model.preset"
                                    << "unknown model";
    QTest::newRow("wrong type in scenario") << QString::fromStdString(
        lessonDoc(ok + R"(, {"title": "t", "text": "x", "scenario": {"cluster": {"nodes": "four"}}})"))
                                            << "steps[1].scenario.cluster.nodes"
                                            << "";
    QTest::newRow("typo in a scenario field") << QString::fromStdString(
        lessonDoc(ok + R"(, {"title": "t", "text": "x", "scenario": {"parallelism": {"tpp": 2}}})"))
                                              << "steps[1].scenario.parallelism.tpp"
                                              << "not a scenario field";
    QTest::newRow("scenario not an object")
        << QString::fromStdString(lessonDoc(R"({"title": "t", "text": "x", "scenario": [1]})")) << "steps[0].scenario"
        << "merge patch";
    QTest::newRow("unknown placeholder") << QString::fromStdString(
        lessonDoc(ok + R"(, {"title": "t", "text": "total {memory.totl}"})"))
                                         << "steps[1].text"
                                         << "{memory.totl}";
    QTest::newRow("unknown unit suffix") << QString::fromStdString(
        lessonDoc(R"({"title": "t", "text": "{memory.total:furlongs}"})"))
                                         << "steps[0].text"
                                         << "{memory.total:furlongs}";
    QTest::newRow("unit on a time") << QString::fromStdString(
        lessonDoc(R"({"title": "t", "text": "{step_time.total:GB}"})"))
                                    << "steps[0].text"
                                    << "{step_time.total:GB}";
    QTest::newRow("unknown highlight") << QString::fromStdString(
        lessonDoc(R"({"title": "t", "text": "x", "highlight": ["memory.optimiser"]})"))
                                       << "steps[0].highlight[0]"
                                       << "memory.optimiser";
    QTest::newRow("highlight not an array")
        << QString::fromStdString(lessonDoc(R"({"title": "t", "text": "x", "highlight": "memory.total"})"))
        << "steps[0].highlight"
        << "array";
    QTest::newRow("invalid step after valid ones") << QString::fromStdString(lessonDoc(ok + "," + ok
        + R"(, {"title": "t", "text": "x", "scenario": {"parallelism": {"pp_schedule": "interleaved", "pp": 4, "virtual_stages": 2}, "training": {"global_batch": 80}, "cluster": {"nodes": 4}}})"))
                                                   << "steps[2].scenario.parallelism.pp_schedule"
                                                   << "multiple of pp";
}

void TestLessons::malformedLessonsNameTheStep()
{
    QFETCH(QString, text);
    QFETCH(QString, field);
    QFETCH(QString, fragment);
    const LessonParse p = parseLesson(text.toStdString(), sstest::catalog());
    QVERIFY(!p.ok());
    QVERIFY2(hasErrorAt(p, field.toStdString(), fragment.toStdString()),
        qPrintable(
            QStringLiteral("expected an error at '%1' containing '%2', got: %3").arg(field, fragment, errorsText(p))));
}

void TestLessons::unknownPlaceholdersAreReported()
{
    QCOMPARE(unknownPlaceholders("{memory.total} and {step_time.total}"), std::vector<std::string> {});
    QCOMPARE(unknownPlaceholders("{memory.totl} {x} {prev.step_time.total} {change.fits}"),
        (std::vector<std::string> { "memory.totl", "x", "change.fits" }));
    // Braces that are not {identifier} are plain text.
    QCOMPARE(
        unknownPlaceholders("a set {1, 2}, an empty {} and { spaced }, JSON {\"a\": 1}"), std::vector<std::string> {});
    QCOMPARE(unknownPlaceholders("{memory.total:GB} {prev.memory.total:TiB} {memory.total:parsecs}"),
        std::vector<std::string> { "memory.total:parsecs" });
    const auto names = lessonPlaceholders();
    // The placeholders the issue names, all known.
    for (const char* n :
        { "memory.total", "memory.parameters", "memory.gradients", "memory.optimizer_states", "memory.activations",
            "memory.gathered_parameters", "memory.communication_buffers", "memory.framework_overhead", "capacity",
            "fits", "step_time.total", "step_time.compute", "step_time.recompute", "step_time.exposed_communication",
            "step_time.pipeline_bubble", "step_time.offload", "throughput.mfu", "throughput.tokens_per_second",
            "throughput.model_tflops_per_gpu", "params", "active_params", "min_gpus", "comm.total_bytes", "comm.dp",
            "comm.tp", "comm.pp", "layout.dp", "layout.micro_batches", "host_memory_per_node" }) {
        QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n);
        QVERIFY2(unknownPlaceholders(std::string("{") + n + "}").empty(), n);
    }
}

void TestLessons::renderingUsesHumanUnits()
{
    // The default scenario: Llama 3 70B (derived Ψ ≈ 70.55e9, catalogs.md parameter-count check) on H100s, whose
    // driver reports 81559 MiB (nvidia-smi; NVIDIA/nccl#1264) = 79.647 GiB = 85.52e9 B; usable = that − 1 GiB CUDA
    // context − 10% headroom = 70.683 GiB.
    const Scenario s = defaultScenario(sstest::catalog());
    SS_EVALUATE(r, s);
    auto render = [&](const std::string& t) { return renderLessonText(t, s, r); };
    QCOMPARE(render("{params}"), std::string("70.6 B"));
    QCOMPARE(render("{capacity}"), std::string("79.65 GiB"));
    QCOMPARE(render("{capacity:GB}"), std::string("85.5 GB")); // 81559 × 2^20 bytes = 85.52e9
    QCOMPARE(render("{usable}"), std::string("70.68 GiB"));
    QCOMPARE(render("{fits}"), std::string(r.fits ? "yes" : "no"));
    QCOMPARE(render("{layout.dp}"), std::string("32"));
    QCOMPARE(render("{seq_len}"), std::string("8,192"));
    // Units by kind: memory in GiB, percentages, times in s or ms.
    const std::string total = render("{memory.total}");
    QVERIFY2(total.size() > 4 && total.compare(total.size() - 4, 4, " GiB") == 0, total.c_str());
    const std::string mfu = render("{throughput.mfu}");
    QVERIFY2(!mfu.empty() && mfu.back() == '%', mfu.c_str());
    QCOMPARE(mfu, QString::number(100 * r.throughput.mfu, 'f', 1).toStdString() + "%");
    const std::string step = render("{step_time.total}");
    QVERIFY2(step.size() > 2
            && (step.compare(step.size() - 2, 2, " s") == 0 || step.compare(step.size() - 3, 3, " ms") == 0),
        step.c_str());
    QVERIFY2(render("{throughput.tokens_per_second}").find("tokens/s") != std::string::npos, "tokens/s");
    // Unknown placeholders and plain braces stay verbatim; known ones are replaced wherever they are.
    QCOMPARE(render("{no.such} {1} {memory.totl}"), std::string("{no.such} {1} {memory.totl}"));
    QCOMPARE(render("a{layout.dp}b{layout.dp}"), std::string("a32b32"));
    QCOMPARE(render(""), std::string());
    // An invalid result renders n/a, never garbage.
    Scenario bad = s;
    bad.parallelism.tp = 6;
    const Result invalid = evaluate(bad);
    QVERIFY(!invalid.valid);
    QCOMPARE(renderLessonText("{memory.total} {fits} {params}", bad, invalid), std::string("n/a n/a n/a"));
}

void TestLessons::previousStepPlaceholders()
{
    const Scenario a = defaultScenario(sstest::catalog());
    Scenario b = a;
    b.training.globalBatch = a.training.globalBatch * 2; // twice the work per step: about twice the compute
    SS_EVALUATE(ra, a);
    SS_EVALUATE(rb, b);
    QCOMPARE(renderLessonText("{prev.layout.micro_batches}", b, rb, &ra), std::string("16"));
    QCOMPARE(renderLessonText("{ratio.layout.micro_batches}", b, rb, &ra), std::string("2.00×"));
    QCOMPARE(renderLessonText("{change.layout.micro_batches}", b, rb, &ra), std::string("+100.0%"));
    QCOMPARE(renderLessonText("{change.layout.micro_batches}", a, ra, &rb), std::string("\u221250.0%"));
    QCOMPARE(renderLessonText("{prev.capacity:GB}", b, rb, &ra), std::string("85.5 GB"));
    // Without a previous step they render n/a.
    QCOMPARE(renderLessonText("{prev.step_time.total} {ratio.step_time.total}", b, rb), std::string("n/a n/a"));
}

void TestLessons::highlightNames()
{
    for (const char* ok : { "parallelism", "parallelism.tp", "parallelism.sharding", "training.recompute",
             "cluster.gpu", "cluster.gpu.memory_bytes", "model.preset", "model.layers", "offload.optimizer",
             "nccl.min_channels", "memory", "memory.optimizer_states", "step_time.pipeline_bubble", "comm.dp", "fits",
             "throughput.mfu", "host_memory_per_node" })
        QVERIFY2(isLessonHighlight(ok), ok);
    for (const char* bad : { "", "parallelism.tpp", "memory.optimiser", "schema", "steps", "memory.total.x" })
        QVERIFY2(!isLessonHighlight(bad), bad);
}

// ---- The verdicts of the rules-of-thumb lessons still follow from the model ----

void TestLessons::rulesOfThumbMemoryVerdicts()
{
    const LessonParse p = shipped("11-rules-of-thumb-memory.json");
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QCOMPARE(p.lesson.steps.size(), size_t(6));
    const Lesson& l = p.lesson;
    auto states = [](const Result& r) { return sstest::modelStates(r.memory); };
    // "needs 420 GB": off for 16 B/param (step 0, one GPU holds everything), holds for 6 B/param (step 1).
    const Result r0 = evaluateStep(l, 0), r1 = evaluateStep(l, 1);
    QCOMPARE(r0.gpus, 1);
    QVERIFY2(states(r0) > 2.5 * 420e9, "step 0 says the rule is off by ~2.7×");
    QVERIFY2(states(r1) > 400e9 && states(r1) < 440e9, "step 1 says 6 B/param gives ~420 GB");
    // "needs only 4–8 H100s": 8 GPUs do not fit with mixed-precision Adam (step 2), do with 6 B/param (3) and
    // with offload (4), and 4 GPUs with offload fit too (5).
    const Result r2 = evaluateStep(l, 2), r3 = evaluateStep(l, 3), r4 = evaluateStep(l, 4), r5 = evaluateStep(l, 5);
    QCOMPARE(r2.gpus, 8);
    QVERIFY2(!r2.fits && (r2.minGpus == 0 || r2.minGpus > 8), "step 2 says 8 H100s are not enough");
    QVERIFY2(r3.fits && r3.gpus == 8, "step 3 says the 6-byte recipe fits on 8 H100s");
    QVERIFY2(r4.fits && r4.gpus == 8 && r4.hostMemoryPerNode > 0, "step 4 says CPU offload fits on 8 H100s");
    QVERIFY2(r5.fits && r5.gpus == 4, "step 5 says CPU offload fits on 4 H100s");
}

void TestLessons::rulesOfThumbTimeVerdicts()
{
    const LessonParse p = shipped("12-rules-of-thumb-time.json");
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QCOMPARE(p.lesson.steps.size(), size_t(8));
    const Lesson& l = p.lesson;
    std::vector<Result> r;
    for (size_t i = 0; i < l.steps.size(); ++i) {
        r.push_back(evaluateStep(l, i));
        QVERIFY(r.back().valid);
    }
    auto change = [](const Result& now, const Result& before) { return now.step.total() / before.step.total() - 1; };
    auto overhead = [](double part, double total) { return part / (total - part); };
    // ZeRO-3 vs ZeRO-2: "does not hold" on the fast network (below 10% slower), "holds" on the slow one (10–20%).
    QVERIFY2(change(r[1], r[0]) < 0.10,
        qPrintable(QStringLiteral("lesson 12 step 2 says the rule does not hold; ZeRO-3 is %1% slower")
                       .arg(100 * change(r[1], r[0]))));
    QVERIFY2(change(r[3], r[2]) >= 0.10 && change(r[3], r[2]) <= 0.20,
        qPrintable(QStringLiteral("lesson 12 step 4 says the rule holds; ZeRO-3 is %1% slower")
                       .arg(100 * change(r[3], r[2]))));
    // CPU offload: more than 40% at the small batch, 20–40% at the larger one.
    const double o4 = overhead(r[4].step.offload, r[4].step.total()),
                 o5 = overhead(r[5].step.offload, r[5].step.total());
    QVERIFY2(o4 > 0.40,
        qPrintable(QStringLiteral("lesson 12 step 5 says offload adds more than 40%; it adds %1%").arg(100 * o4)));
    QVERIFY2(o5 >= 0.20 && o5 <= 0.40,
        qPrintable(QStringLiteral("lesson 12 step 6 says offload adds 20–40%; it adds %1%").arg(100 * o5)));
    // 4-stage pipeline: about 25% at m = 8 (share of the step between 20 and 30%), far less at m = 32.
    QCOMPARE(r[6].pp, 4);
    QCOMPARE(r[6].microBatches, int64_t(8));
    const double share6 = r[6].step.pipelineBubble / r[6].step.total();
    const double share7 = r[7].step.pipelineBubble / r[7].step.total();
    QVERIFY2(
        share6 >= 0.20 && share6 <= 0.30, qPrintable(QStringLiteral("bubble share at m = 8: %1%").arg(100 * share6)));
    QVERIFY2(share7 < 0.15, qPrintable(QStringLiteral("bubble share at m = 32: %1%").arg(100 * share7)));
    // The bubble formula conventions quoted in the text bracket the model's figure at m = 8.
    QVERIFY(share6 <= 3.0 / 8.0 + 0.02);
}

namespace {
double groupTime(const Result& r, Group g, bool exposed)
{
    double t = 0;
    for (const Collective& c : r.collectives)
        if (c.group == g)
            t += exposed ? c.exposedTime : c.time;
    return t;
}
} // namespace

void TestLessons::contextParallelismClaims()
{
    // What lesson 13's prose says, step by step (the text quotes figures through placeholders; these are its verdicts).
    const LessonParse p = shipped("13-context-parallelism.json");
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QCOMPARE(p.lesson.steps.size(), size_t(7));
    std::vector<Result> r;
    for (size_t i = 0; i < p.lesson.steps.size(); ++i) {
        r.push_back(evaluateStep(p.lesson, i));
        QVERIFY(r.back().valid);
    }
    // 1: 128K tokens with TP 8 + SP and no CP do not fit; 2: full recomputation fits and costs recompute time.
    QVERIFY2(!r[0].fits, "step 1 says the activations do not fit");
    QVERIFY2(r[1].fits && r[1].step.recompute > 0, "step 2 says full recomputation fits, at a price");
    // 3: c = 2 halves every token-linear activation (selective recompute both times: step 1 vs step 3).
    QCOMPARE(r[2].cp, 2);
    QVERIFY(sstest::relClose(r[2].memory.activations, r[0].memory.activations / 2, 0.02));
    QVERIFY(r[2].bytesByGroup[size_t(Group::Cp)] > 0);
    // 4: c = 8 fits with selective recomputation, and is faster than full recomputation.
    QVERIFY2(r[3].fits && r[3].cp == 8, "step 4 says c = 8 fits");
    QVERIFY2(r[3].step.total() < r[1].step.total(), "step 4: selective + CP beats full recomputation");
    // 5: the ring crosses nodes (warned) and hides behind attention (under 1% of its time exposed).
    QVERIFY(std::any_of(
        r[4].warnings.begin(), r[4].warnings.end(), [](const Issue& w) { return w.field == "parallelism.cp"; }));
    QVERIFY(groupTime(r[4], Group::Cp, false) > 0);
    QVERIFY2(groupTime(r[4], Group::Cp, true) < 0.01 * groupTime(r[4], Group::Cp, false), "step 5 says the ring hides");
    // 6: the all-gather is all exposed and lengthens the step; a2a is refused at TP 8 × CP 8 (one KV head per rank).
    QVERIFY(groupTime(r[5], Group::Cp, true) > 0);
    QVERIFY(sstest::relClose(groupTime(r[5], Group::Cp, true), groupTime(r[5], Group::Cp, false), 1e-9));
    QVERIFY2(r[5].step.total() > r[4].step.total(), "step 6 says the exposed gather costs time");
    Scenario ulysses = p.lesson.steps.at(5).scenario;
    ulysses.parallelism.cpCommType = CpCommType::A2a;
    QVERIFY(sstest::hasIssue(validate(ulysses), "parallelism.cp_comm_type", "key/value heads per TP rank (1)"));
    // 7: back on the ring at 8K tokens, most of the ring is exposed and exposed communication is most of the step.
    QVERIFY2(groupTime(r[6], Group::Cp, true) > 0.5 * groupTime(r[6], Group::Cp, false),
        "step 7 says the ring no longer hides");
    QVERIFY2(r[6].step.exposedCommunication > 0.5 * r[6].step.total(), "step 7 says communication dominates");
    QCOMPARE(p.lesson.steps.at(6).scenario.parallelism.cpCommType, CpCommType::P2p);
}

void TestLessons::expertParallelismClaims()
{
    const LessonParse p = shipped("14-expert-parallelism-moe.json");
    QVERIFY2(p.ok(), qPrintable(errorsText(p)));
    QCOMPARE(p.lesson.steps.size(), size_t(6));
    std::vector<Result> r;
    for (size_t i = 0; i < p.lesson.steps.size(); ++i) {
        r.push_back(evaluateStep(p.lesson, i));
        QVERIFY(r.back().valid);
    }
    const auto ep = [](const Result& x) { return x.bytesByGroup[size_t(Group::Ep)]; };
    const auto dp = [](const Result& x) { return x.bytesByGroup[size_t(Group::Dp)]; };
    // 1: Mixtral 8x7B, 46.7B total and 12.9B active (catalogs.md: 46,702,792,704 / 12,879,925,248); ZeRO-1 does not fit.
    QVERIFY(sstest::relClose(r[0].parameters, 46'702'792'704.0, 1e-6));
    QVERIFY(sstest::relClose(r[0].activeParameters, 12'879'925'248.0, 1e-6));
    QVERIFY(!r[0].fits);
    // 2: EP 8 cuts model states and data-parallel bytes, and adds all-to-all, all of it exposed.
    QCOMPARE(r[1].ep, 8);
    QVERIFY(sstest::modelStates(r[1].memory) < sstest::modelStates(r[0].memory));
    QVERIFY(dp(r[1]) < dp(r[0]));
    QVERIFY(ep(r[0]) == 0 && ep(r[1]) > 0);
    QVERIFY(sstest::relClose(groupTime(r[1], Group::Ep, true), groupTime(r[1], Group::Ep, false), 1e-9));
    // 3: TP 2 fits, pushes the EP group over two nodes (warned), and the all-to-all gets slower.
    QVERIFY(r[2].fits);
    QVERIFY(std::any_of(
        r[2].warnings.begin(), r[2].warnings.end(), [](const Issue& w) { return w.field == "parallelism.ep"; }));
    QVERIFY(groupTime(r[2], Group::Ep, false) > 2 * groupTime(r[1], Group::Ep, false));
    // 4 → 5: ZeRO-3 with EP moves fewer data-parallel bytes, and spends less time on them, than ZeRO-3 alone (which
    // of the two steps is shorter depends on how much of the gathers the experts' grouped GEMMs hide: not claimed).
    QCOMPARE(r[3].ep, 1);
    QCOMPARE(r[4].ep, 8);
    QVERIFY(dp(r[4]) < dp(r[3]));
    QVERIFY(groupTime(r[4], Group::Dp, false) < groupTime(r[3], Group::Dp, false));
    // 6: FP8 dispatch: the all-to-all bytes are three quarters of bf16's (DeepSeek-V3 §3.3: 1 + 2 bytes for 2 + 2).
    QVERIFY(sstest::relClose(ep(r[5]), 0.75 * ep(r[4]), 1e-9));
    QVERIFY(r[5].step.total() < r[4].step.total());
}

QTEST_APPLESS_MAIN(TestLessons)
#include "tst_lessons.moc"
