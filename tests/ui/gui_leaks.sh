#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GUI leak check (issue 12; the gui-leaks step of .ci/run): valgrind memcheck runs GUI tests of BUILD offscreen and
# fails on a definite leak or an invalid memory access anywhere in them, or on a failing test. Qt's and fontconfig's
# one-time allocations are still reachable at exit, which memcheck does not count; the few Qt loses for good are
# suppressed by name in gui_leaks.supp (none can match a stack through our code).
#   bash tests/ui/gui_leaks.sh [BUILD [TEST...]]     BUILD: build/ as ./dev.sh test leaves it; tests: editors, compare, scenario_document
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
[ $# -gt 0 ] && shift
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(tst_editors tst_compare tst_scenario_document) # the last: destroyed with a job in flight
if ! command -v valgrind >/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "gui_leaks: installing valgrind"
  $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends valgrind ||
    exit 1
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/runtime-$(id -u)}
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
failed=()
for t in "${tests[@]}"; do
  log="$build/tests/ui/$t.memcheck.log"
  echo "gui_leaks: valgrind memcheck $build/tests/ui/$t (log: $log)"
  QT_QPA_PLATFORM=offscreen valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=30 --suppressions=tests/ui/gui_leaks.supp \
    --log-file="$log" \
    "$build/tests/ui/$t" -silent
  rc=$?
  grep -h "definitely lost:\|ERROR SUMMARY" "$log"
  if [ $rc -ne 0 ]; then
    # The first reports, each with its stack (our frames name the file and line in builds with debug info).
    [ $rc -eq 99 ] && grep -A30 "definitely lost in loss\|^==[0-9]*== Invalid\|uninitialised" "$log" | head -n 120
    echo "gui_leaks: $t FAILED (exit $rc)"
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "gui_leaks: FAILED: ${failed[*]}"
  exit 1
fi
echo "gui_leaks: no definite leak and no memory error in ${tests[*]}"
