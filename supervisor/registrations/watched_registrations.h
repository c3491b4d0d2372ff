// WatchedRegistrations: the registrations the poll cycle watches (watching, and pending, enabled
// or recovering), in memory by job id, kept in step with the store through its change log
// (state::Store::registration_changes_since: every registration write, by any process, leaves
// its job there in the same transaction). refresh() costs one indexed read of the log plus one
// row read per registration written since the last refresh; the first refresh, and one after
// the log lost changes it had not read, reads every watched row once. Never fails on its own;
// database errors throw state::DatabaseError.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "common/job_id.h"
#include "state/records.h"
#include "state/store.h"
#include "supervisor/steps/owner_choices.h"

namespace supervisor {

[[nodiscard]] bool is_watched(const state::Registration& registration);

class WatchedRegistrations {
  public:
    // Brings the index in step with the store. Returns the jobs whose rows were written since
    // the previous refresh (added, changed, no longer watched, deleted), or every job watched
    // before or after on a full read (the first call). Deletes the log's changes once read
    // when the log has grown past a few thousand.
    std::set<common::JobId> refresh(state::Store& store);

    [[nodiscard]] const std::map<common::JobId, state::Registration>& all() const {
        return m_watched;
    }
    // nullptr when the job is not watched.
    [[nodiscard]] const state::Registration* find(const common::JobId& job) const;
    // What the owner of watched job `job` chose (owner_choices.h), read from its row at the
    // first ask after the row was loaded and kept until the row changes: a quiet job's row is
    // never parsed. Throws std::out_of_range for a job not watched.
    [[nodiscard]] const OwnerChoices& choices(const common::JobId& job);
    // The watched jobs, in job id order.
    [[nodiscard]] std::vector<common::JobId> ids() const;
    // Some watched job is pending (not validated yet) or recovering (a plan in progress).
    [[nodiscard]] bool any_pending_or_recovering() const {
        return !m_pending_or_recovering.empty();
    }

  private:
    void put(const common::JobId& job, std::optional<state::Registration> row);

    bool m_loaded = false;
    std::int64_t m_newest_change = 0;
    std::int64_t m_forgotten_up_to = 0;
    std::map<common::JobId, state::Registration> m_watched;
    std::map<common::JobId, OwnerChoices> m_choices;  // of the rows in m_watched, once asked
    std::set<common::JobId> m_pending_or_recovering;
};

}  // namespace supervisor
