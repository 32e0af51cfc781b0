// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Splitting shell text into words the way bash's parser does (quotes, backslash escapes and line continuations,
// comments), without running or expanding anything (internal to the Megatron-LM importer).

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core::detail {

struct ShellWord {
    std::string text; ///< the word after quote removal; $VAR, ${VAR} and `...` are kept as written
    bool expands = false; ///< holds an unquoted or double-quoted $ or a backtick: bash would substitute it
    int line = 1; ///< line the word starts on
};

struct ShellSplit {
    std::vector<ShellWord> words;
    std::string error; ///< "" when the text splits (an unterminated quote is an error)
};

/// Words of `text`: comments (# at the start of a word) dropped; newlines, ;, &, |, (, ), < and > end a word
/// (command boundaries do not matter to the caller); '...' is literal; "..." keeps $ and ` (marked as expanding) and
/// removes the backslash before $, `, ", \ and newline; a backslash-newline outside quotes joins lines; $( ... ) and
/// `...` are one expanding part of a word; here-document bodies (<<WORD ... WORD) are skipped. At most
/// maxWords words (an error beyond).
ShellSplit splitShellWords(std::string_view text, size_t maxWords = 1'000'000);

} // namespace shardscope::core::detail
