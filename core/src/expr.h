// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One formula, one place (docs/model.md §terms): a stage computes a figure once, as a template over the number type.
// With Fast the template is plain double arithmetic (searches, sweeps); with Expr the same operations also write the
// symbolic formula, the substituted expression and the inputs, so a term's value and its text cannot disagree.
//
// Both texts keep the order of the C++ operations (a right operand of + or * that is itself a sum or a product is
// parenthesised in the expression), so evaluateExpression(expression) gives exactly the value, bit for bit.

#include "shardscope/core/term.h"
#include "shardscope/core/term_keys.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace shardscope::core::detail {

/// A figure on the fast path: its value only. The symbol and meaning of an input are never looked at.
struct Fast {
    double v = 0;
    static Fast input(std::string_view, double value, std::string_view = {}, std::string_view = {})
    {
        return { value };
    }
    static Fast constant(double value) { return { value }; }
    static Fast named(std::string_view, Fast e, std::string_view = {}, std::string_view = {}) { return e; }
    double value() const { return v; }
};
inline Fast operator+(Fast a, Fast b) { return { a.v + b.v }; }
inline Fast operator-(Fast a, Fast b) { return { a.v - b.v }; }
inline Fast operator*(Fast a, Fast b) { return { a.v * b.v }; }
inline Fast operator/(Fast a, Fast b) { return { a.v / b.v }; }
inline Fast min(Fast a, Fast b) { return { std::min(a.v, b.v) }; }
inline Fast max(Fast a, Fast b) { return { std::max(a.v, b.v) }; }

/// A figure with its formula ("w·(R + H)"), its substituted expression ("2*(1e9+3e8)") and the inputs it names.
struct Expr {
    enum Precedence { Sum = 1, Product = 2, Atom = 3 };
    double v = 0;
    std::string formula;
    std::string expression;
    Precedence formulaPrec = Atom, expressionPrec = Atom;
    std::vector<TermInput> inputs;

    /// A named input: the symbol in the formula, its value in the expression, and a row in the term's inputs.
    /// A compound symbol ("w + w8", "T·V/t") is parenthesised where its precedence asks for it.
    static Expr input(std::string_view symbol, double value, std::string_view unit = {}, std::string_view meaning = {})
    {
        Expr e;
        e.v = value;
        e.formula = std::string(symbol);
        e.expression = exprNumber(value);
        e.formulaPrec = symbol.find(" + ") != std::string_view::npos || symbol.find(" − ") != std::string_view::npos
            ? Sum
            : symbol.find("·") != std::string_view::npos || symbol.find('/') != std::string_view::npos ? Product
                                                                                                       : Atom;
        e.inputs.push_back({ std::string(symbol), value, std::string(unit), std::string(meaning) });
        return e;
    }
    /// A model constant (named where it is declared): its number in both texts.
    static Expr constant(double value)
    {
        Expr e;
        e.v = value;
        e.formula = e.expression = exprNumber(value);
        return e;
    }
    /// A derived quantity shown by its symbol in the formula ("T") and substituted in full in the expression
    /// ("(8192/4*1)"); its row in the inputs gives its value and its own formula.
    static Expr named(std::string_view symbol, Expr e, std::string_view unit = {}, std::string_view meaning = {})
    {
        Expr r;
        r.v = e.v;
        r.formula = std::string(symbol);
        r.expression = e.expressionPrec == Atom ? std::move(e.expression) : "(" + e.expression + ")";
        r.inputs = std::move(e.inputs);
        r.inputs.push_back({ std::string(symbol), e.v, std::string(unit),
            std::string(meaning) + ", " + std::string(symbol) + " = " + e.formula });
        return r;
    }
    double value() const { return v; }
};

