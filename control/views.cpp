// Moved here from the CLI's status command so that the site daemon answers with the very
// same text; a table row is padded into a string as printf's %-Ns would print it.
#include "control/views.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json_fields.h"
#include "common/json_text.h"
#include "common/printable.h"
#include "common/time_text.h"
#include "state/event_kind.h"
#include "supervisor/failure/drain_limits.h"
#include "supervisor/journal/journal_events.h"
#include "supervisor/steps/knobs.h"
#include "supervisor/steps/owner_choices.h"
#include "supervisor/steps/step_kind.h"

namespace control {
namespace {

using common::format_time;
using common::printable;

// The status as `status` lists it: the one status text, and whether it is still watched.
std::string shown_status(const state::Registration& registration) {
    std::string text = state::status_text(registration);
    if (!registration.watching) {
        text += " (unregistered)";
    }
    return text;
}

// A decision event's data with its time as "at"; null for no event or unreadable data.
nlohmann::json decision_json(const std::optional<state::Event>& event) {
    const auto decision =
        event ? supervisor::decode<supervisor::DecisionEvent>(*event) : std::nullopt;
    if (!decision) {
        return nullptr;
    }
    auto data = supervisor::encode(*decision);
    data["at"] = format_time(event->at);
    return data;
}

// The last "decision" event of each job to be shown (what was planned, or why not): one index
// lookup for a single job, else one query for every job (a listing of thousands of jobs used
// to read each job's whole journal).
class LastDecisions {
  public:
    LastDecisions(const state::Store& store, bool for_every_job) : m_store(store) {
        if (for_every_job) {
            m_all = store.last_events_of_kind(state::EventKind::decision);
        }
    }

    nlohmann::json of(const state::JobId& job) const {
        if (!m_all) {
            return decision_json(m_store.last_event_of_kind(job, state::EventKind::decision));
        }
        const auto it = m_all->find(job);
        return decision_json(it == m_all->end() ? std::nullopt
                                                : std::optional<state::Event>(it->second));
    }

  private:
    const state::Store& m_store;
    std::optional<std::map<state::JobId, state::Event>> m_all;
};

// The current attempt as counted against max_attempts: runs ended by requeues the supervisor
// did not make are not counted.
std::uint32_t charged_attempt(const state::Registration& r) {
    return r.attempt > r.outside_requeues ? r.attempt - r.outside_requeues : 1;
}

nlohmann::json registration_json(const state::Registration& r,
                                 const std::vector<state::Attempt>& attempts,
                                 const nlohmann::json& decision) {
    const auto owner = supervisor::owner_choices_of(r);
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
            {"charged_attempt", charged_attempt(r)},
            {"max_attempts", r.max_attempts},
            {"outside_requeues", r.outside_requeues},
            {"allowed_actions", r.allowed_actions},
            {"checkpoint_dir", r.checkpoint_dir},
            {"last_cause", r.last_cause},
            {"last_checkpoint", r.last_checkpoint},
            {"last_slurm_state", r.last_slurm_state},
            {"knobs", owner.unreadable_knobs ? nlohmann::json(nullptr)
                                             : supervisor::knobs_json_value(owner.knobs)},
            {"excluded_nodes", r.excluded_nodes},
            {"previous_job", r.previous_job},
            {"next_job", r.next_job},
            {"stall_timeout_s", r.stall_timeout_s},
            {"array", r.whole_array ? nlohmann::json(r.job.job) : nlohmann::json(nullptr)},
            {"progress_pattern", r.progress_pattern},
            {"expect_steps_per_hour", r.expect_steps_per_hour > 0
                                          ? nlohmann::json(r.expect_steps_per_hour)
                                          : nlohmann::json(nullptr)},
            {"last_decision", decision},
            {"attempts", runs}};
}

const std::vector<state::Attempt> k_no_attempts;

// `element` (JSON text, newlines only between tokens: a string's own are escaped) appended
// one level deeper, as an element of an indented array.
void append_indented(std::string& text, std::string_view element) {
    for (auto newline = element.find('\n'); newline != std::string_view::npos;
         newline = element.find('\n')) {
        text.append(element.substr(0, newline + 1)).append("  ");
        element.remove_prefix(newline + 1);
    }
    text.append(element);
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) {
        text += (text.empty() ? "" : ", ") + item;
    }
    return text;
}

