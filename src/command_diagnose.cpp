// `supervisor diagnose --log FILE...`: the diagnosis engine on logs a person hands over, with
// whatever Slurm facts they know, without a cluster or a database.
// `supervisor diagnose JOBID`: a registered job, its logs and facts taken from the store and
// slurmctld, through the daemon's own analysis (supervisor::analyse_failure), with the plan it
// would make and the correlation with the journal. Read-only: nothing is written to the store.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "common/clock.h"
#include "common/json_text.h"
#include "common/printable.h"
#include "common/try.h"
#include "diagnosis_text.h"
#include "json_output.h"
#include "node_evidence/sources.h"
#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"
#include "recovery/diagnosis_json.h"
#include "recovery/hostlist.h"
#include "session.h"
#include "slurm/job_state.h"
#include "supervisor/config/config.h"
#include "supervisor/failure/failure_analysis.h"
#include "supervisor/failure/failure_history.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/steps/owner_choices.h"

namespace cli {
namespace {

struct DiagnoseOptions {
    std::string job_id;
    std::vector<std::string> logs;
    std::string slurm_state;
    std::optional<int> exit_code;
    std::optional<int> signal;
    std::vector<std::string> node_states;
    std::string nodes;
    std::vector<std::string> rules;
    std::string config_file;  // JOBID form: the daemon's config (log limits, rules)
    std::uint64_t head_bytes = recovery::ExcerptLimits::k_default_head_bytes;
    std::uint64_t tail_bytes = recovery::ExcerptLimits::k_default_tail_bytes;
    bool json = false;
};

constexpr const char* k_node_state_form =
    "expected NODE=STATE[:REASON], e.g. --node-state 'n2=DOWN*:Not responding'";

constexpr slurm::JobState k_job_states[] = {
    slurm::JobState::pending,   slurm::JobState::running,   slurm::JobState::suspended,
    slurm::JobState::completed, slurm::JobState::cancelled, slurm::JobState::failed,
    slurm::JobState::timeout,   slurm::JobState::node_fail, slurm::JobState::preempted,
    slurm::JobState::boot_fail, slurm::JobState::deadline,  slurm::JobState::out_of_memory,
};

common::Result<std::string> parse_slurm_state(const std::string& text) {
    if (const auto state = slurm::job_state_from_string(text)) {
        return std::string(slurm::to_string(*state));
    }
    std::string valid;
    for (const auto state : k_job_states) {
        valid += (valid.empty() ? "" : ", ") + std::string(slurm::to_string(state));
    }
    return common::fail("unknown Slurm job state '" + text + "' for --slurm-state",
                        "use one of " + valid + " (as squeue and sacct print them)");
}

bool is_state_char(unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("_+*~#!%$@^-").find(static_cast<char>(c)) != std::string_view::npos;
}

// "n2=DOWN*:Not responding" -> {n2, DOWN*, Not responding}. The reason may contain ':'.
common::Result<recovery::NodeFact> parse_node_state(const std::string& text) {
    auto bad = [&](const std::string& what) {
        return common::fail("bad --node-state '" + text + "': " + what, k_node_state_form);
    };
    const auto equals = text.find('=');
    if (equals == std::string::npos) {
        return bad("no '='");
    }
    recovery::NodeFact fact;
    fact.name = text.substr(0, equals);
    const auto rest = std::string_view(text).substr(equals + 1);
    const auto colon = rest.find(':');
    fact.state = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) {
        fact.reason = std::string(rest.substr(colon + 1));
    }
    if (fact.name.empty()) {
        return bad("no node name before '='");
    }
    if (!std::all_of(fact.name.begin(), fact.name.end(), [](unsigned char c) {
            return std::isalnum(c) || c == '-' || c == '_' || c == '.';
        })) {
        return bad("'" + fact.name + "' is not one node name");
    }
    if (fact.state.empty()) {
        return bad("no state after '='");
    }
    if (!std::all_of(fact.state.begin(), fact.state.end(), is_state_char)) {
        return bad("'" + fact.state + "' is not a Slurm node state");
    }
    return fact;
}

common::Result<recovery::SlurmFacts> slurm_facts(const DiagnoseOptions& options) {
    recovery::SlurmFacts facts;
    if (!options.slurm_state.empty()) {
        auto state = TRY(parse_slurm_state(options.slurm_state));
        facts.state = state;
    }
    facts.exit_code = options.exit_code;
    facts.signal = options.signal;
    std::vector<std::string> job_nodes;
    if (!options.nodes.empty()) {
        auto expanded = recovery::expand_hostlist(options.nodes);
        if (!expanded) {
            return common::fail("bad --nodes '" + options.nodes + "': " + expanded.error().message,
                                "give a Slurm host list, e.g. --nodes 'n[1-4],gpu07'");
        }
        job_nodes = std::move(*expanded);
        facts.node_list = options.nodes;
    }
    for (const auto& text : options.node_states) {
        auto fact = TRY(parse_node_state(text));
        if (!job_nodes.empty() &&
            std::find(job_nodes.begin(), job_nodes.end(), fact.name) == job_nodes.end()) {
            return common::fail("--node-state names node '" + fact.name +
                                    "', which is not in --nodes '" + options.nodes + "'",
                                "add the node to --nodes, or drop its --node-state");
        }
        facts.node_states.push_back(std::move(fact));
    }
    return facts;
}

common::Result<recovery::Evidence> gather_evidence(const DiagnoseOptions& options) {
    if (options.head_bytes == 0 && options.tail_bytes == 0) {
        return common::fail("--head-bytes and --tail-bytes are both 0: nothing would be read",
                            "leave them at their defaults, or give one a positive size");
    }
    // Both are held in memory: a bound far above any useful excerpt, not an allocation the
    // size of whatever number was typed.
    constexpr std::uint64_t k_max_excerpt_bytes = recovery::ExcerptLimits::k_max_bytes;
    if (options.head_bytes > k_max_excerpt_bytes || options.tail_bytes > k_max_excerpt_bytes) {
        return common::fail("--head-bytes and --tail-bytes must each be at most " +
                                std::to_string(k_max_excerpt_bytes) + " (1 GiB)",
                            "a few MB finds the failure in practice; the defaults are " +
                                std::to_string(recovery::ExcerptLimits::k_default_head_bytes) +
                                " and " +
                                std::to_string(recovery::ExcerptLimits::k_default_tail_bytes));
    }
    auto facts = TRY(slurm_facts(options));
    recovery::Evidence evidence;
    evidence.slurm = std::move(facts);
    recovery::ExcerptLimits limits{options.head_bytes, options.tail_bytes};
    limits.streams_allowed = true;  // a person's own pipe: `--log <(zcat train.log.gz)`
    for (const auto& path : options.logs) {
        auto log = TRY(recovery::LogExcerpt::read(path, limits));
        evidence.logs.push_back(std::move(log));
    }
    return evidence;
}

// The built-in rules and those of --rules.
common::Result<recovery::Catalogue> load_catalogue_with_rules_of(const DiagnoseOptions& options) {
    const std::vector<std::filesystem::path> extra(options.rules.begin(), options.rules.end());
    return cli::load_catalogue(extra);
}

common::Result<int> diagnose_logs(const DiagnoseOptions& options) {
    if (options.logs.empty()) {
        return common::fail("nothing to diagnose: no --log FILE given",
                            "supervisor diagnose --log slurm-1234.out [--slurm-state FAILED]");
    }
    auto evidence = TRY(gather_evidence(options));
    auto catalogue = TRY(load_catalogue_with_rules_of(options));
    const auto diagnosis = TRY(recovery::diagnose(evidence, catalogue));
    if (options.json) {
        std::cout << common::json_text(to_json(diagnosis), 2) << '\n';
    } else {
        std::cout << format_note(diagnosis);
    }
    return 0;
}

// --- JOBID: a registered job ---------------------------------------------------------------

common::Result<supervisor::Config> job_config(const GlobalOptions& global,
                                              const DiagnoseOptions& options) {
    auto config = TRY(daemon_config(global, options.config_file, options.rules));
    if (options.head_bytes != recovery::ExcerptLimits::k_default_head_bytes) {
        config.log_limits.head_bytes = options.head_bytes;
    }
    if (options.tail_bytes != recovery::ExcerptLimits::k_default_tail_bytes) {
        config.log_limits.tail_bytes = options.tail_bytes;
    }
    return config;
}

std::string dump(const nlohmann::json& value) {
    return common::json_text(value, 2);
}

// Slurm no longer knows the job: show what the daemon recorded when it last diagnosed it.
common::Result<int> print_last_diagnosis(const state::Store& store, const common::JobId& job,
                                         bool json) {
    const auto events = store.events(job);
    std::optional<supervisor::DiagnosisEvent> recorded;
    const state::Event* recorded_by = nullptr;  // the newest diagnosis event that can be read
    for (auto it = events.rbegin(); it != events.rend() && !recorded; ++it) {
        recorded = supervisor::decode<supervisor::DiagnosisEvent>(*it);
        recorded_by = &*it;
    }
    if (!recorded) {
        return common::fail("job " + job.to_string() +
                                " is no longer known to slurmctld (purged after MinJobAge) and "
                                "the supervisor recorded no diagnosis of it",
                            "diagnose its logs directly: supervisor diagnose --log FILE "
                            "[--slurm-state STATE] [--nodes LIST]");
    }
    const state::Event& event = *recorded_by;
    if (json) {
        // The diagnosis in the form a live job's has, whatever form the journal kept it in.
        auto out = supervisor::encode(*recorded);
        out["job"] = job.to_string();
        out["purged"] = true;
        out["recorded_at"] = format_time(event.at);
        out["message"] = event.message;
        std::cout << dump(out) << '\n';
        return 0;
    }
    std::cout << "Job " << job.to_string()
              << " is no longer known to slurmctld (purged); the supervisor's last diagnosis, "
                 "recorded "
              << format_time(event.at) << ":\n"
              << common::printable(event.message) << '\n';
    if (!recorded->diagnosis.evidence.empty()) {
        std::cout << "Evidence:\n";
        for (const auto& line : recorded->diagnosis.evidence) {
            if (line.supports_cause) {
                std::cout << "  " << common::printable(line.file) << ":" << line.line << ": "
                          << common::printable(line.text) << '\n';
            }
        }
    }
    return 0;
}

nlohmann::json plan_json(const recovery::Plan& plan) {
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& action : plan.actions) {
        actions.push_back(
            {{"action", recovery::to_string(action.kind)}, {"argument", action.argument}});
    }
    return {{"escalate", plan.escalate},
            {"reason", plan.reason},
            {"actions", actions},
            {"would_have_done", plan.would_have_done}};
}

