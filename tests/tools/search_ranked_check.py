#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`shardscope-cli search --guaranteed-fit --overlap-efficiency 0.6` says which figures it ranked on (issue 21 item 4).

The JSON names them (`ranked_on`) and gives them per layout (`ranked`), beside evaluate's result; the CSV carries the
same two settings as columns. The ranked figures are derived here from the result by the rule docs/model.md states:
step time × (1 + (1 − η) · assumed hidden / step) at the slow end of the throughput range, memory at the top of its
range.
Usage: search_ranked_check.py SHARDSCOPE_CLI SCENARIO"""
import json
import subprocess
import sys

cli, scenario = sys.argv[1], sys.argv[2]
eta = 0.6
run = lambda *extra: subprocess.run([cli, "search", scenario, "--guaranteed-fit", "--overlap-efficiency", str(eta),
                                     "--top", "3", *extra], check=True, capture_output=True, text=True).stdout
j = json.loads(run())
assert j["ranked_on"] == {"pessimistic": True, "overlap_efficiency": eta}, j["ranked_on"]
assert len(j["results"]) == 3
for item in j["results"]:
    r, ranked = item["result"], item["ranked"]
    close = lambda a, b: abs(a - b) <= 1e-9 * abs(b)
    assert close(ranked["memory_per_gpu"], r["memory_per_gpu"]["total_range"][1]), (ranked, r["memory_per_gpu"])
    assert ranked["memory_per_gpu"] <= r["memory_per_gpu"]["usable"]
    step = r["step_time"]["total"]
    charged = step * (1 + (1 - eta) * r["communication"]["assumed_hidden_seconds"] / step)
    tps = r["throughput"]["tokens_per_second_per_gpu"]
    slow = r["throughput"]["tokens_per_second_per_gpu_range"][0] / tps  # band lo × the slow-end factor
    assert close(ranked["step_time"], charged / slow), (ranked["step_time"], charged / slow)
    assert close(ranked["tokens_per_second"], r["throughput"]["tokens_per_second"] * step / charged * slow)
csv = run("--format", "csv").splitlines()
header = csv[0].split(",")
assert header[-2:] == ["pessimistic", "overlap_efficiency"], header
for line in csv[1:]:
    assert line.split(",")[-2:] == ["1", "0.6"], line
print("search ranked-on figures: ok")
