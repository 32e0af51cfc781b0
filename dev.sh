#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# ShardScope developer entry point (shared/DESIGN.md "Repository entry points").
#   ./dev.sh run [FILE]   install missing Debian packages, build Release into build/, start the GUI
#   ./dev.sh test         the same set-up, then every test through ctest (offscreen)
#   ./dev.sh bench        the benchmarks, one `bench: NAME VALUE UNIT` line per figure
#   ./dev.sh package      build/ with prefix /usr, then the .deb and .tar.gz (cpack); packaging/test-package.sh tests it
#   ./dev.sh sanitize     ASan + UBSan build in build-asan/ (no GUI), every core and CLI test through ctest
#   ./dev.sh fuzz [SECS]  libFuzzer (clang) on the scenario parser, validation, evaluate, the importers and the runs
#                         and profile readers for SECS seconds in all (120)
#   ./dev.sh mutate [NAME...]  each named model constant of core/src × 1.25, one at a time, in a copy of the tree
#                         (build-mutate/, no GUI): fails if no core, golden or CLI test notices one (NAME: glob)
#   ./dev.sh lint         clang-format (.clang-format) check of every C++ file, then clang-tidy (.clang-tidy) over
#                         core/; fails on any finding
#   ./dev.sh format       clang-format every C++ file in place
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake g++ ninja-build dpkg-dev file qt6-base-dev qt6-svg-dev libqcustomplot-dev nlohmann-json3-dev
          xvfb xauth fonts-dejavu-core python3)

# install_packages [EXTRA...]: the build and test packages, plus EXTRA (package, fuzz), when missing.
install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing missing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build() {
  install_packages
  cmake --preset dev -B "$BUILD_DIR"   # CMakePresets.json
  cmake --build "$BUILD_DIR"
}

runtime_dir() {
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
}

