#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# shardscope-cli calibrate and --profile (issue 11): a synthetic cluster 20% slower than the model with 2 GiB more
# reserved per GPU, measured on three shipped scenarios, is fitted and predicted on a fourth; bad runs files and
# bad profiles exit 2 naming the field. Usage: calibrate_cli.sh CLI WORKDIR RESOURCES
set -euo pipefail
CLI=$1 WORK=$2 RES=$3
export SHARDSCOPE_CATALOG_DIR=$RES/catalog
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_invalid NAME EXPECTED-STDERR-FRAGMENT CLI-ARGS...: exit 2 and the fragment on standard error.
expect_invalid() {
  local name=$1 want=$2; shift 2
  local rc=0
  "$CLI" "$@" >"$name.out" 2>"$name.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$name.err"))"
  grep -qF -- "$want" "$name.err" || fail "$name: stderr lacks '$want': $(cat "$name.err")"
  echo "ok: $name"
}

# The synthetic cluster: tokens/s per GPU 0.8 x the model's, reserved peak + 2 GiB (the model evaluated by the CLI).
python3 - "$CLI" "$RES/scenarios" <<'PY'
import json, subprocess, sys
cli, scen = sys.argv[1], sys.argv[2]
def run(name, tps=0.8, extra=2 * 2**30):
    path = f"{scen}/{name}.shardscope.json"
    s = json.load(open(path)); s.pop("pins", None)
    r = json.loads(subprocess.run([cli, "evaluate", path], capture_output=True, text=True, check=True).stdout)
    return {"scenario": s, "measured": {"tokens_per_second_per_gpu": tps * r["throughput"]["tokens_per_second_per_gpu"],
            "memory_reserved_peak": r["memory_per_gpu"]["reserved_peak"] + extra}}
doc = lambda runs: {"schema": "shardscope.runs/1", "runs": runs}
three = [run("zero1-llama3-8b-h100"), run("default"), run("zero2-mistral-7b-a100")]
json.dump(doc(three), open("runs.json", "w"), indent=1)
json.dump(doc([run("ddp-gpt3-xl-a100")]), open("held-out.json", "w"), indent=1)
json.dump(doc([three[0]]), open("one-run.json", "w"), indent=1)
json.dump(doc([run(n, tps=3.0, extra=0) for n in ["zero1-llama3-8b-h100", "default", "zero2-mistral-7b-a100"]]),
          open("too-fast.json", "w"), indent=1)
bad = json.loads(json.dumps(three))
json.dump({"schema": "shardscope.runs/2", "runs": three}, open("wrong-schema.json", "w"))
bad[1]["scenario"]["parallelism"] = {"tp": 3}
json.dump(doc(bad), open("invalid-scenario.json", "w"))
neg = json.loads(json.dumps(three)); neg[2]["measured"]["step_time"] = -1.5
json.dump(doc(neg), open("negative.json", "w"))
zero = json.loads(json.dumps(three)); zero[0]["measured"]["memory_reserved_peak"] = 0
json.dump(doc(zero), open("zero.json", "w"))
PY

# Fit, then predict the held-out run (an A100 DDP run the fit never saw).
"$CLI" calibrate runs.json --out my-cluster.json >fit.txt 2>fit.err || fail "calibrate: $(cat fit.err)"
grep -q '^fitted:' fit.txt && grep -q 'gemm_efficiency' fit.txt && grep -q 'memory_overhead_bytes' fit.txt \
  || fail "calibrate table: $(cat fit.txt)"
grep -q '"fitted by shardscope-cli calibrate on 3 runs (runs.json), residual ' my-cluster.json || fail "profile sources"
grep -q '"id": "my-cluster"' my-cluster.json || fail "profile id"
"$CLI" calibrate runs.json --out my-cluster-2.json --format json >fit.json
python3 -c 'import json,sys; d=json.load(open("fit.json")); assert d["schema"]=="shardscope.calibration/1" and d["runs"]==3 and d["rms_log_error_after"] < d["rms_log_error_before"], d' \
  || fail "--format json"
