// Watch: one concern the poll cycle keeps an eye on between Slurm's changes (a stall, a
// slowdown, a pending wait grown long, a restarted run's settings). Each watch keeps its own
// memory of the jobs. The cycle asks each registered watch, in order, to look at an enabled job
// that changed or whose timer came due, then when it next needs to look, and tells it when a
// job is no longer enabled or no longer watched. watches.h lists the watches; a new one is
// added there, and poll_cycle.* does not change.
//
// A look that fails throws; the cycle contains it to that job through WatchLook::contain.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "common/clock.h"
#include "common/job_id.h"
#include "slurm/types.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/steps/owner_choices.h"
#include "supervisor/watches/cycle_report.h"

namespace supervisor {

class Failure;

// What the cycle lends a watch for one look at one job.
class WatchLook {
  public:
    virtual ~WatchLook() = default;
    // Runs `step` with a failure contained to this job: a job that failed lately is skipped
    // for a while, and a failure is journalled (job_troubles.h). A database error still ends
    // the cycle.
    virtual void contain(const std::function<void()>& step) = 0;
    // Begins a recovery of this job from `failure`, as the cycle does for a run that ended.
    // True when the job left enabled (counted as a transition).
    virtual bool begin_recovery(const Failure& failure) = 0;
    // The cycle's report, for the watch's own counts.
    virtual CycleReport& report() = 0;
    // What the job's owner allows and its knobs, read from the row once and held by the cycle.
    virtual const OwnerChoices& owner() = 0;
};

enum class AfterLook {
    go_on,       // the next watch looks at the job
    recovering,  // a recovery began: no other watch looks at this run
};

// What a job's watch forgets: the run it watched (the job is no longer enabled, or no longer
// in Slurm's answer), or everything (the job is no longer watched).
enum class Forget { this_run, everything };

class Watch {
  public:
    Watch() = default;
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    Watch(Watch&&) = delete;
    Watch& operator=(Watch&&) = delete;
    virtual ~Watch() = default;

    // One look at an enabled job (`job`: Slurm's record of it this cycle).
    virtual AfterLook look(const state::Registration& registration, const slurm::JobSnapshot& job,
                           WatchLook& cycle) = 0;
    // When this watch next needs to look at the job; nullopt when it waits for nothing. Cheap:
    // asked after every look. It may update the watch's memory of the job.
    [[nodiscard]] virtual std::optional<common::MonotonicPoint> next_look(
        const state::Registration& registration, const slurm::JobSnapshot& job) = 0;
    virtual void forget(const common::JobId& job, Forget what) = 0;
    // Inside the transaction that records how attempt `attempt` ended: what this watch
    // measured of that run, for the store. Nothing by default.
    virtual void record_run_end(state::Store& /*store*/, const common::JobId& /*job*/,
                                std::uint32_t /*attempt*/, common::TimePoint /*now*/) {}
};

}  // namespace supervisor
