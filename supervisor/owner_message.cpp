// The details arrive as the text the journal also shows; reading them back by their line
// prefixes keeps one writer of that text (poll_cycle.cpp) and lets old callers that pass only
// a reason still produce a complete message. Lines with no known prefix become notes, so
// nothing written there is lost from the email.
#include "supervisor/owner_message.h"

#include <string_view>

namespace supervisor {
namespace {

using state::Outcome;
using state::Status;

std::string status_text(const state::Registration& r) {
    std::string text(state::to_string(r.status));
    if (r.status == Status::completed) {
        text += "/" + std::string(state::to_string(r.outcome));
    }
    return text;
}

std::string headline(const state::Registration& r) {
    switch (r.status) {
        case Status::recovering: return "failed; recovering";
        case Status::enabled: return "is running again";
        case Status::credential_error: return "cannot be supervised";
        case Status::pending: return "is waiting for its checks";
        case Status::completed: break;
    }
    switch (r.outcome) {
        case Outcome::succeeded: return "finished successfully";
        case Outcome::cancelled: return "was cancelled";
        case Outcome::unrecoverable: return "failed and was NOT recovered";
        case Outcome::lost: return "is no longer known to Slurm";
        case Outcome::resubmitted: return "continues as job " + r.next_job;
        case Outcome::none: break;
    }
    return "is now " + status_text(r);
}

std::string default_next_step(const state::Registration& r) {
    const std::string job = r.job.to_string();
    switch (r.status) {
        case Status::recovering:
            return "nothing to do now; you will hear when it runs again or if it cannot be "
                   "recovered.";
        case Status::enabled: return "nothing to do.";
        case Status::credential_error:
            return "fix what the reason says, then run `supervisor register " + job + "` again.";
        case Status::pending: return "nothing to do.";
        case Status::completed: break;
    }
    switch (r.outcome) {
        case Outcome::succeeded: return "nothing to do.";
        case Outcome::cancelled: return "nothing to do; it is not requeued after a cancel.";
        case Outcome::unrecoverable:
            return "look at the evidence (`supervisor events " + job +
                   "`); when the cause is fixed, resubmit and register the job again.";
        case Outcome::lost:
            return "check how it ended with `sacct -j " + job + "`; resubmit if needed.";
        case Outcome::resubmitted:
            return "nothing to do; job " + r.next_job + " is supervised in its place.";
        case Outcome::none: break;
    }
    return "see `supervisor events " + job + "`.";
}

bool take(std::string_view line, std::string_view prefix, std::string& out) {
    if (!line.starts_with(prefix)) {
        return false;
    }
    out = std::string(line.substr(prefix.size()));
    return true;
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find(',', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        auto item = text.substr(start, end - start);
        item.erase(0, item.find_first_not_of(' '));
        if (!item.empty()) {
            items.push_back(item);
        }
        start = end + 1;
    }
    return items;
}

}  // namespace

notify::Message owner_message(const state::Registration& r, const std::string& reason,
                              const std::string& details) {
    notify::Message m;
    m.job = r.job.to_string();
    m.job_name = r.job_name;
    m.status = status_text(r);
    m.headline = headline(r);
    m.reason = reason;
    m.attempt = r.attempt;
    if (r.status == Status::recovering ||
        (r.status == Status::completed && r.outcome == Outcome::unrecoverable)) {
        m.cause = r.last_cause;
    }
    m.checkpoint = r.last_checkpoint;
    std::size_t start = 0;
    while (start < details.size()) {
        auto end = details.find('\n', start);
        if (end == std::string::npos) {
            end = details.size();
        }
        const std::string_view line(details.data() + start, end - start);
        start = end + 1;
        std::string value;
        if (line.empty()) {
            continue;
        }
        if (line.starts_with("  ")) {
            m.evidence.emplace_back(line.substr(2));
        } else if (take(line, "Diagnosis: ", m.summary) || take(line, "Next step: ", m.next_step)) {
        } else if (take(line, "Resume from: ", value)) {
            m.checkpoint = value;
        } else if (take(line, "Nodes: ", value)) {
            m.nodes = split_list(value);
        } else if (take(line, "Action: ", value)) {
            m.actions.push_back(value);
        } else if (take(line, "Would have done: ", value)) {
            m.would_have_done.push_back(value);
        } else if (take(line, "Note: ", value)) {
            m.notes.push_back(value);
        } else {
            m.notes.emplace_back(line);  // "Plan: ...", "Checkpoint rejected: ...", ...
        }
    }
    if (m.next_step.empty()) {
        m.next_step = default_next_step(r);
    }
    return m;
}

}  // namespace supervisor
