// An enabled job pending for a reason that will not pass by itself (stuck_pending.h): reported
// once per attempt, after stuck_pending_after on the wall clock.
#include <algorithm>

#include "supervisor/journal/journal.h"
#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/watches/cycle_report.h"
#include "supervisor/watches/job_timers.h"
#include "supervisor/watches/pending_reason.h"
#include "supervisor/watches/stuck_pending.h"
#include "supervisor/watches/watches.h"

namespace supervisor {

namespace {

class StuckPendingWatch final : public Watch {
  public:
    explicit StuckPendingWatch(CycleServices& services) : m_services(services) {}

    AfterLook look(const state::Registration& registration, const slurm::JobSnapshot& job,
                   WatchLook& cycle) override {
        if (job.state != slurm::JobState::pending) {
            m_stuck.forget(registration.job);
            return AfterLook::go_on;
        }
        const auto now = m_services.clock.now();
        const auto waited = m_stuck.seen(registration.job, job.state_reason, now);
        if (!waited || *waited < m_services.config.stuck_pending_after ||
            m_stuck.reported(registration.job, registration.attempt)) {
            return AfterLook::go_on;
        }
        cycle.contain([&] {
            auto& store = m_services.store;
            auto transaction = store.begin();
            if (!journal_has_for_attempt<StuckPendingEvent>(store, registration)) {
                const auto stuck = stuck_pending_reason(job.state_reason);
                tell_owner(store, registration,
                           record_stuck_pending(store, registration, *stuck, *waited, now), now);
                ++cycle.report().stuck_pending;
            }
            transaction.commit();
            m_stuck.mark_reported(registration.job, registration.attempt);
        });
        return AfterLook::go_on;
    }

    [[nodiscard]] std::optional<common::MonotonicPoint> next_look(
        const state::Registration& registration, const slurm::JobSnapshot& /*job*/) override {
        const auto since = m_stuck.stuck_unreported_since(registration.job, registration.attempt);
        if (!since) {
            return std::nullopt;
        }
        // The wait is measured on the wall clock (a person's "stuck for 10 minutes"); the
        // timer runs on the monotonic one, from now.
        return monotonic_deadline(m_services.clock, *since + m_services.config.stuck_pending_after);
    }

    void forget(const common::JobId& job, Forget /*what*/) override { m_stuck.forget(job); }

  private:
    CycleServices& m_services;
    StuckPendingTracker m_stuck;
};

}  // namespace

std::unique_ptr<Watch> stuck_pending_watch(CycleServices& services) {
    return std::make_unique<StuckPendingWatch>(services);
}

}  // namespace supervisor
