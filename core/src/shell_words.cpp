// SPDX-License-Identifier: GPL-3.0-or-later
// Shell word splitting for the Megatron-LM importer, after bash's manual §3.1.2 (Quoting: escape character, single
// quotes, double quotes) and §3.1.3 (Comments). Nothing is expanded or executed.
#include "shell_words.h"

#include <algorithm>

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
    // Here-documents (bash manual §3.6.6): `<<WORD` / `<<-WORD`; the body, from the next line to a line holding only
    // WORD (leading tabs stripped with <<-), is the command's input, never its words.
    struct HereDoc {
        std::string delimiter;
        bool stripTabs = false;
    };
    std::vector<HereDoc> pending;
    for (size_t i = 0; i < text.size(); ++i) {
        if (out.words.size() > maxWords) {
            out.error = "more than " + std::to_string(maxWords) + " words";
            return out;
        }
        const char c = text[i];
        if (c == '\n') {
            finish();
            ++line;
            size_t pos = i + 1; // each body line is consumed with its newline
            for (const HereDoc& h : pending) {
                while (pos < text.size()) {
                    const size_t end = std::min(text.find('\n', pos), text.size());
                    std::string_view body = text.substr(pos, end - pos);
                    if (!body.empty() && body.back() == '\r')
                        body.remove_suffix(1);
                    while (h.stripTabs && !body.empty() && body.front() == '\t')
                        body.remove_prefix(1);
                    pos = end + 1;
                    line += end < text.size();
                    if (body == h.delimiter)
                        break;
                }
            }
            pending.clear();
            i = pos - 1;
        } else if (c == '<' && i + 1 < text.size() && text[i + 1] == '<' && (i + 2 >= text.size() || text[i + 2] != '<')
            && (i == 0 || text[i - 1] != '<')) { // <<< is a here-string
            finish();
            HereDoc h;
            i += 2;
            if (i < text.size() && text[i] == '-') {
                h.stripTabs = true;
                ++i;
            }
            while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
                ++i;
            // The delimiter word, quotes removed (quoting it only turns off expansion in the body).
            for (; i < text.size() && std::string_view(" \t\r\n;&|()<>").find(text[i]) == std::string_view::npos; ++i)
                if (text[i] != '\'' && text[i] != '"' && text[i] != '\\')
                    h.delimiter += text[i];
            --i;
            if (!h.delimiter.empty())
                pending.push_back(std::move(h));
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
        } else if ((c == '$' && i + 1 < text.size() && text[i + 1] == '(') || c == '`') {
            // Command substitution $( ... ) or `...`: one expanding word part, whatever spaces it holds.
            start();
            word.expands = true;
            size_t k = i + (c == '$' ? 2 : 1);
            for (int depth = 1; k < text.size(); ++k) {
                line += text[k] == '\n';
                if (c == '`' ? text[k] == '`' : text[k] == ')')
                    --depth;
                else if (c == '$' && text[k] == '(')
                    ++depth;
                if (depth == 0)
                    break;
            }
            if (k >= text.size()) {
                out.error = std::string("unterminated ") + (c == '$' ? "$(" : "`") + " starting on line "
                    + std::to_string(word.line);
                return out;
            }
            word.text.append(text.substr(i, k - i + 1));
            i = k;
        } else {
            start();
            if (c == '$')
                word.expands = true;
            word.text += c;
        }
    }
    finish();
    return out;
}

} // namespace shardscope::core::detail
