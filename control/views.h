// What `supervisor status`, `supervisor events` and `register` print, made from the store: the
// same text whether the CLI reads its own database (per-user mode) or the site daemon answers
// it over the control socket. Every owner-supplied text is escaped (common/printable.h) or goes
// through common::json_text. Pure over the store: reads, never writes.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/error.h"
#include "common/job_id.h"
#include "control/protocol.h"
#include "state/store.h"

namespace control {

struct StatusQuery {
    std::optional<common::JobId> job;  // one job; nullopt: every watched one (all: every one)
    bool all = false;
    bool json = false;
    std::optional<uid_t> owner;  // only this owner's jobs (a user of the site daemon)
    // A listing's page: at most `limit` jobs (0: every one), those after `after` in the
    // listing's order (registration order). Ignored for one job.
    std::size_t limit = 0;
    std::optional<common::JobId> after = std::nullopt;
};

// Fails when the one job asked for is not registered (or not the owner's: said the same way,
// so nobody learns which ids another user registered), and when `after` is not in the listing.
[[nodiscard]] common::Result<std::string> status_view(const state::Store& store,
                                                      const StatusQuery& query);
// What `supervisor register` prints about a registration, in both modes; the options a
// resubmit cannot carry come from the job's journal (supervisor::resubmit_not_carried).
[[nodiscard]] Registered registered_summary(const state::Registration& registration,
                                            const state::Store& store);

// The nodes the correlation across jobs made suspect (the journal's suspect_node events) and
// the nodes the supervisor drained (done drain_node actions), one per node: its latest report
// (failures, how many jobs), whether and when it was drained and for which job, when last.
// With each node its newest record (supervisor/failure/node_records.h: open, watching until when,
// or closed and how), JSON "record". For operators only (the handlers decide). JSON: an array
// sorted by node; text: a table. Reads the suspect events, the done drains and the node
// records (three queries).
[[nodiscard]] std::string nodes_view(const state::Store& store, bool json);

[[nodiscard]] common::Result<std::string> events_view(const state::Store& store,
                                                      const common::JobId& job, bool json);

}  // namespace control
