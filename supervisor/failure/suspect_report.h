// The operators' message about a node that has just become suspect: implicated in failures
// of several different jobs within the window (failure_history.h). Queued once, in the
// transaction of the failure that made it suspect (a later failure finds it suspect already),
// as the node's record (node_records.h: once per record, to the operators' targets, not to the
// job's owner), with a "suspect_node" event in the journal of that failure's job.
#pragma once

#include "common/clock.h"
#include "recovery/planner.h"
#include "state/store.h"
#include "supervisor/failure/failure_history.h"

namespace supervisor {

// Nothing when `correlation.newly_suspect` is empty. `plan` says whether this recovery excluded
// or drained the node. Call inside a transaction.
void report_new_suspects(state::Store& store, const state::Registration& registration,
                         const FailureCorrelation& correlation, const recovery::Plan& plan,
                         common::TimePoint at);

}  // namespace supervisor
