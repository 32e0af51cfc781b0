// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Building terms where the model computes them: the same locals give the value and the substituted expression.

#include "shardscope/core/term.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

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

/// A term with its identity and value; the caller fills formula, expression, inputs, source and anchor.
inline Term makeTerm(std::string key, TermGroup group, std::string label, double value, std::string unit)
{
    Term t;
    t.key = std::move(key);
    t.group = group;
    t.label = std::move(label);
    t.value = value;
    t.unit = std::move(unit);
    return t;
}

} // namespace shardscope::core::detail
