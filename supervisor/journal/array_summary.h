// The one message about a job array registered whole (`supervisor register ARRAYID`): its
// tasks are watched, recovered and budgeted one by one, but their owner hears of the array's
// end once, with counts and the tasks that did not succeed, instead of one message per task.
#pragma once

#include <optional>
#include <vector>

#include "notify/message.h"
#include "state/store.h"
#include "supervisor/journal/owner_notice.h"

namespace supervisor {

// Whether a task that just completed with `outcome` gets a message of its own. A task that
// succeeded, or was cancelled (by its owner or an administrator, who know), waits for the
// summary; one that needs a person (unrecoverable, lost, resubmitted) is told at once as well.
[[nodiscard]] bool task_end_told_alone(state::Outcome outcome);

// The summary of `tasks` (an array's task registrations, all ended): counts per outcome, and
// up to 20 tasks that did not succeed with their reason.
[[nodiscard]] notify::Message array_summary(const std::vector<state::Registration>& tasks);

// Called when task `task` (whole_array) has just completed or been unregistered, before its row
// is saved. When every other task of its array registered with it has completed too (or is no
// longer watched), records an "array_summary" event and returns the summary for the task's
// owner (owner_outbox.h tells it). One indexed read of the array's rows. Call inside the
// transaction of the task's transition.
[[nodiscard]] std::optional<OwnerNotice> record_array_end_if_last(state::Store& store,
                                                                  const state::Registration& task,
                                                                  common::TimePoint at);

}  // namespace supervisor
