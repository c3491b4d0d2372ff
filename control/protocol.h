// The site daemon's control protocol: what a user's `supervisor` command asks the daemon over
// its Unix socket, and what it answers. One request and one reply per connection, each a
// frame: a 4-byte big-endian length, then that many bytes of MessagePack (nlohmann's), so
// paths and environment values travel byte for byte, whatever their encoding.
//
// Who asks is never in the request: the server takes it from the kernel (SO_PEERCRED) on its
// Unix socket, and from the request's MUNGE credential over TCP (client.h, server.h).
// decode_*() fail (an Error naming the field) for anything but what encode() writes: an
// unknown operation, a missing or mistyped field, a request over k_max_request_bytes or a
// reply over k_max_reply_bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "state/records.h"
#include "supervisor/registrations/registrar.h"

namespace control {

// What the daemon reads from anybody (a request), and what a client reads from its daemon
// (a reply: `status --json` of every job of a large site is tens of MB).
inline constexpr std::uint32_t k_max_request_bytes = 4U * 1024 * 1024;
inline constexpr std::uint32_t k_max_reply_bytes = 256U * 1024 * 1024;
// Over TCP a frame holds a MUNGE credential whose payload is the request
// (munge_credential.h): munged's own limit on a message.
inline constexpr std::uint32_t k_max_tcp_request_bytes = 1024U * 1024;
inline constexpr std::uint32_t k_protocol_version = 1;
// register_many: at most this many jobs per request, so that one request holds the daemon's
// single thread (and its polling) for well under a second; the CLI sends more in batches.
inline constexpr std::size_t k_max_jobs_per_request = 1000;

// register_many: many jobs with the same options, one Slurm query and one transaction.
// job_ended: Slurm's EpilogSlurmctld says a job (or a run of it) ended; a hint to look now.
// daemon: who serves this channel and whether its loop is alive (DaemonInfo), for anyone.
// nodes: the nodes the correlation across jobs made suspect, for operators (views.h).
// resume_node: an operator resumes a node and the supervisor watches it (node_records.h).
enum class Operation {
    register_job,
    register_many,
    unregister_job,
    status,
    events,
    env,
    job_ended,
    daemon,
    nodes,
    resume_node
};

[[nodiscard]] std::string_view to_string(Operation operation);

struct Request {
    Operation operation = Operation::status;
    std::string job;    // a job id's text; status: empty for every job the caller may see
    bool all = false;   // status: finished and unregistered jobs too
    bool json = false;  // status, events, env: the --json form of the output
    // status listing, one page: at most `limit` jobs (0: every one), those listed after the
    // job `after` (empty: from the first), in the listing's order.
    std::uint32_t limit = 0;
    std::string after;
    // register, register_many: the options (caller is ignored: the server sets it from the
    // socket).
    supervisor::RegisterRequest registration;
    // register_many: the job ids' texts, each registered with `registration`'s options.
    std::vector<std::string> jobs;
    // register_many (`register --mine`): a job the caller already has watched (not in
    // credential_error) is left as it is and answered `already_watched`, not refused.
    bool keep_watched = false;
    // env: the job's own environment, sent by `supervisor env` from inside the job, so that a
    // resubmit can give the new job the owner's environment (stored only for the owner).
    std::vector<std::string> environment;
    // env, from inside the job: the host it runs on and Slurm's restart count of the run
    // (SLURM_RESTART_COUNT; -1 when not in a job), so the daemon can record which attempt
    // fetched its settings, and from where.
    std::string host;
    std::int64_t restart_count = -1;
    // resume_node: the node's name.
    std::string node;
};

// The daemon's answer to `daemon`: what `register`, `sbatch` and `status` say of who watches.
struct DaemonInfo {
    std::string host;
    std::int64_t pid = 0;
    std::int64_t started_at = 0;     // Unix seconds
    std::int64_t last_cycle_at = 0;  // the end of its last poll cycle; 0: none yet
    std::uint64_t cycles = 0;
    std::int64_t poll_interval_ms = 0;
    std::int64_t now = 0;  // the daemon's clock when it answered (ages are taken from it)
};

// What `supervisor register` prints about the registration it made.
struct Registered {
    std::string job;
    std::string job_name;
    state::Status status = state::Status::pending;
    std::string status_reason;
    std::vector<std::string> allowed_actions;
    std::uint32_t max_attempts = 0;
    std::string checkpoint_dir;
    std::int64_t stall_timeout_s = 0;
    // With resubmit whitelisted: the options a resubmit cannot reproduce (absent from the
    // replies of daemons older than this field: none said).
    std::vector<std::string> not_carried;
};

// register_many: what became of one job, `registered` or refused with `error`.
struct JobRegistered {
    std::string job;
    std::optional<Registered> registered;
    common::Error error;
    bool already_watched = false;  // keep_watched: left as it was (neither field set)
};

struct Reply {
    int exit_status = 0;                   // what the command exits with
    std::string output;                    // printed on stdout as it is
    common::Error error;                   // exit_status != 0: printed as "error: ... hint: ..."
    std::optional<Registered> registered;  // register, when it registered
    std::vector<JobRegistered> each;       // register_many: one per job, in the request's order
    // env, status of one job, events: false when the job is not registered or not the caller's
    // (env's output says so too; the others' error does)
    bool job_known = true;
    // nodes: false when the caller is no operator (the error says so)
    bool permitted = true;
    std::optional<DaemonInfo> daemon;  // daemon
};

[[nodiscard]] std::string encode(const Request& request);
[[nodiscard]] std::string encode(const Reply& reply);
[[nodiscard]] common::Result<Request> decode_request(std::string_view payload);
[[nodiscard]] common::Result<Reply> decode_reply(std::string_view payload);

}  // namespace control
