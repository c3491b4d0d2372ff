// `supervisor doctor`: loads what `supervisor run` loads, in the same order and from the same
// places, and prints one line per check (ops/doctor.h). Exit 0 when nothing failed, else 1.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "commands.h"
#include "common/json_text.h"
#include "daemon_watch.h"
#include "http/transfer.h"
#include "notify/curl_sender.h"
#include "ops/doctor.h"
#include "session.h"
#include "slurm/libslurm_client.h"
#include "slurm/release.h"

namespace cli {
namespace {

struct DoctorOptions {
    std::string config_file;
    std::vector<std::string> rules;
    std::string metrics_file;
    bool json = false;
    bool send_test = false;                 // --send-test given (with or without targets)
    std::vector<std::string> test_targets;  // empty: [notify] default_targets
};

common::Result<int> doctor_command(const GlobalOptions& global, const DoctorOptions& options) {
    ops::DoctorReport report;
    auto& checks = report.checks;

    auto config = daemon_config(global, options.config_file, options.rules);
    if (config && !options.metrics_file.empty()) {
        config->metrics_file = std::filesystem::absolute(options.metrics_file);
    }
    const std::filesystem::path file = options.config_file.empty()
                                           ? default_config_file()
                                           : std::filesystem::path(options.config_file);
    std::error_code error;
    checks.push_back(ops::check_config(config, std::filesystem::exists(file, error)
                                                   ? file.string()
                                                   : "no " + file.string() + ", defaults"));
    if (config) {
        checks.push_back(ops::check_rules(load_catalogue(config->rules_files)));
    }

    const auto directory = config ? config->state_dir : state_dir(global);
    checks.push_back(ops::check_state_dir(directory, ::getuid()));
    std::unique_ptr<state::Store> store;
    for (auto& check : ops::check_database(directory / state::k_database_file_name, store)) {
        checks.push_back(std::move(check));
    }
    if (config) {
        checks.push_back(ops::check_metrics_file(config->metrics_file));
        for (auto& check : ops::check_notify(config->notify)) {
            checks.push_back(std::move(check));
        }
        if (options.send_test) {
            common::SystemClock clock;
            const auto sender = notify::make_curl_sender(config->notify, clock);
            for (auto& check :
                 ops::send_test_messages(*sender, config->notify, options.test_targets,
                                         notify::local_host_name(), clock.now())) {
                checks.push_back(std::move(check));
            }
        }
        checks.push_back(ops::check_prometheus(config->evidence.prometheus, http::perform));
    } else if (options.send_test) {
        checks.push_back({"notify_test", ops::CheckStatus::fail,
                          "no test message sent: the config did not load",
                          "fix the config first (see the config check)"});
    }

    checks.push_back(ops::check_slurm_version(slurm::compiled_release().to_string(),
                                              slurm::runtime_slurm_api_version()));
    auto client = connect_slurm(global);
    slurm::Client* slurm = client ? client->get() : nullptr;
    for (auto& check : ops::check_slurm(slurm, client ? "" : client.error().message)) {
        checks.push_back(std::move(check));
    }
    checks.push_back(ops::check_slurm_release(slurm, slurm::compiled_release()));
    // From this host, as every command here and every job's `supervisor env` would ask.
    checks.push_back(check_control_channel(global));
    if (config) {
        // After slurmctld's checks: whether a spool's owner is SlurmUser is slurmctld's to say.
        checks.push_back(ops::check_epilog_spool(config->evidence.epilog_spool,
                                                 common::SystemClock().now(), ::geteuid(), slurm));
    }
    const auto registrations =
        store ? store->load_watched_registrations() : std::vector<state::Registration>{};
    checks.push_back(ops::check_operator(slurm, registrations, ::getuid()));
    const auto settle = config ? config->checkpoint_settle : supervisor::Config{}.checkpoint_settle;
    for (auto& check :
         ops::check_checkpoint_directories(registrations, common::SystemClock().now() - settle)) {
        checks.push_back(std::move(check));
    }

    if (options.json) {
        std::printf("%s\n", common::json_text(ops::render_json(report), 2).c_str());
    } else {
        std::fputs(ops::render_text(report).c_str(), stdout);
    }
    return report.failed() ? 1 : 0;
}

}  // namespace

void add_doctor(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<DoctorOptions>();
    auto* doctor = app.add_subcommand(
        "doctor",
        "Check the installation (config, rules, state directory, database, metrics "
        "file, epilog spool, notification channels, Prometheus, Slurm, munge, the control channel "
        "from this host, operator rights) and say what to fix; exit 1 when a check failed");
    doctor->add_option("--config", options->config_file,
                       "the config `supervisor run` would use (default: "
                       "$XDG_CONFIG_HOME/slurm-supervisor/config.toml if it exists)");
    doctor->add_option("--rules", options->rules, "extra diagnosis rules files, as for run");
    doctor->add_option("--metrics-file", options->metrics_file, "as for run");
    doctor->add_flag("--json", options->json, "one JSON object: ok, checks");
    auto* send_test =
        doctor
            ->add_option("--send-test", options->test_targets,
                         "also send a test message to TARGET (mailto:..., sms:+..., "
                         "https://..., pagerduty:NAME; repeat the option for more; none "
                         "named: [notify] default_targets) and report the server's answer")
            ->expected(0, 1)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
            ->type_name("TARGET");
    doctor->callback([&global, &action, options, send_test] {
        options->send_test = send_test->count() > 0;
        // A bare --send-test leaves one empty value behind (CLI11): it means "no target named".
        std::erase(options->test_targets, std::string());
        action = [&global, options] { return doctor_command(global, *options); };
    });
}

}  // namespace cli
