// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Building terms where the model computes them: the same locals give the value and the substituted expression.

#include "shardscope/core/term.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope::core::detail {

/// Substitutes numbers into a template: every "{}" in `pattern` takes the next value, written with exprNumber.
inline std::string substitute(std::string_view pattern, std::initializer_list<double> values)
{
    std::string out;
    auto v = values.begin();
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '{' && i + 1 < pattern.size() && pattern[i + 1] == '}' && v != values.end()) {
            out += exprNumber(*v++);
            ++i;
        } else {
            out += pattern[i];
        }
    }
    return out;
}

/// Where terms go while the model runs: nothing (search, min_gpus) or a list (evaluate for the views).
class TermSink {
public:
    explicit TermSink(std::vector<Term>* out = nullptr) : m_out(out) {}
    [[nodiscard]] bool on() const { return m_out != nullptr; }
    /// Adds a term (when on). `pattern` with "{}" per value gives the expression.
    void add(Term t) const
    {
        if (m_out)
            m_out->push_back(std::move(t));
    }

private:
    std::vector<Term>* m_out;
};

} // namespace shardscope::core::detail
