#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# ShardScope developer entry point (shared/DESIGN.md "Repository entry points").
#   ./dev.sh run [FILE]   install missing Debian packages, build Release into build/, start the GUI
#   ./dev.sh test         the same set-up, then every test through ctest (offscreen)
#   ./dev.sh bench        the benchmarks, one `bench: NAME VALUE UNIT` line per figure
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake g++ ninja-build dpkg-dev file qt6-base-dev qt6-svg-dev libqcustomplot-dev nlohmann-json3-dev
          xvfb xauth fonts-dejavu-core)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
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
    fi
    ;;
  *)
    sed -n '3,6p' "$0"
    exit 2
    ;;
esac
