// `supervisor env`: the job side of the contract. A batch script runs
//     eval "$(supervisor env)"
// on every (re)start and gets SUPERVISOR_RESUME_FROM, SUPERVISOR_ATTEMPT and its knobs.
// With a daemon (site_mode.h: a Unix socket on this host, or client.conf's daemon over TCP from
// any host) the daemon answers, to the job's owner, and journals which attempt fetched its
// settings and from which host; a job it does not know is looked up in the user's own state
// directory. An unregistered job gets a shell comment and exit 0, so the script goes on from
// scratch.
//
// When no daemon can be asked (none set up on this host, or the one set up does not answer)
// and no state directory here holds a database, the job would train from scratch while the
// owner is told it resumes: that is an error on stderr and exit 1, unless --optional, which
// prints the same reason as a shell comment and exits 0. The error names no system error text
// (the job's log is what the daemon diagnoses): `supervisor doctor` on the node says more.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

extern char** environ;  // NOLINT: POSIX, the job's environment (sent to the site daemon)

#include "commands.h"
#include "common/try.h"
#include "control/client.h"
#include "session.h"
#include "site_mode.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/watches/settings_fetch.h"

namespace cli {
namespace {

struct EnvOptions {
    std::string job;
    bool json = false;
    bool optional = false;  // going on without settings is the owner's choice
};

std::string env_text(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// The registered id of the running job: an array task is registered as ARRAY_TASK.
common::Result<common::JobId> job_from_environment() {
    const auto array_job = env_text("SLURM_ARRAY_JOB_ID");
    const auto array_task = env_text("SLURM_ARRAY_TASK_ID");
    if (!array_job.empty() && !array_task.empty()) {
        return common::JobId::parse(array_job + "_" + array_task);
    }
    const auto job = env_text("SLURM_JOB_ID");
    if (job.empty()) {
        return common::fail("SLURM_JOB_ID is not set: not inside a Slurm job",
                            "run this in a batch script, or name the job with --job JOBID");
    }
    return common::JobId::parse(job);
}

std::string not_registered(const common::JobId& job, bool json) {
    return json ? "{}\n"
                : "# job " + job.to_string() + " is not registered with slurm-supervisor\n";
}

std::string host_name() {
    const auto node = env_text("SLURMD_NODENAME");
    if (!node.empty()) {
        return node;
    }
    char name[HOST_NAME_MAX + 1] = {};
    return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

std::int64_t restart_count() {
    const auto text = env_text("SLURM_RESTART_COUNT");
    if (env_text("SLURM_JOB_ID").empty()) {
        return -1;  // not inside a job: nothing to journal
    }
    try {
        return text.empty() ? 0 : std::stoll(text);
    } catch (const std::exception&) {
        return 0;
    }
}

// Why the job gets no settings, for its log: no settings at all, or, with --optional, a
// comment and the script goes on.
common::Result<int> no_settings(const common::JobId& job, const std::string& why,
                                const EnvOptions& options) {
    const std::string text =
        "no resume settings for job " + job.to_string() + " on host " + host_name() + ": " + why;
    if (options.optional) {
        std::fprintf(stderr, "supervisor env: %s (--optional: going on without them)\n",
                     text.c_str());
        std::fputs(options.json ? "{}\n" : ("# " + text + "\n").c_str(), stdout);
        return 0;
    }
    return common::fail(text + "; the job would start from scratch",
                        "run `supervisor doctor` on this host; to go on without settings "
                        "anyway, use `supervisor env --optional`");
}

// Per-user mode reads the database itself, so it journals the fetch itself, as the daemon's
// control channel does (settings_fetch.h reads it). A journal that cannot be written costs the
// job nothing: the settings are printed all the same, the reason on stderr.
void record_local_fetch(state::Store& store, const common::JobId& job,
                        const state::ResumeEnv& env) {
    const auto count = restart_count();
    if (count < 0) {
        return;
    }
    try {
        const auto registration = store.registration(job);
        if (!registration) {
            return;
        }
        supervisor::SettingsFetchedEvent fetched;
        fetched.attempt = registration->attempt;
        fetched.restart_count = count;
        fetched.host = host_name();
        fetched.channel = "state directory";
        if (const auto from = env.find(supervisor::k_resume_from); from != env.end()) {
            fetched.resume_from = from->second;
        }
        common::SystemClock clock;
        auto transaction = store.begin();
        supervisor::record_settings_fetched(store, job, fetched, clock.now());
        transaction.commit();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "supervisor env: the fetch was not journaled: %s\n", error.what());
    }
}

// The database read directly (per-user mode on the daemon's host). A missing database means
// no daemon's state is here: it is not created here, so a batch script never leaves one behind.
common::Result<int> local_env(const GlobalOptions& global, const common::JobId& job,
                              const EnvOptions& options, bool daemon_knows_nothing) {
    std::error_code ec;
    if (!std::filesystem::exists(state_dir(global) / state::k_database_file_name, ec)) {
        if (daemon_knows_nothing) {  // a daemon answered: the job is simply not registered
            std::fputs(not_registered(job, options.json).c_str(), stdout);
            return 0;
        }
        return no_settings(job,
                           "no supervisor daemon is set up here (no client.conf, no control "
                           "socket) and " +
                               state_dir(global).string() + " holds no database",
                           options);
    }
    auto store = TRY(open_store(global));
    if (!store->registration(job)) {
        std::fputs(not_registered(job, options.json).c_str(), stdout);
        return 0;
    }
    const auto env = store->resume_env(job);
    if (options.job.empty()) {
        record_local_fetch(*store, job, env);
    }
    std::fputs((options.json ? supervisor::format_json(env) + "\n" : supervisor::format_shell(env))
                   .c_str(),
               stdout);
    return 0;
}

common::Result<int> env_command(const GlobalOptions& global, const EnvOptions& options) {
    auto job = TRY(options.job.empty() ? job_from_environment() : parse_job(options.job));
    auto route = daemon_route(global);
    if (!route) {  // a client.conf that cannot be read
        std::fprintf(stderr, "supervisor env: %s\n", route.error().message.c_str());
        return no_settings(job, "the client configuration cannot be read", options);
    }
    if (*route) {
        control::Request request;
        request.operation = control::Operation::env;
        request.job = job.to_string();
        request.json = options.json;
        if (options.job.empty()) {
            // Inside the job, as its owner: the job's own environment, which a resubmit gives
            // the new job (the daemon keeps it for the owner only, without loader variables),
            // and where and which run asks, which the daemon journals.
            for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
                request.environment.emplace_back(*entry);
            }
            request.host = host_name();
            request.restart_count = restart_count();
        }
        auto reply = control::call(**route, request);
        if (!reply) {
            if (!options.job.empty()) {
                return tl::unexpected(reply.error());  // by hand: the whole error
            }
            return no_settings(job, control::describe(**route) + " did not answer", options);
        }
        if (reply->exit_status != 0) {
            return tl::unexpected(reply->error);
        }
        if (reply->job_known) {
            std::fputs(reply->output.c_str(), stdout);
            return 0;
        }
        // Not the daemon's: perhaps the user's own per-user daemon watches it.
        return local_env(global, job, options, true);
    }
    return local_env(global, job, options, false);
}

}  // namespace

void add_env(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<EnvOptions>();
    auto* env = app.add_subcommand(
        "env", "Print the job's resume environment: eval \"$(supervisor env)\" in a batch script");
    env->add_option("--job", options->job,
                    "job id (default: from SLURM_ARRAY_JOB_ID/SLURM_ARRAY_TASK_ID or "
                    "SLURM_JOB_ID)");
    env->add_flag("--json", options->json, "print a JSON object instead of export lines");
    env->add_flag("--optional", options->optional,
                  "when no daemon can be asked and no database is here, print the reason as a "
                  "comment and exit 0 (default: an error and exit 1, so a job never trains from "
                  "scratch unnoticed)");
    env->callback([&global, &action, options] {
        action = [&global, options] { return env_command(global, *options); };
    });
}

}  // namespace cli
