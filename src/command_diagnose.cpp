// `supervisor diagnose --log FILE...`: the diagnosis engine on logs a person hands over, with
// whatever Slurm facts they know, without a cluster or a database. The JOBID form (a registered
// job, its logs and facts taken from the store and slurmctld) arrives with registration.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "diagnosis_json.h"
#include "diagnosis_text.h"
#include "recovery/catalogue.h"
#include "recovery/diagnosis.h"
#include "recovery/hostlist.h"
#include "rules_location.h"
#include "slurm/job_state.h"

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
        auto state = parse_slurm_state(options.slurm_state);
        if (!state) {
            return tl::unexpected(state.error());
        }
        facts.state = *state;
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
        auto fact = parse_node_state(text);
        if (!fact) {
            return tl::unexpected(fact.error());
        }
        if (!job_nodes.empty() &&
            std::find(job_nodes.begin(), job_nodes.end(), fact->name) == job_nodes.end()) {
            return common::fail("--node-state names node '" + fact->name +
                                    "', which is not in --nodes '" + options.nodes + "'",
                                "add the node to --nodes, or drop its --node-state");
        }
        facts.node_states.push_back(std::move(*fact));
    }
    return facts;
}

common::Result<recovery::Evidence> gather_evidence(const DiagnoseOptions& options) {
    if (options.head_bytes == 0 && options.tail_bytes == 0) {
        return common::fail("--head-bytes and --tail-bytes are both 0: nothing would be read",
                            "leave them at their defaults, or give one a positive size");
    }
    auto facts = slurm_facts(options);
    if (!facts) {
        return tl::unexpected(facts.error());
    }
    recovery::Evidence evidence;
    evidence.slurm = std::move(*facts);
    const recovery::ExcerptLimits limits{options.head_bytes, options.tail_bytes};
    for (const auto& path : options.logs) {
        auto log = recovery::LogExcerpt::read(path, limits);
        if (!log) {
            return tl::unexpected(log.error());
        }
        evidence.logs.push_back(std::move(*log));
    }
    return evidence;
}

common::Result<recovery::Catalogue> load_catalogue(const DiagnoseOptions& options) {
    const std::vector<std::filesystem::path> extra(options.rules.begin(), options.rules.end());
    auto files = rules_files(RulesSearch::current(), extra);
    if (!files) {
        return tl::unexpected(files.error());
    }
    return recovery::Catalogue::load(*files);
}

common::Result<int> diagnose_logs(const DiagnoseOptions& options) {
    if (!options.job_id.empty()) {
        return common::fail(
            "diagnosing a registered job (" + options.job_id +
                ") arrives with registration and is not available in this version",
            "meanwhile, give the job's logs and what Slurm says: supervisor diagnose --log FILE "
            "[--slurm-state STATE] [--exit-code N] [--nodes LIST]");
    }
    if (options.logs.empty()) {
        return common::fail("nothing to diagnose: no --log FILE given",
                            "supervisor diagnose --log slurm-1234.out [--slurm-state FAILED]");
    }
    auto evidence = gather_evidence(options);
    if (!evidence) {
        return tl::unexpected(evidence.error());
    }
    auto catalogue = load_catalogue(options);
    if (!catalogue) {
        return tl::unexpected(catalogue.error());
    }
    const auto diagnosis = recovery::diagnose(*evidence, *catalogue);
    if (!diagnosis) {
        return tl::unexpected(diagnosis.error());
    }
    if (options.json) {
        std::cout
            << to_json(*diagnosis).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
            << '\n';
    } else {
        std::cout << format_note(*diagnosis);
    }
    return 0;
}

}  // namespace

void add_diagnose(CLI::App& app, const GlobalOptions& /*global*/, Action& action) {
    auto options = std::make_shared<DiagnoseOptions>();
    auto* diagnose = app.add_subcommand(
        "diagnose",
        "Name the root cause of a failed job from its logs and Slurm facts (no cluster needed)");
    diagnose->add_option("JOBID", options->job_id,
                         "a registered job (arrives with registration; use --log meanwhile)");
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
    diagnose->callback(
        [&action, options] { action = [options] { return diagnose_logs(*options); }; });
}

}  // namespace cli
