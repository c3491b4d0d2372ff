// The job contract, verified: an attempt that the supervisor restarted (attempt 2 and later)
// must fetch its own resume settings (`supervisor env`, journaled as settings_fetched by the
// control channel or the state directory). One that has run for the config's
// settings_fetch_within without doing so is probably training from scratch while its owner was
// told it resumes; one whose run fetched an earlier attempt's settings (it started before the
// supervisor had prepared its own, e.g. Slurm restarted it at once after a node failure) runs
// without the checkpoint and fixes prepared for it. Either is journaled (settings_not_fetched)
// and its owner told, once per attempt.
//
// SettingsFetchTracker remembers in memory which attempts are settled (fetched, or reported),
// so the journal is read once per attempt, when its time is up. A first attempt is never
// reported: nothing was promised to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

#include "common/clock.h"
#include "common/job_id.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/journal/owner_notice.h"

namespace supervisor {

class SettingsFetchTracker {
  public:
    [[nodiscard]] bool settled(const common::JobId& job, std::uint32_t attempt) const;
    void settle(const common::JobId& job, std::uint32_t attempt) { m_settled[job] = attempt; }
    void forget(const common::JobId& job) { m_settled.erase(job); }

  private:
    std::map<common::JobId, std::uint32_t> m_settled;
};

enum class FetchRecord { none, fetched, fetched_another_attempts, reported };

struct FetchLook {
    FetchRecord record = FetchRecord::none;
    // fetched_another_attempts: the fetch of this attempt's run that was answered with an
    // earlier attempt's settings
    std::optional<SettingsFetchedEvent> another;
};

// What the journal says of the registration's current attempt (two queries: its events and its
// attempts). A fetch belongs to the current attempt's run when the run's Slurm restart count is
// at least the one the attempt was prepared to run under (a fetch that journaled no restart
// count: when it was made under the current attempt). A report of the attempt outranks any
// fetch of another attempt's settings.
[[nodiscard]] FetchLook settings_fetch_record(const state::Store& store,
                                              const state::Registration& registration);

// Journals that a run fetched its settings (`fetched.attempt` is the registration's attempt);
// the host, which the job names, is kept as printable text of at most 255 bytes. Call inside a
// transaction.
void record_settings_fetched(state::Store& store, const common::JobId& job,
                             SettingsFetchedEvent fetched, common::TimePoint at);

// Journals settings_not_fetched and returns what the owner is told (owner_outbox.h); `another`: the
// fetch of an earlier attempt's settings that the run made instead. Call inside a transaction.
[[nodiscard]] OwnerNotice record_settings_not_fetched(
    state::Store& store, const state::Registration& registration, std::chrono::seconds running,
    common::TimePoint at, const std::optional<SettingsFetchedEvent>& another = std::nullopt);

}  // namespace supervisor