// The lines under a job: its knobs, expected rate, excluded nodes, links, and the last decision.
std::string details(const state::Registration& r, const nlohmann::json& decision) {
    std::string text;
    // A damaged row shows no knobs here: `status` still lists the job, and the daemon names the
    // damage when it reads them.
    std::vector<std::string> values;
    for (const auto& [name, value] :
         supervisor::knob_variables(supervisor::owner_choices_of(r).knobs)) {
        values.push_back(name + "=" + std::to_string(value));
    }
    if (!values.empty()) {
        text += "    knobs: " + printable(joined(values)) + "\n";
    }
    if (r.expect_steps_per_hour > 0) {
        text += "    expected rate: " + std::to_string(r.expect_steps_per_hour) + " steps/h\n";
    }
    if (r.outside_requeues > 0) {
        text += "    requeued by Slurm or an administrator " + std::to_string(r.outside_requeues) +
                (r.outside_requeues == 1 ? " time" : " times") +
                " (preemption, maintenance, node failure): not counted in the attempts; run " +
                std::to_string(r.attempt) + " in all\n";
    }
    if (!r.excluded_nodes.empty()) {
        text += "    excluded nodes: " + printable(joined(r.excluded_nodes)) + "\n";
    }
    if (!r.previous_job.empty()) {
        text += "    continues job " + printable(r.previous_job) + "\n";
    }
    if (!r.next_job.empty()) {
        text += "    continued as job " + printable(r.next_job) + "\n";
    }
    if (!decision.is_object()) {
        return text;
    }
    text += std::string("    last decision: ") +
            (decision.value("escalate", false) ? "escalate: " : "") +
            printable(decision.value("reason", std::string())) + "\n";
    for (const auto& line : decision.value("would_have_done", std::vector<std::string>{})) {
        text += "    would have done: " + printable(line) + "\n";
    }
    for (const auto& line : decision.value("notes", std::vector<std::string>{})) {
        text += "    note: " + printable(line) + "\n";
    }
    return text;
}

// One line of the listing: each text left-justified in a field of its width in bytes (printf's
// %-Ns: a longer text is not cut), one space between fields, the last one unpadded.
struct Column {
    std::string_view text;
    std::size_t width = 0;
};
std::string row(std::initializer_list<Column> columns) {
    std::string line;
    const char* separator = "";
    for (const auto& column : columns) {
        line += separator;
        separator = " ";
        line += column.text;
        if (column.text.size() < column.width) {
            line.append(column.width - column.text.size(), ' ');
        }
    }
    return line + "\n";
}

// The listing's columns: JOB, NAME, STATUS, ATTEMPT, LAST CAUSE, CHECKPOINT.
constexpr std::size_t k_job_width = 12;
constexpr std::size_t k_name_width = 16;

std::string array_row(const std::vector<state::Registration>& tasks) {
    std::map<std::string, std::size_t> counts;
    for (const auto& task : tasks) {
        ++counts[shown_status(task)];
    }
    std::string text;
    for (const auto& [status, count] : counts) {
        text += (text.empty() ? "" : ", ") + std::to_string(count) + " " + status;
    }
    const auto& first = tasks.front();
    return row({{std::to_string(first.job.job), k_job_width},
                {printable(first.job_name.substr(0, k_name_width)), k_name_width},
                {"array of " + std::to_string(tasks.size()) + " tasks: " + text}}) +
           "    each task: supervisor status " + std::to_string(first.job.job) + "\n";
}

