#include "supervisor/journal/lifecycle.h"

#include <array>

namespace supervisor {
namespace {

using state::Outcome;
using state::Status;
using enum Observation;

struct Row {
    Status from;
    Observation observation;
    Verdict verdict;
    Status to;
    Outcome outcome;
};

constexpr Row move(Status from, Observation o, Status to, Outcome outcome = Outcome::none) {
    return {from, o, Verdict::move, to, outcome};
}
constexpr Row stay(Status from, Observation o) {
    return {from, o, Verdict::stay, from, Outcome::none};
}
constexpr Row reject(Status from, Observation o) {
    return {from, o, Verdict::reject, from, Outcome::none};
}

// Every (status, observation) pair, on purpose. Terminal statuses stay whatever is observed:
// completed is final, and credential_error waits for the owner to register again.
constexpr std::array k_table{
    // pending: only the registration checks can move it.
    move(Status::pending, validated, Status::enabled),
    move(Status::pending, validation_failed, Status::credential_error),
    move(Status::pending, access_lost, Status::credential_error),
    stay(Status::pending, job_active),
    stay(Status::pending, job_succeeded),
    stay(Status::pending, job_cancelled),
    stay(Status::pending, job_failed),
    stay(Status::pending, slurm_requeued),
    move(Status::pending, job_purged, Status::completed, Outcome::lost),
    reject(Status::pending, recovered),
    reject(Status::pending, escalated),
    reject(Status::pending, resubmitted),
    move(Status::pending, job_reused, Status::completed, Outcome::lost),

    // enabled: watching.
    reject(Status::enabled, validated),
    reject(Status::enabled, validation_failed),
    move(Status::enabled, access_lost, Status::credential_error),
    stay(Status::enabled, job_active),
    move(Status::enabled, job_succeeded, Status::completed, Outcome::succeeded),
    move(Status::enabled, job_cancelled, Status::completed, Outcome::cancelled),
    move(Status::enabled, job_failed, Status::recovering),
    move(Status::enabled, slurm_requeued, Status::recovering),
    move(Status::enabled, job_purged, Status::completed, Outcome::lost),
    reject(Status::enabled, recovered),
    reject(Status::enabled, escalated),
    reject(Status::enabled, resubmitted),
    move(Status::enabled, job_reused, Status::completed, Outcome::lost),

    // recovering: a plan is under way.
    reject(Status::recovering, validated),
    reject(Status::recovering, validation_failed),
    move(Status::recovering, access_lost, Status::credential_error),
    stay(Status::recovering, job_active),  // requeued, actions not all recorded yet
    move(Status::recovering, job_succeeded, Status::completed, Outcome::succeeded),
    move(Status::recovering, job_cancelled, Status::completed, Outcome::cancelled),
    stay(Status::recovering, job_failed),  // still down while the plan executes
    stay(Status::recovering, slurm_requeued),
    move(Status::recovering, job_purged, Status::completed, Outcome::lost),
    move(Status::recovering, recovered, Status::enabled),
    move(Status::recovering, escalated, Status::completed, Outcome::unrecoverable),
    move(Status::recovering, resubmitted, Status::completed, Outcome::resubmitted),
    move(Status::recovering, job_reused, Status::completed, Outcome::lost),

    // completed: final.
    stay(Status::completed, validated),
    stay(Status::completed, validation_failed),
    stay(Status::completed, access_lost),
    stay(Status::completed, job_active),
    stay(Status::completed, job_succeeded),
    stay(Status::completed, job_cancelled),
    stay(Status::completed, job_failed),
    stay(Status::completed, slurm_requeued),
    stay(Status::completed, job_purged),
    stay(Status::completed, recovered),
    stay(Status::completed, escalated),
    stay(Status::completed, resubmitted),
    stay(Status::completed, job_reused),

    // credential_error: waits for `supervisor register` again.
    move(Status::credential_error, validated, Status::enabled),
    move(Status::credential_error, validation_failed, Status::credential_error),
    stay(Status::credential_error, access_lost),
    stay(Status::credential_error, job_active),
    stay(Status::credential_error, job_succeeded),
    stay(Status::credential_error, job_cancelled),
    stay(Status::credential_error, job_failed),
    stay(Status::credential_error, slurm_requeued),
    stay(Status::credential_error, job_purged),
    reject(Status::credential_error, recovered),
    reject(Status::credential_error, escalated),
    reject(Status::credential_error, resubmitted),
    stay(Status::credential_error, job_reused),
};

static_assert(k_table.size() == 5 * k_observation_count, "every pair needs a row");

}  // namespace

std::string_view to_string(Observation observation) {
    switch (observation) {
        case validated:
            return "validated";
        case validation_failed:
            return "validation_failed";
        case access_lost:
            return "access_lost";
        case job_active:
            return "job_active";
        case job_succeeded:
            return "job_succeeded";
        case job_cancelled:
            return "job_cancelled";
        case job_failed:
            return "job_failed";
        case slurm_requeued:
            return "slurm_requeued";
        case job_purged:
            return "job_purged";
        case recovered:
            return "recovered";
        case escalated:
            return "escalated";
        case resubmitted:
            return "resubmitted";
        case job_reused:
            return "job_reused";
    }
    return "unknown";
}

std::optional<Observation> observation_from_string(std::string_view text) {
    for (int i = 0; i < k_observation_count; ++i) {
        const auto observation = static_cast<Observation>(i);
        if (to_string(observation) == text) {
            return observation;
        }
    }
    return std::nullopt;
}

Transition transition(Status from, Observation observation) {
    for (const auto& row : k_table) {
        if (row.from == from && row.observation == observation) {
            return Transition{row.verdict, row.to, row.outcome};
        }
    }
    return Transition{};  // unreachable: the static_assert and the unit test cover every pair
}

}  // namespace supervisor
