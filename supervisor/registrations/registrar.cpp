#include "supervisor/registrations/registrar.h"

#include <filesystem>
#include <map>
#include <set>
#include <string_view>

#include <spdlog/spdlog.h>

#include "common/file_identity.h"
#include "common/try.h"
#include "notify/target.h"
#include "recovery/cause.h"
#include "recovery/progress_pattern.h"
#include "recovery/whitelist.h"
#include "supervisor/actions/carried_environment.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/journal/array_summary.h"
#include "supervisor/journal/journal.h"
#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/registrations/checkpoint_dir_pattern.h"
#include "supervisor/registrations/expected_rate.h"
#include "supervisor/registrations/registration_check.h"
#include "supervisor/steps/knobs.h"

namespace supervisor {
namespace {

common::Result<std::vector<recovery::Knob>> parse_knobs(const std::vector<std::string>& specs) {
    std::vector<recovery::Knob> knobs;
    std::set<std::string> variables;
    for (const auto& spec : specs) {
        auto knob = TRY(recovery::parse_knob(spec));
        if (recovery::find_knob(knobs, knob.name) != nullptr) {
            return common::fail("--knob " + knob.name + " is given twice",
                                "declare each knob once");
        }
        for (const auto& variable : {knob.env, knob.compensate}) {
            if (variable.empty()) {
                continue;
            }
            if (variable.starts_with("SUPERVISOR_") || variable.starts_with("SLURM_")) {
                return common::fail("--knob " + spec + ": " + variable + " is reserved",
                                    "use the variable your training script reads");
            }
            TRY(validate_env_entry(variable, "1"));
            if (!variables.insert(variable).second) {
                return common::fail(
                    "--knob " + spec + ": " + variable + " is already used by another knob",
                    "give each knob its own variables");
            }
        }
        knobs.push_back(std::move(knob));
    }
    return knobs;
}

// With resubmit whitelisted, the job's script and options, read now while slurmctld has them,
// and the options it uses that a resubmit cannot reproduce (`not_carried`).
common::Result<std::optional<state::JobSpec>> capture_spec(slurm::Client& client,
                                                           const slurm::JobSnapshot& job,
                                                           const RegisterRequest& request,
                                                           const recovery::Whitelist& whitelist,
                                                           common::TimePoint now,
                                                           std::vector<std::string>& not_carried) {
    if (!whitelist.allows(recovery::ActionKind::resubmit)) {
        return std::nullopt;
    }
    const std::string id = request.job.to_string();
    auto script = client.load_batch_script(request.job);
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
    not_carried = slurm::options_not_carried(job, !request.script_argv.empty());
    if (!own_job) {
        not_carried.emplace_back(
            "--export (the job's own environment, until it runs `supervisor env`: a "
            "resubmit before that gets the owner's login basics)");
    } else if (request.script_argv.empty()) {
        not_carried.emplace_back(
            "--export of variables set only at submission (a resubmit gets the environment "
            "of this registration)");
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
    TRY(recovery::parse_whitelist(request.allowed_actions));
    if (auto targets = notify::parse_targets(request.notify); !targets) {
        return common::fail("--notify: " + targets.error().message, targets.error().hint);
    }
    TRY(parse_knobs(request.knobs));
    if (request.stall_timeout_s < 0) {
        return common::fail("--stall-timeout must not be negative", "0 turns it off");
    }
    if (!request.progress_pattern.empty()) {
        TRY(recovery::ProgressPattern::compile(request.progress_pattern));
    }
    TRY(check_expected_rate(request.expect_steps_per_hour, request.progress_pattern));
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

namespace {

// A job still watched is not registered again (a credential_error or unregistered one is
// checked again in place, keeping its history).
std::optional<common::Error> already_registered(const std::optional<state::Registration>& existing,
                                                const common::JobId& job) {
    if (!existing || !existing->watching || existing->status == state::Status::credential_error) {
        return std::nullopt;
    }
    const std::string id = job.to_string();
    return common::Error{"job " + id + " is already registered (status " +
                             std::string(state::to_string(existing->status)) + ")",
                         "see `supervisor status " + id + "`; `supervisor unregister " + id +
                             "` first to change its options"};
}

// What registering one job will write, worked out before anything is written.
struct Prepared {
    state::Registration registration;
    bool existed = false;  // re-checked in place (credential_error or unregistered)
    std::vector<recovery::Knob> knobs;
    std::optional<state::JobSpec> spec;
    std::vector<std::string> not_carried;  // what a resubmit cannot reproduce (capture_spec)
    const slurm::JobSnapshot* job = nullptr;
};

common::Result<Prepared> prepare(slurm::Client& client, const Config& config,
                                 const RegisterRequest& request,
                                 const std::optional<state::Registration>& existing,
                                 const slurm::JobSnapshot& job, common::TimePoint now) {
    if (auto refused = already_registered(existing, request.job)) {
        return tl::unexpected(*refused);
    }
    if (job.heterogeneous) {
        // Requeued, a heterogeneous job restarts all its components, but the supervisor
        // diagnoses, excludes nodes and resubmits per allocation: refused rather than half done.
        return common::fail("job " + request.job.to_string() +
                                " is part of a heterogeneous job (submitted with ':' or `#SBATCH "
                                "hetjob`), which the supervisor does not support",
                            "submit the components as separate jobs (or one homogeneous job) "
                            "and register those");
    }
    // Cannot fail: check_request parsed the same text.
    const auto whitelist = recovery::parse_whitelist(request.allowed_actions).value();
    Prepared prepared;
    prepared.job = &job;
    prepared.existed = existing.has_value();
    prepared.knobs = parse_knobs(request.knobs).value();
    // Patterns first (%A_%a: each task its own directory), then made absolute.
    std::string checkpoint_dir = request.checkpoint_dir;
    std::string checkpoint_pattern = request.checkpoint_pattern;
    for (auto* text : {&checkpoint_dir, &checkpoint_pattern}) {
        if (has_job_pattern(*text)) {
            auto expanded = expand_job_patterns(*text, job);
            if (!expanded) {
                return common::fail(
                    "job " + request.job.to_string() + ": " +
                        (text == &checkpoint_dir ? "--checkpoint-dir " : "--checkpoint-pattern ") +
                        expanded.error().message,
                    expanded.error().hint);
            }
            *text = std::move(*expanded);
        }
    }
    if (!checkpoint_dir.empty()) {
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(checkpoint_dir, ec);
        checkpoint_dir = ec ? checkpoint_dir : absolute.lexically_normal().string();
    }
    if (job.time_limit) {
        prepared.knobs.push_back(time_limit_knob(*job.time_limit, config.time_limit_max_factor));
    }
    prepared.spec = TRY(capture_spec(client, job, request, whitelist, now, prepared.not_carried));
    auto& registration = prepared.registration;
    registration = existing.value_or(state::Registration{});
    registration.job = request.job;
    registration.owner_uid = job.user_id;
    registration.registrant_uid = request.caller;
    registration.job_name = job.name;
    registration.checkpoint_dir = checkpoint_dir;
    registration.checkpoint_pattern = checkpoint_pattern;
    registration.checkpoint_marker = request.checkpoint_marker;
    registration.knobs_json = knobs_to_json(prepared.knobs);
    registration.allowed_actions = request.allowed_actions;
    registration.max_attempts = request.max_attempts;
    registration.notify = request.notify;
    registration.stall_timeout_s = request.stall_timeout_s;
    registration.progress_pattern = request.progress_pattern;
    registration.expect_steps_per_hour = request.expect_steps_per_hour;
    registration.whole_array = request.whole_array && request.job.array_task.has_value();
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
    return prepared;
}

// Inside a transaction: the pending registration, its event, first attempt, resume environment
// and job spec. Fails when another process registered the job meanwhile.
common::Result<void> write_pending(state::Store& store, const Prepared& prepared,
                                   const RegisterRequest& request, common::TimePoint now) {
    const auto& registration = prepared.registration;
    if (prepared.existed) {
        store.update_registration(registration);
    } else if (auto inserted = store.insert_registration(registration); !inserted) {
        return tl::unexpected(inserted.error());
    }
    RegisteredEvent registered;
    registered.allowed_actions = request.allowed_actions;
    registered.max_attempts = request.max_attempts;
    registered.checkpoint_dir = registration.checkpoint_dir;
    registered.knobs = request.knobs;
    registered.resubmit_spec_stored = prepared.spec.has_value();
    registered.resubmit_not_carried = prepared.not_carried;
    registered.stall_timeout_s = request.stall_timeout_s;
    registered.progress_pattern = request.progress_pattern;
    registered.expect_steps_per_hour = request.expect_steps_per_hour;
    record_event(store, request.job, now,
                 "registered " + request.job.to_string() + " (" + registration.job_name +
                     "), Slurm state " + registration.last_slurm_state,
                 registered);
    if (!prepared.existed) {
        store.upsert_attempt(new_attempt(request.job, 1, prepared.job->restart_count));
    }
    if (prepared.job->state == slurm::JobState::running) {
        // The daemon records a start when it sees the job's state change to RUNNING; a job
        // registered while it runs shows it no such change, so its start is recorded here.
        record_attempt_start(store, request.job, registration.attempt, *prepared.job, now);
    }
    auto env =
        prepared.existed ? store.resume_env(request.job) : state::ResumeEnv{{k_attempt, "1"}};
    export_knobs(prepared.knobs, env);
    store.set_resume_env(request.job, env);
    if (prepared.spec) {
        store.set_job_spec(*prepared.spec);
    }
    if (!prepared.not_carried.empty()) {
        std::string options;
        for (const auto& option : prepared.not_carried) {
            options += (options.empty() ? "" : "; ") + option;
        }
        record_event(store, request.job, now, "a resubmit of this job cannot carry: " + options,
                     ResubmitLimitsEvent{prepared.not_carried});
    }
    return {};
}

// The registration checks, with the files looked at as the job's owner can see them (a root
// site daemon registering for a user must not vouch for a log only root can read).
std::optional<common::Error> check_as_owner(const state::Registration& registration,
                                            const slurm::JobSnapshot& job, uid_t caller,
                                            bool caller_is_operator) {
    auto as_owner =
        common::ScopedFileIdentity::assume(common::identity_of(job.user_id, job.group_id));
    if (!as_owner) {
        return as_owner.error();
    }
    return check_registration(registration, owner_choices_of(registration), job,
                              {caller, caller_is_operator});
}

void apply_verdict(state::Store& store, state::Registration& registration,
                   const std::optional<common::Error>& problem, common::TimePoint now) {
    const auto observation = problem ? Observation::validation_failed : Observation::validated;
    const auto reason = problem ? problem->message + " (fix: " + problem->hint + ")"
                                : std::string("registration checks passed");
    const auto move = apply_transition(store, registration, observation, reason, now);
    tell_of_move(store, registration, move, reason, now);
    store.update_registration(registration);
}

common::Error not_reachable(const std::string& what, const slurm::Error& error) {
    return common::Error{"cannot register " + what + ": " + error.message,
                         "check that slurmctld is running (`scontrol ping`) and try again"};
}

common::Error not_known(const std::string& id) {
    return common::Error{
        "job " + id + " is not known to slurmctld",
        "check the id with `squeue -j " + id + "`; a job that ended long ago may have been purged"};
}

}  // namespace

common::Result<state::Registration> register_job(state::Store& store, slurm::Client& client,
                                                 const common::Clock& clock, const Config& config,
                                                 const RegisterRequest& request) {
    const std::string id = request.job.to_string();
    TRY(check_request(request));
    const auto existing = store.registration(request.job);
    if (auto refused = already_registered(existing, request.job)) {
        return tl::unexpected(*refused);
    }
    const common::JobId ids[] = {request.job};
    const auto query = client.load_jobs(ids);
    if (!query) {
        return tl::unexpected(not_reachable("job " + id, query.error()));
    }
    if (query->jobs.empty()) {
        return tl::unexpected(not_known(id));
    }
    const auto now = clock.now();
    auto prepared = TRY(prepare(client, config, request, existing, query->jobs.front(), now));
    {
        auto transaction = store.begin();
        TRY(write_pending(store, prepared, request, now));
        transaction.commit();
    }

    // Checked after the pending row is durable: a crash here leaves `pending`, which the
    // daemon checks again. Compared below as stored (the store keeps times in milliseconds).
    auto registration = store.registration(request.job).value_or(prepared.registration);
    const auto is_operator = client.ask_is_operator_uid(request.caller);
    const auto problem = check_as_owner(registration, query->jobs.front(), request.caller,
                                        is_operator && *is_operator);
    auto transaction = store.begin();
    if (const auto stored = store.registration(request.job); !(stored && *stored == registration)) {
        // A running daemon checked the pending registration first; its verdict stands.
        transaction.commit();
        return stored ? *stored : registration;
    }
    apply_verdict(store, registration, problem, clock.now());
    transaction.commit();
    (void)write_env_file(env_file_path(config.state_dir, request.job),
                         store.resume_env(request.job));
    return registration;
}

std::vector<std::string> resubmit_not_carried(const state::Store& store, const common::JobId& job) {
    const auto events = store.events(job);
    for (auto event = events.rbegin(); event != events.rend(); ++event) {
        if (const auto registered = decode<RegisteredEvent>(*event)) {
            return registered->resubmit_not_carried;
        }
    }
    return {};
}

std::vector<BulkRegistration> register_jobs(state::Store& store, slurm::Client& client,
                                            const common::Clock& clock, const Config& config,
                                            const RegisterRequest& options,
                                            std::span<const common::JobId> jobs) {
    std::vector<BulkRegistration> results;
    results.reserve(jobs.size());
    auto fail_all = [&](const common::Error& error) {
        for (const auto& job : jobs) {
            results.push_back({job, tl::unexpected(error)});
        }
        return results;
    };
    if (auto checked = check_request(options); !checked) {
        return fail_all(checked.error());
    }
    const auto query = client.load_jobs(jobs);  // one query for all
    if (!query) {
        return fail_all(not_reachable(std::to_string(jobs.size()) + " jobs", query.error()));
    }
    std::map<common::JobId, const slurm::JobSnapshot*> snapshots;
    for (const auto& job : query->jobs) {
        snapshots.emplace(job.id, &job);
    }
    const auto is_operator = client.ask_is_operator_uid(options.caller);
    const auto now = clock.now();
    // Worked out and checked first, written in one transaction: registering a thousand jobs
    // costs one commit, and a crash before it leaves none of them half-written.
    std::vector<std::pair<std::size_t, Prepared>> ready;
    std::vector<std::optional<common::Error>> problems;
    std::set<common::JobId> seen;
    for (const auto& job : jobs) {
        const auto it = snapshots.find(job);
        if (!seen.insert(job).second) {
            results.push_back({job, common::fail("job " + job.to_string() + " is named twice",
                                                 "name each job once")});
            continue;
        }
        if (it == snapshots.end()) {
            results.push_back({job, tl::unexpected(not_known(job.to_string()))});
            continue;
        }
        auto request = options;
        request.job = job;
        // The rows of these jobs alone (by key): a request of ten jobs costs ten rows, however
        // many every user has registered.
        auto prepared = prepare(client, config, request, store.registration(job), *it->second, now);
        results.push_back({job, prepared
                                    ? common::Result<state::Registration>(prepared->registration)
                                    : tl::unexpected(prepared.error())});
        if (prepared) {
            problems.push_back(check_as_owner(prepared->registration, *it->second, options.caller,
                                              is_operator && *is_operator));
            ready.emplace_back(results.size() - 1, std::move(*prepared));
        }
    }
    auto transaction = store.begin();
    for (std::size_t i = 0; i < ready.size(); ++i) {
        auto& [index, prepared] = ready[i];
        auto request = options;
        request.job = prepared.registration.job;
        if (auto written = write_pending(store, prepared, request, now); !written) {
            results[index].result = tl::unexpected(written.error());
            continue;
        }
        apply_verdict(store, prepared.registration, problems[i], now);
        results[index].result = prepared.registration;
    }
    transaction.commit();
    // Each env file renamed into place, then one sync for all of them.
    for (const auto& [index, prepared] : ready) {
        if (results[index].result) {
            (void)write_env_file(env_file_path(config.state_dir, prepared.registration.job),
                                 store.resume_env(prepared.registration.job),
                                 common::Durability::rename_only);
        }
    }
    if (!ready.empty()) {
        (void)common::sync_file_system_of(
            env_file_path(config.state_dir, ready.front().second.registration.job).parent_path());
    }
    return results;
}

common::Result<ExpandedJobs> expand_arrays(slurm::Client& client,
                                           std::span<const common::JobId> ids) {
    std::vector<common::JobId> whole;  // ids that may name an array
    for (const auto& id : ids) {
        if (!id.array_task) {
            whole.push_back(id);
        }
    }
    std::set<std::uint32_t> arrays;
    if (!whole.empty()) {
        const auto query = client.load_jobs(whole);
        if (!query) {
            return tl::unexpected(not_reachable(ids.size() == 1
                                                    ? "job " + ids.front().to_string()
                                                    : std::to_string(ids.size()) + " jobs",
                                                query.error()));
        }
        for (const auto& job : query->jobs) {
            if (!job.id.array_task && job.array_job_id == job.id.job) {
                arrays.insert(job.id.job);
            }
        }
    }
    ExpandedJobs expanded;
    std::set<common::JobId> listed;  // a task named alone and through its array: once
    auto add = [&](const common::JobId& id) {
        if (listed.insert(id).second) {
            expanded.jobs.push_back(id);
        }
    };
    for (const auto& id : ids) {
        if (id.array_task || !arrays.contains(id.job)) {
            add(id);
            continue;
        }
        const auto tasks = client.load_array_tasks(id.job);
        if (!tasks) {
            return tl::unexpected(not_reachable("job array " + id.to_string(), tasks.error()));
        }
        for (const auto task : *tasks) {
            add(common::JobId{id.job, task});
        }
        expanded.arrays.push_back(id);
    }
    return expanded;
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
    record_event(store, job, clock.now(),
                 "no longer watched (history kept); status was " +
                     std::string(state::to_string(registration->status)),
                 UnregisteredEvent{});
    if (registration->whole_array && registration->status != state::Status::completed) {
        // The last task of its array to end may be one its owner stopped watching.
        if (const auto summary = record_array_end_if_last(store, *registration, clock.now())) {
            tell_owner(store, *registration, *summary, clock.now());
        }
    }
    transaction.commit();
    return {};
}

}  // namespace supervisor
