#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Hostile names through every launch-config target (issue 12): a scenario or model name must never become code.
# For each hostile name the generated text is compared with the text for a harmless name:
#   deepspeed  the JSON parses to the same value;
#   fsdp       Python compiles it to the same syntax tree (ast.dump), so the name changed nothing but comments;
#   megatron   bash runs the script in a scratch sandbox (env -i, a stub torchrun that prints its arguments):
#              the same arguments reach torchrun and no command of the name ran (no marker file appears);
#   nccl-env   bash evals the exports (as `eval "$(shardscope-cli launch-config F --target nccl-env)"` would):
#              the same NCCL_* environment results and no marker file appears.
# usage: launch_injection.py CLI WORKDIR
import ast
import json
import os
import shutil
import subprocess
import sys

CLI, WORK = sys.argv[1], sys.argv[2]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
MARK = "PWNED"
HOSTILE = [
    "x\ntouch PWNED_newline\n#",
    "x\rtouch PWNED_cr",
    "x\r\ntouch PWNED_crlf",
    '"; touch PWNED_quote; echo "',
    "'$(touch PWNED_subst)'`touch PWNED_backtick`",
    "x\\\ntouch PWNED_continuation",
    "x -*- coding: utf-7 -*- +AAo-import os+ADs-os.system('touch PWNED_utf7')",
    "x\u2028import os; os.system('touch PWNED_ls')",
    "x\u0085import os; os.system('touch PWNED_nel')",
    "x\x0bimport os\x0cos.system('touch PWNED_vt')",
    "\x1b]0;title\x07\x1b[2J\x1b[31mred",
    "x\u202e)'DENWP hcuot'(metsys.so",
    "x\x00\ntouch PWNED_nul",
    "}\n{\"zero_optimization\": {\"stage\": 0}}\n",
    "\"\"\"\nimport os; os.system('touch PWNED_triple')\n\"\"\"",
]
TARGETS = ["deepspeed", "fsdp", "megatron", "nccl-env"]
BASE = {
    "schema": "shardscope.scenario/1",
    "model": {"preset": "llama3-8b"},
    "cluster": {"gpu": "h100-sxm5-80gb", "nodes": 2, "gpus_per_node": 8},
    "training": {"seq_len": 8192, "global_batch": 64, "micro_batch": 1, "recompute": "full"},
    "parallelism": {"sharding": "zero3", "tp": 2, "pp": 2, "cp": 1},
    "nccl": {"algo": "ring", "proto": "simple", "min_channels": 8, "gdr": False},
}

failures = []


def generate(name, target, tag):
    scenario = json.loads(json.dumps(BASE))
    scenario["name"] = name
    scenario["model"]["name"] = name
    path = os.path.join(WORK, f"{tag}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(scenario, f, ensure_ascii=False)
    run = subprocess.run([CLI, "launch-config", path, "--target", target], capture_output=True, timeout=60)
    if run.returncode != 0:
        failures.append(f"{tag} {target}: exit {run.returncode}: {run.stderr.decode(errors='replace')}")
        return None
    return run.stdout


def sandbox():
    box = os.path.join(WORK, "sandbox")
    shutil.rmtree(box, ignore_errors=True)
    os.makedirs(os.path.join(box, "bin"))
    stub = os.path.join(box, "bin", "torchrun")
    with open(stub, "w") as f:
        f.write('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    os.chmod(stub, 0o755)
    return box


def run_bash(script, box):
    env = {"PATH": os.path.join(box, "bin") + ":/usr/bin:/bin", "HOME": box, "MASTER_ADDR": "node0", "LC_ALL": "C"}
    run = subprocess.run(["bash", "-c", script], cwd=box, env=env, capture_output=True, timeout=60)
    return run.returncode, run.stdout.decode(errors="replace"), run.stderr.decode(errors="replace")


def markers(box):
    found = []
    for root, _, files in os.walk(box):
        found += [os.path.join(root, f) for f in files if MARK in f]
    return found


def observe(target, text):
    """What the generated text does, for comparison with the harmless name's: (value, error)."""
    if target == "deepspeed":
        return json.loads(text.decode("utf-8")), None
    if target == "fsdp":
        return ast.dump(ast.parse(text, mode="exec")), None
    box = sandbox()
    path = os.path.join(box, "generated.sh")
    with open(path, "wb") as f:
        f.write(text)
    if target == "megatron":
        rc, out, err = run_bash('bash ./generated.sh', box)
    else:
        rc, out, err = run_bash('eval "$(cat ./generated.sh)"; env | grep "^NCCL_" | sort', box)
    planted = markers(box)
    return (rc, out), (f"code ran: {planted}; stderr: {err}" if planted else None)


for target in TARGETS:
    benign = generate("benign name", target, "benign")
    if benign is None:
        continue
    expected, _ = observe(target, benign)
    for i, name in enumerate(HOSTILE):
        text = generate(name, target, f"hostile{i}")
        if text is None:
            continue
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as e:
            failures.append(f"{target} name #{i}: output is not UTF-8 ({e})")
            continue
        if b"\x1b" in text or b"\r" in text or b"\x00" in text:
            failures.append(f"{target} name #{i}: a control character reached the output")
        try:
            got, problem = observe(target, text)
        except Exception as e:  # a syntax error, a JSON error: the name broke out of its comment
            failures.append(f"{target} name #{i} {name!r}: {type(e).__name__}: {e}")
            continue
        if problem:
            failures.append(f"{target} name #{i} {name!r}: {problem}")
        if got != expected:
            failures.append(f"{target} name #{i} {name!r}: behaves differently from a harmless name")

if failures:
    print("\n".join(failures))
    print(f"launch_injection: {len(failures)} failure(s)")
    sys.exit(1)
print(f"launch_injection: {len(HOSTILE)} hostile names x {len(TARGETS)} targets: same behaviour as a harmless name, "
      "no command ran")
