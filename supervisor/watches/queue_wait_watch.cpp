// An enabled job pending on Resources or Priority for queue_wait_after (queue_wait.h): told once
// per attempt, with slurmctld's expected start time and a partition that would start it sooner.
#include <algorithm>

#include "supervisor/journal/journal.h"
#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/watches/cycle_report.h"
#include "supervisor/watches/job_timers.h"
#include "supervisor/watches/queue_wait.h"
#include "supervisor/watches/sooner_partition.h"
#include "supervisor/watches/watches.h"

namespace supervisor {

namespace {

class QueueWaitWatch final : public Watch {
  public:
    explicit QueueWaitWatch(CycleServices& services) : m_services(services) {}

    AfterLook look(const state::Registration& registration, const slurm::JobSnapshot& job,
                   WatchLook& cycle) override {
        if (job.state != slurm::JobState::pending) {
            m_waits.forget(registration.job);
            return AfterLook::go_on;
        }
        const auto now = m_services.clock.now();
        const auto since = m_waits.waiting_since(job, registration.job, registration.attempt, now);
        if (since && now - *since >= m_services.config.queue_wait_after) {
            cycle.contain([&] { tell(registration, job, *since, now); });
        }
        return AfterLook::go_on;
    }

    [[nodiscard]] std::optional<common::MonotonicPoint> next_look(
        const state::Registration& registration, const slurm::JobSnapshot& job) override {
        const auto& clock = m_services.clock;
        const auto since =
            m_waits.waiting_since(job, registration.job, registration.attempt, clock.now());
        if (!since) {
            return std::nullopt;
        }
        // On the wall clock like a stuck wait, and a second late rather than early.
        return monotonic_deadline(clock, *since + m_services.config.queue_wait_after,
                                  std::chrono::seconds(1));
    }

    void forget(const common::JobId& job, Forget /*what*/) override { m_waits.forget(job); }

  private:
    void tell(const state::Registration& registration, const slurm::JobSnapshot& job,
              common::TimePoint since, common::TimePoint now) {
        auto& store = m_services.store;
        // Told before a restart: nothing to ask slurmctld.
        if (journal_has_for_attempt<QueueWaitEvent>(store, registration)) {
            m_waits.mark_told(registration.job, registration.attempt);
            return;
        }
        // One RPC, only to tell: the cycle's view repeats slurmctld's answer while its job table
        // has not changed, and the backfill plan's start time changes without that. The other
        // partitions are asked about here too, once per attempt, outside the transaction.
        const auto plan = m_services.client.load_expected_start(registration.job);
        const auto expected = plan ? *plan : std::nullopt;
        const auto sooner = find_sooner_partition(m_services.client, job, expected, now);
        auto transaction = store.begin();
        if (!journal_has_for_attempt<QueueWaitEvent>(store, registration)) {
            const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - since);
            tell_owner(store, registration,
                       record_queue_wait(store, registration, job.state_reason, expected, waited,
                                         now, sooner),
                       now);
        }
        transaction.commit();
        m_waits.mark_told(registration.job, registration.attempt);
    }

    CycleServices& m_services;
    QueueWaits m_waits;
};

}  // namespace

std::unique_ptr<Watch> queue_wait_watch(CycleServices& services) {
    return std::make_unique<QueueWaitWatch>(services);
}

}  // namespace supervisor