"$CLI" evaluate "$RES/scenarios/ddp-gpt3-xl-a100.shardscope.json" --profile my-cluster.json >held.json
python3 - <<'PY' || fail "held-out prediction"
import json
m = json.load(open("held-out.json"))["runs"][0]["measured"]
r = json.load(open("held.json"))
tps, res = r["throughput"]["tokens_per_second_per_gpu"], r["memory_per_gpu"]["reserved_peak"]
print(f"held-out: tokens/s/GPU true {m['tokens_per_second_per_gpu']:.1f} calibrated {tps:.1f} "
      f"({100 * (tps / m['tokens_per_second_per_gpu'] - 1):+.2f}%); reserved true {m['memory_reserved_peak'] / 2**30:.2f} GiB "
      f"calibrated {res / 2**30:.2f} GiB")
assert abs(tps / m["tokens_per_second_per_gpu"] - 1) < 0.10
assert abs(res - m["memory_reserved_peak"]) < 1.5 * 2**30
PY
"$CLI" search "$RES/scenarios/default.shardscope.json" --top 1 --profile my-cluster.json >/dev/null || fail "search --profile"
echo "ok: fit and held-out prediction"

# Refusals and bad files: exit 2, naming the field.
expect_invalid wrong-schema 'error: schema: must be "shardscope.runs/1"' calibrate wrong-schema.json --out x.json
expect_invalid invalid-scenario 'error: runs[1].scenario.parallelism.tp: ' calibrate invalid-scenario.json --out x.json
expect_invalid negative 'error: runs[2].measured.step_time: must be a number > 0' calibrate negative.json --out x.json
expect_invalid zero 'error: runs[0].measured.memory_reserved_peak: must be a number > 0' calibrate zero.json --out x.json
expect_invalid one-run '1 time measurement cannot fix a constant and check it' calibrate one-run.json --out x.json
expect_invalid one-run-named '1 time measurement cannot fix 2 constants (gemm_efficiency, elementwise_traffic)' \
  calibrate one-run.json --out x.json --fit gemm_efficiency,elementwise_traffic
expect_invalid too-fast 'error: gemm_efficiency: ran into its bound 1.0: the runs are faster than any GEMM rate allows' \
  calibrate too-fast.json --out x.json
expect_invalid no-out '--out PROFILE.json is required' calibrate runs.json
expect_invalid bad-framework "--framework must be megatron, deepspeed, pytorch or pytorch-compile, not 'jax'" \
  calibrate runs.json --out x.json --framework jax
[ ! -e x.json ] || fail "a refused fit wrote its profile"

# --profile: a profile of another framework, or out of bounds, is refused naming both / the value.
expect_invalid profile-framework "training.framework: the profile 'pytorch' is for framework 'pytorch', the scenario's training.framework is 'megatron'" \
  evaluate "$RES/scenarios/default.shardscope.json" --profile "$RES/profiles/pytorch.json"
sed 's/"value": 0.8,/"value": 1.5,/' "$RES/profiles/megatron.json" >out-of-bounds.json
expect_invalid profile-bounds 'values.gemm_efficiency.value: must be in [0.2, 1]' \
  evaluate "$RES/scenarios/default.shardscope.json" --profile out-of-bounds.json
expect_invalid profile-missing '--profile: ' evaluate "$RES/scenarios/default.shardscope.json" --profile nowhere.json

# The profile is written atomically: an unwritable destination exits 1 and says why.
rc=0; "$CLI" calibrate runs.json --out no-such-dir/p.json >/dev/null 2>unwritable.err || rc=$?
[ "$rc" -eq 1 ] && grep -q 'no-such-dir' unwritable.err || fail "unwritable --out: exit $rc $(cat unwritable.err)"
echo "ok: all"