// "not registered" for a job of another owner too: nobody learns another user's ids.
common::Error not_registered(const common::JobId& job, const std::string& hint) {
    return {"job " + job.to_string() + " is not registered", hint};
}

}  // namespace

std::string nodes_view(const state::Store& store, bool json) {
    struct Node {
        std::optional<supervisor::SuspectNodeEvent> suspect;  // its latest report, if any
        common::TimePoint reported_at{};
        std::string reported_with;
        std::optional<common::TimePoint> drained_at;  // the supervisor's latest drain of it
        std::string drained_for;
        std::optional<state::NodeRecord> record;  // its newest record (node_records.h)
        [[nodiscard]] common::TimePoint last() const {
            auto at = drained_at ? std::max(*drained_at, reported_at) : reported_at;
            if (record) {
                for (const auto& when : {record->closed_at, record->resumed_at,
                                         std::optional<common::TimePoint>(record->opened_at)}) {
                    if (when) {
                        at = std::max(at, *when);
                    }
                }
            }
            return at;
        }
        // "open", "watching until T", "closed: recurred"; "-" without a record.
        [[nodiscard]] std::string state() const {
            if (!record) {
                return "-";
            }
            switch (record->stage) {
                case state::NodeStage::open:
                    return "open";
                case state::NodeStage::watching:
                    // The schema allows a row without its end; this code never writes one.
                    return record->watch_until
                               ? "watching until " + format_time(*record->watch_until)
                               : std::string("watching");
                case state::NodeStage::closed:
                    return "closed: " + std::string(to_string(record->outcome));
            }
            return "-";
        }
    };
    std::map<std::string, Node> by_node;
    for (const auto& [job, event] : store.last_events_of_kind(state::EventKind::suspect_node)) {
        const auto suspect = supervisor::decode<supervisor::SuspectNodeEvent>(event);
        if (!suspect) {
            continue;
        }
        auto& node = by_node[suspect->node];
        if (!node.suspect || event.at > node.reported_at) {
            node.suspect = *suspect;
            node.reported_at = event.at;
            node.reported_with = job.to_string();
        }
    }
    // A drain the supervisor did is the node's news whether or not the node was suspect (one
    // job's own hardware verdict drains too).
    for (const auto& action :
         store.done_actions_since(common::ActionKind::drain_node, common::TimePoint{})) {
        for (const auto& name : supervisor::drained_by(action)) {
            auto& node = by_node[name];
            if (!node.drained_at || action.updated_at > *node.drained_at) {
                node.drained_at = action.updated_at;
                node.drained_for = action.job.to_string();
            }
        }
    }
    // Every record (a few per node that was ever at fault); the newest per node is shown.
    for (auto& record : store.node_records_since(common::TimePoint{})) {
        auto& node = by_node[record.node];
        if (!node.record || record.id > node.record->id) {
            node.record = std::move(record);
        }
    }
    const auto failures = [](const Node& node) {
        return node.suspect ? node.suspect->failures : std::size_t{0};
    };
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& [name, node] : by_node) {
            nlohmann::json entry{
                {"node", name},
                {"failures", failures(node)},
                {"jobs", node.suspect ? node.suspect->jobs.size() : 0},
                {"suspect", node.suspect.has_value()},
                {"drained", node.drained_at.has_value() || (node.suspect && node.suspect->drained)},
                {"window_hours", node.suspect ? node.suspect->window_hours : 0},
                {"at", format_time(node.last())},
                {"reported_with_job", node.reported_with}};
            if (node.drained_at) {
                entry["drained_at"] = format_time(*node.drained_at);
                entry["drained_for_job"] = node.drained_for;
            }
            if (node.record) {
                const auto& r = *node.record;
                nlohmann::json record{{"id", r.id},
                                      {"stage", to_string(r.stage)},
                                      {"finding", to_string(r.finding)},
                                      {"cause", r.cause},
                                      {"xid", common::json_or_null(r.xid)},
                                      {"job", r.job.to_string()},
                                      {"detail", r.detail},
                                      {"opened_at", format_time(r.opened_at)},
                                      {"resumed_by", r.resumed_by},
                                      {"outcome", to_string(r.outcome)},
                                      {"follows", common::json_or_null(r.follows)}};
                for (const auto& [key, when] :
                     {std::pair{"drained_at", r.drained_at}, std::pair{"resumed_at", r.resumed_at},
                      std::pair{"watch_until", r.watch_until},
                      std::pair{"closed_at", r.closed_at}}) {
                    record[key] = when ? nlohmann::json(format_time(*when)) : nlohmann::json();
                }
                entry["record"] = std::move(record);
            }
            out.push_back(std::move(entry));
        }
        return common::json_text(out, 2) + "\n";
    }
    if (by_node.empty()) {
        return "no node suspect or drained by the supervisor\n";
    }
    std::string text = row({{"NODE", 12},
                            {"FAILURES", 9},
                            {"JOBS", 5},
                            {"DRAINED", 8},
                            {"RECORD", 36},
                            {"LAST", 24},
                            {"JOB"}});
    for (const auto& [name, node] : by_node) {
        const bool drained = node.drained_at || (node.suspect && node.suspect->drained);
        text += row({{printable(name), 12},
                     {std::to_string(failures(node)), 9},
                     {std::to_string(node.suspect ? node.suspect->jobs.size() : 0), 5},
                     {drained ? "yes" : "no", 8},
                     {node.state(), 36},
                     {format_time(node.last()), 24},
                     {printable(node.drained_at && *node.drained_at >= node.reported_at
                                    ? node.drained_for
                                    : node.reported_with)}});
    }
    return text;
}

