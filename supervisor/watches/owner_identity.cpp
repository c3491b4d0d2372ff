#include "supervisor/watches/owner_identity.h"

namespace supervisor {

const common::FileIdentity& OwnerIdentities::of(const state::Registration& registration,
                                                const slurm::JobSnapshot& job) {
    const auto key = std::make_pair(static_cast<uid_t>(registration.owner_uid),
                                    static_cast<gid_t>(job.group_id));
    const auto now = m_clock.monotonic();
    auto it = m_cache.find(key);
    if (it == m_cache.end() || now - it->second.looked_up >= k_refresh) {
        Entry entry{common::identity_of(key.first, key.second), now};
        it = m_cache.insert_or_assign(key, std::move(entry)).first;
    }
    return it->second.identity;
}

}  // namespace supervisor
