// Why the summary is decided at the last task's transition and not by a sweep: the transition
// is the one moment that knows an array has just ended, inside the transaction that records
// it, so a crash cannot leave the array ended and its summary untold, and nothing walks the
// registrations each cycle to find out.
#include "supervisor/journal/array_summary.h"

#include <map>

#include "supervisor/journal/journal.h"

namespace supervisor {
namespace {

constexpr std::size_t k_listed_tasks = 20;

bool ended(const state::Registration& r) {
    return r.status == state::Status::completed || !r.watching;
}

std::string task_outcome(const state::Registration& r) {
    if (!r.watching && r.status != state::Status::completed) {
        return "unregistered";
    }
    return std::string(state::to_string(r.outcome));
}

}  // namespace

bool task_end_told_alone(state::Outcome outcome) {
    return outcome != state::Outcome::succeeded && outcome != state::Outcome::cancelled;
}

notify::Message array_summary(const std::vector<state::Registration>& tasks) {
    notify::Message message;
    if (tasks.empty()) {
        return message;
    }
    const auto& first = tasks.front();
    const std::string array = std::to_string(first.job.job);
    std::map<std::string, std::size_t> counts;
    std::vector<std::string> troubled;
    std::size_t succeeded = 0;
    for (const auto& task : tasks) {
        const auto outcome = task_outcome(task);
        ++counts[outcome];
        if (outcome == "succeeded") {
            ++succeeded;
        } else if (troubled.size() < k_listed_tasks) {
            troubled.push_back("task " + std::to_string(task.job.array_task.value_or(0)) + ": " +
                               outcome + (task.status_reason.empty() ? "" : ": ") +
                               task.status_reason);
        }
    }
    const std::size_t not_succeeded = tasks.size() - succeeded;
    if (not_succeeded > troubled.size()) {
        troubled.push_back("and " + std::to_string(not_succeeded - troubled.size()) +
                           " more: `supervisor status " + array + "`");
    }
    std::string reason;
    for (const auto& [outcome, count] : counts) {
        reason += (reason.empty() ? "" : ", ") + std::to_string(count) + " " + outcome;
    }
    message.job = array;
    message.job_name = first.job_name;
    message.status = "completed";
    message.headline = "job array finished: " + std::to_string(succeeded) + " of " +
                       std::to_string(tasks.size()) + " tasks succeeded";
    message.reason = reason;
    message.notes = std::move(troubled);
    message.next_step = not_succeeded == 0
                            ? "nothing"
                            : "look at the tasks listed (`supervisor status " + array +
                                  "`, `supervisor events " + array + "_TASK`)";
    return message;
}

std::optional<OwnerNotice> record_array_end_if_last(state::Store& store,
                                                    const state::Registration& task,
                                                    common::TimePoint at) {
    auto tasks = store.array_registrations(task.job.job);
    bool found = false;
    for (auto& other : tasks) {
        if (other.job == task.job) {
            other = task;  // as it is now, not as last saved
            found = true;
        }
        if (!ended(other)) {
            return std::nullopt;
        }
    }
    if (!found) {
        return std::nullopt;  // not saved as part of its array (cannot happen for a whole_array
                              // task)
    }
    const auto message = array_summary(tasks);
    record_event(store, task.job, at,
                 "the last task of job array " + message.job + " ended: " + message.reason,
                 ArraySummaryEvent{message.job, tasks.size(), message.reason});
    return OwnerNotice{message, message.job + ":array_summary"};
}

}  // namespace supervisor
