#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Special and huge files against shardscope-cli (issue 12, "Unbounded reads", "Quadratic parsing", checked writes):
# a FIFO with no writer, /dev/zero, a directory, a 3 GB sparse file, a catalog directory whose gpus.json links to
# /dev/zero are refused at once with exit 2 naming the path and the rule; 1 MB and 16 MiB lists of {} objects are
# answered (exit 2: not a scenario) fast: the limits below are generous so that a loaded machine does not fail them,
# yet far below the quadratic parser's 14-26 s for 1 MB (`./dev.sh bench` reports the real time, about 0.5 s for
# 16 MiB); a full standard output (/dev/full) is exit 1 with a message; escape sequences in a name never reach the
# terminal raw.
# Under ASan/UBSan (4th argument ON) the time limits are ten times longer.
#   usage: special_files.sh CLI WORKDIR CATALOG_DIR [sanitized]
set -u
CLI=${1:?usage: special_files.sh CLI WORKDIR CATALOG_DIR [sanitized]}
W=${2:?}
CATALOG=${3:?}
case "${4:-0}" in ON | on | 1 | TRUE | true | YES | yes) SLOW=10 ;; *) SLOW=1 ;; esac
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
export LC_ALL=C SHARDSCOPE_CATALOG_DIR="$CATALOG"
fails=0 passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

# expect NAME RC TEXT SECONDS -- CLI ARGS...: exit code RC, standard error contains TEXT, done within SECONDS.
expect() {
  local name=$1 rc_want=$2 text=$3 limit=$4
  shift 5
  local t0 t1 rc ms
  t0=$(date +%s%N)
  timeout 30 "$CLI" "$@" >"$name.out" 2>"$name.err" </dev/null
  rc=$?
  t1=$(date +%s%N)
  ms=$(((t1 - t0) / 1000000))
  if [ $rc -ne "$rc_want" ]; then fail "$name: exit $rc, expected $rc_want; stderr: $(head -c 300 "$name.err")"
  elif ! grep -qF -- "$text" "$name.err"; then fail "$name: stderr lacks '$text': $(head -c 300 "$name.err")"
  elif [ $ms -gt $((limit * 1000 * SLOW)) ]; then fail "$name: took $ms ms (limit $((limit * SLOW)) s)"
  else pass; echo "ok: $name ($ms ms)"; fi
}

mkfifo fifo.json
expect fifo 2 "fifo.json: is a named pipe (FIFO), not a regular file" 2 -- evaluate fifo.json
expect dev_zero 2 "/dev/zero: is a character device, not a regular file" 2 -- evaluate /dev/zero
mkdir dir.json
expect directory 2 "dir.json: is a directory, not a regular file" 2 -- evaluate dir.json
truncate -s 3G sparse.json
expect sparse_3gb 2 "sparse.json: is 3221225472 bytes; the limit is 16777216 bytes" 2 -- evaluate sparse.json
expect launch_fifo 2 "not a regular file" 2 -- launch-config fifo.json --target nccl-env
# import (issue 14): the same bounded reads for the file and --base; a deeply nested TOML array and a 10 MB shell
# script of flags are refused or read fast (the TOML reader stops at 16 levels, the word splitter is linear).
expect import_fifo 2 "fifo.json: is a named pipe (FIFO), not a regular file" 2 -- import fifo.json --from hf-config
expect import_dev_zero 2 "/dev/zero: is a character device, not a regular file" 2 -- import /dev/zero --from deepspeed
expect import_sparse 2 "the limit is 16777216 bytes" 2 -- import sparse.json --from megatron-args
expect import_base_fifo 2 "--base: fifo.json: is a named pipe (FIFO)" 2 -- import sparse.json --from torchtitan --base fifo.json
{ printf 'a = '; yes '[' | head -c 200000 | tr -d '\n'; } >deep.toml
expect import_deep_toml 2 "values nest deeper than 16 levels" 2 -- import deep.toml --from torchtitan
yes -- '--x 1' | head -c 10000000 >many_flags.sh
expect import_many_flags 2 "more than 1000000 words" 8 -- import many_flags.sh --from megatron-args
mkdir cat && cp "$CATALOG"/*.json cat/ && rm cat/gpus.json && ln -s /dev/zero cat/gpus.json
expect catalog_dev_zero 2 "gpus.json: is a character device, not a regular file" 2 -- catalog gpus --catalog-dir cat

# Linear parsing: a list of empty objects, 1 MB (parsed: 333,000 values) and just under 16 MiB (the size limit; more
# than 2^20 values, refused by the linear pre-scan before anything is built).
{ printf '['; yes '{},' | head -c 1000000 | tr -d '\n'; printf '{}]'; } >list_1mb.json
{ printf '['; yes '{},' | head -c 16777000 | tr -d '\n'; printf '{}]'; } >list_16mib.json
expect list_1mb 2 "a scenario must be a JSON object, not array" 3 -- evaluate list_1mb.json
expect list_16mib 2 "the document holds more than 1048576 JSON values" 8 -- evaluate list_16mib.json
# The same objects as members of an object (a duplicate-key check that rescans would be quadratic here).
# 3.5 MB: about 390,000 objects, within the limit of 2^20 values, so the whole document is parsed.
{ printf '{"schema": "shardscope.scenario/1", "x": ['; yes '{"a": 1},' | head -c 3500000 | tr -d '\n'; printf '{}]}'; } >members_3mb.json
expect members_3mb 0 "warning: x: unknown field" 8 -- evaluate members_3mb.json

# Checked writes: standard output on a full device is an error, not a silent success.
printf '{"schema": "shardscope.scenario/1"}' >default.json
t0=$(date +%s)
"$CLI" evaluate default.json >/dev/full 2>full.err
rc=$?
if [ $rc -ne 1 ] || ! grep -q "cannot write standard output: No space left on device" full.err; then
  fail "stdout_dev_full: exit $rc: $(cat full.err)"
else pass; echo "ok: stdout_dev_full"; fi
"$CLI" launch-config default.json --target megatron >/dev/full 2>full2.err
[ $? -eq 1 ] && pass || fail "launch-config >/dev/full did not exit 1"

# Terminal escapes in names are shown escaped in the table, never raw.
printf '{"schema": "shardscope.scenario/1", "name": "evil\\u001b]0;pwned\\u0007\\u001b[2J name"}' >escape.json
"$CLI" evaluate escape.json --format table >escape.out 2>escape.err
if grep -q $'\x1b' escape.out escape.err; then fail "escape: ESC reached the terminal"
elif ! grep -qF 'evil\x1b]0;pwned\x07\x1b[2J name' escape.out; then fail "escape: name not shown escaped: $(head -1 escape.out)"
else pass; echo "ok: escape"; fi

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
