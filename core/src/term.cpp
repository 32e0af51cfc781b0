// SPDX-License-Identifier: GPL-3.0-or-later
#include "shardscope/core/term.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace shardscope::core {

const char* toString(TermGroup g)
{
    switch (g) {
    case TermGroup::Model: return "model";
    case TermGroup::Memory: return "memory";
    case TermGroup::StepTime: return "step_time";
    case TermGroup::Communication: return "communication";
    case TermGroup::Throughput: return "throughput";
    case TermGroup::Capacity: return "capacity";
    }
    return "model";
}

std::string exprNumber(double v)
{
    if (!std::isfinite(v))
        return "0"; // never produced by a valid scenario (validation keeps every figure finite)
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v); // shortest text that reads back as v
    std::string s(buf, ec == std::errc() ? end : buf);
    return v < 0 ? "(" + s + ")" : s;
}

namespace {
/// Recursive-descent evaluation: sum := product (('+'|'-') product)*; product := power (('*'|'/') power)*;
/// power := unary ('**' power)?; unary := '-' unary | atom; atom := number | '(' sum ')'.
struct Parser {
    std::string_view t;
    size_t i = 0;
    std::string error;
    void space()
    {
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t'))
            ++i;
    }
    bool fail(const std::string& what)
    {
        if (error.empty())
            error = what + " at offset " + std::to_string(i);
        return false;
    }
    bool atom(double& v)
    {
        space();
        if (i < t.size() && t[i] == '(') {
            ++i;
            if (!sum(v))
                return false;
            space();
            if (i >= t.size() || t[i] != ')')
                return fail("missing )");
            ++i;
            return true;
        }
        const char* begin = t.data() + i;
        const auto [end, ec] = std::from_chars(begin, t.data() + t.size(), v);
        if (ec != std::errc() || end == begin)
            return fail("expected a number");
        i += static_cast<size_t>(end - begin);
        return true;
    }
    bool unary(double& v)
    {
        space();
        if (i < t.size() && t[i] == '-') {
            ++i;
            if (!unary(v))
                return false;
            v = -v;
            return true;
        }
        return atom(v);
    }
    bool power(double& v)
    {
        if (!unary(v))
            return false;
        space();
        if (i + 1 < t.size() && t[i] == '*' && t[i + 1] == '*') {
            i += 2;
            double e = 0;
            if (!power(e))
                return false;
            v = std::pow(v, e);
        }
        return true;
    }
    bool product(double& v)
    {
        if (!power(v))
            return false;
        for (;;) {
            space();
            if (i < t.size() && (t[i] == '*' || t[i] == '/') && !(i + 1 < t.size() && t[i + 1] == '*')) {
                const char op = t[i++];
                double r = 0;
                if (!power(r))
                    return false;
                v = op == '*' ? v * r : v / r;
            } else {
                return true;
            }
        }
    }
    bool sum(double& v)
    {
        if (!product(v))
            return false;
        for (;;) {
            space();
            if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
                const char op = t[i++];
                double r = 0;
                if (!product(r))
                    return false;
                v = op == '+' ? v + r : v - r;
            } else {
                return true;
            }
        }
    }
};
} // namespace

bool evaluateExpression(std::string_view text, double& value, std::string* error)
{
    Parser p { text, 0, {} };
    double v = 0;
    bool ok = p.sum(v);
    p.space();
    if (ok && p.i != text.size())
        ok = p.fail("unexpected character");
    if (!ok) {
        if (error)
            *error = p.error;
        return false;
    }
    value = v;
    return true;
}

std::vector<const Term*> termsOf(const std::vector<Term>& terms, TermGroup group)
{
    std::vector<const Term*> out;
    for (const Term& t : terms)
        if (t.group == group)
            out.push_back(&t);
    return out;
}

} // namespace shardscope::core
