// Slurm reports hundreds of error numbers; the supervisor acts on only a few distinctions
// (retry later, job gone, not allowed, refused in this state), so collapse them here.
#include <cerrno>
#include <string>

#include "slurm/detail/libslurm.h"
#include "slurm/release.h"

namespace slurm::detail {
namespace {

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
constexpr int k_rate_limited = SLURMCTLD_COMMUNICATIONS_BACKOFF;
#else
constexpr int k_rate_limited = 1804;  // SLURMCTLD_COMMUNICATIONS_BACKOFF of 23.02 and later
#endif

// What slurmctld does when it cannot or will not read our request: before 24.11 it closes the
// connection without a word when it rejects our munge credential, and any release does so for
// a protocol version it does not speak. The daemon retries; people get told the two causes.
constexpr const char* k_dropped_connection_note =
    " (slurmctld closed the connection without answering: it may have rejected our munge "
    "credential (another munge key, clock skew) or not speak this build's Slurm release; "
    "`supervisor doctor` checks both)";

ErrorKind classify(int code) {
    switch (code) {
        case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
        case SLURM_COMMUNICATIONS_SEND_ERROR:
        case SLURM_COMMUNICATIONS_RECEIVE_ERROR:
        case SLURM_COMMUNICATIONS_SHUTDOWN_ERROR:
        case SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR:
        case SLURMCTLD_COMMUNICATIONS_SEND_ERROR:
        case SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR:
        case SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR:
        case SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT:
        case SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT:  // see k_dropped_connection_note
        case SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR:
        case ESLURM_IN_STANDBY_MODE:
        case ESLURM_DB_CONNECTION:  // slurmdbd (accounting) down or unreachable
        case ESLURM_DB_CONNECTION_INVALID:
            return ErrorKind::controller_unreachable;
        case ESLURM_INVALID_JOB_ID:
            return ErrorKind::job_not_found;
        case ESLURM_ACCESS_DENIED:
        case ESLURM_USER_ID_MISSING:  // "Invalid user id": what slurmctld says to non-operators
        case ESLURM_GROUP_ID_MISSING:
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
        // 23.11 split "invalid user/group id" into these for submissions under another uid.
        case ESLURM_USER_ID_INVALID:
        case ESLURM_USER_ID_UNKNOWN:
        case ESLURM_GROUP_ID_INVALID:
        case ESLURM_GROUP_ID_UNKNOWN:
#endif
            return ErrorKind::access_denied;
        // The RPC rate limiter (SlurmctldParameters=rl_enable, 23.02+). libslurm 23.02+ sleeps
        // and retries BACKOFF by itself, so it reaches a newer build only as HARD_DROP (24.05+,
        // not retried); a 22.05 build talking to a newer slurmctld gets the bare number.
        case k_rate_limited:
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
        case SLURMCTLD_COMMUNICATIONS_HARD_DROP:
#endif
            return ErrorKind::controller_busy;
        case SLURM_PROTOCOL_VERSION_ERROR:
            return ErrorKind::release_mismatch;
        case SLURM_PROTOCOL_AUTHENTICATION_ERROR:
        case ESLURM_AUTH_CRED_INVALID:
        case ESLURM_AUTH_BADARG:
        case ESLURM_AUTH_UNPACK:
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
        // 23.02 folded these into ESLURM_AUTH_CRED_INVALID and dropped them from slurm_errno.h.
        case ESLURM_AUTH_FOPEN_ERROR:
        case ESLURM_AUTH_NET_ERROR:
        case ESLURM_AUTH_UNABLE_TO_SIGN:
        case ESLURM_AUTH_INVALID:
#endif
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
        case ESLURM_AUTH_EXPIRED:  // 24.11: a credential past its TTL (munge clock skew)
#endif
            return ErrorKind::authentication_failure;
        case ESLURM_DISABLED:            // requeue of a --no-requeue job: "...presently disabled"
        case ESLURM_JOB_SCRIPT_MISSING:  // batch script of an salloc/srun allocation
        case ESLURM_BATCH_ONLY:
        case ESLURM_JOB_PENDING:
        case ESLURM_JOB_NOT_PENDING:
        case ESLURM_JOB_FINISHED:
        case ESLURM_JOB_NOT_RUNNING:
        case ESLURM_JOB_NOT_PENDING_NOR_RUNNING:
        case ESLURM_JOB_NOT_FINISHED:
        case ESLURM_TRANSITION_STATE_NO_UPDATE:
        case ESLURM_ALREADY_DONE:
        case ESLURM_NOT_SUPPORTED:
        case ESLURM_INVALID_NODE_NAME:
        case ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE:
        case ESLURM_INVALID_TIME_LIMIT:
        // A submission Slurm will not queue as asked (Client::submit).
        case ESLURM_INVALID_PARTITION_NAME:
        case ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE:
        case ESLURM_INVALID_ACCOUNT:
        case ESLURM_INVALID_QOS:
        case ESLURM_INVALID_GRES:
        case ESLURM_INVALID_TASK_MEMORY:
        case ESLURM_ENVIRONMENT_MISSING:
        case ESLURM_RESERVATION_INVALID:
        case ESLURM_RESERVATION_ACCESS:
        case ESLURM_INVALID_LICENSES:
        case ESLURM_INVALID_FEATURE:
        case ESLURM_INVALID_WCKEY:
        case ESLURM_INVALID_NICE:
        case ESLURM_DEPENDENCY:
        // A partition the job may not use (Client::ask_will_run): AllowGroups, State=DOWN.
        case ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP:
        case ESLURM_PARTITION_NOT_AVAIL:
            return ErrorKind::operation_refused;
        default:
            return ErrorKind::other;
    }
}

}  // namespace

int last_error(int rc) {
    if (errno != 0) {
        return errno;
    }
    return rc != 0 && rc != -1 ? rc : SLURM_ERROR;
}

Error make_error(int slurm_errno, const std::string& operation) {
    const char* text = slurm_strerror(slurm_errno);
    const ErrorKind kind = classify(slurm_errno);
    std::string message = operation + ": " + (text ? text : "unknown Slurm error") +
                          " (Slurm error " + std::to_string(slurm_errno) + ")";
    if (kind == ErrorKind::release_mismatch) {
        message += "; " + release_mismatch_hint();  // Slurm's text says "re-link your code"
    }
    if (slurm_errno == SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT) {
        message += k_dropped_connection_note;
    }
    return Error{kind, std::move(message)};
}

}  // namespace slurm::detail
