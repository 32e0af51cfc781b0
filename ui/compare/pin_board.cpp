// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare/pin_board.h"

#include "document/scenario_document.h"

#include <shardscope/core/evaluate.h>

#include <QUndoCommand>
#include <QUndoStack>

namespace shardscope::ui {

/// One change of the pin list on the document's undo stack.
class PinCommand : public QUndoCommand
{
public:
    PinCommand(PinBoard* board, std::vector<core::Scenario> before, std::vector<core::Scenario> after, const QString& text)
        : QUndoCommand(text)
        , m_board(board)
        , m_before(std::move(before))
        , m_after(std::move(after))
    {
    }
    void redo() override { m_board->setPins(m_after); }
    void undo() override { m_board->setPins(m_before); }

private:
    PinBoard* m_board;
    std::vector<core::Scenario> m_before;
    std::vector<core::Scenario> m_after;
};

PinBoard::PinBoard(ScenarioDocument* doc, QObject* parent)
    : QObject(parent)
    , m_doc(doc)
{
}

QString PinBoard::label(int i) const
{
    if (i < 0 || i >= count())
        return {};
    const std::string& name = m_pins[size_t(i)].name;
    return name.empty() ? tr("Pin %1").arg(i + 1) : QString::fromStdString(name);
}

QString PinBoard::letter(int i)
{
    QString text;
    for (int n = i + 1; n > 0; n = (n - 1) / 26)
        text.prepend(QChar(u'A' + (n - 1) % 26));
    return text;
}

void PinBoard::pinCurrent() { pin(m_doc->scenario()); }

void PinBoard::pin(const core::Scenario& scenario)
{
    core::Scenario pinned = scenario;
    if (pinned.name.empty())
        pinned.name = tr("Pin %1").arg(count() + 1).toStdString();
    const QString text = tr("Pin “%1”").arg(QString::fromStdString(pinned.name));
    std::vector<core::Scenario> next = m_pins;
    next.push_back(std::move(pinned));
    push(text, std::move(next));
}

void PinBoard::unpin(int i)
{
    if (i < 0 || i >= count())
        return;
    std::vector<core::Scenario> next = m_pins;
    next.erase(next.begin() + i);
    push(tr("Unpin “%1”").arg(label(i)), std::move(next));
}

void PinBoard::clear()
{
    if (m_pins.empty())
        return;
    push(tr("Clear pins"), {});
}

void PinBoard::push(const QString& text, std::vector<core::Scenario> next)
{
    m_doc->undoStack()->push(new PinCommand(this, m_pins, std::move(next), text));
}

void PinBoard::setPins(std::vector<core::Scenario> pins)
{
    m_pins = std::move(pins);
    m_results.clear();
    for (const core::Scenario& s : m_pins)
        m_results.push_back(core::evaluate(s));
    emit changed();
}

} // namespace shardscope::ui