# ---- Mutation check (issue 9): does any test notice when a model constant changes?
# Rule: a named model constant is every `[static|inline] constexpr|const <arithmetic type> kName[...] = <init>;`
# declared on one line in core/src/*.cpp or core/src/*.h whose initialiser holds a number; each element of an array
# initialiser is a constant of its own (kLlMaxBw[1][2]). The mutant multiplies the initialiser (or the element) by
# 1.25; integer types take (5x + 2) / 4, or x + 1 where that leaves x unchanged. Not mutated, with the reason:
MUTATE_EXCLUDES=(
  'validate.cpp:kMax*' 'validate.cpp:kMin*' # validation limits: which inputs are accepted, not what they cost
  'json_fields.h:kMaxJson*'                  # parser limits on the scenario file (size, nesting)
  'engine.cpp:kGiB' 'engine.cpp:kMiB'        # units, exact by definition (the constants built on them are mutated)
  'lesson.cpp:k?iB'                          # units for formatting lesson text
  'search.cpp:kBlock'                        # how the parallel search splits its work between threads, never a figure
  'launch_config.cpp:k*'                     # values written into generated launch configs, not used by the estimate
  'calibrate.cpp:k*'                         # the calibration fit's tolerances and run limit, not model figures
  'toml_reader.h:kMaxToml*'                  # parser limits on imported TOML files (nesting, values), like kMaxJson*
  'checked_int.h:kMax*'                      # reader limits on whole numbers (int counts, exact doubles), like kMaxJson*
  'fixes.cpp:kMax*'                          # the range the one-click fixes search (validation's own limits), no figure
  'pipeline_layout.cpp:kMax*'                # parser limit on a pipeline layout string once unrolled, like kMaxJson*
  # Dead: NCCL's Tree LL128 bus bandwidth is min(treeBw × 120/128, nCh × perChMaxTreeLL128Bw) with treeBw at most
  # nCh × perChMaxTreeBw, so a cap above perChMaxTreeBw × 120/128 never binds (in tuning.cc itself too):
  'collective.cpp:kPerChTreeLL128[0][2]'     # Ampere, 4+ nodes: 20 > 17.8 × 120/128 = 16.7
  'collective.cpp:kPerChTreeLL128[1][0]'     # Hopper, 1 node: 36.7 > 38.7 × 120/128 = 36.3
)
# The mutants are built in a copy of the working tree (build-mutate/src, kept between runs so that only changed files
# rebuild), never in the tree itself: others may be editing it meanwhile, and a mutant must never be saved or committed.
# For each constant: mutate the copy, rebuild only the programs the tests run (build-mutate/build), run the tests
# labelled core, golden or cli until the first failure, restore the copy (also on Ctrl-C or an error, by trap).
mutate_constants() {  # mutate_constants list|apply ROOT [FILE LINE NAME]
  MUTATE_EXCLUDES="${MUTATE_EXCLUDES[*]}" python3 - "$@" <<'PY'
import fnmatch, os, re, sys

TYPES = (r"(?:unsigned\s+|signed\s+)?(?:double|float|long\s+double|long\s+long|long|int|short|unsigned"
         r"|(?:std::)?u?int(?:8|16|32|64)_t|(?:std::)?size_t)")
DECL = re.compile(r"^\s*(?:(?:static|inline)\s+)*(?:constexpr|const)\s+(?:(?:static|inline)\s+)*(?P<type>" + TYPES
                  + r")\s+(?P<rest>k[A-Z]\w*.*);$")
INTEGER = re.compile(r"int|long|short|unsigned|size_t")

def code_of(line):  # the line without its comment
    return line.split("//", 1)[0].rstrip()

def split_top(text, sep=","):
    """Splits on `sep` outside (), [] and {}; returns (start, end) spans."""
    spans, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{": depth += 1
        elif ch in ")]}": depth -= 1
        elif ch == sep and depth == 0:
            spans.append((start, i)); start = i + 1
    spans.append((start, len(text)))
    return spans

def declarators(line):
    """(name, is_array, init_start, init_end) of every constant the line declares, offsets into line."""
    m = DECL.match(code_of(line))
    if not m: return None, []
    rest0 = m.start("rest")
    rest = m.group("rest")
    out = []
    for a, b in split_top(rest):
        d = rest[a:b]
        eq = d.find("=")
        if eq < 0: continue
        name = d[:eq].strip()
        nm = re.match(r"(k[A-Z]\w*)\s*(\[.*\])?$", name)
        if not nm: continue
        s = rest0 + a + eq + 1
        e = rest0 + b
        while line[s] == " ": s += 1
        while line[e - 1] == " ": e -= 1
        if re.search(r"\d", line[s:e]):
            out.append((nm.group(1), nm.group(2) is not None, s, e))
    return m.group("type"), out

def elements(line, s, e):
    """Numeric elements of a brace initializer: (index path, start, end)."""
    out = []
    def walk(a, b, path):
        text = line[a:b]
        t = text.strip()
        if t.startswith("{") and t.endswith("}"):
            inner_a = a + text.index("{") + 1
            inner_b = a + text.rindex("}")
            for k, (x, y) in enumerate(split_top(line[inner_a:inner_b])):
                if line[inner_a + x:inner_a + y].strip():
                    walk(inner_a + x, inner_a + y, path + [k])
        else:
            lead = len(text) - len(text.lstrip()); trail = len(text) - len(text.rstrip())
            if re.search(r"\d", t): out.append((path, a + lead, b - trail))
    walk(s, e, [])
    return out

def constants(root, excludes):
    """Every (file, line, name, start, end, integer) the rule selects."""
    found = []
    src = os.path.join(root, "core", "src")
    for fn in sorted(os.listdir(src)):
        if not fn.endswith((".cpp", ".h")): continue
        rel = "core/src/" + fn
        with open(os.path.join(src, fn), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for no, line in enumerate(lines, 1):
            typ, decls = declarators(line)
            for name, is_array, s, e in decls:
                integer = bool(INTEGER.search(typ))
                items = [(name, s, e)] if not is_array else \
                    [(name + "".join("[%d]" % k for k in path), a, b) for path, a, b in elements(line, s, e)]
                for item, a, b in items:
                    if not any(fnmatch.fnmatch(fn, pf) and (item == pn or fnmatch.fnmatch(item, pn))
                               for pf, pn in excludes):
                        found.append((rel, no, item, a, b, integer))
    return found

def mutated(expr, integer):
    if integer:  # round(1.25 x), and never the same value
        r = "(((%s) * 5 + 2) / 4)" % expr
        return "(%s != (%s) ? %s : (%s) + 1)" % (r, expr, r, expr)
    return "(%s) * 1.25" % expr

if __name__ == "__main__":
    cmd, root = sys.argv[1], sys.argv[2]
    excludes = [tuple(x.split(":", 1)) for x in os.environ.get("MUTATE_EXCLUDES", "").split() if x]
    if cmd == "list":
        for rel, no, name, a, b, integer in constants(root, excludes):
            print("%s\t%d\t%s" % (rel, no, name))
    elif cmd == "apply":  # apply ROOT FILE LINE NAME: rewrite that constant in place
        rel, no, name = sys.argv[3], int(sys.argv[4]), sys.argv[5]
        for r, n, nm, a, b, integer in constants(root, excludes):
            if (r, n, nm) == (rel, no, name):
                path = os.path.join(root, rel)
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                line = lines[no - 1]
                lines[no - 1] = line[:a] + mutated(line[a:b], integer) + line[b:]
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines))
                print(lines[no - 1].strip())
                sys.exit(0)
        sys.exit("mutate: %s (%s:%d) not found" % (name, rel, no))
PY
}

