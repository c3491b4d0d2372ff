// Slurm reports hundreds of error numbers; the supervisor acts on only a few distinctions
// (retry later, job gone, not allowed, refused in this state), so collapse them here.
#include <cerrno>
#include <string>

#include "slurm/detail/libslurm.h"

namespace slurm::detail {
namespace {

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
            return ErrorKind::access_denied;
        case SLURM_PROTOCOL_AUTHENTICATION_ERROR:
        case ESLURM_AUTH_CRED_INVALID:
        case ESLURM_AUTH_FOPEN_ERROR:
        case ESLURM_AUTH_NET_ERROR:
        case ESLURM_AUTH_UNABLE_TO_SIGN:
        case ESLURM_AUTH_BADARG:
        case ESLURM_AUTH_INVALID:
        case ESLURM_AUTH_UNPACK:
            return ErrorKind::authentication_failure;
        case ESLURM_DISABLED:  // requeue of a --no-requeue job: "...presently disabled"
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
    return Error{classify(slurm_errno),
                 operation + ": " + (text ? text : "unknown Slurm error") + " (Slurm error " +
                     std::to_string(slurm_errno) + ")"};
}

}  // namespace slurm::detail
