// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/numbers_export.h"

#include "explain/formulas.h"

#include <shardscope/core/scenario_json.h>
#include <shardscope/core/scenario_name.h>

namespace shardscope::ui {

namespace {
QByteArray csvField(const QString& text)
{
    QByteArray s = text.toUtf8();
    // Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first: OWASP "CSV Injection") is
    // prefixed with ' so that it stays text; numbers stay numbers.
    bool number = false;
    text.toDouble(&number);
    if (!number && !s.isEmpty() && QByteArray("=+-@\t\r").contains(s.front()))
        s.prepend('\'');
    if (s.contains(',') || s.contains('"') || s.contains('\n') || s.contains('\r')) {
        s.replace("\"", "\"\"");
        s = '"' + s + '"';
    }
    return s;
}

struct Csv {
    QByteArray out = "section,name,value,unit\n";
    void row(const QString& section, const QString& name, const QString& value, const char* unit = "")
    {
        out += csvField(section) + ',' + csvField(name) + ',' + csvField(value) + ',' + unit + '\n';
    }
    void num(const QString& section, const QString& name, double value, const char* unit = "")
    {
        row(section, name, QString::number(value, 'g', 15), unit);
    }
};

/// One row per term, named by its key without the group ("memory.activations" → "activations"), then the total.
void figureRows(Csv& csv, const QString& section, const std::vector<TermFigure>& figures, const char* unit)
{
    double total = 0;
    for (const TermFigure& f : figures) {
        csv.num(section, f.key.section(QLatin1Char('.'), 1), f.value, unit);
        total += f.value;
    }
    csv.num(section, QStringLiteral("total"), total, unit);
}
} // namespace

QByteArray resultCsv(const core::Scenario& s, const core::Result& r)
{
    Csv csv;
    csv.row(QStringLiteral("scenario"), QStringLiteral("name"), QString::fromStdString(core::scenarioTitle(s)));
    csv.row(QStringLiteral("scenario"), QStringLiteral("valid"),
        r.valid ? QStringLiteral("true") : QStringLiteral("false"));
    for (const core::Issue& i : r.issues)
        csv.row(QStringLiteral("issue"), QString::fromStdString(i.field), QString::fromStdString(i.message));
    for (const core::Issue& w : r.warnings)
        csv.row(QStringLiteral("warning"), QString::fromStdString(w.field), QString::fromStdString(w.message));
    if (!r.valid)
        return csv.out;
    const QString layout = QStringLiteral("layout");
    csv.num(QStringLiteral("model"), QStringLiteral("parameters"), r.parameters);
    csv.num(QStringLiteral("model"), QStringLiteral("active_parameters"), r.activeParameters);
    csv.num(QStringLiteral("model"), QStringLiteral("flops_per_token"), r.flopsPerToken, "FLOP");
    csv.num(layout, QStringLiteral("gpus"), r.gpus);
    csv.num(layout, QStringLiteral("dp"), r.dp);
    csv.num(layout, QStringLiteral("tp"), r.tp);
    csv.num(layout, QStringLiteral("pp"), r.pp);
    csv.num(layout, QStringLiteral("cp"), r.cp);
    csv.num(layout, QStringLiteral("ep"), r.ep);
    csv.num(layout, QStringLiteral("micro_batches"), double(r.microBatches));
    csv.num(layout, QStringLiteral("grad_accumulation"), double(r.gradAccumulation));
    figureRows(csv, QStringLiteral("memory_per_gpu"), termFigures(r, core::TermGroup::Memory), "bytes");
    csv.num(QStringLiteral("memory_per_gpu"), QStringLiteral("capacity"), r.capacity, "bytes");
    csv.num(QStringLiteral("memory_per_gpu"), QStringLiteral("usable"), r.usable, "bytes");
    csv.row(QStringLiteral("memory_per_gpu"), QStringLiteral("fits"),
        r.fits ? QStringLiteral("true") : QStringLiteral("false"));
    // The 80% ranges (result JSON's total_range and tokens_per_second_per_gpu_range), one row per end.
    csv.num(QStringLiteral("memory_per_gpu"), QStringLiteral("total_range_lo"), r.memoryRange.lo, "bytes");
    csv.num(QStringLiteral("memory_per_gpu"), QStringLiteral("total_range_hi"), r.memoryRange.hi, "bytes");
    csv.row(
        QStringLiteral("memory_per_gpu"), QStringLiteral("verdict"), QString::fromLatin1(core::toString(r.verdict)));
    if (r.stages.size() > 1)
        for (const core::StageInfo& st : r.stages)
            figureRows(csv, QStringLiteral("memory_stage_%1").arg(st.stage), memoryFigures(st.memory), "bytes");
    csv.num(QStringLiteral("host"), QStringLiteral("memory_per_node"), r.hostMemoryPerNode, "bytes");
    csv.num(QStringLiteral("host"), QStringLiteral("nvme_per_node"), r.nvmePerNode, "bytes");
    figureRows(csv, QStringLiteral("step_time"), termFigures(r, core::TermGroup::StepTime), "s");
    csv.num(QStringLiteral("step_time"), QStringLiteral("total_range_lo"), r.stepTimeRange.lo, "s");
    csv.num(QStringLiteral("step_time"), QStringLiteral("total_range_hi"), r.stepTimeRange.hi, "s");
    const QString tp = QStringLiteral("throughput");
    csv.num(tp, QStringLiteral("tokens_per_second"), r.throughput.tokensPerSecond, "tokens/s");
    csv.num(tp, QStringLiteral("tokens_per_second_per_gpu"), r.throughput.tokensPerSecondPerGpu, "tokens/s");
    csv.num(tp, QStringLiteral("tokens_per_second_per_gpu_range_lo"), r.tokensPerGpuRange.lo, "tokens/s");
    csv.num(tp, QStringLiteral("tokens_per_second_per_gpu_range_hi"), r.tokensPerGpuRange.hi, "tokens/s");
    csv.num(tp, QStringLiteral("model_tflops_per_gpu"), r.throughput.modelTflopsPerGpu, "TFLOP/s");
    csv.num(tp, QStringLiteral("hardware_tflops_per_gpu"), r.throughput.hardwareTflopsPerGpu, "TFLOP/s");
    csv.num(tp, QStringLiteral("mfu"), r.throughput.mfu);
    if (r.throughput.costPerStepUsd > 0)
        csv.num(tp, QStringLiteral("cost_per_step"), r.throughput.costPerStepUsd, "USD");
    const QString comm = QStringLiteral("communication_per_gpu");
    csv.num(comm, QStringLiteral("total_bytes"), r.totalCommBytes, "bytes");
    for (int g = 0; g < 5; ++g)
        csv.num(comm, QStringLiteral("by_group.%1").arg(QString::fromLatin1(core::toString(core::Group(g)))),
            r.bytesByGroup[size_t(g)], "bytes");
    for (const core::Collective& c : r.collectives) {
        const QString name = QStringLiteral("%1.%2").arg(
            QString::fromLatin1(core::toString(c.group)), QString::fromLatin1(core::toString(c.op)));
        const QString sec = QStringLiteral("collective");
        csv.num(sec, name + QStringLiteral(".group_size"), c.groupSize);
        csv.num(sec, name + QStringLiteral(".count"), double(c.count));
        csv.num(sec, name + QStringLiteral(".message_bytes"), c.messageBytes, "bytes");
        csv.num(sec, name + QStringLiteral(".bytes"), c.bytes, "bytes");
        csv.num(sec, name + QStringLiteral(".time"), c.time, "s");
        csv.num(sec, name + QStringLiteral(".exposed_time"), c.exposedTime, "s");
        csv.row(sec, name + QStringLiteral(".algo"), QString::fromLatin1(core::toString(c.algo)));
        csv.row(sec, name + QStringLiteral(".proto"), QString::fromLatin1(core::toString(c.proto)));
    }
    const QString unc = QStringLiteral("uncertainty");
    csv.num(unc, QStringLiteral("band"), r.uncertainty.band);
    csv.row(unc, QStringLiteral("kind"), QString::fromStdString(r.uncertainty.kind));
    csv.row(unc, QStringLiteral("basis"), QString::fromStdString(r.uncertainty.basis));
    csv.num(QStringLiteral("sizing"), QStringLiteral("min_gpus"), r.minGpus);
    return csv.out;
}

QByteArray resultJson(const core::Result& result)
{
    return QByteArray::fromStdString(core::resultToJson(result)) + '\n';
}

} // namespace shardscope::ui
