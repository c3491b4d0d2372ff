// A running attempt the supervisor restarted is checked, once its settings_fetch_within is up,
// for having fetched its resume settings (settings_fetch.h). Told once per attempt.
#include <algorithm>

#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/watches/cycle_report.h"
#include "supervisor/watches/job_timers.h"
#include "supervisor/watches/settings_fetch.h"
#include "supervisor/watches/watches.h"

namespace supervisor {

namespace {

class SettingsFetchWatch final : public Watch {
  public:
    explicit SettingsFetchWatch(CycleServices& services) : m_services(services) {}

    AfterLook look(const state::Registration& registration, const slurm::JobSnapshot& job,
                   WatchLook& cycle) override {
        if (job.state == slurm::JobState::running && !job.completing && is_due(registration, job)) {
            record(registration, job, cycle);
        }
        return AfterLook::go_on;
    }

    [[nodiscard]] std::optional<common::MonotonicPoint> next_look(
        const state::Registration& registration, const slurm::JobSnapshot& job) override {
        if (registration.attempt < 2 || job.state != slurm::JobState::running || !job.start_time ||
            m_fetches.settled(registration.job, registration.attempt)) {
            return std::nullopt;
        }
        // Timed from the run's start on the wall clock; the timer runs on the monotonic one.
        return monotonic_deadline(m_services.clock,
                                  *job.start_time + m_services.config.settings_fetch_within,
                                  std::chrono::seconds(1));
    }

    void forget(const common::JobId& job, Forget /*what*/) override { m_fetches.forget(job); }

  private:
    [[nodiscard]] bool is_due(const state::Registration& registration,
                              const slurm::JobSnapshot& job) const {
        return registration.attempt >= 2 && job.start_time &&
               !m_fetches.settled(registration.job, registration.attempt) &&
               m_services.clock.now() - *job.start_time >= m_services.config.settings_fetch_within;
    }

    void record(const state::Registration& registration, const slurm::JobSnapshot& job,
                WatchLook& cycle) {
        const auto now = m_services.clock.now();
        const auto running =
            std::chrono::duration_cast<std::chrono::seconds>(now - *job.start_time);
        cycle.contain([&] {
            auto& store = m_services.store;
            auto transaction = store.begin();
            const auto look = settings_fetch_record(store, registration);
            if (look.record == FetchRecord::none ||
                look.record == FetchRecord::fetched_another_attempts) {
                tell_owner(
                    store, registration,
                    record_settings_not_fetched(store, registration, running, now, look.another),
                    now);
            }
            transaction.commit();
            m_fetches.settle(registration.job, registration.attempt);
        });
    }

    CycleServices& m_services;
    SettingsFetchTracker m_fetches;
};

}  // namespace

std::unique_ptr<Watch> settings_fetch_watch(CycleServices& services) {
    return std::make_unique<SettingsFetchWatch>(services);
}

}  // namespace supervisor
