// The reasons are Slurm's job_state_reason strings (slurm_protocol_defs.c), the same words
// squeue's %r prints. Only reasons that cannot change without a person are listed: the
// supervisor tells an owner about a wait only when waiting will not end it.
#include "supervisor/watches/pending_reason.h"

#include <array>

namespace supervisor {
namespace {

struct Known {
    std::string_view word;  // the reason, or its prefix when it ends with '*'
    std::string_view meaning;
    std::string_view what_to_do;
};

constexpr std::array k_known_reasons{
    Known{"ReqNodeNotAvail", "nodes the job requires are down, drained or reserved",
          "wait for the nodes to return, or remove them from the job (`scontrol update "
          "jobid=JOB ReqNodeList= ExcNodeList=...`), or ask the administrators"},
    Known{"NodeDown", "a node the job needs is down",
          "ask the administrators, or exclude the node (`scontrol update jobid=JOB "
          "ExcNodeList=...`)"},
    Known{"PartitionDown", "the job's partition is down",
          "move the job to another partition (`scontrol update jobid=JOB Partition=...`) or ask "
          "the administrators"},
    Known{"PartitionInactive", "the job's partition is inactive",
          "move the job to another partition, or ask the administrators"},
    Known{"PartitionNodeLimit", "the job asks for more nodes than its partition allows",
          "lower the node count or pick another partition"},
    Known{"PartitionTimeLimit", "the job's time limit is above its partition's limit",
          "lower the time limit (`scontrol update jobid=JOB TimeLimit=...`) or pick another "
          "partition"},
    Known{"PartitionConfig", "the job's request does not fit its partition's configuration",
          "check the job's options against `scontrol show partition`"},
    Known{"BadConstraints", "no node can satisfy the job's constraints (--constraint, --gres)",
          "fix the constraints or the GPU request, then submit again"},
    Known{"JobHeldAdmin", "an administrator holds the job",
          "ask the administrators why it is held and to release it"},
    Known{"launch failed requeued held", "the job failed to launch and Slurm holds it",
          "look at the node it tried (`scontrol show job JOB`), then `scontrol release JOB`"},
    Known{"DependencyNeverSatisfied",
          "a job this one depends on ended in a way that can "
          "never satisfy the dependency",
          "cancel the job, or remove the dependency (`scontrol update jobid=JOB Dependency=`)"},
    Known{"InvalidAccount", "the job's account is invalid or closed",
          "submit under a valid account (--account)"},
    Known{"AccountNotAllowed", "the job's account may not use this partition",
          "use an account allowed on the partition, or another partition"},
    Known{"InvalidQOS", "the job's QOS is invalid", "submit with a valid QOS (--qos)"},
    Known{"QOSNotAllowed", "the job's QOS is not allowed for its account or partition",
          "submit with an allowed QOS (--qos)"},
    Known{"ResvDeleted", "the reservation the job asked for was deleted",
          "remove the reservation from the job (`scontrol update jobid=JOB Reservation=`)"},
    Known{"FrontEndDown", "no front-end node is available", "ask the administrators"},
    // Per-job and per-node limits: the job asks for more than one job may have, so it never
    // starts. (The group limits, AssocGrp*/QOSGrp*, pass when other jobs end.)
    Known{"AssocMax*PerJob*", "the job asks for more than its association allows one job",
          "lower the request, or ask for a higher limit"},
    Known{"AssocMax*PerNode*", "the job asks for more per node than its association allows",
          "lower the request per node"},
    Known{"QOSMax*PerJob*", "the job asks for more than its QOS allows one job",
          "lower the request or use another QOS"},
    Known{"QOSMax*PerNode*", "the job asks for more per node than its QOS allows",
          "lower the request per node or use another QOS"},
    Known{"QOSMin*", "the job asks for less than its QOS requires",
          "raise the request or use another QOS"},
};

// "AssocMax*PerJob*": starts with "AssocMax" and contains "PerJob" after it.
bool matches(std::string_view pattern, std::string_view word) {
    const auto star = pattern.find('*');
    if (star == std::string_view::npos) {
        return word == pattern;
    }
    if (!word.starts_with(pattern.substr(0, star))) {
        return false;
    }
    const auto rest = pattern.substr(star + 1);
    const auto middle = rest.substr(0, rest.find('*'));
    return middle.empty() || word.find(middle, star) != std::string_view::npos;
}

}  // namespace

std::optional<StuckPending> stuck_pending_reason(std::string_view slurm_reason) {
    // "ReqNodeNotAvail, UnavailableNodes:n2" and "(ReqNodeNotAvail)": the first word decides.
    std::string_view word = slurm_reason;
    while (!word.empty() && (word.front() == '(' || word.front() == ' ')) {
        word.remove_prefix(1);
    }
    if (const auto end = word.find_first_of(",)"); end != std::string_view::npos) {
        word = word.substr(0, end);
    }
    for (const auto& known : k_known_reasons) {
        if (matches(known.word, word)) {
            return StuckPending{std::string(slurm_reason), std::string(known.meaning),
                                std::string(known.what_to_do)};
        }
    }
    return std::nullopt;
}

}  // namespace supervisor
