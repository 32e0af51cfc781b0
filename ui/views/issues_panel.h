// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <shardscope/core/result.h>

#include <QListWidget>

#include <vector>

namespace shardscope::ui {

/// What the core's validation says about the scenario (issues, then warnings), each naming its control.
/// Activating an entry asks for that control (fieldActivated).
class IssuesPanel : public QListWidget
{
    Q_OBJECT
public:
    explicit IssuesPanel(QWidget* parent = nullptr);
    void setResult(const core::Result& result);
    /// Number of issues (errors) shown.
    [[nodiscard]] int issueCount() const { return int(m_issues.size()); }

signals:
    void fieldActivated(const QString& field);

private:
    std::vector<core::Issue> m_issues;
    std::vector<core::Issue> m_warnings;
    bool m_initialised = false;
};

} // namespace shardscope::ui
