// The poll cycle used to read every watched row at the start of each cycle and compare them all
// with the previous read, so a quiet cycle at 10,000 jobs cost a full table read, a sort and a
// comparison of every row; the change log makes a cycle's store reads proportional to what was
// written since the last one.
#include "supervisor/registrations/watched_registrations.h"

namespace supervisor {

namespace {

// Past this many changes read, the log is trimmed behind the reader (one small write).
constexpr std::int64_t k_changes_kept = 4096;

}  // namespace

bool is_watched(const state::Registration& registration) {
    return registration.watching && (registration.status == state::Status::pending ||
                                     registration.status == state::Status::enabled ||
                                     registration.status == state::Status::recovering);
}

const state::Registration* WatchedRegistrations::find(const common::JobId& job) const {
    const auto it = m_watched.find(job);
    return it == m_watched.end() ? nullptr : &it->second;
}

std::vector<common::JobId> WatchedRegistrations::ids() const {
    std::vector<common::JobId> ids;
    ids.reserve(m_watched.size());
    for (const auto& [job, registration] : m_watched) {
        ids.push_back(job);
    }
    return ids;
}

const OwnerChoices& WatchedRegistrations::choices(const common::JobId& job) {
    if (const auto known = m_choices.find(job); known != m_choices.end()) {
        return known->second;
    }
    return m_choices.emplace(job, owner_choices_of(m_watched.at(job))).first->second;
}

void WatchedRegistrations::put(const common::JobId& job, std::optional<state::Registration> row) {
    m_choices.erase(job);  // read again from the new row when asked
    if (row && is_watched(*row)) {
        const bool waiting =
            row->status == state::Status::pending || row->status == state::Status::recovering;
        if (waiting) {
            m_pending_or_recovering.insert(job);
        } else {
            m_pending_or_recovering.erase(job);
        }
        m_watched.insert_or_assign(job, std::move(*row));
        return;
    }
    m_watched.erase(job);
    m_pending_or_recovering.erase(job);
}

std::set<common::JobId> WatchedRegistrations::refresh(state::Store& store) {
    auto changes = store.registration_changes_since(m_newest_change);
    std::set<common::JobId> changed;
    if (!m_loaded || changes.earlier_ones_forgotten) {
        // The log's position first, then the rows: a write committed in between is read now
        // and once more at the next refresh, never missed.
        for (const auto& [job, registration] : m_watched) {
            changed.insert(job);
        }
        m_watched.clear();
        m_choices.clear();
        m_pending_or_recovering.clear();
        for (auto& registration : store.load_watched_registrations()) {
            changed.insert(registration.job);
            const auto job = registration.job;
            put(job, std::move(registration));
        }
        m_loaded = true;
    } else {
        for (const auto& job : changes.jobs) {
            put(job, store.registration(job));
            changed.insert(job);
        }
    }
    m_newest_change = changes.newest;
    if (changes.newest - m_forgotten_up_to > k_changes_kept) {
        store.forget_registration_changes(changes.newest);
        m_forgotten_up_to = changes.newest;
    }
    return changed;
}

}  // namespace supervisor