std::string plan_text(const supervisor::FailureAnalysis& analysis) {
    const auto& plan = analysis.plan;
    std::string text;
    if (analysis.checkpoint) {
        text += "Checkpoint: " + common::printable(*analysis.checkpoint) + "\n";
    }
    text += std::string(plan.escalate ? "The supervisor would escalate: "
                                      : "The supervisor would plan: ") +
            common::printable(plan.reason) + "\n";
    for (std::size_t i = 0; i < plan.actions.size(); ++i) {
        const auto& action = plan.actions[i];
        text += "  " + std::to_string(i + 1) + ". " +
                std::string(recovery::to_string(action.kind)) +
                (action.argument.empty() ? "" : " " + common::printable(action.argument)) + "\n";
    }
    for (const auto& line : plan.would_have_done) {
        text +=
            "Would have done (not permitted or not automated): " + common::printable(line) + "\n";
    }
    return text;
}

common::Result<int> diagnose_job(const GlobalOptions& global, const DiagnoseOptions& options) {
    if (!options.logs.empty() || !options.slurm_state.empty() || options.exit_code ||
        options.signal || !options.nodes.empty() || !options.node_states.empty()) {
        return common::fail(
            "JOBID and --log/--slurm-state/--exit-code/--signal/--nodes/"
            "--node-state do not go together",
            "for a registered job the logs and facts come from Slurm: "
            "supervisor diagnose " +
                options.job_id + "; for logs by hand drop the JOBID");
    }
    auto job_id = TRY(parse_job(options.job_id));
    const auto database = state_dir(global) / state::k_database_file_name;
    const auto not_registered = common::fail(
        "job " + job_id.to_string() + " is not registered with the supervisor",
        "`supervisor register " + job_id.to_string() +
            "` to watch it, or diagnose its logs by hand: supervisor diagnose --log FILE");
    std::error_code ec;
    if (!std::filesystem::exists(database, ec)) {
        return not_registered;  // and nothing is created: this command writes nothing
    }
    auto store = TRY(open_store(global));
    const auto registration = store->registration(job_id);
    if (!registration) {
        return not_registered;
    }
    auto config = TRY(job_config(global, options));
    const auto catalogue = TRY(cli::load_catalogue(config.rules_files));

    auto client = TRY(connect_slurm(global));
    const std::vector<common::JobId> ids{job_id};
    const auto query = client->load_jobs(ids);
    if (!query) {
        return tl::unexpected(slurm_failure(query.error()));
    }
    if (query->jobs.empty()) {
        return print_last_diagnosis(*store, job_id, options.json);
    }
    const auto& job = query->jobs.front();
    std::vector<std::string> notes;
    auto loaded = client->load_nodes();
    if (!loaded) {
        notes.push_back("node states not read: " + loaded.error().message);
    }
    const auto nodes = loaded ? std::move(*loaded) : std::vector<slurm::NodeSnapshot>{};

    const common::SystemClock clock;
    const bool slurm_requeued = job.state == slurm::JobState::pending &&
                                job.restart_count > registration->seen_restart_count;
    auto context = supervisor::failure_context_for(
        *registration, supervisor::owner_choices_of(*registration), job, nodes, *store,
        slurm_requeued ? supervisor::Failure::requeued_by_slurm() : supervisor::Failure::ended(),
        clock.now());
    // The nodes' evidence as the daemon would ask it, from the same [evidence] settings.
    auto& slurm = *client;
    const auto node_evidence = node_evidence::make_sources(config.evidence, [&slurm](uid_t uid) {
        const auto is = slurm.ask_is_operator_uid(uid);
        return is && *is;
    });
    context.node_evidence = node_evidence.get();
    auto analysis = supervisor::analyse_failure(context, catalogue, config);
    notes.insert(notes.end(), analysis.notes.begin(), analysis.notes.end());
    const auto& correlation = analysis.correlation;
    const bool running = job.state == slurm::JobState::running;

    if (options.json) {
        // The journal's form of a diagnosis (journal_events.h), and what only a live look has.
        auto out = supervisor::encode(supervisor::diagnosis_event(analysis, registration->attempt));
        out["job"] = job_id.to_string();
        out["slurm_state"] = analysis.slurm_state;
        out["running"] = running;
        out["run_nodes"] = context.run_nodes.host_list;
        out["plan"] = plan_json(analysis.plan);
        out["notes"] = notes;
        std::cout << dump(out) << '\n';
        return 0;
    }
    if (running) {
        std::cout << "Job " << job_id.to_string() << " is still RUNNING (attempt "
                  << registration->attempt << (job.nodes.empty() ? "" : " on " + job.nodes)
                  << "): what its logs show so far.\n";
    }
    std::cout << format_note(analysis.diagnosis) << plan_text(analysis);
    const auto correlated = supervisor::describe(correlation);
    if (!correlated.empty()) {
        std::cout << "Correlation: " << common::printable(correlated) << '\n';
    }
    for (const auto& note : notes) {
        std::cout << "Note: " << common::printable(note) << '\n';
    }
    return 0;
}

}  // namespace

