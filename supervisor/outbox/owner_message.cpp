// Field for field: nothing here parses text, so whatever a log line or a file name holds stays
// inside the one field it came in (the renderings in notify/ escape it for display).
#include "supervisor/outbox/owner_message.h"

namespace supervisor {
namespace {

using state::Outcome;
using state::Status;

std::string headline(const state::Registration& r) {
    switch (r.status) {
        case Status::recovering:
            return "failed; recovering";
        case Status::enabled:
            return "is running again";
        case Status::credential_error:
            return "cannot be supervised";
        case Status::pending:
            return "is waiting for its checks";
        case Status::completed:
            break;
    }
    switch (r.outcome) {
        case Outcome::succeeded:
            return "finished successfully";
        case Outcome::cancelled:
            return "was cancelled";
        case Outcome::unrecoverable:
            return "failed and was NOT recovered";
        case Outcome::lost:
            return "is no longer known to Slurm";
        case Outcome::resubmitted:
            return "continues as job " + r.next_job;
        case Outcome::none:
            break;
    }
    return "is now " + state::status_text(r);
}

std::string default_next_step(const state::Registration& r) {
    const std::string job = r.job.to_string();
    switch (r.status) {
        case Status::recovering:
            return "nothing to do now; you will hear when it runs again or if it cannot be "
                   "recovered.";
        case Status::enabled:
            return "nothing to do.";
        case Status::credential_error:
            return "fix what the reason says, then run `supervisor register " + job + "` again.";
        case Status::pending:
            return "nothing to do.";
        case Status::completed:
            break;
    }
    switch (r.outcome) {
        case Outcome::succeeded:
            return "nothing to do.";
        case Outcome::cancelled:
            return "nothing to do; it is not requeued after a cancel.";
        case Outcome::unrecoverable:
            return "look at the evidence (`supervisor events " + job +
                   "`); when the cause is fixed, resubmit and register the job again.";
        case Outcome::lost:
            return "check how it ended with `sacct -j " + job + "`; resubmit if needed.";
        case Outcome::resubmitted:
            return "nothing to do; job " + r.next_job + " is supervised in its place.";
        case Outcome::none:
            break;
    }
    return "see `supervisor events " + job + "`.";
}

}  // namespace

notify::Message owner_message(const state::Registration& r, const std::string& reason,
                              const FailureReport& report) {
    notify::Message m;
    m.job = r.job.to_string();
    m.job_name = r.job_name;
    m.status = state::status_text(r);
    // The report's headline names the event that began the recovery (or what was found in a
    // run that succeeded: a failed step); a later move of the same failure (escalated) keeps
    // its status's own.
    const bool own_headline = r.status == Status::recovering ||
                              (r.status == Status::completed && r.outcome == Outcome::succeeded);
    m.headline = !report.headline.empty() && own_headline ? report.headline : headline(r);
    m.reason = reason;
    m.attempt = r.attempt;
    if (r.status == Status::recovering ||
        (r.status == Status::completed && r.outcome == Outcome::unrecoverable)) {
        m.cause = r.last_cause;
    }
    m.checkpoint = r.last_checkpoint;
    m.summary = report.summary;
    m.evidence = report.evidence;
    m.nodes = report.nodes;
    if (!report.resume_from.empty()) {
        m.checkpoint = report.resume_from;
    }
    m.actions = report.actions;
    m.would_have_done = report.would_have_done;
    m.notes = report.notes;
    m.next_step = report.next_step;
    if (m.next_step.empty()) {
        m.next_step = default_next_step(r);
    }
    return m;
}

OwnerNotice internal_error_notice(const state::Registration& registration, const std::string& what,
                                  int failures, int max_pause_cycles) {
    const std::string job = registration.job.to_string();
    notify::Message message;
    message.job = job;
    message.job_name = registration.job_name;
    message.status = state::status_text(registration);
    message.headline = "could not be handled by the supervisor";
    message.reason = "handling the job failed " + std::to_string(failures) +
                     " times in a row with an internal error: " + what;
    message.attempt = registration.attempt;
    message.notes = {"The supervisor keeps retrying, with pauses of up to " +
                     std::to_string(max_pause_cycles) +
                     " poll cycles; until it succeeds, a failure of this job may not be "
                     "recovered automatically."};
    message.next_step = "check the job yourself (`squeue -j " + job +
                        "`), and report this "
                        "error with the output of `supervisor events " +
                        job + "`.";
    return {message, job + ":internal_error:" + std::to_string(registration.attempt)};
}

}  // namespace supervisor
