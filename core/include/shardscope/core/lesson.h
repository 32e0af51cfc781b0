// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Guided lessons (resources/lessons/*.json, schema shardscope.lesson/1): a sequence of steps, each a scenario,
/// the fields to highlight and a text whose {placeholders} are filled from that step's Result.
///
///   {"schema": "shardscope.lesson/1", "id": "...", "title": "...", "summary": "...",
///    "steps": [ {"title": "...", "scenario": {...}, "highlight": ["parallelism.sharding", "memory.optimizer_states"],
///                "text": "... {memory.total} ..."} ]}
///
/// A step's "scenario" is a JSON merge patch (RFC 7386) applied to the previous step's scenario document; the first
/// step's patch applies to the app's default scenario (defaultScenario(catalog)). "null" removes a field (it falls
/// back to the default). A step without "scenario" repeats the previous one.
///
/// Text placeholders ({memory.total}, {step.total}, ...; lessonPlaceholders() lists them) are rendered with units
/// by renderLessonText(). Any numeric result placeholder can be prefixed with "prev." (the previous step's value),
/// "change." (relative change from the previous step, "+12.3%") or "ratio." (this step / previous, "1.50×").
/// Byte figures take an optional unit suffix: {memory.model_states:GB} (also TB, MB, GiB, TiB, MiB), for quoting
/// papers and datasheets, which use decimal units. Only {identifier} spans are placeholders; other braces are text.
///
/// "highlight" names scenario fields as dotted paths of the scenario file ("parallelism.tp", "cluster.gpu") and
/// result figures by their placeholder names ("memory.optimizer_states", "step.pipeline_bubble", "comm.dp"); a
/// prefix ("memory", "parallelism") highlights the whole group. A presentation view highlights `changed` (what the
/// step set) and `highlight` (what the text talks about).
/// Pure C++, no Qt, no I/O except lessonFiles() and readLessonFile().

#include "shardscope/core/catalog.h"
#include "shardscope/core/result.h"
#include "shardscope/core/scenario.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

struct LessonStep {
    std::string title;
    std::string text; ///< with placeholders; render with renderLessonText / lessonStepText
    Scenario scenario; ///< complete, parsed and validated
    std::vector<std::string> highlight; ///< scenario paths ("parallelism.tp") and result figures ("memory.activations")
    std::vector<std::string>
        changed; ///< dotted scenario fields that differ from the previous step (first step: from the default scenario)
};

struct Lesson {
    std::string id, title, summary;
    std::vector<LessonStep> steps;
};

struct LessonParse {
    Lesson lesson;
    std::vector<Issue> errors; ///< field names the step and field: "steps[2].scenario.parallelism.tp"
    std::vector<Issue> warnings; ///< unknown keys of the lesson or step objects
    [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// Parses a lesson. Every step's scenario must parse (unknown scenario fields are errors here: a typo in a lesson
/// would silently teach the wrong thing) and pass validate(); every placeholder and highlight must be known.
LessonParse parseLesson(std::string_view json, const Catalog& catalog);

/// The units of byte figures written without a suffix: binary (GiB, MiB, TiB for volumes) or decimal (GB, MB, TB),
/// as the app's memory-units setting says. Suffixed placeholders ({memory.model_states:GB}) keep their own unit.
enum class LessonBytes { Binary, Decimal };

/// Replaces known placeholders with the figures of `result` (and `previous`, for prev./change./ratio.) in human
/// units: GiB (or GB, `bytes`) for memory, "70.6 B" for parameter counts, ms/s for times, % for MFU, yes/no for fits.
/// Unknown placeholders are left verbatim; prev./change./ratio. render "n/a" when `previous` is null.
std::string renderLessonText(const std::string& text, const Scenario& scenario, const Result& result,
    const Result* previous = nullptr, LessonBytes bytes = LessonBytes::Binary);

/// Evaluates step `index` (and the one before it, for prev./change./ratio.) and renders its text.
std::string lessonStepText(const Lesson& lesson, std::size_t index, LessonBytes bytes = LessonBytes::Binary);

/// The {name} placeholders of `text` that renderLessonText does not know, in order of appearance, without braces.
/// Only {identifier} spans (a letter or '_', then letters, digits, '_', '.', '-', ':') are placeholders; other braces
/// are plain text.
std::vector<std::string> unknownPlaceholders(const std::string& text);

/// Every placeholder name renderLessonText knows (without the prev./change./ratio. prefixes).
std::vector<std::string> lessonPlaceholders();

/// Whether `name` may appear in a step's "highlight": a scenario path or a prefix of one ("parallelism",
/// "parallelism.tp", "cluster.gpu.memory_bytes"), or a result figure or prefix of one ("memory", "step.pipeline_bubble").
bool isLessonHighlight(std::string_view name);

/// The *.json files of a directory (full paths), sorted by name; empty if the directory does not exist.
std::vector<std::string> lessonFiles(const std::string& dir);

/// The lessons directory: $SHARDSCOPE_LESSON_DIR, else the "lessons" directory beside defaultCatalogDirectory()
/// (resources/lessons in the source tree, share/shardscope/lessons when installed).
std::string defaultLessonDirectory();

/// Reads and parses one lesson file; an unreadable file is one error with an empty field.
LessonParse readLessonFile(const std::string& path, const Catalog& catalog);

} // namespace shardscope::core
