#include "control/handlers.h"

#include <map>

#include <spdlog/spdlog.h>

#include "common/printable.h"
#include "common/try.h"
#include "common/user_account.h"
#include "control/views.h"
#include "slurm/submit_request.h"
#include "supervisor/actions/carried_environment.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/failure/node_records.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/registrations/registrar.h"
#include "supervisor/watches/settings_fetch.h"

namespace control {
namespace {

Reply failed(common::Error error, int exit_status = 1) {
    Reply reply;
    reply.exit_status = exit_status;
    reply.error = std::move(error);
    return reply;
}

Reply printed(std::string output) {
    Reply reply;
    reply.output = std::move(output);
    return reply;
}

common::Error not_registered(const common::JobId& job) {
    return {"job " + job.to_string() + " is not registered",
            "`supervisor status` lists your registered jobs"};
}

}  // namespace

bool Handlers::is_operator(uid_t uid) {
    const auto answer = m_client.ask_is_operator_uid(uid);
    return answer && *answer;
}

std::optional<state::Registration> Handlers::visible(const common::JobId& job, const Peer& peer) {
    auto registration = m_store.registration(job);
    if (registration && (registration->owner_uid == peer.uid || is_operator(peer.uid))) {
        return registration;
    }
    return std::nullopt;
}

Reply Handlers::handle(const Request& request, const Peer& peer) {
    if (m_only_uid && peer.uid != *m_only_uid) {
        return failed({"this daemon is uid " + std::to_string(*m_only_uid) +
                           "'s own (per-user mode) and serves no one else; you are uid " +
                           std::to_string(peer.uid),
                       "run a daemon of your own (`supervisor run --listen`), or use the "
                       "site's (client.conf)"});
    }
    try {
        switch (request.operation) {
            case Operation::register_job:
                return register_job(request, peer);
            case Operation::register_many:
                return register_many(request, peer);
            case Operation::unregister_job:
                return unregister_job(request, peer);
            case Operation::status:
                return status(request, peer);
            case Operation::events:
                return events(request, peer);
            case Operation::env:
                return env(request, peer);
            case Operation::job_ended:
                return job_ended(request, peer);
            case Operation::daemon:
                return daemon_info();
            case Operation::nodes:
                return nodes(request, peer);
            case Operation::resume_node:
                return resume_node(request, peer);
        }
        return failed({"unknown operation", ""});
    } catch (const std::exception& error) {
        // The store failed (or a bug): this request fails, the daemon and its socket go on.
        spdlog::error("control request {} from uid {} failed: {}", to_string(request.operation),
                      peer.uid, common::printable(error.what()));
        return failed({std::string("the daemon could not answer: ") + error.what(),
                       "try again; if it persists, the daemon's log says more"},
                      2);
    }
}

namespace {

// What a registration may ask over the channel, beyond what it may ask of a local database: a
// relative path would mean the daemon's working directory, not the caller's (the CLI sends
// absolute ones; only another client sends a relative one).
common::Result<void> checked_over_channel(const supervisor::RegisterRequest& options) {
    TRY(supervisor::check_request(options));
    if (!options.checkpoint_dir.empty() && !options.checkpoint_dir.starts_with('/')) {
        return common::fail("--checkpoint-dir '" + common::printable(options.checkpoint_dir) +
                                "' is relative: the daemon does not share your working directory",
                            "give an absolute path (the supervisor CLI sends one)");
    }
    return {};
}

}  // namespace

std::string channel_of(const Peer& peer) {
    return peer.address.empty() ? "unix socket" : "tcp from " + peer.address;
}

Reply Handlers::register_job(const Request& request, const Peer& peer) {
    auto job = common::JobId::parse(request.job);
    if (!job) {
        return failed(job.error());
    }
    auto options = request.registration;
    options.job = *job;
    options.caller = peer.uid;  // the kernel's word, never the request's
    if (auto checked = checked_over_channel(options); !checked) {
        return failed(checked.error());
    }
    // Refused before anything is written: a user may not even leave a row for another
    // user's job (it would block its owner's own registration).
    const common::JobId ids[] = {*job};
    const auto query = m_client.load_jobs(ids);
    if (!query) {
        return failed({"cannot register job " + job->to_string() + ": " + query.error().message,
                       "check that slurmctld is running (`scontrol ping`) and try again"});
    }
    if (query->jobs.empty()) {
        return failed({"job " + job->to_string() + " is not known to slurmctld",
                       "check the id with `squeue -j " + job->to_string() + "`"});
    }
    if (auto refused = refusal(query->jobs.front(), peer)) {
        return failed(*refused);
    }
    const auto registration =
        supervisor::register_job(m_store, m_client, m_clock, m_config, options);
    if (!registration) {
        return failed(registration.error());
    }
    Reply reply;
    reply.registered = registered_summary(*registration, m_store);
    spdlog::info("job {} registered by uid {} ({}): {}", job->to_string(), peer.uid,
                 channel_of(peer), state::to_string(registration->status));
    return reply;
}

Reply Handlers::register_many(const Request& request, const Peer& peer) {
    if (request.jobs.size() > k_max_jobs_per_request) {
        return failed({std::to_string(request.jobs.size()) + " jobs in one request, more than " +
                           std::to_string(k_max_jobs_per_request),
                       "use the `supervisor` installed with the daemon: it sends them in "
                       "batches"});
    }
    std::vector<common::JobId> ids;
    ids.reserve(request.jobs.size());
    for (const auto& text : request.jobs) {
        auto job = common::JobId::parse(text);
        if (!job) {
            return failed(job.error());
        }
        ids.push_back(*job);
    }
    auto options = request.registration;
    options.caller = peer.uid;  // the kernel's word, never the request's
    if (auto checked = checked_over_channel(options); !checked) {
        return failed(checked.error());
    }
    // As for one job: each job is refused before anything is written when it, or the row under
    // its id, is someone else's. One query for all; the jobs let through are registered with
    // one more (register_jobs') and one transaction.
    const auto query = m_client.load_jobs(ids);
    if (!query) {
        return failed(
            {"cannot register " + std::to_string(ids.size()) + " jobs: " + query.error().message,
             "check that slurmctld is running (`scontrol ping`) and try again"});
    }
    std::map<common::JobId, const slurm::JobSnapshot*> known;
    for (const auto& job : query->jobs) {
        known.emplace(job.id, &job);
    }
    Reply reply;
    reply.each.resize(ids.size());
    std::vector<common::JobId> allowed;
    std::vector<std::size_t> allowed_at;  // where each allowed job's answer goes in reply.each
    std::size_t kept = 0;                 // keep_watched: left as they were
    for (std::size_t i = 0; i < ids.size(); ++i) {
        reply.each[i].job = ids[i].to_string();
        const auto it = known.find(ids[i]);
        if (it == known.end()) {
            reply.each[i].error = {"job " + ids[i].to_string() + " is not known to slurmctld",
                                   "check the id with `squeue -j " + ids[i].to_string() + "`"};
        } else if (auto refused = refusal(*it->second, peer)) {
            reply.each[i].error = *refused;
        } else if (request.keep_watched && watched_already(ids[i])) {
            reply.each[i].already_watched = true;
            ++kept;
        } else {
            allowed.push_back(ids[i]);
            allowed_at.push_back(i);
        }
    }
    std::size_t enabled = 0;
    const auto results = allowed.empty() ? std::vector<supervisor::BulkRegistration>{}
                                         : supervisor::register_jobs(m_store, m_client, m_clock,
                                                                     m_config, options, allowed);
    for (std::size_t k = 0; k < results.size() && k < allowed_at.size(); ++k) {
        auto& item = reply.each[allowed_at[k]];
        const auto& result = results[k].result;
        if (!result) {
            item.error = result.error();
            continue;
        }
        enabled += result->status == state::Status::enabled ? 1 : 0;
        item.registered = registered_summary(*result, m_store);
    }
    spdlog::info("{} jobs registered by uid {} ({}): {} enabled, {} not{}", ids.size(), peer.uid,
                 channel_of(peer), enabled, ids.size() - enabled - kept,
                 kept == 0 ? "" : fmt::format(", {} already watched", kept));
    return reply;
}

bool Handlers::watched_already(const common::JobId& job) {
    const auto existing = m_store.registration(job);
    return existing && existing->watching && existing->status != state::Status::credential_error;
}

std::optional<common::Error> Handlers::refusal(const slurm::JobSnapshot& job, const Peer& peer) {
    // Neither the job Slurm shows nor a registration left under its id may be someone else's
    // (a user may not even leave a row for another user's job: it would block its owner).
    const auto existing = m_store.registration(job.id);
    const bool others = job.user_id != peer.uid || (existing && existing->owner_uid != peer.uid);
    if (others && !is_operator(peer.uid)) {
        return common::Error{"job " + job.id.to_string() + " is not yours",
                             "only a job's owner, or a Slurm operator, may register it"};
    }
    return std::nullopt;
}

Reply Handlers::job_ended(const Request& request, const Peer& peer) {
    auto job = common::JobId::parse(request.job);
    if (!job) {
        return failed(job.error());
    }
    // A report only makes the daemon look sooner, but a user could make it look without end:
    // only Slurm itself (EpilogSlurmctld, as SlurmUser or root) reports job ends.
    if (!is_operator(peer.uid)) {
        return failed({"only Slurm's EpilogSlurmctld (root or SlurmUser) reports job ends",
                       "nothing to do: the daemon sees your job's end by itself"});
    }
    if (m_pushes == nullptr) {
        return failed(
            {"this daemon takes no job-end reports", "nothing to do: it polls slurmctld"});
    }
    m_pushes->push(*job);
    return {};
}

Reply Handlers::unregister_job(const Request& request, const Peer& peer) {
    auto job = common::JobId::parse(request.job);
    if (!job) {
        return failed(job.error());
    }
    if (!visible(*job, peer)) {
        return failed(not_registered(*job));
    }
    if (auto done = supervisor::unregister_job(m_store, m_clock, *job); !done) {
        return failed(done.error());
    }
    spdlog::info("job {} unregistered by uid {} ({})", job->to_string(), peer.uid,
                 channel_of(peer));
    return printed("job " + job->to_string() + " is no longer watched; its history is kept " +
                   "(supervisor events " + job->to_string() + ")\n");
}

Reply Handlers::status(const Request& request, const Peer& peer) {
    StatusQuery query;
    query.all = request.all;
    query.json = request.json;
    query.limit = request.limit;
    if (!request.after.empty()) {
        auto after = common::JobId::parse(request.after);
        if (!after) {
            return failed(after.error());
        }
        query.after = *after;
    }
    if (!is_operator(peer.uid)) {
        query.owner = peer.uid;
    }
    if (!request.job.empty()) {
        auto job = common::JobId::parse(request.job);
        if (!job) {
            return failed(job.error());
        }
        query.job = *job;
    }
    auto text = status_view(m_store, query);
    if (!text) {
        auto reply = failed(text.error());
        reply.job_known = request.job.empty();  // one job asked for: it is not registered
        return reply;
    }
    return printed(std::move(*text));
}

Reply Handlers::events(const Request& request, const Peer& peer) {
    auto job = common::JobId::parse(request.job);
    if (!job) {
        return failed(job.error());
    }
    if (!visible(*job, peer)) {
        auto reply = failed(not_registered(*job));
        reply.job_known = false;
        return reply;
    }
    auto text = events_view(m_store, *job, request.json);
    return text ? printed(std::move(*text)) : failed(text.error());
}

Reply Handlers::env(const Request& request, const Peer& peer) {
    auto job = common::JobId::parse(request.job);
    if (!job) {
        return failed(job.error());
    }
    const auto registration = visible(*job, peer);
    if (!registration) {
        // As in per-user mode: the batch script goes on from scratch, told why.
        auto reply = printed(request.json ? "{}\n"
                                          : "# job " + job->to_string() +
                                                " is not registered with slurm-supervisor\n");
        reply.job_known = false;
        return reply;
    }
    if (registration->owner_uid == peer.uid && !request.environment.empty()) {
        // The job's own environment, from inside the job: what a resubmit gives the new one.
        if (auto spec = m_store.job_spec(*job)) {
            if (auto submit = slurm::submit_request_from_json_text(spec->request_json)) {
                auto carried = supervisor::carried_environment(request.environment);
                if (submit->environment != carried) {
                    submit->environment = std::move(carried);
                    spec->request_json = slurm::to_json_text(*submit);
                    auto transaction = m_store.begin();
                    m_store.set_job_spec(*spec);
                    transaction.commit();
                }
            }
        }
    }
    const auto env = m_store.resume_env(*job);
    if (registration->owner_uid == peer.uid && request.restart_count >= 0) {
        const auto resume_from = env.find(supervisor::k_resume_from);
        record_fetch(*registration, request, peer,
                     resume_from == env.end() ? std::string() : resume_from->second);
    }
    return printed(request.json ? supervisor::format_json(env) + "\n"
                                : supervisor::format_shell(env));
}

void Handlers::record_fetch(const state::Registration& registration, const Request& request,
                            const Peer& peer, const std::string& resume_from) {
    supervisor::SettingsFetchedEvent fetched;
    fetched.attempt = registration.attempt;
    fetched.restart_count = request.restart_count;
    fetched.host = request.host;  // made printable where it is journaled
    fetched.channel = channel_of(peer);
    fetched.resume_from = resume_from;
    m_fetches.push_back({registration.job, std::move(fetched), m_clock.now()});
}

void Handlers::journal_fetches() {
    if (m_fetches.empty()) {
        return;
    }
    try {
        auto transaction = m_store.begin();
        for (const auto& fetch : m_fetches) {
            supervisor::record_settings_fetched(m_store, fetch.job, fetch.event, fetch.at);
        }
        transaction.commit();
    } catch (const std::exception& error) {
        spdlog::error("control channel: {} fetches of settings not journaled: {}", m_fetches.size(),
                      common::printable(error.what()));
    }
    m_fetches.clear();
}

Reply Handlers::nodes(const Request& request, const Peer& peer) {
    if (!is_operator(peer.uid)) {
        auto reply =
            failed({"only operators (root, SlurmUser) see the suspect nodes: they come "
                    "from every user's jobs",
                    "your own jobs' nodes are in `supervisor status --json` and "
                    "`supervisor events JOBID`"});
        reply.permitted = false;
        return reply;
    }
    return printed(nodes_view(m_store, request.json));
}

Reply Handlers::resume_node(const Request& request, const Peer& peer) {
    if (!is_operator(peer.uid)) {
        auto reply = failed(
            {"only operators (root, SlurmUser) resume nodes", "ask the cluster's administrators"});
        reply.permitted = false;
        return reply;
    }
    if (request.node.empty() || request.node.size() > 255 ||
        request.node.find_first_of(" ,[]\n\t") != std::string::npos) {
        return failed({"'" + common::printable(request.node) + "' is not one node's name",
                       "name one node, e.g. `supervisor nodes resume n3`"});
    }
    const auto account = common::user_account(peer.uid);
    const std::string by = (account ? account->name : "uid " + std::to_string(peer.uid)) +
                           " (supervisor nodes resume, " + channel_of(peer) + ")";
    auto done = supervisor::resume_and_watch(m_store, m_client, request.node, by,
                                             m_config.node_watch_after_resume, m_clock.now());
    if (!done) {
        return failed(done.error());
    }
    spdlog::info("control channel: node {} resumed by {}: {}", request.node, by, *done);
    return printed(*done + "\n");
}

Reply Handlers::daemon_info() {
    Reply reply;
    DaemonInfo info;
    const auto seconds = [](common::TimePoint at) {
        return std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count();
    };
    if (m_liveness != nullptr) {
        const auto alive = m_liveness->snapshot();
        info.host = alive.host;
        info.pid = alive.pid;
        info.started_at = seconds(alive.started_at);
        info.last_cycle_at = seconds(alive.last_cycle_at);
        info.cycles = alive.cycles;
        info.poll_interval_ms = alive.poll_interval.count();
    }
    info.now = seconds(m_clock.now());
    reply.daemon = info;
    return reply;
}

}  // namespace control
