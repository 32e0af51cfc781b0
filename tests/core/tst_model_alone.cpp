// SPDX-License-Identifier: GPL-3.0-or-later
// The model library stands alone (issue 22): this test links shardscope::model only, no io and no tools, so a model
// file that calls into file I/O, JSON or an importer fails to link here. It evaluates a scenario built in code.
#include "shardscope/core/evaluate.h"

#include <QtTest>

using namespace shardscope::core;

class TstModelAlone : public QObject
{
    Q_OBJECT
private slots:
    void refusesAScenarioWithoutLayersNamingTheField()
    {
        const Scenario s; // built in code: no catalog, no file; a ModelSpec's layers default to 0
        const auto issues = validate(s);
        QVERIFY(std::any_of(issues.begin(), issues.end(), [](const Issue& i) { return i.field == "model.layers"; }));
        QVERIFY(!evaluate(s).issues.empty());
    }
};

QTEST_GUILESS_MAIN(TstModelAlone)
#include "tst_model_alone.moc"
