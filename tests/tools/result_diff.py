#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every number identical across a refactoring (issue 22): `shardscope-cli evaluate --format json --explain` on every
example (resources/scenarios), golden (tests/golden/scenarios), held-out validation (tests/core/data/
validation_runs.json) and hostile scenario (the files tests/hostile/hostile_cli.sh generates), then a diff of the
result JSON against a snapshot taken before the change.

  result_diff.py snapshot CLI OUTDIR     write OUTDIR/<case>.json (exit code, stderr, result JSON) for every case
  result_diff.py compare BASE NEW        numbers within 1e-9 relative, every other value equal; formula and
                                         expression texts that differ are listed apart (--strict-text fails on them)
  result_diff.py check CLI EXPECTED_DIR  the example results against tests/golden/results (ctest 'golden');
                                         SHARDSCOPE_UPDATE_GOLDEN=1 rewrites them instead
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REL = 1e-9
TEXT_KEYS = {"formula", "expression", "inputs", "source"}  # term texts: may improve, reported apart


def stem(f):
    return f[: -len(".shardscope.json")] if f.endswith(".shardscope.json") else f[: -len(".json")]


def example_files():
    d = os.path.join(ROOT, "resources", "scenarios")
    return {"example-" + stem(f): os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".json")}


def cases(workdir):
    files = dict(example_files())
    d = os.path.join(ROOT, "tests", "golden", "scenarios")
    files.update({"golden-" + stem(f): os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".json")})
    rows = json.load(open(os.path.join(ROOT, "tests", "core", "data", "validation_runs.json")))["rows"]
    for i, row in enumerate(rows):
        p = os.path.join(workdir, "validation-%02d.json" % i)
        with open(p, "w") as f:
            json.dump(row["scenario"], f)
        files["validation-%02d" % i] = p
    return files


def hostile_cases(cli, workdir):
    gen = os.path.join(workdir, "hostile")
    subprocess.run(["bash", os.path.join(ROOT, "tests", "hostile", "hostile_cli.sh"), cli, gen],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1200)
    out = {}
    for f in sorted(os.listdir(gen)):
        p = os.path.join(gen, f)
        if f.endswith(".json") and os.path.isfile(p) and os.path.getsize(p) < 1 << 20:
            out["hostile-" + f[:-5]] = p
    return out


def run(cli, path):
    try:
        p = subprocess.run([cli, "evaluate", path, "--format", "json"], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"rc": "timeout"}
    try:
        result = json.loads(p.stdout) if p.stdout.strip() else None
    except ValueError:
        result = p.stdout.decode("utf-8", "replace")
    return {"rc": p.returncode, "stderr": p.stderr.decode("utf-8", "replace"), "result": result}


def snapshot(cli, outdir, only_examples=False):
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        files = example_files() if only_examples else {**cases(work), **hostile_cases(cli, work)}
        for name, path in files.items():
            with open(os.path.join(outdir, name + ".json"), "w") as f:
                json.dump(run(cli, path), f, indent=1, sort_keys=True, ensure_ascii=False)
                f.write("\n")
    return len(files)


def diff(a, b, where, errors, texts):
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        if type(a) is not type(b):
            errors.append("%s: %r vs %r" % (where, a, b))
        elif isinstance(a, dict):
            for k in sorted(set(a) | set(b)):
                if k not in a or k not in b:
                    errors.append("%s.%s: only in %s" % (where, k, "base" if k in a else "new"))
                else:
                    diff(a[k], b[k], where + "." + k, errors, texts)
        elif where.rsplit(".", 1)[-1] in TEXT_KEYS:
            if a != b:
                texts.append("%s: %s -> %s" % (where, json.dumps(a, ensure_ascii=False), json.dumps(b, ensure_ascii=False)))
        elif isinstance(a, list) and where.endswith(".terms"):
            # terms by key: every value within 1e-9, texts apart
            ka = {t.get("key"): t for t in a}
            kb = {t.get("key"): t for t in b}
            if [t.get("key") for t in a] != [t.get("key") for t in b]:
                errors.append("%s: keys %s vs %s" % (where, [t.get("key") for t in a], [t.get("key") for t in b]))
            for k in ka:
                if k in kb:
                    diff(ka[k], kb[k], "%s[%s]" % (where, k), errors, texts)
        elif isinstance(a, list):
            if len(a) != len(b):
                errors.append("%s: %d vs %d elements" % (where, len(a), len(b)))
            for i, (x, y) in enumerate(zip(a, b)):
                diff(x, y, "%s[%d]" % (where, i), errors, texts)
        elif a != b:
            (texts if where.rsplit(".", 1)[-1] in TEXT_KEYS else errors).append("%s: %r -> %r" % (where, a, b))
        return
    if a != b and abs(a - b) > REL * max(abs(a), abs(b)):
        errors.append("%s: %r vs %r" % (where, a, b))


def compare(base, new, strict_text=False):
    names = sorted(set(os.listdir(base)) | set(os.listdir(new)))
    errors, texts = [], []
    for n in names:
        if n not in os.listdir(base) or n not in os.listdir(new):
            errors.append("%s: only in %s" % (n, base if n in os.listdir(base) else new))
            continue
        diff(json.load(open(os.path.join(base, n))), json.load(open(os.path.join(new, n))), n[:-5], errors, texts)
    for e in errors:
        print("DIFF", e)
    for t in texts:
        print("TEXT", t)
    print("%d cases, %d value differences, %d text differences" % (len(names), len(errors), len(texts)))
    return 1 if errors or (strict_text and texts) else 0


def check(cli, expected):
    with tempfile.TemporaryDirectory() as out:
        snapshot(cli, out, only_examples=True)
        if os.environ.get("SHARDSCOPE_UPDATE_GOLDEN") == "1":
            os.makedirs(expected, exist_ok=True)
            for f in os.listdir(out):
                os.replace(os.path.join(out, f), os.path.join(expected, f))
            print("re-baselined", expected)
            return 0
        rc = compare(expected, out, strict_text=True)
        if rc:
            print("If the change is intended, re-run with SHARDSCOPE_UPDATE_GOLDEN=1.")
        return rc


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "snapshot":
        print("%d cases" % snapshot(os.path.abspath(a[1]), a[2]))
    elif len(a) >= 3 and a[0] == "compare":
        sys.exit(compare(a[1], a[2], "--strict-text" in a))
    elif len(a) == 3 and a[0] == "check":
        sys.exit(check(os.path.abspath(a[1]), a[2]))
    else:
        sys.exit(__doc__)
