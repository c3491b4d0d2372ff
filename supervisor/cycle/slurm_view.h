// SlurmView: what slurmctld last said about the watched jobs, which of them moved since their
// last look, and the cluster's nodes (loaded at most once a cycle) and whether we are an
// operator (asked once a process). Kept while slurmctld says nothing changed
// (Client::load_jobs_if_changed), so a quiet cycle copies nothing and a changed one copies only
// the jobs that moved. One copy of the answer is kept, not a second one per look: at 10,000 jobs
// that copy is tens of MiB. Nothing here fails: an unanswered node query reads as no nodes, an
// unanswered operator question as "no", asked again next time.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "common/job_id.h"
#include "slurm/client.h"
#include "slurm/types.h"

namespace supervisor {

class SlurmView {
  public:
    [[nodiscard]] const std::map<common::JobId, slurm::JobSnapshot>& jobs() const { return m_jobs; }
    // Slurm's record of the job; nullptr when the last answer had none.
    [[nodiscard]] const slurm::JobSnapshot* find(const common::JobId& id) const;
    // Whether the jobs held answer exactly these ids (in job id order).
    [[nodiscard]] bool answers(const std::vector<common::JobId>& ids) const {
        return m_answered_for == ids;
    }

    // A new answer from Slurm for `ids` (in job id order) replaces the jobs held; what differs
    // from the previous one is marked moved. Changes that are not whole apply to the jobs held,
    // which answer the same ids.
    void take(slurm::JobQuery answer, const std::vector<common::JobId>& ids);
    void take(slurm::JobChanges changes, const std::vector<common::JobId>& ids);

    // The job's snapshot changed, appeared or vanished since its last look.
    [[nodiscard]] bool moved(const common::JobId& id) const { return m_moved.contains(id); }
    [[nodiscard]] bool any_moved() const { return !m_moved.empty(); }
    // The job was looked at, or is no longer watched: it has not moved since.
    void looked_at(const common::JobId& id) { m_moved.erase(id); }

    // A new cycle: the nodes are loaded again when next asked for.
    void new_cycle() { m_nodes.reset(); }
    // The cluster's nodes: one RPC, at the first call of a cycle.
    const std::vector<slurm::NodeSnapshot>& nodes(slurm::Client& client);
    // Whether the daemon's user is a Slurm operator: one RPC, until it is answered.
    bool is_operator(slurm::Client& client);

  private:
    std::map<common::JobId, slurm::JobSnapshot> m_jobs;
    std::vector<common::JobId> m_answered_for;
    std::set<common::JobId> m_moved;
    std::optional<std::vector<slurm::NodeSnapshot>> m_nodes;
    std::optional<bool> m_operator;
};

}  // namespace supervisor
