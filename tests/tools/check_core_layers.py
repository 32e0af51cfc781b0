#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The core's three libraries depend one way: model <- io <- tools (core/CMakeLists.txt says what each holds).

Reads the libraries' file lists from core/CMakeLists.txt, then fails when a file of a library includes a header of a
library above it, or when a model file includes JSON or file-system headers (the model does no file I/O and no JSON).
Usage: check_core_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

ORDER = ["shardscope_model", "shardscope_io", "shardscope_tools"]  # each may use the ones before it
MODEL_FORBIDDEN = ("nlohmann/", "fstream", "filesystem")


def libraries(cmake_text):
    libs = {}
    for name in ORDER:
        m = re.search(r"shardscope_core_library\(" + name + r"\n(.*?)\n\)", cmake_text, re.S)
        if not m:
            sys.exit(f"core/CMakeLists.txt: no shardscope_core_library({name} ...)")
        libs[name] = m.group(1).split()
    return libs


def main():
    root = pathlib.Path(sys.argv[1])
    core = root / "core"
    libs = libraries((core / "CMakeLists.txt").read_text())
    owner = {}  # header file name (as included) -> library
    for lib, files in libs.items():
        for f in files:
            if f.endswith(".h") or f.endswith(".inc"):
                owner[pathlib.Path(f).name] = lib
    problems = []
    for lib, files in libs.items():
        for f in files:
            text = (core / f).read_text()
            for inc in re.findall(r'#include [<"]([^>"]+)[>"]', text):
                name = pathlib.Path(inc).name
                used = owner.get(name) if (inc.startswith("shardscope/core/") or "/" not in inc) else None
                if used and ORDER.index(used) > ORDER.index(lib):
                    problems.append(f"core/{f} ({lib}) includes {inc} of {used}, a library above it")
                if lib == "shardscope_model" and any(inc.startswith(x) for x in MODEL_FORBIDDEN):
                    problems.append(f"core/{f} (shardscope_model) includes <{inc}>: the model does no file I/O or JSON")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"core layers: {sum(len(v) for v in libs.values())} files, model <- io <- tools holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
