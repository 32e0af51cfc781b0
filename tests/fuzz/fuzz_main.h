// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Replay driver for a fuzz target when it is not built with libFuzzer: runs every file named on the command line.
#ifndef SHARDSCOPE_LIBFUZZER
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv)
{
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "%s: %s: cannot be opened\n", argv[0], argv[i]);
            return 1;
        }
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::fprintf(stderr, "replay: %s\n", argv[i]);
        LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(text.data()), text.size());
        ++n;
    }
    std::printf("%s: %d inputs, all promises kept\n", argv[0], n);
    return 0;
}
#endif
