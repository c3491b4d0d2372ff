// The job contract, verified: an attempt that the supervisor restarted (attempt 2 and later)
// must fetch its resume settings (`supervisor env`, journaled as settings_fetched by the control
// channel or the state directory). One that has run for the config's settings_fetch_within
// without doing so is probably training from scratch while its owner was told it resumes: it is
// journaled (settings_not_fetched) and its owner told, once per attempt.
//
// SettingsFetchTracker remembers in memory which attempts are settled (fetched, or reported),
// so the journal is read once per attempt, when its time is up. A first attempt is never
// reported: nothing was promised to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>

#include "common/clock.h"
#include "common/job_id.h"
#include "state/records.h"
#include "state/store.h"

namespace supervisor {

class SettingsFetchTracker {
  public:
    [[nodiscard]] bool settled(const common::JobId& job, std::uint32_t attempt) const;
    void settle(const common::JobId& job, std::uint32_t attempt) { m_settled[job] = attempt; }
    void forget(const common::JobId& job) { m_settled.erase(job); }

  private:
    std::map<common::JobId, std::uint32_t> m_settled;
};

enum class FetchRecord { none, fetched, reported };

// What the journal says of the registration's current attempt (one query of its events).
[[nodiscard]] FetchRecord settings_fetch_record(const state::Store& store,
                                                const state::Registration& registration);

struct SettingsFetchedEvent;

// Journals that a run fetched its settings (`fetched.attempt` is the registration's attempt);
// the host, which the job names, is kept as printable text of at most 255 bytes. Call inside a
// transaction.
void record_settings_fetched(state::Store& store, const common::JobId& job,
                             SettingsFetchedEvent fetched, common::TimePoint at);

// Journals settings_not_fetched and queues the owner's message. Call inside a transaction.
void record_settings_not_fetched(state::Store& store, const state::Registration& registration,
                                 std::chrono::seconds running, common::TimePoint at);

}  // namespace supervisor
