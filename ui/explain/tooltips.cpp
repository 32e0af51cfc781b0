// SPDX-License-Identifier: GPL-3.0-or-later
#include "explain/tooltips.h"

#include "help/model_reference.h"
#include "util/units.h"

#include <shardscope/core/scenario_json.h>

#include <QCoreApplication>
#include <QHash>
#include <QFontMetrics>
#include <QRegularExpression>
#include <QToolTip>

namespace shardscope::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("Tooltips", text); }
QString str(const char* text) { return QString::fromUtf8(text); }
QString str(const std::string& text) { return QString::fromStdString(text); }

constexpr QChar kBreak(0x200B); // zero-width space: a line may break here
} // namespace

QString modelSectionTitle(const QString& anchor)
{
    static const QHash<QString, QString> titles = [] {
        QHash<QString, QString> t;
        static const QRegularExpression anchorLine(
            QStringLiteral(R"re(^\s*<a\s+(?:id|name)\s*=\s*"([^"]+)"\s*>\s*</a>\s*$)re"));
        static const QRegularExpression heading(QStringLiteral(R"re(^#{1,6}\s+(.*?)\s*#*\s*$)re"));
        QStringList pending;
        const QStringList lines = modelReferenceMarkdown().split(QLatin1Char('\n'));
        for (const QString& line : lines) {
            if (const auto m = anchorLine.match(line); m.hasMatch()) {
                pending << m.captured(1);
            } else if (const auto h = heading.match(line); h.hasMatch()) {
                for (const QString& id : std::as_const(pending))
                    t.insert(id, h.captured(1));
                pending.clear();
            } else if (!line.trimmed().isEmpty()) {
                pending.clear();
            }
        }
        return t;
    }();
    const QString title = titles.value(anchor);
    return title.isEmpty() ? anchor : title;
}

namespace {
QString derivationLink(const QString& anchor)
{
    if (anchor.isEmpty())
        return {};
    return QStringLiteral("<br>%1 <a href='model:%2'>docs/model.md §%3</a> <span style='color:gray'>%4</span>")
        .arg(tr("Derivation:"), anchor.toHtmlEscaped(), modelSectionTitle(anchor).toHtmlEscaped(),
            tr("(click to open)"));
}

/// The expression as monospace text that may wrap after each operator.
QString wrappedExpression(const std::string& expression)
{
    QString out;
    out.reserve(qsizetype(expression.size() * 5 / 4));
    for (size_t i = 0; i < expression.size(); ++i) {
        const char c = expression[i];
        out += QLatin1Char(c);
        const bool op = c == '+' || c == '*' || c == '/' || (c == '-' && i > 0 && expression[i - 1] != 'e');
        if (op && i + 1 < expression.size() && expression[i + 1] != '*')
            out += kBreak;
    }
    return out.toHtmlEscaped();
}

/// An input's value as the expression writes it, with a readable form for bytes and seconds.
QString inputValue(const core::TermInput& in)
{
    QString text = str(core::exprNumber(in.value));
    if (in.unit == "B" && std::abs(in.value) >= 1024)
        return QStringLiteral("%1 B (%2)").arg(text, Units::bytes(in.value));
    if (in.unit == "s" && in.value != 0)
        return QStringLiteral("%1 s (%2)").arg(text, Units::seconds(in.value));
    return in.unit.empty() ? text : QStringLiteral("%1 %2").arg(text, str(in.unit));
}

QString heading(const QString& title, const QString& value)
{
    return QStringLiteral("<b>%1%2</b>")
        .arg(title.toHtmlEscaped(), value.isEmpty() ? QString() : QStringLiteral(": ") + value.toHtmlEscaped());
}

QString wrap(const QString& body) { return QStringLiteral("<p style='white-space:pre-wrap'>%1</p>").arg(body); }

/// A term's account, 80 characters wide (as QToolTip wraps long rich text), so that a short one does not wrap into
/// a narrow column (QToolTip halves the width of short rich text).
QString wrapTerm(const QString& body)
{
    const int width = QFontMetrics(QToolTip::font()).averageCharWidth() * 80;
    return QStringLiteral(
        "<table width='%1' cellspacing='0' cellpadding='0'><tr><td style='white-space:pre-wrap'>%2</td></tr></table>")
        .arg(width)
        .arg(body);
}
} // namespace

QString figureText(double value, const std::string& unit)
{
    if (unit == "B")
        return Units::bytes(value);
    if (unit == "s")
        return Units::seconds(value);
    if (unit.empty())
        return Units::percent(value);
    if (unit == "TFLOP/s")
        return Units::flopRate(value * 1e12);
    return QStringLiteral("%1 %2").arg(Units::count(value), str(unit));
}

QString explainHtml(const QString& key, const QString& value, const QString& values)
{
    QString html;
    if (const Explanation* e = explanation(key)) {
        html = heading(QCoreApplication::translate("Formulas", e->title), value);
        if (*e->what)
            html += QStringLiteral("<br>%1").arg(QCoreApplication::translate("Formulas", e->what).toHtmlEscaped());
        if (*e->formula)
            html += QStringLiteral("<br><b>%1</b> %2")
                        .arg(tr("Formula:"), QCoreApplication::translate("Formulas", e->formula).toHtmlEscaped());
        if (!values.isEmpty())
            html += QStringLiteral("<br><b>%1</b> %2").arg(tr("Values:"), values.toHtmlEscaped());
        if (*e->source)
            html += QStringLiteral("<br><i>%1 %2</i>")
                        .arg(tr("Source:"), QCoreApplication::translate("Formulas", e->source).toHtmlEscaped());
        return wrap(html);
    }
    const core::TermKey* t = core::findTermKey(key.toStdString());
    html = heading(t ? str(std::string(t->label)) : key, value);
    if (!values.isEmpty())
        html += QStringLiteral("<br>%1").arg(values.toHtmlEscaped());
    if (t)
        html += derivationLink(str(std::string(t->anchor)));
    return wrap(html);
}

QString termHtml(const core::Term& term, const QString& value, const QString& note)
{
    QString html = heading(str(term.label), value.isEmpty() ? figureText(term.value, term.unit) : value);
    if (!note.isEmpty())
        html += QStringLiteral("<br>%1").arg(note.toHtmlEscaped());
    if (!term.formula.empty())
        html += QStringLiteral("<br><b>%1</b> %2").arg(tr("Formula:"), str(term.formula).toHtmlEscaped());
    if (!term.expression.empty())
        html += QStringLiteral("<br><b>%1</b> <span style='font-family:monospace'>%2</span>")
                    .arg(tr("Substituted:"), wrappedExpression(term.expression));
    if (!term.inputs.empty()) {
        html += QStringLiteral("<br><b>%1</b>").arg(tr("Inputs:"));
        for (const core::TermInput& in : term.inputs) {
            html += QStringLiteral("<br>&nbsp;&nbsp;<i>%1</i> = %2")
                        .arg(str(in.name).toHtmlEscaped(), inputValue(in).toHtmlEscaped());
            if (!in.meaning.empty())
                html += QStringLiteral(": %1").arg(str(in.meaning).toHtmlEscaped());
        }
    }
    if (!term.source.empty())
        html += QStringLiteral("<br><i>%1 %2</i>").arg(tr("Source:"), str(term.source).toHtmlEscaped());
    html += derivationLink(str(term.anchor));
    return wrapTerm(html);
}

QString sumHtml(const QString& key, const std::vector<TermFigure>& figures, const std::string& unit,
    const QString& value, const QString& note)
{
    QString html = heading(explanationTitle(key), value);
    if (const Explanation* e = explanation(key); e && *e->what)
        html += QStringLiteral("<br>%1").arg(QCoreApplication::translate("Formulas", e->what).toHtmlEscaped());
    if (!note.isEmpty())
        html += QStringLiteral("<br>%1").arg(note.toHtmlEscaped());
    double total = 0;
    for (const TermFigure& f : figures)
        total += f.value;
    for (const TermFigure& f : figures)
        html += QStringLiteral("<br>&nbsp;&nbsp;%1: %2 (%3)")
                    .arg(f.label.toHtmlEscaped(), figureText(f.value, unit).toHtmlEscaped(),
                        Units::percent(total > 0 ? f.value / total : 0, 0).toHtmlEscaped());
    return wrap(html);
}

QString derivationAnchor(const QString& html)
{
    static const QRegularExpression link(QStringLiteral("href='model:([^']*)'"));
    const auto m = link.match(html);
    return m.hasMatch() ? m.captured(1) : QString();
}

bool openDerivation(const QString& html, QWidget* parent)
{
    const QString anchor = derivationAnchor(html);
    if (anchor.isEmpty())
        return false;
    showModelReference(anchor, parent);
    return true;
}

QString collectiveValues(const core::Collective& c, const core::Scenario& s)
{
    const core::LinkSpec& link = c.crossesNodes ? s.cluster.interNode : s.cluster.intraNode;
    return tr("n = %1, %2 calls/step, S = %3 per call, %4/%5, over %6 (%7)%8")
        .arg(c.groupSize)
        .arg(c.count)
        .arg(Units::bytes(c.messageBytes), str(core::toString(c.algo)), str(core::toString(c.proto)),
            QString::fromStdString(link.name.empty() ? link.id : link.name))
        .arg(Units::bandwidth(link.bandwidth))
        .arg(*c.purpose ? QStringLiteral("; ") + str(c.purpose) : QString());
}

QString groupLabel(core::Group g)
{
    switch (g) {
    case core::Group::Dp: return QStringLiteral("DP");
    case core::Group::Tp: return QStringLiteral("TP");
    case core::Group::Pp: return QStringLiteral("PP");
    case core::Group::Cp: return QStringLiteral("CP");
    case core::Group::Ep: return QStringLiteral("EP");
    }
    return {};
}

QString collectiveLabel(const core::Collective& c)
{
    QString op;
    switch (c.op) {
    case core::CollectiveOp::AllReduce: op = tr("all-reduce"); break;
    case core::CollectiveOp::ReduceScatter: op = tr("reduce-scatter"); break;
    case core::CollectiveOp::AllGather: op = tr("all-gather"); break;
    case core::CollectiveOp::AllToAll: op = tr("all-to-all"); break;
    case core::CollectiveOp::SendRecv: op = tr("send/recv"); break;
    }
    return (c.expertDataParallel ? tr("expert DP") : groupLabel(c.group)) + QLatin1Char(' ') + op;
}

} // namespace shardscope::ui
