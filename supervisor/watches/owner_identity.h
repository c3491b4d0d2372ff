// OwnerIdentities: the credentials the daemon reads each job's files with (logs, checkpoint
// directories and files, trackers): the registered owner's uid, the job's gid as Slurm shows
// it, and the owner's supplementary groups (common/file_identity.h). Group lookups go through
// NSS (possibly LDAP), so each (uid, gid) is looked up at most once per k_refresh of monotonic
// time, not at every stall look.
#pragma once

#include <chrono>
#include <map>
#include <utility>

#include "common/clock.h"
#include "common/file_identity.h"
#include "slurm/types.h"
#include "state/records.h"

namespace supervisor {

class OwnerIdentities {
  public:
    static constexpr std::chrono::minutes k_refresh{10};

    explicit OwnerIdentities(const common::Clock& clock) : m_clock(clock) {}

    // The identity for `registration`'s files. The uid is the registered owner's, never the
    // job's as Slurm shows it now (a reused job id is not its owner's job: lifecycle ends it).
    [[nodiscard]] const common::FileIdentity& of(const state::Registration& registration,
                                                 const slurm::JobSnapshot& job);

  private:
    struct Entry {
        common::FileIdentity identity;
        common::MonotonicPoint looked_up{};
    };
    const common::Clock& m_clock;
    std::map<std::pair<uid_t, gid_t>, Entry> m_cache;
};

}  // namespace supervisor