mutate_sync() {  # mutate_sync DIR: DIR mirrors the tree's tracked and untracked files; unchanged files keep their mtime
  local dst=$1 f
  mkdir -p "$dst"
  git ls-files -z -c -o --exclude-standard | sort -zu >build-mutate/files
  while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    if ! cmp -s "$f" "$dst/$f"; then
      mkdir -p "$dst/$(dirname "$f")"
      cp "$f" "$dst/$f"
    fi
  done <build-mutate/files
  (cd "$dst" && find . -type f -printf '%P\0' | sort -z) | comm -z -23 - build-mutate/files |
    (cd "$dst" && xargs -0 -r rm -f)
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  run)
    build
    if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
      exec "$BUILD_DIR/app/gui/shardscope" "$@"
    fi
    echo "dev.sh: no display (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open."
    echo "dev.sh: here is the CLI evaluation of the default scenario instead:"
    exec "$BUILD_DIR/app/cli/shardscope-cli" evaluate "${1:-resources/scenarios/default.shardscope.json}" --format table
    ;;
  test)
    build
    runtime_dir
    QT_QPA_PLATFORM=offscreen ctest --test-dir "$BUILD_DIR" --output-on-failure "$@"
    ;;
  bench)
    build
    runtime_dir
    "$BUILD_DIR/tests/bench/bench_evaluate"
    "$BUILD_DIR/tests/bench/bench_search"
    "$BUILD_DIR/tests/bench/bench_parse"
    "$BUILD_DIR/tests/bench/bench_calibrate"
    "$BUILD_DIR/tests/bench/bench_timeline"
    "$BUILD_DIR/tests/bench/bench_what_if"
    if [ -x "$BUILD_DIR/tests/ui/gui_bench" ]; then
      QT_QPA_PLATFORM=offscreen "$BUILD_DIR/tests/ui/gui_bench"
      QT_QPA_PLATFORM=offscreen "$BUILD_DIR/tests/ui/rank_map_bench"
    fi
    ;;
  package)
    # CMAKE_INSTALL_PREFIX=/usr: shardscope-cli compiles in where the .deb puts the catalogs (/usr/share/shardscope).
    install_packages desktop-file-utils appstream
    cmake --preset release -B "$BUILD_DIR"
    cmake --build "$BUILD_DIR"
    (cd "$BUILD_DIR" && rm -f shardscope_*.deb shardscope-*.tar.gz && cpack -G "DEB;TGZ")
    ls -l "$BUILD_DIR"/shardscope_*.deb "$BUILD_DIR"/shardscope-*.tar.gz
    echo "dev.sh: install with: sudo apt-get install ./$(ls "$BUILD_DIR"/shardscope_*.deb)"
    ;;
  sanitize)
    # AddressSanitizer + UndefinedBehaviorSanitizer (g++), no GUI: the core tests, the CLI tests, the hostile corpus.
    install_packages
    cmake --preset asan
    cmake --build build-asan
    runtime_dir
    ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:strict_string_checks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
      ctest --test-dir build-asan --output-on-failure "$@"
    ;;
  fuzz)
    # libFuzzer + ASan + UBSan (clang), SECONDS split between the targets (tests/fuzz/CMakeLists.txt): a quarter each
    # to fuzz_scenario (scenario text; seeds resources/scenarios) and fuzz_evaluate (structured values at the limits),
    # a twelfth each to the importers (fuzz_hf_config, fuzz_deepspeed, fuzz_megatron_args, fuzz_torchtitan), fuzz_runs
    # and fuzz_profile, each seeded with its example files and its tests/fuzz/regressions/<target>/ folder.
    # Fails on any crash or broken promise. SHARDSCOPE_FUZZ_CHECKS=crash checks crashes only (tests/fuzz/fuzz_checks.h).
    seconds=${1:-120}
    case "$seconds" in '' | *[!0-9]*) echo "dev.sh: fuzz SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
    install_packages clang libclang-rt-dev   # libFuzzer's runtime is only a Recommends of clang
    cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSHARDSCOPE_FUZZ=ON -DSHARDSCOPE_SANITIZE=ON -DSHARDSCOPE_BUILD_GUI=OFF
    targets=(scenario evaluate hf_config deepspeed megatron_args torchtitan runs profile)
    cmake --build build-fuzz --target "${targets[@]/#/fuzz_}"
    fuzz_failed=0
    for target in "${targets[@]}"; do
      case "$target" in scenario | evaluate) share=$((seconds * 3 / 12)) ;; *) share=$((seconds / 12)) ;; esac
      [ "$share" -ge 1 ] || continue
      corpus=build-fuzz/corpus/$target artifacts=build-fuzz/artifacts/$target log=build-fuzz/fuzz-$target.log
      mkdir -p "$corpus" "$artifacts"
      rm -f "$artifacts"/*   # only this run's findings
      seeds=()
      [ -d "tests/fuzz/regressions/$target" ] && seeds+=("tests/fuzz/regressions/$target")
      case "$target" in
        scenario) seeds+=(resources/scenarios -dict=tests/fuzz/scenario.dict) ;;
        hf_config) seeds+=("-seed_inputs=$(ls tests/core/data/import/*.config.json | paste -sd,)") ;;
        torchtitan) seeds+=("-seed_inputs=$(ls tests/core/data/import/*.toml | paste -sd,)") ;;
        runs) seeds+=("-seed_inputs=$(ls tests/core/data/*_runs.json | paste -sd,)") ;;
        profile) seeds+=("-seed_inputs=$(ls resources/profiles/*.json | paste -sd,)") ;;
      esac
      echo "dev.sh: fuzzing fuzz_$target for ${share} s (log: $log)"
      set +e
      ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
        "build-fuzz/tests/fuzz/fuzz_$target" "$corpus" "${seeds[@]}" -max_total_time="$share" -max_len=4096 \
          -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1
      rc=$?
      set -e
      runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
      if [ $rc -ne 0 ]; then
        grep -m1 -A3 "broken promise\|ERROR: \|runtime error" "$log" || tail -n 40 "$log"
        echo "dev.sh: FUZZ FAILED: fuzz_$target (exit $rc) after ${runs:-?} inputs; the input is in $artifacts/:"
        ls -l "$artifacts/"
        echo "dev.sh: reproduce with build-fuzz/tests/fuzz/fuzz_$target FILE (full log: $log);"
        echo "dev.sh: once fixed, copy FILE to tests/fuzz/regressions/$target/"
        fuzz_failed=1
      else
        echo "dev.sh: fuzz_$target: ${runs:-?} inputs in ${share} s, corpus $(find "$corpus" -type f | wc -l) files, no crash"
      fi
    done
    [ $fuzz_failed -eq 0 ] || exit 1
    ;;
  mutate)
    # Mutation check (see mutate_constants above). Prints one line per constant, a summary, exits 1 if one survived
    # (2 if the unmutated copy does not build or pass). ~6 s to rebuild a mutant; the tests stop at the first failure.
    install_packages
    runtime_dir
    t0=$SECONDS
    src=build-mutate/src bin=build-mutate/build
    mkdir -p build-mutate
    mutate_sync "$src"
    mapfile -t all < <(mutate_constants list "$src")
    todo=()
    for c in "${all[@]}"; do
      IFS=$'\t' read -r file line name <<<"$c"
      if [ $# -eq 0 ]; then todo+=("$c"); continue; fi
      for pat in "$@"; do
        # shellcheck disable=SC2053  # NAME is a glob
        if [[ $name == $pat ]]; then todo+=("$c"); break; fi
      done
    done
    [ ${#todo[@]} -gt 0 ] || { echo "dev.sh: mutate: no constant matches: $*" >&2; exit 2; }
    cmake -S "$src" -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDSCOPE_BUILD_GUI=OFF >/dev/null
    # only what the core, golden and CLI tests run: every program but the benchmarks
    mapfile -t targets < <(ninja -C "$bin" -t targets all | sed -n 's/^\(.*\): CXX_EXECUTABLE_LINKER.*/\1/p' |
      grep -v '^tests/bench/')
    # Builds and tests run as `cmd & wait $!`: then Ctrl-C or SIGTERM reaches the trap at once (ninja and ctest catch
    # SIGINT themselves, and bash would not run a trap after a foreground child that handled it).
    rebuild() { ninja -C "$bin" "${targets[@]}" >"$bin/mutate-build.log" 2>&1 & wait $!; }
    ctest_run() {  # ctest_run CTEST-ARGS...: 0 if every test passed, else 1 with $failed = the first failed test
      failed=""
      rm -f "$bin/Testing/Temporary/LastTestsFailed.log"
      QT_QPA_PLATFORM=offscreen ctest --test-dir "$bin" --timeout 600 "$@" >>"$bin/mutate-test.log" 2>&1 &
      wait $! && return 0
      failed=$(sed -n 's/^[0-9]*://p' "$bin/Testing/Temporary/LastTestsFailed.log" 2>/dev/null | head -n1)
      return 1
    }
    run_stage() {  # run_stage CTEST-ARGS...: the tests until the first failure, as ctest_run
      local first
      ctest_run "$@" && return 0
      first=$failed
      [ -n "$first" ] || return 1
      # A failure counts only if the test fails again on its own: the hostile CLI tests have time limits that the
      # load of a rebuild (ours or someone else's) can break. After such a flake the stage runs once more.
      if ctest_run -R "^${first//./\\.}\$"; then
        echo "dev.sh: mutate: $first failed, then passed on its own: running its tests again" >&2
        ctest_run "$@"
        return
      fi
      failed=$first
      return 1
    }
    run_tests() {  # core and golden tests in parallel, then the hostile ones (fuzz replays, CLI) one at a time
      : >"$bin/mutate-test.log"
      run_stage -L 'core|golden' -LE hostile --stop-on-failure -j2 &&
        run_stage -L 'core|golden|cli' -L hostile --stop-on-failure
    }
    active=""
    restore() {  # stop the build or tests, then put back the mutated file (a fresh mtime: ninja rebuilds it)
      local running
      running=$(jobs -p)
      [ -z "$running" ] || { kill $running 2>/dev/null; wait; } || true
      if [ -n "$active" ]; then cat "build-mutate/original" >"$src/$active"; active=""; fi
    }
    trap 'restore' EXIT
    trap 'restore; echo; echo "dev.sh: mutate: interrupted, copy restored" >&2; exit 130' INT TERM
    if ! rebuild; then
      tail -n 30 "$bin/mutate-build.log"
      echo "dev.sh: mutate: the unmutated copy does not build" >&2
      exit 2
    fi
    if ! run_tests; then
      grep -i "fail" "$bin/mutate-test.log" | head
      echo "dev.sh: mutate: tests fail without any mutation (${failed:-see $bin/mutate-test.log})" >&2
      exit 2
    fi
    echo "dev.sh: mutate: ${#todo[@]} constants (of ${#all[@]}), baseline built and passing in $((SECONDS - t0)) s"
    survived=() killed=0
    for c in "${todo[@]}"; do
      IFS=$'\t' read -r file line name <<<"$c"
      cp "$src/$file" build-mutate/original
      active=$file
      mutate_constants apply "$src" "$file" "$line" "$name" >/dev/null
      if ! rebuild; then
        tail -n 20 "$bin/mutate-build.log"
        echo "dev.sh: mutate: the mutant of $name ($file:$line) does not build" >&2
        exit 2
      fi
      if run_tests; then
        echo "mutate: $name ($file:$line) SURVIVED"
        survived+=("$name")
      else
        echo "mutate: $name ($file:$line) killed by ${failed:-a test (see $bin/mutate-test.log)}"
        killed=$((killed + 1))
      fi
      restore
    done
    trap - EXIT INT TERM
    echo "mutate: ${#todo[@]} constants, $killed killed, ${#survived[@]} survived (${survived[*]:-none})" \
      "in $((SECONDS - t0)) s"
    [ ${#survived[@]} -eq 0 ] || exit 1
    ;;
  format)
    install_packages clang-format
    git ls-files '*.cpp' '*.h' | xargs clang-format -i
    ;;
  lint)
    # clang-format's check of every C++ file (the checked-in .clang-format; Debian 12's clang-format 14), then
    # clang-tidy with the checked-in .clang-tidy over the core's sources (compile commands from a configure-only
    # build-lint/), every finding an error.
    install_packages clang-format clang-tidy
    git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror
    echo "lint: clang-format finds $(git ls-files '*.cpp' '*.h' | wc -l) C++ files formatted"
    cmake -S . -B build-lint -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
    ls core/src/*.cpp | xargs -P "$(nproc)" -n 1 clang-tidy -p build-lint --quiet 2>&1 \
      | { grep -v ' warnings generated\.$' || true; }
    echo "lint: clang-tidy found nothing in $(ls core/src/*.cpp | wc -l) core sources"
    ;;
  *)
    sed -n '3,15p' "$0"
    exit 2
    ;;
esac; exit $?  # read with the case: bash must not read on after it if this file changes while a long command runs
