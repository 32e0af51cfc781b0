#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the routed experts' grouped-GEMM time (docs/model.md §compute, routed experts) against SimuMax's measured
B200 grouped GEMMs, and compares it with the roofline's max.

SimuMax's system file (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json, accelerator.op.group_matmul
.accurate_efficient_factor) lists 108 measured grouped GEMMs of DeepSeek-V2/V3 expert shapes: ng experts of M tokens
each, an N × K weight, forward (stage fwd), data gradient (bwd_grad_act) and weight gradient (bwd_grad_w, accumulated
into an fp32 or bf16 main grad), each as its efficiency = FLOPs / (time × 2,250 TFLOP/s). The model's time per GEMM is
FLOPs/R_lin + bytes/H (sum) with R_lin = B200 peak × achievable_matmul_fraction × the megatron profile's
gemm_efficiency and H the catalog's HBM bandwidth; bytes are the bf16 weights (the weight gradient: the main grad read
and written) and the token-side input and output. Prints the mean |time error| of the sum and of max(FLOPs/R_lin,
bytes/H) over the 108 GEMMs, and each GEMM with --rows.
Usage: simumax_grouped_gemm.py SIMUMAX_SYSTEM_JSON [--rows]   (run from the repository root)
"""
import json
import pathlib
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    system = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
    op = system["accelerator"]["op"]["group_matmul"]
    peak = op["tflops"] * 1e12
    gpus = json.loads(pathlib.Path("resources/catalog/gpus.json").read_text(encoding="utf-8"))
    b200 = next(g for g in (gpus["gpus"] if isinstance(gpus, dict) else gpus) if g["id"] == "b200-180gb")
    profile = json.loads(pathlib.Path("resources/profiles/megatron.json").read_text(encoding="utf-8"))
    rate = b200["bf16_dense_flops"] * b200["achievable_matmul_fraction"] * profile["values"]["gemm_efficiency"]["value"]
    hbm = b200["memory_bandwidth"]
    errors = {"sum": [], "max": []}
    for key, measured in sorted(op["accurate_efficient_factor"].items()):
        f = dict(item.split("=") for item in key.split(", "))
        m, n, k = int(f["M"]), int(f["N"]), int(f["K"])
        flops = 2 * m * n * k
        if f["stage"] == "bwd_grad_w":  # reads x and dy, accumulates into the main grad: read + write
            grad = 4 if f["main_grad_dtype"] == "fp32" else 2
            nbytes = 2 * grad * n * k + 2 * m * k + 2 * m * n
        else:  # reads the bf16 weight and its input, writes its output
            nbytes = 2 * n * k + 2 * m * k + 2 * m * n
        times = {"sum": flops / rate + nbytes / hbm, "max": max(flops / rate, nbytes / hbm)}
        actual = flops / (measured * peak)
        for name, t in times.items():
            errors[name].append(abs(t / actual - 1))
        if "--rows" in sys.argv:
            print(f"M {m:5d} N {n:5d} K {k:5d} {f['stage']:12s} {f['main_grad_dtype']:4s} measured {measured:.3f} "
                  f"sum {flops / times['sum'] / peak:.3f} max {flops / times['max'] / peak:.3f}")
    for name, e in errors.items():
        print(f"{name}: mean |time error| {100 * statistics.mean(e):.1f}% over {len(e)} grouped GEMMs "
              f"(worst {100 * max(e):.1f}%)")


if __name__ == "__main__":
    main()
