#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# ShardScope developer entry point (shared/DESIGN.md "Repository entry points").
#   ./dev.sh run [FILE]   install missing Debian packages, build Release into build/, start the GUI
#   ./dev.sh test         the same set-up, then every test through ctest (offscreen)
#   ./dev.sh bench        the benchmarks, one `bench: NAME VALUE UNIT` line per figure
#   ./dev.sh package      build/ with prefix /usr, then the .deb and .tar.gz (cpack); packaging/test-package.sh tests it
#   ./dev.sh sanitize     ASan + UBSan build in build-asan/ (no GUI), every core and CLI test through ctest
#   ./dev.sh fuzz [SECS]  libFuzzer (clang) on the scenario parser, validation and evaluate for SECS seconds (120)
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
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
  cmake --build "$BUILD_DIR"
}

runtime_dir() {
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
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
    if [ -x "$BUILD_DIR/tests/ui/gui_bench" ]; then
      QT_QPA_PLATFORM=offscreen "$BUILD_DIR/tests/ui/gui_bench"
      QT_QPA_PLATFORM=offscreen "$BUILD_DIR/tests/ui/rank_map_bench"
    fi
    ;;
  package)
    # CMAKE_INSTALL_PREFIX=/usr: shardscope-cli compiles in where the .deb puts the catalogs (/usr/share/shardscope).
    install_packages desktop-file-utils appstream
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
    cmake --build "$BUILD_DIR"
    (cd "$BUILD_DIR" && rm -f shardscope_*.deb shardscope-*.tar.gz && cpack -G "DEB;TGZ")
    ls -l "$BUILD_DIR"/shardscope_*.deb "$BUILD_DIR"/shardscope-*.tar.gz
    echo "dev.sh: install with: sudo apt-get install ./$(ls "$BUILD_DIR"/shardscope_*.deb)"
    ;;
  sanitize)
    # AddressSanitizer + UndefinedBehaviorSanitizer (g++), no GUI: the core tests, the CLI tests, the hostile corpus.
    install_packages
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHARDSCOPE_SANITIZE=ON -DSHARDSCOPE_BUILD_GUI=OFF
    cmake --build build-asan
    runtime_dir
    ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:strict_string_checks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
      ctest --test-dir build-asan --output-on-failure "$@"
    ;;
  fuzz)
    # libFuzzer + ASan + UBSan (clang), SECONDS split between the two targets (tests/fuzz/CMakeLists.txt):
    # fuzz_scenario (scenario text; seeds resources/scenarios) and fuzz_evaluate (structured values at the limits).
    # Fails on any crash or broken promise. SHARDSCOPE_FUZZ_CHECKS=crash checks crashes only (tests/fuzz/fuzz_checks.h).
    seconds=${1:-120}
    case "$seconds" in '' | *[!0-9]*) echo "dev.sh: fuzz SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
    install_packages clang libclang-rt-dev   # libFuzzer's runtime is only a Recommends of clang
    cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSHARDSCOPE_FUZZ=ON -DSHARDSCOPE_SANITIZE=ON -DSHARDSCOPE_BUILD_GUI=OFF
    cmake --build build-fuzz --target fuzz_scenario fuzz_evaluate
    fuzz_failed=0
    for target in scenario evaluate; do
      [ "$target" = scenario ] && share=$(((seconds + 1) / 2)) || share=$((seconds / 2))
      [ "$share" -ge 1 ] || continue
      corpus=build-fuzz/corpus/$target artifacts=build-fuzz/artifacts/$target log=build-fuzz/fuzz-$target.log
      mkdir -p "$corpus" "$artifacts"
      rm -f "$artifacts"/*   # only this run's findings
      seeds=()
      [ "$target" = scenario ] && seeds=(resources/scenarios -dict=tests/fuzz/scenario.dict)
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
  *)
    sed -n '3,9p' "$0"
    exit 2
    ;;
esac
