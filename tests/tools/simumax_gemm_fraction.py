#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Derives the B200's achievable_matmul_fraction (resources/catalog/gpus.json) from SimuMax's measured B200 GEMMs.

SimuMax's system file (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json, accelerator.op.matmul
.accurate_efficient_factor) lists 514 BF16 GEMMs timed inside Transformer Engine at the Llama 3 and DeepSeek shapes of
its B200 table (m × k × n, forward TN, data-gradient NN, weight-gradient NT), each as its efficiency = FLOPs / (time ×
2,250 TFLOP/s). A step's GEMM time is the sum of its GEMMs' times, so the rate that reproduces it is the time-weighted
efficiency Σ 2mkn / Σ (2mkn / efficiency), not the median or the best shape. The catalog value is that rate over the
megatron profile's gemm_efficiency (R_lin = peak × achievable_matmul_fraction × gemm_efficiency).

The other Blackwell GPUs (GB200, B300, GB300) have no such measurement, only stas00's mamf-finder best case. Their
fraction takes the share of the best case that training shapes reach on the B200 (time-weighted / B200 mamf-finder
1,745 of 2,250 TFLOP/s), the same tensor cores running the same Transformer Engine kernels.
Usage: simumax_gemm_fraction.py SIMUMAX_SYSTEM_JSON   (run from the repository root)
  e.g. git --git-dir=/work/.mirror/MooreThreads+SimuMax/repo show HEAD:configs/system/b200_bf16_ceperm.json > b200.json
"""
import json
import pathlib
import statistics
import sys

# stas00/ml-engineering compute/accelerator/README.md, maximum achievable matmul FLOPS table (BF16, TFLOP/s).
B200_MAMF, B200_PEAK = 1745, 2250
OTHER_BLACKWELL_MAMF = {"gb200": (1822, 2500), "b300": (1769, 2250), "gb300 (GB200's)": (1822, 2500)}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    system = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
    measured = system["accelerator"]["op"]["matmul"]["accurate_efficient_factor"]
    flops = seconds = 0.0
    for key, efficiency in measured.items():
        f = dict(item.split("=") for item in key.split(", "))
        work = 2 * int(f["m"]) * int(f["k"]) * int(f["n"])
        flops += work
        seconds += work / efficiency
    profile = json.loads(pathlib.Path("resources/profiles/megatron.json").read_text(encoding="utf-8"))
    realisation = profile["values"]["gemm_efficiency"]["value"]
    weighted = flops / seconds
    print(f"{len(measured)} GEMMs: time-weighted efficiency {weighted:.4f}, median "
          f"{statistics.median(measured.values()):.4f}, best {max(measured.values()):.4f}")
    print(f"achievable_matmul_fraction = {weighted:.4f} / gemm_efficiency {realisation} = {weighted / realisation:.3f}")
    share = weighted / (B200_MAMF / B200_PEAK)
    print(f"training shapes reach {weighted:.4f} / ({B200_MAMF:g} / {B200_PEAK:g}) = {share:.4f} of mamf-finder's best")
    for gpu, (best, peak) in OTHER_BLACKWELL_MAMF.items():
        print(f"{gpu}: ({best:g} / {peak:g}) x {share:.4f} / {realisation} = {best / peak * share / realisation:.3f}")


if __name__ == "__main__":
    main()