common::Result<std::string> status_view(const state::Store& store, const StatusQuery& query) {
    std::vector<state::Registration> registrations;
    auto owned = [&](const state::Registration& r) {
        return !query.owner || r.owner_uid == *query.owner;
    };
    // An array id: the array's line, then each of its tasks.
    std::vector<state::Registration> array_tasks;
    if (query.job && !query.job->array_task && !store.registration(*query.job)) {
        for (auto& task : store.array_registrations(query.job->job)) {
            if (owned(task)) {
                array_tasks.push_back(std::move(task));
            }
        }
    }
    if (!array_tasks.empty()) {
        registrations = array_tasks;
    } else if (query.job) {
        auto registration = store.registration(*query.job);
        if (!registration || (query.owner && registration->owner_uid != *query.owner)) {
            return tl::unexpected(
                not_registered(*query.job, "`supervisor status` lists the registered jobs"));
        }
        registrations.push_back(*registration);
    } else if (query.owner) {
        registrations = store.load_registrations_of(*query.owner, query.all);
    } else {
        registrations =
            query.all ? store.load_all_registrations() : store.load_watched_registrations();
    }
    if (!query.job && query.after) {
        const auto at = std::ranges::find(registrations, *query.after, &state::Registration::job);
        if (at == registrations.end()) {
            return tl::unexpected(common::Error{
                "job " + query.after->to_string() + " is not in this listing",
                "page from a job the previous page listed (it may have been unregistered: "
                "start again from the first page)"});
        }
        registrations.erase(registrations.begin(), at + 1);
    }
    const bool paged = !query.job && query.limit != 0;
    if (paged && registrations.size() > query.limit) {
        registrations.resize(query.limit);
    }
    // A listing of every job (an operator's, a per-user daemon's) reads each kind of row once
    // for all jobs; one user's of a site daemon reads their own jobs' rows, job by job, so
    // that what a user's `status` costs the daemon grows with their jobs, not everyone's. So
    // does a page: its cost is its jobs'.
    const bool for_every_job = !query.owner && !query.job && !paged && registrations.size() > 1;
    const LastDecisions decisions(store, for_every_job);
    if (query.json) {
        std::map<state::JobId, std::vector<state::Attempt>> attempts;
        if (for_every_job) {
            attempts = store.attempts_of_every_job();
        } else {
            for (const auto& r : registrations) {
                attempts[r.job] = store.attempts(r.job);
            }
        }
        // Element by element, as json_text(array, 2) would print the whole array: 10,000 jobs
        // with weeks of attempts are tens of MB of text, and the whole tree first took 260 MB.
        std::string text = "[";
        const char* separator = "\n  ";
        for (const auto& r : registrations) {
            const auto runs = attempts.find(r.job);
            text += separator;
            separator = ",\n  ";
            append_indented(text, common::json_text(
                                      registration_json(
                                          r, runs == attempts.end() ? k_no_attempts : runs->second,
                                          decisions.of(r.job)),
                                      2));
        }
        text += registrations.empty() ? "]\n" : "\n]\n";
        return text;
    }
    if (registrations.empty()) {
        return std::string(
            "no watched jobs (supervisor register JOBID; --all shows finished ones)\n");
    }
    const auto listing_row = [](std::string_view job, std::string_view name,
                                std::string_view status, std::string_view attempt,
                                std::string_view cause, std::string_view checkpoint) {
        return row({{job, k_job_width},
                    {name, k_name_width},
                    {status, 26},
                    {attempt, 8},
                    {cause, 14},
                    {checkpoint}});
    };
    std::string text = listing_row("JOB", "NAME", "STATUS", "ATTEMPT", "LAST CAUSE", "CHECKPOINT");
    std::set<std::uint32_t> arrays_shown;
    if (!array_tasks.empty()) {
        text += array_row(array_tasks);
    }
    for (const auto& r : registrations) {
        // Listing: the tasks of an array registered whole are one line, counted over all of
        // them (finished ones included), however many are shown.
        if (!query.job && r.whole_array) {
            if (arrays_shown.insert(r.job.job).second) {
                auto tasks = store.array_registrations(r.job.job);
                std::erase_if(tasks, [&](const auto& task) { return !owned(task); });
                text += array_row(tasks);
            }
            continue;
        }
        const std::string attempt =
            std::to_string(charged_attempt(r)) + "/" + std::to_string(r.max_attempts);
        text += listing_row(r.job.to_string(), printable(r.job_name.substr(0, k_name_width)),
                            shown_status(r), attempt,
                            r.last_cause.empty() ? "-" : printable(r.last_cause),
                            r.last_checkpoint.empty() ? "-" : printable(r.last_checkpoint));
        if (!r.status_reason.empty()) {
            text += "    " + printable(r.status_reason) + "\n";
        }
        text += details(r, decisions.of(r.job));
    }
    return text;
}

Registered registered_summary(const state::Registration& r, const state::Store& store) {
    return {r.job.to_string(), r.job_name,        r.status,
            r.status_reason,   r.allowed_actions, r.max_attempts,
            r.checkpoint_dir,  r.stall_timeout_s, supervisor::resubmit_not_carried(store, r.job)};
}

common::Result<std::string> events_view(const state::Store& store, const common::JobId& job,
                                        bool json) {
    const auto events = store.events(job);
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& e : events) {
            out.push_back({{"id", e.id},
                           {"at", format_time(e.at)},
                           {"kind", e.kind},
                           {"message", e.message},
                           {"data", supervisor::data_of(e)}});
        }
        return common::json_text(out, 2) + "\n";
    }
    std::string text;
    for (const auto& e : events) {
        std::string kind = printable(e.kind);
        kind.resize(std::max<std::size_t>(kind.size(), 11), ' ');  // as printf's %-11s
        text += format_time(e.at) + "  " + kind + " " + printable(e.message) + "\n";
    }
    return text;
}

}  // namespace control
