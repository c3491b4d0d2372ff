// `supervisor inspect`: what slurmctld says about jobs and nodes, through the same client the
// daemon uses. For checking a cluster and the supervisor's view of a job by hand.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "common/json_text.h"
#include "common/try.h"
#include "json_output.h"
#include "session.h"
#include "slurm/libslurm_client.h"

namespace cli {
namespace {

struct InspectOptions {
    std::vector<std::string> job_ids;
    bool json = false;
};

void print_job_text(const slurm::JobSnapshot& job) {
    std::printf("%s  %s  %s", job.id.to_string().c_str(),
                std::string(slurm::to_string(job.state)).c_str(), job.name.c_str());
    std::printf("  reason=%s restarts=%u nodes=%s", job.state_reason.c_str(), job.restart_count,
                job.nodes.empty() ? "-" : job.nodes.c_str());
    if (job.exit_code) {
        std::printf(" exit=%d:%d", *job.exit_code, job.signal.value_or(0));
    }
    if (!job.excluded_nodes.empty()) {
        std::printf(" excluded=%s", job.excluded_nodes.c_str());
    }
    std::printf("\n    stdout=%s\n", job.std_out.c_str());
}

common::Result<int> inspect_jobs(const GlobalOptions& global, const InspectOptions& options) {
    std::vector<common::JobId> ids;
    for (const auto& text : options.job_ids) {
        auto id = TRY(common::JobId::parse(text));
        ids.push_back(id);
    }
    auto client = TRY(connect_slurm(global));
    const auto query = client->load_jobs(ids);
    if (!query) {
        return tl::unexpected(slurm_failure(query.error()));
    }
    if (options.json) {
        nlohmann::json out{{"jobs", nlohmann::json::array()}, {"missing", nlohmann::json::array()}};
        for (const auto& job : query->jobs) {
            out["jobs"].push_back(to_json(job));
        }
        for (const auto& id : query->missing) {
            out["missing"].push_back(id.to_string());
        }
        std::cout << common::json_text(out, 2) << '\n';
    } else {
        for (const auto& job : query->jobs) {
            print_job_text(job);
        }
        for (const auto& id : query->missing) {
            std::printf("%s  not known to slurmctld (never existed, or purged after MinJobAge)\n",
                        id.to_string().c_str());
        }
    }
    return query->missing.empty() ? 0 : 3;
}

common::Result<int> inspect_nodes(const GlobalOptions& global, bool json) {
    auto client = TRY(connect_slurm(global));
    const auto nodes = client->load_nodes();
    if (!nodes) {
        return tl::unexpected(slurm_failure(nodes.error()));
    }
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& node : *nodes) {
            out.push_back(to_json(node));
        }
        std::cout << common::json_text(out, 2) << '\n';
        return 0;
    }
    for (const auto& node : *nodes) {
        std::printf("%-12s %-10s%s%s %s\n", node.name.c_str(),
                    std::string(slurm::to_string(node.state)).c_str(),
                    node.not_responding ? " not-responding" : "", node.drain ? " drain" : "",
                    node.reason.c_str());
    }
    return 0;
}

// Exit status 3 when accounting has no record of the job (or the cluster keeps none).
common::Result<int> inspect_accounting(const GlobalOptions& global, const std::string& text,
                                       bool json) {
    auto id = TRY(common::JobId::parse(text));
    auto client = TRY(connect_slurm(global));
    const auto accounting = client->load_accounting(id);
    if (!accounting) {
        return tl::unexpected(slurm_failure(accounting.error()));
    }
    const auto& record = *accounting;
    if (json) {
        nlohmann::json out{{"job", id.to_string()}, {"accounting", nullptr}};
        if (record) {
            out["accounting"] = {
                {"state", slurm::to_string(record->state)},
                {"exit_code",
                 record->exit_code ? nlohmann::json(*record->exit_code) : nlohmann::json(nullptr)},
                {"signal",
                 record->signal ? nlohmann::json(*record->signal) : nlohmann::json(nullptr)},
                {"records", record->record_count},
                {"nodes", record->nodes},
                {"end_time", record->end_time ? nlohmann::json(format_time(*record->end_time))
                                              : nlohmann::json(nullptr)}};
        }
        std::cout << common::json_text(out, 2) << '\n';
    } else if (record) {
        std::printf("%s  %s  records=%u nodes=%s", id.to_string().c_str(),
                    std::string(slurm::to_string(record->state)).c_str(), record->record_count,
                    record->nodes.empty() ? "-" : record->nodes.c_str());
        if (record->exit_code) {
            std::printf(" exit=%d:%d", *record->exit_code, record->signal.value_or(0));
        }
        std::printf(" end=%s\n", record->end_time ? format_time(*record->end_time).c_str() : "-");
    } else {
        std::printf("%s  no accounting record (no slurmdbd on this cluster, or unknown job)\n",
                    id.to_string().c_str());
    }
    return record ? 0 : 3;
}

}  // namespace

void add_inspect(CLI::App& app, const GlobalOptions& global, Action& action) {
    auto* inspect = app.add_subcommand(
        "inspect",
        "Show what slurmctld (or accounting) reports about jobs or nodes, as the supervisor "
        "sees it");
    inspect->require_subcommand(1);

    auto options = std::make_shared<InspectOptions>();
    auto* jobs = inspect->add_subcommand(
        "job", "Show jobs (exit status 3 when one of them is unknown to slurmctld)");
    jobs->add_option("JOBID", options->job_ids, "job ids, e.g. 1234 or 1234_7 for an array task")
        ->required();
    jobs->add_flag("--json", options->json, "print JSON");
    jobs->callback([&global, &action, options] {
        action = [&global, options] { return inspect_jobs(global, *options); };
    });

    auto accounting_id = std::make_shared<std::string>();
    auto* accounting = inspect->add_subcommand(
        "accounting",
        "Show how a job ended according to Slurm accounting (slurmdbd); exit status 3 when there "
        "is no record");
    accounting->add_option("JOBID", *accounting_id, "job id, e.g. 1234 or 1234_7")->required();
    accounting->add_flag("--json", options->json, "print JSON");
    accounting->callback([&global, &action, options, accounting_id] {
        action = [&global, options, accounting_id] {
            return inspect_accounting(global, *accounting_id, options->json);
        };
    });

    auto* nodes = inspect->add_subcommand("nodes", "Show every node with its state and reason");
    nodes->add_flag("--json", options->json, "print JSON");
    nodes->callback([&global, &action, options] {
        action = [&global, options] { return inspect_nodes(global, options->json); };
    });
}

}  // namespace cli
