#include "supervisor/registrations/registration_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "common/input_file.h"

namespace supervisor {
namespace {

// Real opens, not access(): access() checks the REAL uid, while the daemon reads a job's files
// with its owner's filesystem credentials (common/file_identity.h), which only open() honours.
bool can_open(const std::string& path, int flags) {
    const int fd = ::open(path.c_str(), flags | O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    ::close(fd);
    return true;
}

// "dir/." resolves only with search permission on dir, and opens only with read permission.
bool directory_readable(const std::string& path) {
    return can_open((std::filesystem::path(path) / ".").string(), O_DIRECTORY);
}

// A log that does not exist yet (job still pending) is fine when its directory can be read.
bool readable_or_creatable(const std::string& path) {
    if (can_open(path, 0)) {
        return true;
    }
    const int error = errno;
    const auto parent = std::filesystem::path(path).parent_path();
    return error == ENOENT && directory_readable(parent.empty() ? "." : parent.string());
}

}  // namespace

std::optional<common::Error> check_registration(const state::Registration& registration,
                                                const OwnerChoices& owner,
                                                const slurm::JobSnapshot& job,
                                                const Registrant& registrant) {
    const std::string id = job.id.to_string();
    if (!registrant.is_operator && registrant.uid != job.user_id) {
        return common::Error{"job " + id + " belongs to uid " + std::to_string(job.user_id) +
                                 ", and uid " + std::to_string(registrant.uid) +
                                 " registered it, who is neither its owner nor a Slurm operator",
                             "register the job as its owner, or ask an operator to"};
    }
    if (!job.batch) {
        return common::Error{"job " + id + " is not a batch job; Slurm cannot requeue it",
                             "submit the training job with sbatch"};
    }
    if (!job.requeueable && !owner.allows(recovery::ActionKind::resubmit)) {
        return common::Error{
            "job " + id + " is not requeueable (submitted with --no-requeue, or JobRequeue=0)",
            "run `scontrol update jobid=" + id +
                " Requeue=1`, submit with `sbatch --requeue`, or allow resubmit "
                "(--allow requeue,resubmit), then register again"};
    }
    for (const auto& log : {job.std_out, job.std_err}) {
        struct stat info {};
        if (!log.empty() && log != "/dev/null" && ::stat(log.c_str(), &info) == 0 &&
            !S_ISREG(info.st_mode)) {
            return common::Error{"the job's output " + log + " is " +
                                     std::string(common::file_kind_name(info.st_mode)) +
                                     ": the supervisor reads only regular files (a FIFO could "
                                     "block it, a device never ends)",
                                 "send the output to a file (sbatch -o/-e), then register again"};
        }
        if (!log.empty() && log != "/dev/null" && !readable_or_creatable(log)) {
            return common::Error{"the job's output " + log +
                                     " cannot be read with the job owner's rights (the "
                                     "supervisor reads a job's files as its owner)",
                                 "make the file (or its directory) readable by the job's "
                                 "owner, then register again"};
        }
    }
    // A job that has not run yet may create its own directory (an array task's %A_%a one, say)
    // as long as the directory it goes into is there.
    const bool not_run_yet = job.state == slurm::JobState::pending && job.restart_count == 0;
    if (!registration.checkpoint_dir.empty() &&
        !(not_run_yet ? readable_or_creatable(registration.checkpoint_dir)
                      : directory_readable(registration.checkpoint_dir))) {
        return common::Error{"checkpoint directory " + registration.checkpoint_dir +
                                 (not_run_yet ? " cannot be read, nor created by the job"
                                              : " does not exist or cannot be read"),
                             "create it or fix --checkpoint-dir, then register again"};
    }
    return std::nullopt;
}

}  // namespace supervisor
