// SPDX-License-Identifier: GPL-3.0-or-later
// The TOML subset reader (toml_reader.h), after the TOML v1.0.0 specification: keys (bare, quoted, dotted),
// strings (basic with escapes, literal), integers (decimal with underscores, 0x/0o/0b), floats (decimal, exponent,
// inf/nan refused: no figure in a job file needs them), booleans, arrays, inline tables, [tables].
#include "toml_reader.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace shardscope::core::detail {

const TomlValue* TomlValue::find(std::string_view key) const
{
    for (const auto& [k, v] : table)
        if (k == key)
            return &v;
    return nullptr;
}

const char* TomlValue::kindName(Kind kind)
{
    switch (kind) {
    case Kind::String: return "a string";
    case Kind::Integer: return "an integer";
    case Kind::Float: return "a float";
    case Kind::Boolean: return "a boolean";
    case Kind::Array: return "an array";
    case Kind::Table: return "a table";
    }
    return "a value";
}

namespace {

class Parser
{
public:
    explicit Parser(std::string_view text)
        : m_text(text)
    { }

    TomlParse run()
    {
        TomlParse out;
        out.root.kind = TomlValue::Kind::Table;
        TomlValue* current = &out.root;
        std::string scope; // the current table's index scope (see child())
        try {
            while (true) {
                skipBlankLines();
                if (atEnd())
                    break;
                if (peek() == '[') {
                    if (m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '[')
                        fail("arrays of tables ([[...]]) are not supported");
                    ++m_pos;
                    skipSpaces();
                    std::vector<std::string> path = keyPath();
                    skipSpaces();
                    expect(']');
                    endOfLine();
                    current = &out.root;
                    scope.clear();
                    for (const auto& k : path)
                        current = &child(*current, scope, k, true);
                    if (!m_defined.insert(join(path)).second)
                        fail("the table [" + join(path) + "] is defined twice");
                } else {
                    keyValue(*current, scope, 0);
                    endOfLine();
                }
            }
        } catch (const Failure& f) {
            out.error = "line " + std::to_string(m_line) + ": " + f.message;
        }
        return out;
    }

private:
    struct Failure {
        std::string message;
    };
    [[noreturn]] void fail(const std::string& message) { throw Failure { message }; }

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }
    void expect(char c)
    {
        if (peek() != c)
            fail(std::string("expected '") + c + "'"
                + (atEnd() ? " before the end of the file" : ", found '" + std::string(1, peek()) + "'"));
        ++m_pos;
    }
    void skipSpaces()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t'))
            ++m_pos;
    }
    void skipComment()
    {
        if (peek() == '#')
            while (!atEnd() && peek() != '\n')
                ++m_pos;
    }
    void skipBlankLines()
    {
        while (!atEnd()) {
            skipSpaces();
            skipComment();
            if (peek() == '\r')
                ++m_pos;
            if (peek() == '\n') {
                ++m_pos;
                ++m_line;
            } else {
                return;
            }
        }
    }
    /// Whitespace and newlines inside arrays and between inline-table members.
    void skipSpacesAndNewlines()
    {
        while (!atEnd()) {
            skipSpaces();
            skipComment();
            if (peek() == '\r' || peek() == '\n') {
                m_line += peek() == '\n';
                ++m_pos;
            } else {
                return;
            }
        }
    }
    void endOfLine()
    {
        skipSpaces();
        skipComment();
        if (peek() == '\r')
            ++m_pos;
        if (!atEnd() && peek() != '\n')
            fail(std::string("unexpected '") + peek() + "' after the value");
    }
    static std::string join(const std::vector<std::string>& path)
    {
        std::string s;
        for (const auto& k : path)
            s += (s.empty() ? "" : ".") + k;
        return s;
    }

    std::string key()
    {
        if (peek() == '"' || peek() == '\'')
            return string();
        std::string k;
        while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-'))
            k += m_text[m_pos++];
        if (k.empty())
            fail(atEnd() ? "expected a key" : std::string("expected a key, found '") + peek() + "'");
        return k;
    }
    std::vector<std::string> keyPath(int depth = 0)
    {
        std::vector<std::string> path { key() };
        skipSpaces();
        while (peek() == '.') {
            if (path.size() + static_cast<size_t>(depth) >= static_cast<size_t>(kMaxTomlDepth))
                fail("keys nest deeper than " + std::to_string(kMaxTomlDepth) + " levels");
            ++m_pos;
            skipSpaces();
            path.push_back(key());
            skipSpaces();
        }
        return path;
    }
    /// The member `k` of `table`, whose index scope is `scope` (updated to the member's): found through m_index, a
    /// hash of scope + key to the member's position, so that a table of n keys is read in O(n), not O(n^2).
    TomlValue* member(TomlValue& table, const std::string& scope, const std::string& k)
    {
        const auto it = m_index.find(scopedKey(scope, k));
        return it == m_index.end() ? nullptr : &table.table[it->second].value;
    }
    static std::string scopedKey(const std::string& scope, const std::string& k) { return scope + '\x1f' + k; }
    TomlValue& child(TomlValue& table, std::string& scope, const std::string& k, bool mayExist)
    {
        if (TomlValue* v = member(table, scope, k)) {
            if (!mayExist || v->kind != TomlValue::Kind::Table)
                fail("the key '" + k + "' is defined twice");
            if (m_inline.count(scopedKey(scope, k)))
                fail("the inline table '" + k
                    + "' cannot be extended (TOML: an inline table is complete where it is written)");
            scope = scopedKey(scope, k);
            return *v;
        }
        count();
        m_index.emplace(scopedKey(scope, k), table.table.size());
        scope = scopedKey(scope, k);
        table.table.push_back({ k, TomlValue {} });
        table.table.back().value.kind = TomlValue::Kind::Table;
        table.table.back().value.line = m_line;
        return table.table.back().value;
    }
    void count()
    {
        if (++m_values > kMaxTomlValues)
            fail("more than " + std::to_string(kMaxTomlValues) + " values");
    }
    /// `key = value` into `table` (index scope `tableScope`), itself `depth` levels below the root.
    void keyValue(TomlValue& table, const std::string& tableScope, int depth)
    {
        const std::vector<std::string> path = keyPath(depth);
        skipSpaces();
        expect('=');
        skipSpaces();
        TomlValue* t = &table;
        std::string scope = tableScope;
        for (size_t i = 0; i + 1 < path.size(); ++i)
            t = &child(*t, scope, path[i], true);
        if (member(*t, scope, path.back()))
            fail("the key '" + join(path) + "' is defined twice");
        TomlValue v = value(depth + static_cast<int>(path.size()));
        count();
        if (v.kind == TomlValue::Kind::Table)
            m_inline.insert(scopedKey(scope, path.back()));
        m_index.emplace(scopedKey(scope, path.back()), t->table.size());
        t->table.push_back({ path.back(), std::move(v) });
    }

    std::string string()
    {
        const char quote = peek();
        if (m_text.substr(m_pos, 3) == std::string(3, quote))
            fail("multi-line strings are not supported");
        ++m_pos;
        std::string s;
        while (true) {
            if (atEnd() || peek() == '\n')
                fail("unterminated string");
            const char c = m_text[m_pos++];
            if (c == quote)
                return s;
            if (quote == '"' && c == '\\') {
                if (atEnd())
                    fail("unterminated string");
                const char e = m_text[m_pos++];
                switch (e) {
                case '"': s += '"'; break;
                case '\\': s += '\\'; break;
                case 'b': s += '\b'; break;
                case 't': s += '\t'; break;
                case 'n': s += '\n'; break;
                case 'f': s += '\f'; break;
                case 'r': s += '\r'; break;
                case 'u':
                case 'U': {
                    const size_t n = e == 'u' ? 4 : 8;
                    if (m_pos + n > m_text.size())
                        fail("a \\" + std::string(1, e) + " escape needs " + std::to_string(n) + " hex digits");
                    uint32_t cp = 0;
                    for (size_t i = 0; i < n; ++i) {
                        const char h = m_text[m_pos++];
                        if (!std::isxdigit(static_cast<unsigned char>(h)))
                            fail("a \\" + std::string(1, e) + " escape needs hex digits");
                        cp = cp * 16
                            + static_cast<uint32_t>(
                                std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
                    }
                    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        fail("the escape is not a Unicode scalar value");
                    if (cp < 0x80) {
                        s += static_cast<char>(cp);
                    } else if (cp < 0x800) {
                        s += static_cast<char>(0xc0 | (cp >> 6));
                        s += static_cast<char>(0x80 | (cp & 0x3f));
                    } else if (cp < 0x10000) {
                        s += static_cast<char>(0xe0 | (cp >> 12));
                        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        s += static_cast<char>(0x80 | (cp & 0x3f));
                    } else {
                        s += static_cast<char>(0xf0 | (cp >> 18));
                        s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
                        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        s += static_cast<char>(0x80 | (cp & 0x3f));
                    }
                    break;
                }
                default: fail(std::string("unknown escape \\") + e);
                }
            } else {
                s += c;
            }
        }
    }

    TomlValue value(int depth)
    {
        if (depth > kMaxTomlDepth)
            fail("values nest deeper than " + std::to_string(kMaxTomlDepth) + " levels");
        TomlValue v;
        v.line = m_line;
        const char c = peek();
        if (c == '"' || c == '\'') {
            v.kind = TomlValue::Kind::String;
            v.string = string();
        } else if (c == '[') {
            v.kind = TomlValue::Kind::Array;
            ++m_pos;
            skipSpacesAndNewlines();
            while (peek() != ']') {
                v.array.push_back(value(depth + 1));
                count();
                skipSpacesAndNewlines();
                if (peek() == ',') {
                    ++m_pos;
                    skipSpacesAndNewlines();
                } else if (peek() != ']') {
                    fail("expected ',' or ']' in an array");
                }
            }
            ++m_pos;
        } else if (c == '{') {
            v.kind = TomlValue::Kind::Table;
            ++m_pos;
            skipSpaces();
            // An inline table is complete where it is written: its own scope, never reopened.
            const std::string scope = "{" + std::to_string(++m_inlineTables);
            while (peek() != '}') {
                keyValue(v, scope, depth);
                skipSpaces();
                if (peek() == ',') {
                    ++m_pos;
                    skipSpaces();
                } else if (peek() != '}') {
                    fail("expected ',' or '}' in an inline table");
                }
            }
            ++m_pos;
        } else if (m_text.substr(m_pos, 4) == "true") {
            v.kind = TomlValue::Kind::Boolean;
            v.boolean = true;
            m_pos += 4;
        } else if (m_text.substr(m_pos, 5) == "false") {
            v.kind = TomlValue::Kind::Boolean;
            m_pos += 5;
        } else {
            numberValue(v);
        }
        return v;
    }

    void numberValue(TomlValue& v)
    {
        std::string token;
        while (!atEnd()
            && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '.' || peek() == '+'
                || peek() == '-' || peek() == ':'))
            token += m_text[m_pos++];
        if (token.empty())
            fail(atEnd() ? "expected a value" : std::string("expected a value, found '") + peek() + "'");
        if (token.size() > 64)
            fail("the number '" + token.substr(0, 64) + "...' is too long");
        if (std::isalpha(static_cast<unsigned char>(token[0])) && token != "inf" && token != "nan")
            fail("'" + token + "' is not a value (strings need quotes)");
        if (token.find(':') != std::string::npos || (token.size() >= 10 && token[4] == '-' && token[7] == '-'))
            fail("dates and times are not supported ('" + token + "')");
        std::string digits;
        for (size_t i = 0; i < token.size(); ++i) {
            if (token[i] == '_') {
                if (i == 0 || i + 1 == token.size() || !std::isalnum(static_cast<unsigned char>(token[i - 1]))
                    || !std::isalnum(static_cast<unsigned char>(token[i + 1])))
                    fail("misplaced '_' in '" + token + "'");
                continue;
            }
            digits += token[i];
        }
        const std::string body = (digits[0] == '+' || digits[0] == '-') ? digits.substr(1) : digits;
        if (body == "inf" || body == "nan")
            fail("inf and nan are not supported");
        int base = 10;
        if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
            if (body.size() != digits.size())
                fail("a signed " + body.substr(0, 2) + " number is not TOML");
            base = body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2;
        }
        const bool isFloat = base == 10 && body.find_first_of(".eE") != std::string::npos;
        errno = 0;
        char* end = nullptr;
        // strtoll's end points into this text: it must live until the check below
        const std::string text = base == 10 ? digits : body.substr(2);
        if (isFloat) {
            for (char ch : body)
                if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == 'E' || ch == '+'
                        || ch == '-'))
                    fail("'" + token + "' is not a number");
            v.kind = TomlValue::Kind::Float;
            v.number = std::strtod(digits.c_str(), &end);
            if (errno == ERANGE || !std::isfinite(v.number))
                fail("'" + token + "' is out of range");
        } else {
            v.kind = TomlValue::Kind::Integer;
            if (base == 10 && body.size() > 1 && body[0] == '0')
                fail("leading zeros are not TOML ('" + token + "')");
            v.integer = std::strtoll(text.c_str(), &end, base);
            if (errno == ERANGE)
                fail("'" + token + "' is out of range");
            v.number = static_cast<double>(v.integer);
        }
        if (!end || *end != '\0')
            fail("'" + token + "' is not a value (strings need quotes)");
    }

    std::string_view m_text;
    size_t m_pos = 0;
    int m_line = 1;
    size_t m_values = 0;
    std::set<std::string> m_defined; ///< [table] headers seen
    std::unordered_map<std::string, size_t> m_index; ///< scope + '\x1f' + key -> the member's position in its table
    size_t m_inlineTables = 0;
    std::unordered_set<std::string> m_inline; ///< scoped keys whose value is an inline table
};

} // namespace

TomlParse parseToml(std::string_view text)
{
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // a UTF-8 byte-order mark (editors on Windows write one): not part of the text

    if (text.find('\0') != std::string_view::npos) {
        TomlParse p;
        p.error = "the file contains a NUL byte: it is not TOML text";
        return p;
    }
    return Parser(text).run();
}

} // namespace shardscope::core::detail
