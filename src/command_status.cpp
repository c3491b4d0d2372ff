// `supervisor status` and `supervisor events`: what the supervisor knows, for a person or a
// script.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common/json_text.h"
#include "common/printable.h"
#include "json_output.h"
#include "session.h"

namespace cli {
namespace {

using common::printable;

struct StatusOptions {
    std::string job;
    bool json = false;
    bool all = false;
};

std::string status_text(const state::Registration& registration) {
    std::string text(state::to_string(registration.status));
    if (registration.status == state::Status::completed) {
        text += "/" + std::string(state::to_string(registration.outcome));
    }
    if (!registration.watching) {
        text += " (unregistered)";
    }
    return text;
}

// The data of the job's last "decision" event (what was planned, or why not); null if none.
nlohmann::json last_decision(const state::Store& store, const state::JobId& job) {
    const auto events = store.events(job);
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
        if (it->kind == "decision") {
            auto data = nlohmann::json::parse(it->data_json, nullptr, false);
            if (data.is_object()) {
                data["at"] = format_time(it->at);
                return data;
            }
        }
    }
    return nullptr;
}

nlohmann::json registration_json(const state::Registration& r,
                                 const std::vector<state::Attempt>& attempts,
                                 const nlohmann::json& decision) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& a : attempts) {
        runs.push_back(
            {{"number", a.number},
             {"restart_count", a.restart_count},
             {"started_at",
              a.started_at ? nlohmann::json(format_time(*a.started_at)) : nlohmann::json(nullptr)},
             {"ended_at",
              a.ended_at ? nlohmann::json(format_time(*a.ended_at)) : nlohmann::json(nullptr)},
             {"final_state", a.final_state},
             {"exit_code", a.exit_code ? nlohmann::json(*a.exit_code) : nlohmann::json(nullptr)},
             {"signal", a.signal ? nlohmann::json(*a.signal) : nlohmann::json(nullptr)},
             {"nodes", a.nodes},
             {"resumed_from", a.resumed_from},
             {"cause", a.cause},
             {"failed_step",
              a.failed_step ? nlohmann::json(*a.failed_step) : nlohmann::json(nullptr)}});
    }
    return {{"job", r.job.to_string()},
            {"name", r.job_name},
            {"status", state::to_string(r.status)},
            {"outcome", r.status == state::Status::completed
                            ? nlohmann::json(state::to_string(r.outcome))
                            : nlohmann::json(nullptr)},
            {"reason", r.status_reason},
            {"watching", r.watching},
            {"attempt", r.attempt},
            {"max_attempts", r.max_attempts},
            {"allowed_actions", r.allowed_actions},
            {"checkpoint_dir", r.checkpoint_dir},
            {"last_cause", r.last_cause},
            {"last_checkpoint", r.last_checkpoint},
            {"last_slurm_state", r.last_slurm_state},
            {"knobs", nlohmann::json::parse(r.knobs_json, nullptr, false)},
            {"excluded_nodes", r.excluded_nodes},
            {"previous_job", r.previous_job},
            {"next_job", r.next_job},
            {"stall_timeout_s", r.stall_timeout_s},
            {"progress_pattern", r.progress_pattern},
            {"last_decision", decision},
            {"attempts", runs}};
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) {
        text += (text.empty() ? "" : ", ") + item;
    }
    return text;
}

// The lines under a job: its knobs, excluded nodes, links, and the last decision.
void print_details(const state::Registration& r, const nlohmann::json& decision) {
    const auto knobs = nlohmann::json::parse(r.knobs_json, nullptr, false);
    std::vector<std::string> values;
    for (const auto& knob : knobs.is_array() ? knobs : nlohmann::json::array()) {
        const auto env = knob.value("env", std::string());
        if (env.empty()) {
            continue;
        }
        values.push_back(env + "=" + std::to_string(knob.value("value", std::int64_t{0})));
        const auto compensate = knob.value("compensate", std::string());
        if (!compensate.empty()) {
            values.push_back(compensate + "=" +
                             std::to_string(knob.value("compensate_value", std::int64_t{1})));
        }
    }
    if (!values.empty()) {
        std::printf("    knobs: %s\n", printable(joined(values)).c_str());
    }
    if (!r.excluded_nodes.empty()) {
        std::printf("    excluded nodes: %s\n", printable(joined(r.excluded_nodes)).c_str());
    }
    if (!r.previous_job.empty()) {
        std::printf("    continues job %s\n", printable(r.previous_job).c_str());
    }
    if (!r.next_job.empty()) {
        std::printf("    continued as job %s\n", printable(r.next_job).c_str());
    }
    if (!decision.is_object()) {
        return;
    }
    std::printf("    last decision: %s%s\n", decision.value("escalate", false) ? "escalate: " : "",
                printable(decision.value("reason", std::string())).c_str());
    for (const auto& line : decision.value("would_have_done", std::vector<std::string>{})) {
        std::printf("    would have done: %s\n", printable(line).c_str());
    }
    for (const auto& line : decision.value("notes", std::vector<std::string>{})) {
        std::printf("    note: %s\n", printable(line).c_str());
    }
}