void add_diagnose(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<DiagnoseOptions>();
    auto* diagnose = app.add_subcommand(
        "diagnose",
        "Name the root cause of a failed job: a registered job (JOBID), or logs and Slurm facts "
        "given by hand (--log; no cluster needed)");
    diagnose->add_option("JOBID", options->job_id,
                         "a registered job: its logs and facts from Slurm, with the plan the "
                         "supervisor would make (writes nothing)");
    diagnose->add_option("--config", options->config_file,
                         "with JOBID: the daemon's TOML config (log limits, rules)");
    diagnose->add_option("--log", options->logs, "a log of the job (stdout, stderr, dmesg...)")
        ->allow_extra_args(false)
        ->type_name("FILE");
    diagnose
        ->add_option("--slurm-state", options->slurm_state,
                     "the job's final state as squeue/sacct print it (FAILED, TIMEOUT...)")
        ->type_name("STATE");
    diagnose->add_option("--exit-code", options->exit_code, "the job's exit code")
        ->check(CLI::Range(0, 255));
    diagnose->add_option("--signal", options->signal, "the signal that ended the job")
        ->check(CLI::Range(1, 128));
    diagnose
        ->add_option("--node-state", options->node_states,
                     "a node's state now, NODE=STATE[:REASON] (repeatable)")
        ->allow_extra_args(false);
    diagnose->add_option("--nodes", options->nodes, "the job's node list, e.g. n[1-4]")
        ->type_name("LIST");
    diagnose->add_flag("--json", options->json, "print JSON");
    diagnose
        ->add_option("--rules", options->rules,
                     "an extra rules catalogue, loaded after the shipped, site and user ones "
                     "(repeatable; later files override earlier ones)")
        ->allow_extra_args(false)
        ->type_name("FILE");
    diagnose
        ->add_option("--head-bytes", options->head_bytes, "bytes read from the start of each log")
        ->capture_default_str();
    diagnose->add_option("--tail-bytes", options->tail_bytes, "bytes read from the end of each log")
        ->capture_default_str();
    diagnose->callback([&global, &action, options] {
        action = [&global, options] {
            return options->job_id.empty() ? diagnose_logs(*options)
                                           : diagnose_job(global, *options);
        };
    });
}

}  // namespace cli
