// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/export_dialog.h"

#include "document/scenario_document.h"
#include "export/numbers_export.h"
#include "editors/scenario_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace shardscope::ui {

namespace {
constexpr int kReport = 100;
constexpr int kCsv = 101;
constexpr int kJson = 102;
} // namespace

ExportDialog::ExportDialog(
    ScenarioDocument* doc, const Choice& initial, QWidget* parent, QList<ChartKind> charts, FigureSource figures)
    : QDialog(parent)
    , m_doc(doc)
    , m_what(new QComboBox(this))
    , m_format(new QComboBox(this))
    , m_width(new QSpinBox(this))
    , m_height(new QSpinBox(this))
    , m_dpi(new QSpinBox(this))
    , m_pixels(new QLabel(this))
    , m_light(new QCheckBox(tr("Light theme (for documents)"), this))
    , m_caption(new QCheckBox(tr("Caption naming the scenario"), this))
    , m_preview(new QLabel(this))
    , m_figures(std::move(figures))
{
    setWindowTitle(tr("Export"));
    if (charts.isEmpty())
        charts = { kScenarioChartKinds.begin(), kScenarioChartKinds.end() };
    if (!m_figures)
        m_figures
            = [doc](ChartKind kind, bool light) { return std::make_unique<ChartFigure>(kind, *doc->shown(), light); };
    for (ChartKind k : std::as_const(charts))
        m_what->addItem(tr("Chart: %1").arg(chartKindName(k)), int(k));
    m_what->insertSeparator(m_what->count());
    m_what->addItem(tr("Report of this scenario (PDF)"), kReport);
    m_what->addItem(tr("Numbers (CSV)"), kCsv);
    m_what->addItem(tr("Numbers (JSON, as shardscope-cli evaluate)"), kJson);
    m_format->addItem(tr("PNG image"), int(FigureFormat::Png));
    m_format->addItem(tr("SVG vector image"), int(FigureFormat::Svg));
    m_format->addItem(tr("PDF document"), int(FigureFormat::Pdf));
    for (QSpinBox* s : { m_width, m_height }) {
        s->setRange(200, 8000);
        s->setSingleStep(50);
        s->setSuffix(tr(" px"));
    }
    m_width->setToolTip(
        tr("Logical pixels, 96 per inch: the size in documents. PDF pages get this size at 96 per inch."));
    m_dpi->setRange(48, 1200);
    m_dpi->setSingleStep(48);
    m_dpi->setSuffix(tr(" DPI"));
    m_dpi->setToolTip(
        tr("PNG only: 96 DPI is one image pixel per logical pixel, 192 DPI twice as many (sharp on slides and "
           "high-density screens). SVG and PDF are vector graphics."));
    m_light->setToolTip(tr("White background and dark text, whatever the window's theme."));
    m_caption->setToolTip(tr("Scenario name, model, GPUs, strategy and date under the chart."));

    auto* size = new QHBoxLayout;
    size->addWidget(m_width);
    size->addWidget(new QLabel(QStringLiteral("×"), this));
    size->addWidget(m_height);
    size->addStretch(1);
    m_pixels->setWordWrap(true); // the reason an image is refused is a sentence
    auto* dpi = new QHBoxLayout;
    dpi->addWidget(m_dpi);
    dpi->addWidget(m_pixels, 1);
    auto* form = new QFormLayout;
    form->addRow(tr("&Export:"), m_what);
    form->addRow(tr("&Format:"), m_format);
    auto* sizeLabel = new QLabel(tr("&Size:"), this); // a layout as the field: the label needs its buddy set by hand
    sizeLabel->setBuddy(m_width);
    form->addRow(sizeLabel, size);
    auto* dpiLabel = new QLabel(tr("&Resolution:"), this);
    dpiLabel->setBuddy(m_dpi);
    form->addRow(dpiLabel, dpi);
    form->addRow(QString(), m_light);
    form->addRow(QString(), m_caption);

    m_preview->setMinimumSize(520, 330);
    m_preview->setAlignment(Qt::AlignCenter);
    m_preview->setFrameShape(QFrame::StyledPanel);
    m_preview->setWordWrap(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_copy = buttons->addButton(tr("&Copy image"), QDialogButtonBox::ActionRole);
    m_save = buttons->addButton(tr("&Save…"), QDialogButtonBox::AcceptRole);
    m_save->setDefault(true);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] { emit saveRequested(choice()); });
    connect(m_copy, &QPushButton::clicked, this, [this] { emit copyRequested(choice()); });

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(buttons);

    setChoice(initial);
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    timer->setInterval(150);
    connect(timer, &QTimer::timeout, this, &ExportDialog::updatePreview);
    auto changed = [this, timer] {
        updateControls();
        timer->start();
    };
    connect(m_what, &QComboBox::currentIndexChanged, this, changed);
    connect(m_format, &QComboBox::currentIndexChanged, this, changed);
    for (QSpinBox* s : { m_width, m_height, m_dpi })
        connect(s, &QSpinBox::valueChanged, this, changed);
    connect(m_light, &QCheckBox::toggled, this, changed);
    connect(m_caption, &QCheckBox::toggled, this, changed);
    updateControls();
    updatePreview();
}

