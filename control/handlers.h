// Handlers: what the daemon does for one request of its control channel, decided by who asks
// (Peer: from the kernel on the Unix socket, from the MUNGE credential over TCP). A user acts on
// their own jobs only; a Slurm operator (uid 0, SlurmUser) on any. Someone else's job is answered
// exactly like an unregistered one, so nobody learns which jobs another user registered.
//
//   register    the job's owner, or an operator for them (registrar.h; the environment the
//               client sends is stored for the owner only)
//   register_many  the same for up to k_max_jobs_per_request jobs, each refused or
//               registered on its own (one Slurm query for the checks, one transaction)
//   unregister  the registration's owner or an operator
//   status      the caller's jobs (an operator: everybody's)
//   events      one job of the caller's
//   env         the job's resume environment, for its owner (the job's own `supervisor env`)
//               or an operator; with the job's environment attached, from its owner, it
//               becomes what a resubmit gives the new job; from inside the job (a restart
//               count sent), the fetch is journaled (settings_fetched: attempt, host, channel)
//   job_ended   an operator only (Slurm's EpilogSlurmctld runs as SlurmUser): a job ended;
//               handed to the poll loop (supervisor/daemon/job_end_pushes.h) as a hint to look now
//   daemon      anybody: the daemon's host, pid and the age of its last poll cycle
//   nodes       an operator only (suspicion comes from every user's jobs): the suspect nodes
//   resume_node an operator only: Slurm resumes the node, its record is watched, and who did
//               it is recorded (supervisor/failure/node_records.h)
//
// Uses its own Store and Slurm client, from the one thread that serves the socket. Never
// throws for a request: a failure is a Reply with an exit status and an Error.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "control/protocol.h"
#include "slurm/client.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/daemon/daemon_liveness.h"
#include "supervisor/daemon/job_end_pushes.h"
#include "supervisor/journal/journal_events.h"

namespace control {

struct Peer {
    uid_t uid = 0;
    gid_t gid = 0;
    pid_t pid = 0;        // 0 over TCP: a process of another host
    std::string address;  // over TCP, the sender's address ("10.1.0.11"); empty on the socket
};

// How the peer reached the daemon, as the log and the journal say it: "unix socket", or "tcp
// from <address>".
[[nodiscard]] std::string channel_of(const Peer& peer);

class Handlers {
  public:
    // `pushes`: where job-end reports go (the daemon's loop); null: they are refused.
    Handlers(state::Store& store, slurm::Client& client, const common::Clock& clock,
             const supervisor::Config& config, supervisor::JobEndPushes* pushes = nullptr)
        : m_store(store), m_client(client), m_clock(clock), m_config(config), m_pushes(pushes) {}

    [[nodiscard]] Reply handle(const Request& request, const Peer& peer);
    // What `daemon` answers: the loop's liveness (null: only the host and pid of this process).
    void report_liveness(const supervisor::DaemonLiveness* liveness) { m_liveness = liveness; }
    // Journals the fetches (env from inside a job) answered since the last call, in one
    // transaction; the server calls it after each round of requests and before it sends their
    // replies. A store failure is logged and those records are dropped: they are notes.
    void journal_fetches();
    // A per-user daemon: every request of another uid is refused, whatever it asks.
    void serve_only(uid_t uid) { m_only_uid = uid; }

  private:
    Reply register_job(const Request& request, const Peer& peer);
    Reply register_many(const Request& request, const Peer& peer);
    // Why `peer` may not register `job` (its owner in Slurm, or the owner of a row left under
    // its id, is someone else, and `peer` is no operator); nullopt when it may. One row read.
    std::optional<common::Error> refusal(const slurm::JobSnapshot& job, const Peer& peer);
    // Whether `job` is registered, watched and not in credential_error (register --mine
    // leaves such a job as it is). One row read.
    bool watched_already(const common::JobId& job);
    Reply unregister_job(const Request& request, const Peer& peer);
    Reply status(const Request& request, const Peer& peer);
    Reply events(const Request& request, const Peer& peer);
    Reply env(const Request& request, const Peer& peer);
    Reply job_ended(const Request& request, const Peer& peer);
    Reply daemon_info();
    Reply nodes(const Request& request, const Peer& peer);
    Reply resume_node(const Request& request, const Peer& peer);
    // Keeps the note that a run of the job fetched its settings (env from inside the job), for
    // journal_fetches().
    void record_fetch(const state::Registration& registration, const Request& request,
                      const Peer& peer, const std::string& resume_from);
    // uid 0 and SlurmUser; asks slurmctld once per uid (the client caches SlurmUser).
    bool is_operator(uid_t uid);
    // The registration of `job` when `peer` may see it (owner or operator).
    std::optional<state::Registration> visible(const common::JobId& job, const Peer& peer);

    state::Store& m_store;
    slurm::Client& m_client;
    const common::Clock& m_clock;
    const supervisor::Config& m_config;
    supervisor::JobEndPushes* m_pushes;
    std::optional<uid_t> m_only_uid;
    const supervisor::DaemonLiveness* m_liveness = nullptr;
    struct Fetch {
        common::JobId job;
        supervisor::SettingsFetchedEvent event;
        common::TimePoint at;
    };
    std::vector<Fetch> m_fetches;  // answered, not yet journaled
};

}  // namespace control
