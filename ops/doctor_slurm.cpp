// The Slurm checks. One node query answers both "is slurmctld there" and "does it accept our
// munge credential"; the error kind tells them apart (slurm/types.h ErrorKind).
#include <algorithm>

#include "ops/doctor.h"
#include "recovery/cause.h"
#include "supervisor/steps/owner_choices.h"

namespace ops {

Check check_slurm_version(const std::string& compiled, const std::string& runtime) {
    // The loader refuses a libslurm whose soname differs from the one we linked, so the two
    // numbers cannot disagree in a running binary; shown for bug reports and upgrades.
    return {"slurm_version", CheckStatus::ok,
            "built against Slurm " + compiled + ", running with libslurm API " + runtime +
                " (after a Slurm upgrade, rebuild: the ABI changes with every release)",
            ""};
}

Check check_slurm_release(slurm::Client* client, const slurm::Release& compiled) {
    const std::string name = "slurm_release";
    if (!client) {
        return {name, CheckStatus::warn, "not checked (no Slurm client)", "fix slurmctld first"};
    }
    const auto controller = client->load_controller_release();
    if (!controller) {
        if (controller.error().kind == slurm::ErrorKind::release_mismatch) {
            return {
                name, CheckStatus::fail,
                "built against Slurm " + compiled.to_string() + "; " + controller.error().message,
                "rebuild slurm-supervisor against the Slurm release slurmctld runs "
                "(`scontrol --version` on a node of the cluster)"};
        }
        return {name, CheckStatus::warn,
                "not checked (could not ask slurmctld: " + controller.error().message + ")",
                "fix slurmctld first"};
    }
    const auto verdict = slurm::check_compatibility(compiled, *controller);
    switch (verdict.compatibility) {
        case slurm::Compatibility::same:
            return {name, CheckStatus::ok, verdict.explanation, ""};
        case slurm::Compatibility::older_client:
            return {name, CheckStatus::warn, verdict.explanation, verdict.fix};
        case slurm::Compatibility::unsupported:
            break;
    }
    return {name, CheckStatus::fail, verdict.explanation, verdict.fix};
}

std::vector<Check> check_slurm(slurm::Client* client, const std::string& create_error) {
    if (!client) {
        return {
            {"slurmctld", CheckStatus::fail, create_error,
             "point --slurm-conf or SLURM_CONF at the cluster's slurm.conf"},
            {"auth", CheckStatus::warn, "not checked (no Slurm client)", "fix slurmctld first"}};
    }
    const auto nodes = client->load_nodes();
    if (nodes) {
        const auto usable = std::ranges::count_if(*nodes, [](const slurm::NodeSnapshot& node) {
            return !node.drain && !node.not_responding && node.state != slurm::NodeState::down;
        });
        return {{"slurmctld", CheckStatus::ok,
                 "answered: " + std::to_string(nodes->size()) + " node(s), " +
                     std::to_string(usable) + " up and not drained",
                 ""},
                {"auth", CheckStatus::ok, "slurmctld accepted our credential (munge)", ""}};
    }
    const auto& error = nodes.error();
    switch (error.kind) {
        case slurm::ErrorKind::controller_unreachable:
            return {{"slurmctld", CheckStatus::fail, error.message,
                     "start slurmctld or check SlurmctldHost/SlurmctldPort in slurm.conf and the "
                     "network; `scontrol ping` must say UP"},
                    {"auth", CheckStatus::warn, "not checked (slurmctld unreachable)",
                     "fix slurmctld first"}};
        case slurm::ErrorKind::authentication_failure:
            return {{"slurmctld", CheckStatus::ok, "reachable (it answered)", ""},
                    {"auth", CheckStatus::fail, error.message,
                     "start munged (`systemctl start munge`), give it the cluster's "
                     "/etc/munge/munge.key, keep clocks in sync; `munge -n | unmunge` must "
                     "succeed"}};
        default:
            return {{"slurmctld", CheckStatus::fail, error.message,
                     "run `scontrol show nodes` as this user to see Slurm's own error"},
                    {"auth", CheckStatus::warn, "not checked", "fix slurmctld first"}};
    }
}

Check check_operator(slurm::Client* client, std::span<const state::Registration> registrations,
                     uid_t uid) {
    const std::string name = "operator";
    if (!client) {
        return {name, CheckStatus::warn, "not checked (no Slurm client)", "fix slurmctld first"};
    }
    const auto answer = client->ask_is_operator();
    if (!answer) {
        return {name, CheckStatus::warn, "could not ask slurmctld: " + answer.error().message,
                "fix slurmctld first"};
    }
    if (*answer) {
        return {name, CheckStatus::ok,
                "Slurm operator (root or SlurmUser): may act on every user's jobs and drain "
                "nodes (drain_node)",
                ""};
    }
    std::vector<std::string> foreign, drains;
    for (const auto& registration : registrations) {
        const bool watched =
            registration.watching && registration.status != state::Status::completed;
        if (!watched) {
            continue;
        }
        if (registration.owner_uid != uid) {
            foreign.push_back(registration.job.to_string());
        }
        if (supervisor::owner_choices_of(registration).allows(recovery::ActionKind::drain_node)) {
            drains.push_back(registration.job.to_string());
        }
    }
    auto list = [](const std::vector<std::string>& jobs) {
        std::string text;
        for (const auto& job : jobs) {
            text += (text.empty() ? "" : ",") + job;
        }
        return text;
    };
    if (!foreign.empty()) {
        return {name, CheckStatus::fail,
                "not a Slurm operator, but watching other users' jobs (" + list(foreign) +
                    "): Slurm will refuse to requeue them",
                "run the supervisor as their owner (a per-user unit), or as root/SlurmUser"};
    }
    if (!drains.empty()) {
        return {name, CheckStatus::warn,
                "not a Slurm operator: drain_node allowed for job(s) " + list(drains) +
                    " will only be reported (\"would have drained\"), never done",
                "run a site-wide supervisor as root or SlurmUser to drain nodes, or drop "
                "drain_node from --allow"};
    }
    return {name, CheckStatus::ok,
            "not a Slurm operator: fine for your own jobs; drain_node is only reported and a "
            "time limit beyond the partition's is refused",
            ""};
}

}  // namespace ops