common::Result<int> status_command(const GlobalOptions& global, const StatusOptions& options) {
    auto store = open_store(global);
    if (!store) {
        return tl::unexpected(store.error());
    }
    std::vector<state::Registration> registrations;
    if (!options.job.empty()) {
        auto job = parse_job(options.job);
        if (!job) {
            return tl::unexpected(job.error());
        }
        auto registration = (*store)->registration(*job);
        if (!registration) {
            return common::fail("job " + job->to_string() + " is not registered",
                                "`supervisor status` lists the registered jobs");
        }
        registrations.push_back(*registration);
    } else {
        registrations = (*store)->registrations(!options.all);
    }
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : registrations) {
            out.push_back(
                registration_json(r, (*store)->attempts(r.job), last_decision(**store, r.job)));
        }
        std::cout << common::json_text(out, 2) << '\n';
        return 0;
    }
    if (registrations.empty()) {
        std::printf("no watched jobs (supervisor register JOBID; --all shows finished ones)\n");
        return 0;
    }
    std::printf("%-12s %-16s %-26s %-8s %-14s %s\n", "JOB", "NAME", "STATUS", "ATTEMPT",
                "LAST CAUSE", "CHECKPOINT");
    for (const auto& r : registrations) {
        const std::string attempt =
            std::to_string(r.attempt) + "/" + std::to_string(r.max_attempts);
        std::printf("%-12s %-16s %-26s %-8s %-14s %s\n", r.job.to_string().c_str(),
                    printable(r.job_name.substr(0, 16)).c_str(), status_text(r).c_str(),
                    attempt.c_str(), r.last_cause.empty() ? "-" : printable(r.last_cause).c_str(),
                    r.last_checkpoint.empty() ? "-" : printable(r.last_checkpoint).c_str());
        if (!r.status_reason.empty()) {
            std::printf("    %s\n", printable(r.status_reason).c_str());
        }
        print_details(r, last_decision(**store, r.job));
    }
    return 0;
}

common::Result<int> events_command(const GlobalOptions& global, const StatusOptions& options) {
    auto job = parse_job(options.job);
    if (!job) {
        return tl::unexpected(job.error());
    }
    auto store = open_store(global);
    if (!store) {
        return tl::unexpected(store.error());
    }
    if (!(*store)->registration(*job)) {
        return common::fail("job " + job->to_string() + " is not registered",
                            "`supervisor status --all` lists every job with a history");
    }
    const auto events = (*store)->events(*job);
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& e : events) {
            out.push_back({{"id", e.id},
                           {"at", format_time(e.at)},
                           {"kind", e.kind},
                           {"message", e.message},
                           {"data", nlohmann::json::parse(e.data_json, nullptr, false)}});
        }
        std::cout << common::json_text(out, 2) << '\n';
        return 0;
    }
    for (const auto& e : events) {
        std::printf("%s  %-11s %s\n", format_time(e.at).c_str(), printable(e.kind).c_str(),
                    printable(e.message).c_str());
    }
    return 0;
}

}  // namespace

void add_status(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<StatusOptions>();
    auto* status = app.add_subcommand(
        "status", "Registered jobs: status, outcome, attempts, last cause, last checkpoint");
    status->add_option("JOBID", options->job, "one job (default: every watched job)");
    status->add_flag("--all", options->all, "include finished and unregistered jobs");
    status->add_flag("--json", options->json, "print JSON");
    status->callback([&global, &action, options] {
        action = [&global, options] { return status_command(global, *options); };
    });
}

void add_events(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto options = std::make_shared<StatusOptions>();
    auto* events = app.add_subcommand(
        "events", "A job's journal: everything seen, decided and done, oldest first");
    events->add_option("JOBID", options->job, "job id")->required();
    events->add_flag("--json", options->json, "print JSON");
    events->callback([&global, &action, options] {
        action = [&global, options] { return events_command(global, *options); };
    });
}

}  // namespace cli
