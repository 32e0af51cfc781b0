// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// communication.assumed_hidden_seconds (docs/model.md §exposed-communication): the time of the step's collectives that
// the model counts as fully overlapped with compute, i.e. each collective's time over the step less the part the step
// waits for (Collective::exposedTime). A layout that wins only because this is large wins on an assumption; the search
// can charge a share of it back (SearchOptions::overlapEfficiency).

#include "expr.h"

#include "shardscope/core/result.h"

#include <string>
#include <type_traits>
#include <vector>

namespace shardscope::core::detail {

template <class X> X assumedHidden(const std::vector<Collective>& collectives)
{
    X sum = X::constant(0);
    bool first = true;
    for (const Collective& c : collectives) {
        if (!(c.time > c.exposedTime))
            continue;
        X hidden;
        if constexpr (std::is_same_v<X, Expr>) { // the collective's name: text for the term only
            const std::string name = std::string(toString(c.group)) + " " + toString(c.op);
            hidden = X::input("t(" + name + ")", c.time, "s", "time of all its calls over the step")
                - X::input("t_exposed(" + name + ")", c.exposedTime, "s", "of which the step waits for");
        } else {
            hidden = X::input({}, c.time) - X::input({}, c.exposedTime);
        }
        sum = first ? hidden : sum + hidden;
        first = false;
    }
    return sum;
}

} // namespace shardscope::core::detail
