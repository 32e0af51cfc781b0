#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Derives W½, the Blackwell fused-attention tile occupancy constants (core/src/compute_stage.cpp
kAttentionHalfTilesFwd / kAttentionHalfTilesBwd), from SimuMax's measured B200 attention kernels.

SimuMax's system file (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json, accelerator.op.sdp_fwd and sdp_bwd
.accurate_efficient_factor) lists Transformer Engine's cuDNN causal BF16 attention timed on B200 at batch 1 and the
head counts and lengths of its B200 table, each as FLOPs / (time × 2,250 TFLOP/s) with FLOPs counted without the
causal mask (simu_tools/efficency_test/test_fa_efficiency.py: forward 2·b·s²·a·(d_qk + d_v), backward 5× the base), so
the causal fraction of peak is half the listed one.

The model (docs/model.md §attention-rate): on Blackwell a call of W = b·a·⌈s/128⌉ query tiles runs at the H100's
published cuDNN fraction of peak for its length (Shah et al. 2024 Figs. 5 and 6, tests/core/data/flash_attention.json;
the causal backward as attention_rate.cpp derives it) × W/(W + W½). W½ is the one constant per pass, chosen to minimise
the squared log error over the head-dim-128 measurements. MLA's kernel (q/k head 192, v head 128) runs slower than
that head-dim-128 model: its factor ρ_MLA per pass (core/src/compute_stage.cpp kMlaAttentionFwd / kMlaAttentionBwd)
is the one that minimises the squared log error over the six MLA measurements, given W½.
Usage: simumax_attention_tiles.py SIMUMAX_SYSTEM_JSON [--rows]   (run from the repository root)
  e.g. git --git-dir=/work/.mirror/MooreThreads+SimuMax/repo show HEAD:configs/system/b200_bf16_ceperm.json > b200.json
"""
import json
import math
import pathlib
import sys

H100_PEAK = 989  # H100 SXM dense BF16 TFLOP/s (datasheet), as attention_rate.cpp
SEQS = [512, 1024, 2048, 4096, 8192, 16384]


def h100_cudnn(rows, pass_, causal):
    """H100 cuDNN TFLOP/s at head dim 128 by sequence length, one figure panel."""
    out = {}
    for r in rows:
        if (r["gpu"].startswith("H100") and r["implementation"] == "cuDNN" and r["pass"] == pass_
                and r["causal"] == causal and r["head_dim"] == 128):
            out[r["seq_len"]] = r["tflops"]
    return [out[s] for s in SEQS]


def fa2_causal_ratio(rows):
    """FlashAttention-2's causal / non-causal forward + backward rate on H100, head dim 128 (Dao 2023 Fig. 7)."""
    def panel(causal):
        return {r["seq_len"]: r["tflops"] for r in rows
                if r["gpu"].startswith("H100") and r["implementation"] == "FlashAttention-2"
                and r["pass"] == "fwd_bwd" and r["causal"] == causal and r["head_dim"] == 128}
    c, n = panel(True), panel(False)
    return [c[s] / n[s] for s in SEQS]


def at(curve, seq):
    """attention_rate.cpp's interpolation: linear in log2(s) between the points, flat outside."""
    x = math.log2(min(max(seq, SEQS[0]), SEQS[-1]) / SEQS[0])
    i = min(4, int(x))
    f = x - i
    return (1 - f) * curve[i] + f * curve[i + 1]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    system = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
    bench = json.loads(pathlib.Path("tests/core/data/flash_attention.json").read_text(encoding="utf-8"))["rows"]
    fwd = h100_cudnn(bench, "fwd", True)
    ratio = fa2_causal_ratio(bench)
    bwd = [b * r for b, r in zip(h100_cudnn(bench, "bwd", False), ratio)]
    op = system["accelerator"]["op"]
    points = []
    for key, listed in op["sdp_fwd"]["accurate_efficient_factor"].items():
        f = dict(item.split("=") for item in key.split(", "))
        if f["qkv_contiguous"] != "True":
            continue
        seq, heads = int(f["seq_len"]), int(f["head_num"])
        tiles = int(f["batch"]) * heads * math.ceil(seq / 128)
        points.append((seq, heads, int(f["qk_head_dim"]), tiles, listed / 2,
                       op["sdp_bwd"]["accurate_efficient_factor"][key] / 2))
    for name, curve, col in (("forward", fwd, 4), ("backward", bwd, 5)):
        fitted = [p for p in points if p[2] == 128]

        def sse(half):
            return sum(math.log(p[col] / (at(curve, p[0]) / H100_PEAK * p[3] / (p[3] + half))) ** 2 for p in fitted)
        half = min(range(2, 4000, 2), key=sse)
        errors = [at(curve, p[0]) / H100_PEAK * p[3] / (p[3] + half) / p[col] - 1 for p in fitted]
        print(f"{name}: W½ = {half} tiles over {len(fitted)} head-dim-128 measurements; mean |error| "
              f"{100 * sum(map(abs, errors)) / len(errors):.1f}%, worst {100 * max(errors, key=abs):+.0f}%")
        mla = [p for p in points if p[2] == 192]
        logs = [math.log(p[col] / (at(curve, p[0]) / H100_PEAK * p[3] / (p[3] + half))) for p in mla]
        rho = math.exp(sum(logs) / len(logs))
        worst = max((rho * math.exp(-x) - 1 for x in logs), key=abs)
        print(f"{name}: MLA (q/k head 192, v head 128) at {rho:.3f} of that over {len(mla)} measurements; "
              f"worst {100 * worst:+.0f}%")
        if "--rows" in sys.argv:
            for p in points:
                model = at(curve, p[0]) / H100_PEAK * p[3] / (p[3] + half)
                print(f"  s={p[0]:6d} heads={p[1]:3d} d={p[2]} W={p[3]:6d}: measured {p[col]:.3f} of peak, "
                      f"model {model:.3f} ({100 * (model / p[col] - 1):+.0f}%)")


if __name__ == "__main__":
    main()
