// SPDX-License-Identifier: GPL-3.0-or-later
// Shell word splitting for the Megatron-LM importer, after bash's manual §3.1.2 (Quoting: escape character, single
// quotes, double quotes) and §3.1.3 (Comments). Nothing is expanded or executed.
#include "shell_words.h"

namespace shardscope::core::detail {

ShellSplit splitShellWords(std::string_view text, size_t maxWords)
{
    ShellSplit out;
    ShellWord word;
    bool inWord = false;
    int line = 1;
    auto finish = [&] {
        if (inWord) {
            out.words.push_back(std::move(word));
            word = {};
            inWord = false;
        }
    };
    auto start = [&] {
        if (!inWord) {
            inWord = true;
            word.line = line;
        }
    };
    for (size_t i = 0; i < text.size(); ++i) {
        if (out.words.size() > maxWords) {
            out.error = "more than " + std::to_string(maxWords) + " words";
            return out;
        }
        const char c = text[i];
        if (c == '\n') {
            finish();
            ++line;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')'
                   || c == '<' || c == '>') {
            finish();
        } else if (c == '#' && !inWord) {
            while (i + 1 < text.size() && text[i + 1] != '\n')
                ++i;
        } else if (c == '\\') {
            if (i + 1 < text.size() && text[i + 1] == '\n') {
                ++i; // line continuation
                ++line;
            } else if (i + 1 < text.size()) {
                start();
                word.text += text[++i];
            }
        } else if (c == '\'') {
            start();
            const size_t end = text.find('\'', i + 1);
            if (end == std::string_view::npos) {
                out.error = "unterminated single quote starting on line " + std::to_string(line);
                return out;
            }
            for (size_t k = i + 1; k < end; ++k)
                line += text[k] == '\n';
            word.text.append(text.substr(i + 1, end - i - 1));
            i = end;
        } else if (c == '"') {
            start();
            const int opened = line;
            size_t k = i + 1;
            for (; k < text.size() && text[k] != '"'; ++k) {
                const char d = text[k];
                if (d == '\\' && k + 1 < text.size()
                    && (text[k + 1] == '$' || text[k + 1] == '`' || text[k + 1] == '"' || text[k + 1] == '\\'
                        || text[k + 1] == '\n')) {
                    if (text[k + 1] == '\n')
                        ++line;
                    else
                        word.text += text[k + 1];
                    ++k;
                    continue;
                }
                if (d == '$' || d == '`')
                    word.expands = true;
                line += d == '\n';
                word.text += d;
            }
            if (k >= text.size()) {
                out.error = "unterminated double quote starting on line " + std::to_string(opened);
                return out;
            }
            i = k;
        } else {
            start();
            if (c == '$' || c == '`')
                word.expands = true;
            word.text += c;
        }
    }
    finish();
    return out;
}

} // namespace shardscope::core::detail
