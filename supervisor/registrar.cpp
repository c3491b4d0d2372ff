#include "supervisor/registrar.h"

#include <filesystem>

#include "recovery/cause.h"
#include "supervisor/journal.h"
#include "supervisor/registration_check.h"
#include "supervisor/resume_env.h"

namespace supervisor {
namespace {

common::Result<void> check_actions(const std::vector<std::string>& actions) {
    for (const auto& name : actions) {
        if (!recovery::action_from_string(name)) {
            std::string known;
            for (const auto kind : recovery::all_actions()) {
                known += (known.empty() ? "" : ", ") + std::string(recovery::to_string(kind));
            }
            return common::fail("unknown action '" + name + "' in --allow",
                                "known actions: " + known);
        }
    }
    return {};
}

}  // namespace

common::Result<state::Registration> register_job(state::Store& store, slurm::Client& client,
                                                 const common::Clock& clock,
                                                 const Config& config,
                                                 const RegisterRequest& request) {
    const std::string id = request.job.to_string();
    if (auto valid = check_actions(request.allowed_actions); !valid) {
        return tl::unexpected(valid.error());
    }
    if (request.max_attempts < 1 || request.max_attempts > 1000) {
        return common::fail("--max-attempts must be between 1 and 1000",
                            "it counts every run, the first one included");
    }
    auto existing = store.registration(request.job);
    if (existing && existing->watching && existing->status != state::Status::credential_error) {
        return common::fail("job " + id + " is already registered (status " +
                                std::string(state::to_string(existing->status)) + ")",
                            "see `supervisor status " + id + "`; `supervisor unregister " + id +
                                "` first to change its options");
    }

    const common::JobId ids[] = {request.job};
    const auto query = client.load_jobs(ids);
    if (!query) {
        return common::fail("cannot register job " + id + ": " + query.error().message,
                            "check that slurmctld is running (`scontrol ping`) and try again");
    }
    if (query->jobs.empty()) {
        return common::fail("job " + id + " is not known to slurmctld",
                            "check the id with `squeue -j " + id +
                                "`; a job that ended long ago may have been purged");
    }
    const auto& job = query->jobs.front();

    std::string checkpoint_dir = request.checkpoint_dir;
    if (!checkpoint_dir.empty()) {
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(checkpoint_dir, ec);
        checkpoint_dir = ec ? checkpoint_dir : absolute.lexically_normal().string();
    }
    const auto now = clock.now();
    state::Registration registration = existing.value_or(state::Registration{});
    registration.job = request.job;
    registration.owner_uid = job.user_id;
    registration.job_name = job.name;
    registration.checkpoint_dir = checkpoint_dir;
    registration.allowed_actions = request.allowed_actions;
    registration.max_attempts = request.max_attempts;
    registration.notify = request.notify;
    registration.watching = true;
    registration.status = state::Status::pending;
    registration.outcome = state::Outcome::none;
    registration.status_reason = "checking access";
    registration.seen_restart_count = job.restart_count;
    registration.last_slurm_state = std::string(slurm::to_string(job.state));
    registration.updated_at = now;
    if (!existing) {
        registration.created_at = now;
        registration.attempt = 1;
    }

    {
        auto transaction = store.begin();
        if (existing) {
            store.update_registration(registration);
        } else if (auto inserted = store.insert_registration(registration); !inserted) {
            return tl::unexpected(inserted.error());
        }
        record_event(store, request.job, now, "registered",
                     "registered " + id + " (" + job.name + "), Slurm state " +
                         registration.last_slurm_state,
                     {{"allowed_actions", request.allowed_actions},
                      {"max_attempts", request.max_attempts},
                      {"checkpoint_dir", checkpoint_dir}});
        if (!existing) {
            store.upsert_attempt(new_attempt(request.job, 1, job.restart_count));
            store.set_resume_env(request.job, {{k_attempt, "1"}});
        }
        transaction.commit();
    }

    // Checked after the pending row is durable: a crash here leaves `pending`, which the
    // daemon checks again. Compared below as stored (the store keeps times in milliseconds).
    registration = store.registration(request.job).value_or(registration);
    const auto problem = check_registration(registration, job, request.caller);
    auto transaction = store.begin();
    if (const auto stored = store.registration(request.job); !(stored && *stored == registration)) {
        // A running daemon checked the pending registration first; its verdict stands.
        transaction.commit();
        return stored ? *stored : registration;
    }
    if (problem) {
        apply_transition(store, registration, Observation::validation_failed,
                         problem->message + " (fix: " + problem->hint + ")", clock.now());
    } else {
        apply_transition(store, registration, Observation::validated, "registration checks passed",
                         clock.now());
    }
    store.update_registration(registration);
    transaction.commit();
    (void)write_env_file(env_file_path(config.state_dir, request.job),
                         store.resume_env(request.job));
    return registration;
}

common::Result<void> unregister_job(state::Store& store, const common::Clock& clock,
                                    const common::JobId& job) {
    auto registration = store.registration(job);
    if (!registration) {
        return common::fail("job " + job.to_string() + " is not registered",
                            "see `supervisor status` for the registered jobs");
    }
    auto transaction = store.begin();
    registration->watching = false;
    registration->updated_at = clock.now();
    store.update_registration(*registration);
    record_event(store, job, clock.now(), "unregistered",
                 "no longer watched (history kept); status was " +
                     std::string(state::to_string(registration->status)));
    transaction.commit();
    return {};
}

}  // namespace supervisor
