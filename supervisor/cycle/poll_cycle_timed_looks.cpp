// Step 5 of the poll cycle (ARCHITECTURE.md): the looks a timer brings, not a change in Slurm.
// Each watch (watches.h) looks at an enabled job that changed or came due, in order, and a
// recovery one of them begins ends the job's look. Then the job's next look is scheduled at the
// earliest time any watch asks for (JobTimers), so a quiet cycle touches only the jobs due.
#include <algorithm>
#include <set>

#include "supervisor/cycle/poll_cycle.h"
#include "supervisor/failure/failure.h"

namespace supervisor {

class PollCycle::Look final : public WatchLook {
  public:
    Look(PollCycle& cycle, const state::Registration& registration, const slurm::JobSnapshot& job,
         CycleReport& report)
        : m_cycle(cycle), m_registration(registration), m_job(job), m_report(report) {}

    void contain(const std::function<void()>& step) override {
        m_cycle.contain(m_registration, m_report, step);
    }

    bool begin_recovery(const Failure& failure) override {
        auto current = m_registration;
        m_cycle.begin_recovery(current, m_job, failure);
        if (current.status == m_registration.status) {
            return false;
        }
        ++m_report.transitions;
        return true;
    }

    CycleReport& report() override { return m_report; }

    const OwnerChoices& owner() override { return m_cycle.m_watched.choices(m_registration.job); }

  private:
    PollCycle& m_cycle;
    const state::Registration& m_registration;
    const slurm::JobSnapshot& m_job;
    CycleReport& m_report;
};

int PollCycle::timed_looks(const std::set<common::JobId>& changed, CycleReport& report) {
    std::set<common::JobId> due(changed);
    for (const auto& job : m_timers.take_due(m_services.clock.monotonic())) {
        due.insert(job);
    }
    int begun = 0;
    for (const auto& id : due) {
        if (m_services.progress) {
            m_services.progress();  // the look before this one is done
        }
        const auto* registration = m_watched.find(id);
        const auto* job = m_slurm.find(id);
        // Only an enabled job: a pending one is not validated yet, a recovering one is ours.
        if (registration == nullptr || job == nullptr ||
            registration->status != state::Status::enabled) {
            m_timers.cancel(id);
            for (const auto& watch : m_watches) {
                watch->forget(id, Forget::this_run);
            }
            continue;
        }
        Look look(*this, *registration, *job, report);
        const bool recovering = std::ranges::any_of(m_watches, [&](const auto& watch) {
            return watch->look(*registration, *job, look) == AfterLook::recovering;
        });
        if (recovering) {
            ++begun;
            continue;  // no more timed looks for this run
        }
        schedule_timed_look(*registration, *job);
    }
    return begun;
}

void PollCycle::schedule_timed_look(const state::Registration& registration,
                                    const slurm::JobSnapshot& job) {
    std::optional<common::MonotonicPoint> next;
    for (const auto& watch : m_watches) {
        if (const auto when = watch->next_look(registration, job)) {
            next = next ? std::min(*next, *when) : *when;
        }
    }
    if (next) {
        m_timers.schedule(registration.job, *next);
    }
}

}  // namespace supervisor