namespace expr_detail {
inline std::string wrap(const std::string& text, bool on) { return on ? "(" + text + ")" : text; }
inline void append(std::string& to, const std::string& text, bool parenthesised)
{
    if (parenthesised)
        to += '(';
    to += text;
    if (parenthesised)
        to += ')';
}
inline void mergeInputs(std::vector<TermInput>& into, const std::vector<TermInput>& from)
{
    for (const TermInput& in : from)
        if (std::none_of(into.begin(), into.end(), [&](const TermInput& x) { return x.name == in.name; }))
            into.push_back(in);
}
inline void mergeInputs(std::vector<TermInput>& into, std::vector<TermInput>&& from)
{
    for (TermInput& in : from)
        if (std::none_of(into.begin(), into.end(), [&](const TermInput& x) { return x.name == in.name; }))
            into.push_back(std::move(in));
}
/// a op b, with the operands parenthesised as the operator and evaluation order need.
inline Expr binary(Expr a, Expr b, double value, const char* formulaOp, char op)
{
    const bool additive = op == '+' || op == '-';
    const Expr::Precedence prec = additive ? Expr::Sum : Expr::Product;
    // Formula: usual mathematical precedence (a − (b + c), a/(b·c), (a + b)·c).
    const bool fa = !additive && a.formulaPrec == Expr::Sum;
    const bool fb = op == '-' ? b.formulaPrec == Expr::Sum
        : op == '/'           ? b.formulaPrec <= Expr::Product
        : op == '*'           ? b.formulaPrec == Expr::Sum
                              : false;
    // Expression: also any right operand of the same precedence, so that it evaluates in the C++ order.
    const bool ea = !additive && a.expressionPrec == Expr::Sum;
    const bool eb = b.expressionPrec <= prec;
    Expr r;
    r.v = value;
    r.formula = fa ? wrap(a.formula, true) : std::move(a.formula);
    r.formula += formulaOp;
    append(r.formula, b.formula, fb);
    r.expression = ea ? wrap(a.expression, true) : std::move(a.expression);
    r.expression += op;
    append(r.expression, b.expression, eb);
    r.formulaPrec = r.expressionPrec = prec;
    r.inputs = std::move(a.inputs);
    mergeInputs(r.inputs, std::move(b.inputs));
    return r;
}
/// min/max: the formula names the function, the expression carries the chosen number.
inline Expr choose(const Expr& a, const Expr& b, double value, const char* name)
{
    Expr r;
    r.v = value;
    r.formula = std::string(name) + "(" + a.formula + ", " + b.formula + ")";
    r.expression = exprNumber(value);
    r.inputs = a.inputs;
    mergeInputs(r.inputs, b.inputs);
    return r;
}
} // namespace expr_detail

// Operands that are temporaries (a + b + c, a·(b + c)) are moved, not copied: texts and inputs only grow.
template <class A, class B>
concept ExprOperands = std::is_same_v<std::remove_cvref_t<A>, Expr> && std::is_same_v<std::remove_cvref_t<B>, Expr>;
template <class A, class B>
requires ExprOperands<A, B> Expr operator+(A&& a, B&& b)
{
    const double v = a.v + b.v;
    return expr_detail::binary(std::forward<A>(a), std::forward<B>(b), v, " + ", '+');
}
template <class A, class B>
requires ExprOperands<A, B> Expr operator-(A&& a, B&& b)
{
    const double v = a.v - b.v;
    return expr_detail::binary(std::forward<A>(a), std::forward<B>(b), v, " − ", '-');
}
template <class A, class B>
requires ExprOperands<A, B> Expr operator*(A&& a, B&& b)
{
    const double v = a.v * b.v;
    return expr_detail::binary(std::forward<A>(a), std::forward<B>(b), v, "·", '*');
}
template <class A, class B>
requires ExprOperands<A, B> Expr operator/(A&& a, B&& b)
{
    const double v = a.v / b.v;
    return expr_detail::binary(std::forward<A>(a), std::forward<B>(b), v, "/", '/');
}
inline Expr min(const Expr& a, const Expr& b) { return expr_detail::choose(a, b, std::min(a.v, b.v), "min"); }
inline Expr max(const Expr& a, const Expr& b) { return expr_detail::choose(a, b, std::max(a.v, b.v), "max"); }

/// The term of a breakdown figure (term_keys.h gives its group, label, unit and docs/model.md anchor): its value,
/// formula (+ a note after it), expression and inputs from the expression.
inline Term termOf(std::string_view key, const Expr& e, const std::string& note = {})
{
    const TermKey* k = findTermKey(key);
    Term t;
    t.key = std::string(key);
    if (k) {
        t.group = k->group;
        t.label = std::string(k->label);
        t.unit = std::string(k->unit);
        t.anchor = std::string(k->anchor);
    }
    t.value = e.v;
    t.formula = e.formula + (note.empty() ? "" : " " + note);
    t.expression = e.expression;
    t.inputs = e.inputs;
    return t;
}

} // namespace shardscope::core::detail
