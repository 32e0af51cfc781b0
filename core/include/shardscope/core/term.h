// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Named terms: every figure a view shows, with its formula, the same formula with the numbers substituted, its
/// inputs and its published source, so that a user can check it with a calculator (docs/model.md derives each).

#include <string>
#include <string_view>
#include <vector>

namespace shardscope::core {

struct TermInput {
    std::string name; ///< symbol as it appears in the formula ("s", "t", "Ψ")
    double value = 0;
    std::string unit; ///< "tokens", "B", "s", "" for pure numbers
    std::string meaning; ///< what the symbol stands for ("sequence length per CP rank")
    friend bool operator==(const TermInput&, const TermInput&) = default;
};

/// Capacity: what the memory total is judged against (memory.usable), not a part of it.
enum class TermGroup { Model, Memory, StepTime, Communication, Throughput, Capacity };

struct Term {
    std::string key; ///< "memory.activations"
    TermGroup group = TermGroup::Memory;
    std::string label; ///< "Activations"
    double value = 0;
    std::string unit; ///< "B", "s", "FLOP", "tokens/s", "" (ratio)
    std::string formula; ///< symbolic: "L·A_layer·n_mb + ..."
    std::string expression; ///< plain ASCII arithmetic (numbers, + - * / and parentheses) that evaluates to value
    std::vector<TermInput> inputs;
    std::string source; ///< publication, datasheet or framework source file
    std::string anchor; ///< section of docs/model.md that derives it ("activations")
    friend bool operator==(const Term&, const Term&) = default;
};

const char* toString(TermGroup g); ///< "model", "memory", "step_time", "communication", "throughput", "capacity"

/// The shortest decimal text that reads back as exactly v (std::to_chars); negative numbers in parentheses, so
/// that the text can stand anywhere in an expression.
std::string exprNumber(double v);

/// Evaluates a plain arithmetic expression (numbers, + - * / **, unary minus, parentheses) in double precision,
/// left to right with the usual precedence. False (and *error) on anything else. Used by tests and --explain to
/// check that every expression gives its value.
bool evaluateExpression(std::string_view text, double& value, std::string* error = nullptr);

/// The terms of one group, in the order a view lists them.
std::vector<const Term*> termsOf(const std::vector<Term>& terms, TermGroup group);

} // namespace shardscope::core
