// `supervisor sbatch [sbatch options] SCRIPT [ARGS]`: sbatch, then `supervisor register` with
// the script's #SUPERVISOR directives. sbatch's stderr and exit status reach the user as they
// are, and stdout shows what sbatch alone would have printed; the supervisor adds --parsable
// (to read the job id), --requeue and --open-mode=append (so a requeue neither is refused nor
// truncates the log) only where neither the command line nor the script's #SBATCH lines nor
// sbatch's environment variables decide otherwise.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <variant>

extern char** environ;  // NOLINT: POSIX; sbatch exports it to the job, register stores it

#include "commands.h"
#include "common/join.h"
#include "common/try.h"
#include "control/client.h"
#include "daemon_watch.h"
#include "recovery/whitelist.h"
#include "register_many.h"
#include "registration_options.h"
#include "registration_route.h"
#include "sbatch_arguments.h"
#include "sbatch_directives.h"
#include "session.h"
#include "site_mode.h"
#include "supervisor/registrations/registrar.h"

namespace cli {
namespace {

struct SbatchOptions {
    std::string sbatch;  // --sbatch / $SUPERVISOR_SBATCH; empty: `sbatch` on PATH
    std::vector<std::string> args;
};

struct Finished {
    int status = 0;  // the exit status, or 128 + signal
    std::string out;
};

common::Result<Finished> run_sbatch(const std::string& program,
                                    const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return common::fail(std::string("cannot create a pipe for sbatch: ") +
                            std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    std::vector<char*> argv;
    for (const auto& arg : args) {
        argv.push_back(const_cast<char*>(arg.c_str()));
    }
    argv.push_back(nullptr);
    pid_t pid = 0;
    const bool search = program.find('/') == std::string::npos;
    const int spawned =
        search ? ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ)
               : ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (spawned != 0) {
        ::close(fds[0]);
        return common::fail("cannot run " + program + ": " + std::strerror(spawned),
                            search ? "put sbatch on PATH, or name it with --sbatch PATH or "
                                     "$SUPERVISOR_SBATCH"
                                   : "check --sbatch / $SUPERVISOR_SBATCH");
    }
    Finished finished;
    char buffer[4096];
    for (;;) {
        const auto n = ::read(fds[0], buffer, sizeof buffer);
        if (n > 0) {
            finished.out.append(buffer, static_cast<std::size_t>(n));
        } else if (n == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    finished.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return finished;
}

void print(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

bool env_set(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0';
}

// What sbatch's environment variables decide (sbatch: command line > environment > script).
SbatchFlags environment_flags() {
    SbatchFlags flags;
    flags.requeue = env_set("SBATCH_REQUEUE");
    flags.no_requeue = env_set("SBATCH_NO_REQUEUE");
    flags.open_mode = env_set("SBATCH_OPEN_MODE");
    return flags;
}

// The script's #SUPERVISOR and #SBATCH lines; none when there is no script or it cannot be
// read (sbatch then says why). Fails on a directive that is wrong, naming its line.
common::Result<Directives> read_directives(const SbatchArguments& split) {
    if (!split.script) {
        return Directives{};
    }
    std::ifstream in(*split.script, std::ios::binary);
    if (!in) {
        return Directives{};
    }
    std::stringstream text;
    text << in.rdbuf();
    return parse_directives(text.str(), *split.script);
}

// Per-user mode: the database, Slurm and the config must be usable before the job exists
// (register_anywhere opens them again after the submit). With a site daemon, its socket must be
// there; it answers the registration. Fails saying what to fix; nothing was submitted.
common::Result<void> check_before_submit(const GlobalOptions& global, const SbatchFlags& flags) {
    if (flags.test_only) {
        return {};
    }
    if (const auto route = TRY(daemon_route(global))) {
        const auto* local = std::get_if<control::UnixRoute>(&*route);
        if (local != nullptr && !control::is_socket(local->socket)) {
            return common::fail("SUPERVISOR_SOCKET=" + local->socket.string() +
                                    " is not a socket: no site daemon listens there; nothing "
                                    "was submitted",
                                "start the site daemon, correct SUPERVISOR_SOCKET, or unset it "
                                "to use your own state directory");
        }
        return {};
    }
    TRY(open_store(global));
    TRY(connect_slurm(global));
    TRY(daemon_config(global, "", {}));
    return {};
}

// sbatch's command line: ours (--parsable, --requeue, --open-mode=append) where nothing the
// user wrote decides otherwise, then the user's arguments as given.
std::vector<std::string> sbatch_command_line(const std::string& program,
                                             const SbatchArguments& split, const SbatchFlags& flags,
                                             const std::vector<std::string>& args) {
    std::vector<std::string> command{program};
    if (!split.flags.parsable) {
        command.emplace_back("--parsable");
    }
    if (!flags.requeue && !flags.no_requeue) {
        command.emplace_back("--requeue");
    }
    if (!flags.open_mode) {
        command.emplace_back("--open-mode=append");
    }
    command.insert(command.end(), args.begin(), args.end());
    return command;
}

// sbatch --array: every task is watched, as `supervisor register ARRAYID` would. The status is
// register_many's; a task left unwatched is said on stderr with the command that retries.
common::Result<int> register_array(const GlobalOptions& global, const common::JobId& job,
                                   const supervisor::RegisterRequest& request,
                                   const std::string& retry) {
    ManyJobs tasks;
    tasks.ids = {job.to_string()};
    const auto registered = register_many(global, tasks, request, stderr);
    if (!registered) {
        return common::fail(
            "job array " + job.to_string() +
                " was submitted but is NOT supervised: " + registered.error().message,
            "register it with: " + retry);
    }
    if (*registered != 0) {
        std::fprintf(stderr,
                     "supervisor: some tasks of job array %s are not supervised (see "
                     "above); fix them, then run: %s\n",
                     job.to_string().c_str(), retry.c_str());
    }
    return *registered;
}

// What the user is told on stderr once the job is watched (unless --quiet).
void say_watching(const common::JobId& job, const control::Registered& registration,
                  const Directives& directives, const supervisor::RegisterRequest& said,
                  const SbatchFlags& flags) {
    std::fprintf(stderr,
                 "supervisor: watching job %s (allowed: %s; max attempts %u; stall "
                 "timeout %s)\n",
                 job.to_string().c_str(), common::join(registration.allowed_actions, ",").c_str(),
                 registration.max_attempts, directives.options.stall_timeout.c_str());
    say_checkpoint_layout(said, stderr);
    say_not_carried(registration, stderr);
    if (flags.no_requeue && recovery::whitelist_of_known(registration.allowed_actions)
                                .allows(recovery::ActionKind::resubmit)) {
        std::fprintf(stderr,
                     "supervisor: the job is not requeueable (--no-requeue): it can "
                     "only be recovered by resubmitting it as a new job\n");
    }
}

// The submitted job registered with the script's directives and its command line (for a
// resubmit). Fails saying that the job runs unsupervised, and the command that registers it.
common::Result<int> register_submitted(const GlobalOptions& global, const common::JobId& job,
                                       const Directives& directives, const SbatchArguments& split,
                                       const SbatchFlags& flags) {
    const auto retry = register_command_line(job, directives.options);
    auto request = TRY(registration_request(job, directives.options));  // checked before sbatch
    if (split.script) {
        request.script_argv.push_back(*split.script);
        request.script_argv.insert(request.script_argv.end(), split.script_args.begin(),
                                   split.script_args.end());
    }
    if (const auto array = names_an_array(global, job); array && *array) {
        return register_array(global, job, request, retry);
    }
    const auto said = request;  // what the layout line looks at
    const auto registration = register_anywhere(global, std::move(request));
    if (!registration) {
        return common::fail(
            "job " + job.to_string() +
                " was submitted but is NOT supervised: " + registration.error().message,
            registration.error().hint + (registration.error().hint.empty() ? "" : "; then ") +
                "register it with: " + retry);
    }
    if (registration->status == state::Status::credential_error) {
        return common::fail("job " + job.to_string() +
                                " was submitted and registered, but cannot be supervised: " +
                                registration->status_reason,
                            "fix it, then run: " + retry);
    }
    if (!flags.quiet) {
        say_watching(job, *registration, directives, said, flags);
        say_watcher(global, stderr);  // stdout is sbatch's own line, which scripts parse
    }
    return 0;
}

common::Result<int> sbatch_command(const GlobalOptions& global, const SbatchOptions& options) {
    const auto split = split_sbatch_arguments(options.args);
    const std::string program = options.sbatch.empty() ? "sbatch" : options.sbatch;
    if (split.flags.info) {  // --help, --version: sbatch's answer is all there is
        std::vector<std::string> command{program};
        command.insert(command.end(), options.args.begin(), options.args.end());
        const auto done = TRY(run_sbatch(program, command));
        print(done.out);
        return done.status;
    }

    // Everything that can be wrong on our side is found before anything is submitted.
    const auto directives = TRY(read_directives(split));
    auto flags = directives.sbatch;  // the script's #SBATCH lines, then the environment's,
    flags.merge(environment_flags());
    flags.merge(split.flags);  // then the command line's
    TRY(check_before_submit(global, flags));

    const auto done =
        TRY(run_sbatch(program, sbatch_command_line(program, split, flags, options.args)));
    const auto line = done.out.substr(0, done.out.find('\n'));
    const auto separator = line.find(';');
    const auto job = common::JobId::parse(line.substr(0, separator));
    if (done.status != 0 || flags.test_only || !job) {
        print(done.out);  // sbatch's own words (its errors went to stderr already)
        return done.status;
    }
    if (flags.parsable) {
        print(done.out);
    } else {
        print("Submitted batch job " + job->to_string() +
              (separator == std::string::npos ? "" : " on cluster " + line.substr(separator + 1)) +
              "\n");
    }
    return register_submitted(global, *job, directives, split, flags);
}

}  // namespace

void add_sbatch(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<SbatchOptions>();
    auto* command = app.add_subcommand(
        "sbatch",
        "Submit a batch job with sbatch (same options, same output) and supervise it, with the "
        "registration options of its #SUPERVISOR lines (those of `supervisor register`)");
    command->add_option("--sbatch", options->sbatch, "the sbatch to run (default: sbatch on PATH)")
        ->envname("SUPERVISOR_SBATCH");
    command->allow_extras();
    command->prefix_command();
    command->footer(
        "Everything else goes to sbatch unchanged. Unless you decide otherwise (on the command "
        "line, in #SBATCH lines or with SBATCH_* variables) the job is submitted with --requeue "
        "--open-mode=append. Directives sit in the script's leading comment block, like #SBATCH:\n"
        "  #SUPERVISOR --checkpoint-dir /scratch/run1/ckpt\n"
        "  #SUPERVISOR --allow requeue,reduce_batch_size --max-attempts 4\n"
        "  #SUPERVISOR --knob batch_size=64:env=BATCH_SIZE:min=8 --stall-timeout 45m");
    command->callback([&global, &action, options, command] {
        options->args = command->remaining();
        action = [&global, options] { return sbatch_command(global, *options); };
    });
}

}  // namespace cli
