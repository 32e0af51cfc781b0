// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-Core's pipeline layout grammar (megatron/core/transformer/pipeline_parallel_layer_layout.py,
// PipelineParallelLayerLayout.parse_str_to_list): commas removed, then "(…)*n" unrolled, then "x*n", then split at '|'.
#include "shardscope/core/pipeline_layout.h"

#include <cctype>
#include <string>

namespace shardscope::core {

namespace {
/// Longest string the unrolled layout may be: far beyond any model (1e5 layers), and a bound on hostile repeats.
constexpr size_t kMaxUnrolled = 100000;

/// Reads the repeat count after "*" at `i`; -1 when there is no digit or it would unroll beyond kMaxUnrolled.
long repeatCount(std::string_view t, size_t& i)
{
    if (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i])))
        return -1;
    long n = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
        n = n * 10 + (t[i] - '0');
        if (n > long(kMaxUnrolled))
            return -1;
        ++i;
    }
    return n;
}

/// One pass of the regular expression `pattern` → group × n: "(g)*n" when `parens`, else "x*n".
bool unroll(std::string& text, bool parens, std::string& error)
{
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        std::string group;
        size_t j = i;
        if (parens && text[i] == '(') {
            const size_t close = text.find(')', i + 1);
            if (close == std::string::npos || close == i + 1 || close + 1 >= text.size() || text[close + 1] != '*') {
                out += text[i++];
                continue;
            }
            group = text.substr(i + 1, close - i - 1);
            j = close + 2;
        } else if (!parens && i + 1 < text.size() && text[i + 1] == '*') {
            group = text.substr(i, 1);
            j = i + 2;
        } else {
            out += text[i++];
            continue;
        }
        const long n = repeatCount(text, j);
        if (n < 0) {
            out += text[i++];
            continue;
        }
        if (out.size() + group.size() * size_t(n) > kMaxUnrolled) {
            error = "unrolls to more than 100000 characters";
            return false;
        }
        for (long k = 0; k < n; ++k)
            out += group;
        i = j;
    }
    text = std::move(out);
    return true;
}
} // namespace

ParsedPipelineLayout parsePipelineLayout(std::string_view text)
{
    ParsedPipelineLayout p;
    if (text.size() > kMaxUnrolled) {
        p.error = "is longer than 100000 characters";
        return p;
    }
    std::string t;
    for (char ch : text)
        if (ch != ',')
            t += ch;
    if (!unroll(t, true, p.error) || !unroll(t, false, p.error))
        return p;
    p.chunks.emplace_back();
    for (char ch : t) {
        if (ch != '|') {
            p.first = p.first == 0 ? ch : p.first;
            p.last = ch;
        }
        PipelineChunk& c = p.chunks.back();
        switch (ch) {
        case '|': p.chunks.emplace_back(); break;
        case 't': ++c.layers; break;
        case 'm': ++c.mtp; break;
        case 'E':
            if (c.embedding) {
                p.error = "names the embedding (E) more than once";
                return p;
            }
            c.embedding = true;
            break;
        case 'L':
            if (c.loss) {
                p.error = "names the loss (L) more than once";
                return p;
            }
            c.loss = true;
            break;
        default:
            p.error = std::string("has the character '") + ch
                + "'; known: E (embedding), t (transformer layer), "
                  "m (MTP layer), L (loss), | (stage boundary), (…)*n and x*n (repeats), commas";
            return p;
        }
    }
    return p;
}

} // namespace shardscope::core
