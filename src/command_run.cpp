// `supervisor run`: the daemon, in the foreground (for systemd or a terminal).

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common/try.h"
#include "control/server.h"
#include "ops/daemon_lock.h"
#include "ops/doctor.h"
#include "ops/service_reporter.h"
#include "recovery/catalogue.h"
#include "session.h"
#include "slurm/release.h"
#include "supervisor/daemon/daemon.h"
#include "supervisor/daemon/daemon_liveness.h"
#include "web/dashboard_server.h"

namespace cli {
namespace {

struct RunOptions {
    std::string config_file;
    std::optional<std::int64_t> poll_interval_ms;
    std::vector<std::string> rules;
    std::string metrics_file;
    std::string control_socket;
    std::string listen;
    std::string munge_socket;
    std::string dashboard;
    std::string dashboard_socket;
    std::string dashboard_group;
    std::string dashboard_user_header = "X-Remote-User";
    bool once = false;
};

// Defaults, then the config file, then the flags: the same on start and on SIGHUP.
common::Result<supervisor::Config> build_config(const GlobalOptions& global,
                                                const RunOptions& options) {
    auto config = daemon_config(global, options.config_file, options.rules);
    if (config && options.poll_interval_ms) {
        config->poll_interval = std::chrono::milliseconds(*options.poll_interval_ms);
    }
    if (config && !options.metrics_file.empty()) {
        config->metrics_file = std::filesystem::absolute(options.metrics_file);
    }
    return config;
}

// What a thread serving users (the control channel, the dashboard) uses alone: its own
// connection to the database and to slurmctld, and the settings as they were at start.
struct ServingThread {
    std::unique_ptr<state::Store> store;
    std::unique_ptr<slurm::LibslurmClient> client;
    supervisor::Config config;
    common::SystemClock clock;
};

// The control channel's handlers over `thread`'s own store and client. A daemon that is no
// Slurm operator is one user's own (per-user mode): it serves that uid only, or over TCP
// anybody with a credential of the cluster could register into it.
common::Result<std::unique_ptr<control::Handlers>> serving_handlers(
    const GlobalOptions& global, const RunOptions& options, ServingThread& thread,
    supervisor::JobEndPushes* pushes, const supervisor::DaemonLiveness& liveness,
    std::string_view what) {
    thread.config = TRY(build_config(global, options));
    thread.store = TRY(open_store(global));
    thread.client = TRY(connect_slurm(global));
    auto handlers = std::make_unique<control::Handlers>(*thread.store, *thread.client, thread.clock,
                                                        thread.config, pushes);
    handlers->report_liveness(&liveness);
    const uid_t self = ::geteuid();
    if (const auto operator_uid = thread.client->ask_is_operator_uid(self);
        !operator_uid || !*operator_uid) {
        handlers->serve_only(self);
        spdlog::info("per-user mode: the {} serves uid {} only", what, self);
    }
    return handlers;
}

// HOST or HOST:PORT; a bare host takes the dashboard's port, not the control channel's.
common::Result<control::TcpAddress> parse_dashboard_address(const std::string& text) {
    const bool has_port = text.starts_with("[") ? text.find("]:") != std::string::npos
                                                : text.find(':') != std::string::npos;
    return control::parse_tcp_address(
        has_port ? text : text + ":" + std::to_string(web::k_default_dashboard_port));
}

// The daemon's control channel (control/server.h: the Unix socket, TCP, or both).
struct ControlSocket {
    ServingThread thread;
    std::unique_ptr<control::ControlServer> server;
};

common::Result<std::unique_ptr<ControlSocket>> open_control_socket(
    const GlobalOptions& global, const RunOptions& options, supervisor::JobEndPushes& pushes,
    const supervisor::DaemonLiveness& liveness) {
    auto socket = std::make_unique<ControlSocket>();
    auto handlers = TRY(
        serving_handlers(global, options, socket->thread, &pushes, liveness, "control channel"));
    control::ControlEndpoints endpoints;
    if (!options.control_socket.empty()) {
        endpoints.unix_socket = std::filesystem::absolute(options.control_socket);
    }
    if (!options.listen.empty()) {
        endpoints.tcp = TRY(control::parse_tcp_address(options.listen));
        endpoints.munge.socket = options.munge_socket;
    }
    socket->server = TRY(control::ControlServer::start(std::move(endpoints), std::move(handlers)));
    if (!socket->server->path().empty()) {
        spdlog::info(
            "control socket {}: users register, read status and fetch their job's resume "
            "environment here",
            socket->server->path().string());
    }
    if (const auto& tcp = socket->server->tcp_address()) {
        spdlog::info(
            "control channel listening on {} (TCP, MUNGE credentials{}): other hosts "
            "reach the daemon here",
            tcp->to_string(),
            options.munge_socket.empty() ? "" : ", munged at " + options.munge_socket);
    }
    return socket;
}

// The dashboard and its API (web/dashboard_server.h).
struct Dashboard {
    ServingThread thread;
    std::unique_ptr<web::DashboardServer> server;
};

common::Result<std::unique_ptr<Dashboard>> open_dashboard(
    const GlobalOptions& global, const RunOptions& options,
    const supervisor::DaemonLiveness& liveness) {
    auto dashboard = std::make_unique<Dashboard>();
    auto handlers =
        TRY(serving_handlers(global, options, dashboard->thread, nullptr, liveness, "dashboard"));
    web::DashboardSettings settings;
    if (!options.dashboard.empty()) {
        settings.tcp = TRY(parse_dashboard_address(options.dashboard));
    }
    if (!options.dashboard_socket.empty()) {
        settings.proxy_socket = std::filesystem::absolute(options.dashboard_socket);
    }
    settings.proxy_group = options.dashboard_group;
    settings.user_header = options.dashboard_user_header;
    settings.state_dir = state_dir(global);
    dashboard->server = TRY(web::DashboardServer::start(std::move(settings), std::move(handlers)));
    if (const auto& tcp = dashboard->server->tcp_address()) {
        spdlog::info(
            "dashboard on http://{}/ (`supervisor dashboard` prints the link with its "
            "token)",
            tcp->to_string());
    }
    if (!options.dashboard_socket.empty()) {
        spdlog::info("dashboard socket {} for the site's reverse proxy (user in header {})",
                     options.dashboard_socket, options.dashboard_user_header);
    }
    return dashboard;
}

common::Result<int> run_command(const GlobalOptions& global, const RunOptions& options) {
    // The configuration first: a mistake in it is reported as itself, before anything is
    // opened or asked (the daemon reads it again when it starts, and on SIGHUP).
    if (auto config = build_config(global, options); !config) {
        return tl::unexpected(config.error());
    } else if (auto catalogue = load_catalogue(config->rules_files); !catalogue) {
        return tl::unexpected(catalogue.error());
    }
    auto store = TRY(open_store(global));  // creates the state directory (0700) if needed
    // Before Slurm is even asked: a second daemon on the same store must not act.
    auto lock = TRY(ops::DaemonLock::acquire(state_dir(global)));
    auto client = TRY(connect_slurm(global));
    // A supervisor slurmctld will refuse would only ever back off; say so now and stop.
    // Unreachable is not a reason to stop: the daemon waits for slurmctld.
    const auto release = ops::check_slurm_release(client.get(), slurm::compiled_release());
    if (release.status == ops::CheckStatus::fail) {
        return common::fail(release.message, release.fix);
    }
    if (release.status == ops::CheckStatus::warn) {
        spdlog::warn("{}; {}", release.message, release.fix);
    }
    common::SystemClock clock;
    ops::ServiceReporter reporter(*store, clock);           // systemd notify + metrics file
    supervisor::DaemonLiveness liveness(clock, &reporter);  // what `daemon` answers
    std::unique_ptr<ControlSocket> control_socket;
    // Job ends reported through the socket (EpilogSlurmctld), followed with a client of their
    // own (daemon.h says why).
    supervisor::JobEndPushes pushes;
    std::unique_ptr<slurm::LibslurmClient> push_client;
    if (!options.control_socket.empty() || !options.listen.empty()) {
        control_socket = TRY(open_control_socket(global, options, pushes, liveness));
        push_client = TRY(connect_slurm(global));
    }
    std::unique_ptr<Dashboard> dashboard;
    if (!options.dashboard.empty() || !options.dashboard_socket.empty()) {
        dashboard = TRY(open_dashboard(global, options, liveness));
    }
    supervisor::DaemonOptions daemon;
    if (push_client) {
        daemon.pushes = &pushes;
        daemon.push_client = push_client.get();
    }
    daemon.once = options.once;
    daemon.load_config = [&global, &options] { return build_config(global, options); };
    daemon.load_catalogue = [](const supervisor::Config& c) {
        return load_catalogue(c.rules_files);
    };
    daemon.observer = &liveness;
    return supervisor::run_daemon(*store, *client, daemon);
}

}  // namespace

void add_run(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<RunOptions>();
    auto* run = app.add_subcommand(
        "run",
        "Run the supervisor in the foreground: watch registered jobs and recover them "
        "(SIGTERM/SIGINT stop it, SIGHUP reloads config and rules)");
    run->add_option("--config", options->config_file,
                    "TOML config (default: $XDG_CONFIG_HOME/slurm-supervisor/config.toml if it "
                    "exists)");
    run->add_option("--poll-interval-ms", options->poll_interval_ms,
                    "time between two looks at Slurm (default 10000)")
        ->check(CLI::Range(100, 3'600'000));
    run->add_option("--rules", options->rules, "extra diagnosis rules files, loaded last");
    run->add_option("--metrics-file", options->metrics_file,
                    "write Prometheus metrics here after every cycle (textfile collector, "
                    "*.prom; overrides metrics_file of the config)");
    run->add_option("--control-socket", options->control_socket,
                    "site-wide mode: serve users on this Unix socket (register, unregister, "
                    "status, events, env; each user their own jobs, operators any), e.g. "
                    "/run/slurm-supervisor/control.sock");
    run->add_option("--listen", options->listen,
                    "also serve other hosts over TCP on HOST:PORT (default port " +
                        std::to_string(control::k_default_tcp_port) +
                        "), each request authenticated by MUNGE; compute nodes find it through "
                        "/etc/slurm-supervisor/client.conf (daemon = \"HOST:PORT\")");
    run->add_option("--munge-socket", options->munge_socket,
                    "munged's socket on this host, for --listen (default: munged's own)");
    run->add_option("--dashboard", options->dashboard,
                    "serve the dashboard and its JSON API on HOST[:PORT] (default port " +
                        std::to_string(web::k_default_dashboard_port) +
                        "), e.g. 127.0.0.1; every request needs the token `supervisor "
                        "dashboard` prints (plain HTTP: keep it on loopback or put TLS in front)");
    run->add_option("--dashboard-socket", options->dashboard_socket,
                    "site-wide mode: serve the dashboard on this Unix socket for the site's "
                    "reverse proxy, which names the user it authenticated in "
                    "--dashboard-user-header; mode 0660");
    run->add_option("--dashboard-group", options->dashboard_group,
                    "the group that may open --dashboard-socket: the reverse proxy's (e.g. "
                    "www-data; default the daemon's)");
    run->add_option("--dashboard-user-header", options->dashboard_user_header,
                    "the header in which the reverse proxy names the user (default "
                    "X-Remote-User)");
    run->add_flag("--once", options->once, "run one poll cycle and exit");
    run->callback([&global, &action, options] {
        action = [&global, options] { return run_command(global, *options); };
    });
}

}  // namespace cli
