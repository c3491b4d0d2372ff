#include "supervisor/registrar.h"

#include <filesystem>
#include <set>
#include <string_view>

#include <spdlog/spdlog.h>

#include "common/file_identity.h"
#include "notify/target.h"
#include "recovery/cause.h"
#include "recovery/progress_pattern.h"
#include "recovery/whitelist.h"
#include "supervisor/carried_environment.h"
#include "supervisor/journal.h"
#include "supervisor/knobs.h"
#include "supervisor/registration_check.h"
#include "supervisor/resume_env.h"

namespace supervisor {
namespace {

common::Result<std::vector<recovery::Knob>> parse_knobs(const std::vector<std::string>& specs) {
    std::vector<recovery::Knob> knobs;
    std::set<std::string> variables;
    for (const auto& spec : specs) {
        auto knob = recovery::parse_knob(spec);
        if (!knob) {
            return tl::unexpected(knob.error());
        }
        if (recovery::find_knob(knobs, knob->name) != nullptr) {
            return common::fail("--knob " + knob->name + " is given twice",
                                "declare each knob once");
        }
        for (const auto& variable : {knob->env, knob->compensate}) {
            if (variable.empty()) {
                continue;
            }
            if (variable.starts_with("SUPERVISOR_") || variable.starts_with("SLURM_")) {
                return common::fail("--knob " + spec + ": " + variable + " is reserved",
                                    "use the variable your training script reads");
            }
            if (auto valid = validate_env_entry(variable, "1"); !valid) {
                return tl::unexpected(valid.error());
            }
            if (!variables.insert(variable).second) {
                return common::fail(
                    "--knob " + spec + ": " + variable + " is already used by another knob",
                    "give each knob its own variables");
            }
        }
        knobs.push_back(std::move(*knob));
    }
    return knobs;
}

// With resubmit whitelisted, the job's script and options, read now while slurmctld has them.
common::Result<std::optional<state::JobSpec>> capture_spec(slurm::Client& client,
                                                           const slurm::JobSnapshot& job,
                                                           const RegisterRequest& request,
                                                           const recovery::Whitelist& whitelist,
                                                           common::TimePoint now) {
    if (!whitelist.allows(recovery::ActionKind::resubmit)) {
        return std::nullopt;
    }
    const std::string id = request.job.to_string();
    auto script = client.batch_script(request.job);
    if (!script) {
        return common::fail("job " + id +
                                ": resubmit is whitelisted but slurmctld will not give "
                                "the job's batch script: " +
                                script.error().message,
                            "register it as its owner, or leave resubmit out of --allow");
    }
    // Only the owner's own environment is ever stored for their job: an operator registering
    // it (sudo) would hand the new job the operator's HOME, tokens and loader settings. Then
    // the job's own environment arrives later, from its `supervisor env` through the site
    // daemon (control/), and until it does a resubmit gets the owner's login basics.
    const bool own_job = request.caller == job.user_id;
    auto submit = slurm::submit_request_from(
        job, *script,
        own_job ? carried_environment(request.environment) : std::vector<std::string>{});
    if (!request.script_argv.empty()) {
        submit.argv = request.script_argv;  // exact, where Command= joined them with blanks
    } else if (!job.command_has_arguments) {
        spdlog::warn(
            "job {}: this Slurm release does not report a batch script's arguments, so "
            "a resubmitted job would run {} without any; if it takes arguments, submit "
            "it with `supervisor sbatch`, which keeps them",
            id, job.command);
    }
    state::JobSpec spec;
    spec.job = request.job;
    spec.script = std::move(*script);
    spec.request_json = slurm::to_json_text(submit);
    spec.captured_at = now;
    return spec;
}

}  // namespace

common::Result<void> check_request(const RegisterRequest& request) {
    if (auto whitelist = recovery::parse_whitelist(request.allowed_actions); !whitelist) {
        return tl::unexpected(whitelist.error());
    }
    if (auto targets = notify::parse_targets(request.notify); !targets) {
        return common::fail("--notify: " + targets.error().message, targets.error().hint);
    }
    if (auto knobs = parse_knobs(request.knobs); !knobs) {
        return tl::unexpected(knobs.error());
    }
    if (request.stall_timeout_s < 0) {
        return common::fail("--stall-timeout must not be negative", "0 turns it off");
    }
    if (!request.progress_pattern.empty()) {
        if (auto pattern = recovery::ProgressPattern::compile(request.progress_pattern); !pattern) {
            return tl::unexpected(pattern.error());
        }
    }
    if (request.max_attempts < 1 || request.max_attempts > 1000) {
        return common::fail("--max-attempts must be between 1 and 1000",
                            "it counts every run, the first one included");
    }
    if (request.checkpoint_pattern.find('/') != std::string::npos) {
        return common::fail(
            "--checkpoint-pattern '" + request.checkpoint_pattern + "' contains a '/'",
            "the pattern is matched against the names directly inside "
            "--checkpoint-dir; point --checkpoint-dir at the deeper directory "
            "instead");
    }
    return {};
}

common::Result<state::Registration> register_job(state::Store& store, slurm::Client& client,
                                                 const common::Clock& clock, const Config& config,
                                                 const RegisterRequest& request) {
    const std::string id = request.job.to_string();
    if (auto checked = check_request(request); !checked) {
        return tl::unexpected(checked.error());
    }
    // Cannot fail: check_request parsed the same text.
    const auto whitelist = recovery::parse_whitelist(request.allowed_actions).value();
    auto knobs = parse_knobs(request.knobs).value();
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
    if (job.time_limit) {
        knobs.push_back(time_limit_knob(*job.time_limit, config.time_limit_max_factor));
    }
    const auto spec = capture_spec(client, job, request, whitelist, now);
    if (!spec) {
        return tl::unexpected(spec.error());
    }
    state::Registration registration = existing.value_or(state::Registration{});
    registration.job = request.job;
    registration.owner_uid = job.user_id;
    registration.registrant_uid = request.caller;
    registration.job_name = job.name;
    registration.checkpoint_dir = checkpoint_dir;
    registration.checkpoint_pattern = request.checkpoint_pattern;
    registration.checkpoint_marker = request.checkpoint_marker;
    registration.knobs_json = knobs_to_json(knobs);
    registration.allowed_actions = request.allowed_actions;
    registration.max_attempts = request.max_attempts;
    registration.notify = request.notify;
    registration.stall_timeout_s = request.stall_timeout_s;
    registration.progress_pattern = request.progress_pattern;
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
                      {"checkpoint_dir", checkpoint_dir},
                      {"knobs", request.knobs},
                      {"resubmit_spec_stored", spec->has_value()},
                      {"stall_timeout_s", request.stall_timeout_s},
                      {"progress_pattern", request.progress_pattern}});
        if (!existing) {
            store.upsert_attempt(new_attempt(request.job, 1, job.restart_count));
        }
        auto env = existing ? store.resume_env(request.job) : state::ResumeEnv{{k_attempt, "1"}};
        export_knobs(knobs, env);
        store.set_resume_env(request.job, env);
        if (*spec) {
            store.set_job_spec(**spec);
        }
        transaction.commit();
    }

    // Checked after the pending row is durable: a crash here leaves `pending`, which the
    // daemon checks again. Compared below as stored (the store keeps times in milliseconds).
    registration = store.registration(request.job).value_or(registration);
    const auto is_operator = client.is_operator_uid(request.caller);
    // The files are checked as the job's owner can see them (a root site daemon registering
    // for a user must not vouch for a log only root can read).
    std::optional<common::Error> problem;
    if (auto as_owner =
            common::ScopedFileIdentity::assume(common::identity_of(job.user_id, job.group_id))) {
        problem =
            check_registration(registration, job, {request.caller, is_operator && *is_operator});
    } else {
        problem = as_owner.error();
    }
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
    store.delete_job_spec(job);  // the stored environment goes with the registration
    record_event(store, job, clock.now(), "unregistered",
                 "no longer watched (history kept); status was " +
                     std::string(state::to_string(registration->status)));
    transaction.commit();
    return {};
}

}  // namespace supervisor