ExportDialog::Choice ExportDialog::choice() const
{
    Choice c;
    const int what = m_what->currentData().toInt();
    c.target = what == kReport ? Target::Report
        : what == kCsv         ? Target::Csv
        : what == kJson        ? Target::Json
                               : Target::Chart;
    if (c.target == Target::Chart)
        c.chart = ChartKind(what);
    c.format = FigureFormat(m_format->currentData().toInt());
    c.options.size = QSize(m_width->value(), m_height->value());
    c.options.scale = m_dpi->value() / 96.0;
    c.options.lightTheme = m_light->isChecked();
    c.caption = m_caption->isChecked();
    if (c.caption)
        c.options.caption = scenarioCaption(m_doc->shown()->scenario, m_doc->shown()->result);
    return c;
}

void ExportDialog::setChoice(const Choice& c)
{
    const int what = c.target == Target::Report ? kReport
        : c.target == Target::Csv               ? kCsv
        : c.target == Target::Json              ? kJson
                                                : int(c.chart);
    m_what->setCurrentIndex(std::max(0, m_what->findData(what)));
    m_format->setCurrentIndex(std::max(0, m_format->findData(int(c.format))));
    m_width->setValue(c.options.size.width());
    m_height->setValue(c.options.size.height());
    m_dpi->setValue(int(std::lround(c.options.scale * 96)));
    m_light->setChecked(c.options.lightTheme);
    m_caption->setChecked(c.caption);
}

void ExportDialog::updateControls()
{
    const Choice c = choice();
    const bool chart = c.target == Target::Chart;
    m_format->setEnabled(chart);
    m_width->setEnabled(chart);
    m_height->setEnabled(chart);
    m_caption->setEnabled(chart);
    m_light->setEnabled(chart || c.target == Target::Report);
    m_dpi->setEnabled(chart && c.format == FigureFormat::Png);
    // Images over the pixel budget are refused, with the reason where the pixel count would be.
    const QString budget = chart ? pixelBudgetError(c.options) : QString();
    const bool png = chart && c.format == FigureFormat::Png;
    m_copy->setEnabled(chart && budget.isEmpty());
    m_save->setEnabled(!png || budget.isEmpty());
    m_pixels->setStyleSheet(png && !budget.isEmpty() ? QStringLiteral("QLabel { color: #D55E00; }") : QString());
    if (png && !budget.isEmpty())
        m_pixels->setText(budget);
    else if (png)
        m_pixels->setText(
            tr("PNG of %1 × %2 pixels").arg(figurePixels(c.options).width()).arg(figurePixels(c.options).height()));
    else if (chart && c.format == FigureFormat::Pdf)
        m_pixels->setText(tr("PDF page %1 × %2 mm")
                              .arg(std::lround(c.options.size.width() / 96.0 * 25.4))
                              .arg(std::lround(c.options.size.height() / 96.0 * 25.4)));
    else
        m_pixels->setText(chart ? tr("vector graphics") : QString());
}

void ExportDialog::updatePreview()
{
    const Choice c = choice();
    m_previewImage = QImage();
    switch (c.target) {
    case Target::Chart: {
        const std::unique_ptr<ChartFigure> figure = m_figures(c.chart, c.options.lightTheme);
        // Drawn at the screen's pixel density and shown at it: sharp on a 2x screen, and box-sized (a pixmap of
        // box x 2 pixels at ratio 1 would be drawn twice the box's size and cut).
        const double dpr = std::clamp(double(devicePixelRatioF()), 1.0, 3.0);
        FigureOptions o = c.options;
        o.scale = dpr;
        m_previewImage = figure->toImage(o);
        const QSize box = m_preview->contentsRect().size() - QSize(8, 8);
        QPixmap pixmap = QPixmap::fromImage(m_previewImage);
        pixmap.setDevicePixelRatio(1);
        pixmap = pixmap.scaled(box * dpr, Qt::KeepAspectRatio, Qt::SmoothTransformation);
        pixmap.setDevicePixelRatio(dpr);
        m_preview->setPixmap(pixmap);
        break;
    }
    case Target::Report:
        m_preview->setPixmap(QPixmap());
        m_preview->setText(
            tr("A4 PDF: a title page with the headline figures and the settings, one landscape page per chart "
               "(%1) with the scenario caption, and the table of collectives.")
                .arg([] {
                    QStringList names;
                    for (ChartKind k : kScenarioChartKinds)
                        names << chartKindName(k);
                    return names.join(QStringLiteral(", "));
                }()));
        break;
    case Target::Csv:
    case Target::Json: {
        const QByteArray bytes = c.target == Target::Csv ? resultCsv(m_doc->shown()->scenario, m_doc->shown()->result)
                                                         : resultJson(m_doc->shown()->result);
        m_preview->setPixmap(QPixmap());
        QStringList lines = QString::fromUtf8(bytes).split(QLatin1Char('\n'));
        const bool more = lines.size() > 14;
        lines = lines.mid(0, 14);
        m_preview->setText(
            QStringLiteral("<pre>%1%2</pre>")
                .arg(lines.join(QLatin1Char('\n')).toHtmlEscaped(), more ? QStringLiteral("\n…") : QString()));
        break;
    }
    }
}

} // namespace shardscope::ui
