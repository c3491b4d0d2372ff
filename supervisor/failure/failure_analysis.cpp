// Gathers evidence the way an operator would: Slurm's verdict on the job, the state of the
// nodes it ran on (a node that stopped responding explains a requeue the queue never shows as
// NODE_FAIL), and the head and tail of its output files.
#include "supervisor/failure/failure_analysis.h"

#include <algorithm>
#include <filesystem>

#include "common/time_text.h"
#include "common/try.h"
#include "recovery/checkpoints/scan.h"
#include "recovery/fix_gate.h"
#include "recovery/hostlist.h"
#include "supervisor/failure/drain_limits.h"
#include "supervisor/failure/node_records.h"

namespace supervisor {
namespace {

constexpr std::chrono::seconds k_checkpoint_grace{5};

std::string node_state_text(const slurm::NodeSnapshot& node) {
    std::string text(slurm::to_string(node.state));
    if (node.not_responding) {
        text += "*";
    }
    if (node.drain) {
        text += "+DRAIN";
    }
    return text;
}

// The run's nodes as Slurm reports them now. A reason set before the run started (Slurm's
// times are whole seconds) is marked as another run's, and so is the supervisor's own drain
// reason naming another job: a node drained for maintenance while this run still went on
// ("Xid 63 seen by job 4") says nothing of why this run ended.
std::vector<recovery::NodeFact> facts_for(const RunNodes& run_nodes,
                                          const std::vector<slurm::NodeSnapshot>& nodes,
                                          std::optional<common::TimePoint> run_start,
                                          const common::JobId& job) {
    std::vector<recovery::NodeFact> facts;
    for (const auto& node : nodes) {
        if (run_nodes.contains(node.name)) {
            const bool predates = node.reason_time && run_start &&
                                  std::chrono::floor<std::chrono::seconds>(*node.reason_time) <
                                      std::chrono::floor<std::chrono::seconds>(*run_start);
            facts.push_back({node.name, node_state_text(node), node.reason,
                             predates || drained_for_another_job(node.reason, job)});
        }
    }
    return facts;
}

// Slurm requeues a job for its node only when it marks that node DOWN. A node merely slow to
// answer ("MIXED*") requeues nothing, and is no sign that one did.
bool any_node_down(const std::vector<recovery::NodeFact>& facts) {
    return std::ranges::any_of(
        facts, [](const recovery::NodeFact& f) { return f.state.starts_with("DOWN"); });
}

// True when the checkpoint the failed run resumed from is still the one to resume from, or a
// newer one is usable: the scan (newest first) chose it or something before it, and validated
// what it chose. A load that failed on it did not meet a damaged file on disk. A checkpoint
// chosen by name (no known format) was never validated: it proves nothing either way.
bool resumed_from_is_intact(const recovery::checkpoints::Scan& scan,
                            const std::string& resumed_from) {
    if (resumed_from.empty() || !scan.chosen ||
        scan.candidates[*scan.chosen].layout == recovery::checkpoints::Layout::by_name) {
        return false;
    }
    for (std::size_t i = 0; i < scan.candidates.size(); ++i) {
        if (scan.candidates[i].path.string() == resumed_from) {
            return i >= *scan.chosen;
        }
    }
    return false;
}

std::optional<std::string> chosen_path(const recovery::checkpoints::Scan& scan) {
    if (!scan.chosen) {
        return std::nullopt;
    }
    return scan.candidates[*scan.chosen].path.string();
}

// Attempts (this one included) that failed with this cause at this step, or within the
// configured tolerance of it: the cluster of repeats this attempt belongs to.
std::size_t same_failure_count(const FailureAnalysis& analysis, int attempt) {
    std::size_t count = 1;
    for (const auto& repeated : analysis.correlation.attempts.repeated) {
        if (repeated.cause == analysis.diagnosis.cause && analysis.diagnosis.step &&
            std::ranges::find(repeated.attempts, attempt) != repeated.attempts.end()) {
            count = std::max(count, repeated.attempts.size());
        }
    }
    return count;
}

// The owner's credentials for the next file reads (nothing switched when `identity` is unset).
// A failure is a note: the files are then not read at all, never read with the daemon's rights.
common::Result<std::optional<common::ScopedFileIdentity>> read_as(
    const std::optional<common::FileIdentity>& identity) {
    if (!identity) {
        return std::nullopt;
    }
    auto scope = TRY(common::ScopedFileIdentity::assume(*identity));
    return std::optional<common::ScopedFileIdentity>(std::move(scope));
}

// What the run's nodes said in its window, asked only now that it failed (a healthy cycle asks
// nothing). The source never fails: what it could not look at comes back as notes.
void add_node_evidence(node_evidence::Source& source, const FailureContext& context,
                       recovery::Evidence& evidence, std::vector<std::string>& notes) {
    node_evidence::Request request;
    request.job = context.registration->job.to_string();
    // The nodes know the run by its own record's id (an array task's, not the array's).
    request.slurm_job_id = context.job->raw_job_id;
    if (request.slurm_job_id == 0 && !context.registration->job.array_task) {
        request.slurm_job_id = context.registration->job.job;
    }
    request.nodes = context.run_nodes.names;
    if (request.nodes.empty()) {
        return;
    }
    context.failure.adapt(request, *context.job, context.now);
    auto found = source.gather(request);
    evidence.node_signals = std::move(found.signals);
    for (auto& log : found.kernel_logs) {
        evidence.logs.push_back(std::move(log));
    }
    notes.insert(notes.end(), found.notes.begin(), found.notes.end());
}

// What Slurm says of the run: its nodes and their states, how it ended; sets the state the run
// ended in as Slurm names it (a requeue by Slurm has none of its own).
recovery::Evidence slurm_evidence(const FailureContext& context, FailureAnalysis& analysis) {
    const auto& job = *context.job;
    recovery::Evidence evidence;
    evidence.slurm.node_list = context.run_nodes.host_list;
    evidence.slurm.node_states =
        facts_for(context.run_nodes, *context.nodes, context.run_start, context.registration->job);
    evidence.slurm.restart_count_delta = static_cast<int>(context.restart_delta);
    if (job.num_tasks) {
        evidence.slurm.task_count = static_cast<int>(*job.num_tasks);
    }
    if (context.failure.has_exit_status()) {
        analysis.slurm_state = std::string(slurm::to_string(job.state));
        evidence.slurm.exit_code = job.exit_code;
        evidence.slurm.signal = job.signal;
        evidence.slurm.state_reason = job.state_reason;
    } else {
        // Requeued by Slurm: the queue shows the job PENDING again, and what ended the run is in
        // the node states.
        analysis.slurm_state = any_node_down(evidence.slurm.node_states) ? "NODE_FAIL" : "REQUEUED";
    }
    evidence.slurm.state = analysis.slurm_state;
    return evidence;
}

// Bounded excerpts of the job's stdout and stderr, read with the owner's credentials; what
// cannot be read becomes a note.
void read_logs(const FailureContext& context, const Config& config, recovery::Evidence& evidence,
               std::vector<std::string>& notes) {
    const auto& job = *context.job;
    std::vector<std::string> files{job.std_out};
    if (!job.std_err.empty() && job.std_err != job.std_out) {
        files.push_back(job.std_err);
    }
    auto as_owner = read_as(context.read_as);
    if (!as_owner) {
        notes.push_back("logs not read: " + as_owner.error().message);
        return;
    }
    for (const auto& file : files) {
        auto excerpt = recovery::LogExcerpt::read(file, config.log_limits);
        if (excerpt) {
            evidence.logs.push_back(std::move(*excerpt));
        } else {
            notes.push_back("log not read: " + excerpt.error().message);
        }
    }
}

// The diagnosis of the evidence, as the failure's kind makes it (Failure::diagnose).
void diagnose_failure(const FailureContext& context, const recovery::Catalogue& catalogue,
                      const recovery::Evidence& evidence, FailureAnalysis& analysis) {
    analysis.diagnosis =
        context.failure.diagnose(evidence, catalogue, context.run_nodes, analysis.notes);
}

// What the checkpoint directory offers besides the newest usable checkpoint (which goes into
// the analysis itself).
struct CheckpointFindings {
    std::optional<std::string> older;  // one older than the resumed one, for a corrupt resume
    bool resumed_intact = false;       // the checkpoint the run resumed from still validates
};

// When the newest entry passed over for its settle time alone, and newer than the chosen
// checkpoint (or with none chosen), will have settled, at most `settle` after `now`; nullopt
// when there is none.
//
// Why wait for it once the job has ended, when no process of the job is left to write: the
// daemon's host sees the files through the shared filesystem, whose client caches attributes
// (NFS: up to acregmax, 60 s by default; Lustre and GPFS clients likewise), so a directory the
// node finished writing just before the end can still show an older size and time here, or
// miss its last file. The settle time is how long such a view may lag; deciding before it has
// passed would resume from an older checkpoint, or from scratch, for good.
std::optional<common::TimePoint> settles_at(const recovery::checkpoints::Scan& found,
                                            std::chrono::seconds settle, common::TimePoint now) {
    std::optional<common::TimePoint> newest;
    const auto before = found.chosen.value_or(found.candidates.size());
    for (std::size_t i = 0; i < before; ++i) {
        const auto& candidate = found.candidates[i];
        if (candidate.unsettled && (!newest || candidate.modified > *newest)) {
            newest = candidate.modified;
        }
    }
    if (!newest) {
        return std::nullopt;
    }
    // Why capped: the time is the file's, which its owner sets (`touch -d`) and a node with a
    // wrong clock writes; a date in the future must not hold the decision back for longer.
    return std::min(*newest + settle + std::chrono::seconds(1), now + settle);
}

// Scans the declared checkpoint directory with the owner's credentials, given back on return.
CheckpointFindings find_checkpoints(const FailureContext& context, const Config& config,
                                    FailureAnalysis& analysis) {
    const auto& registration = *context.registration;
    CheckpointFindings findings;
    if (registration.checkpoint_dir.empty()) {
        return findings;
    }
    const auto as_owner = read_as(context.read_as);
    if (!as_owner) {
        analysis.notes.push_back("checkpoints not read: " + as_owner.error().message);
        return findings;
    }
    recovery::checkpoints::ScanOptions options;
    options.pattern = registration.checkpoint_pattern;
    options.marker = registration.checkpoint_marker;
    // Written after the run ended (with slack for the last flush): something of the job
    // is still running somewhere (a node that lost slurmd) and the file is not final.
    // A running job's end_time is Slurm's forecast, not an end.
    options.unfinished_after =
        context.failure.ended_at(*context.job, context.now) + k_checkpoint_grace;
    // A checkpoint of no known format is used by name only when it has not been touched
    // for the settle time: nothing else says it is complete.
    options.settled_before = context.now - config.checkpoint_settle;
    if (auto found = recovery::checkpoints::scan(registration.checkpoint_dir, options)) {
        analysis.checkpoint = chosen_path(*found);
        findings.resumed_intact = resumed_from_is_intact(*found, registration.last_checkpoint);
        if (found->chosen &&
            found->candidates[*found->chosen].layout == recovery::checkpoints::Layout::by_name) {
            analysis.checkpoint_caveat =
                "the checkpoint directory holds no format the supervisor knows, so " +
                *analysis.checkpoint +
                " was chosen by its step number (the newest entry not modified in the last " +
                std::to_string(config.checkpoint_settle.count()) +
                " s) and its content could not be checked";
            analysis.notes.push_back(*analysis.checkpoint_caveat);
        }
        for (const auto& candidate : found->candidates) {
            if (candidate.verdict == recovery::checkpoints::Verdict::rejected) {
                analysis.rejected_checkpoints.push_back(candidate.path.string() + ": " +
                                                        candidate.reason);
            }
        }
        if (context.failure.checkpoints_may_be_settling()) {
            analysis.checkpoint_settles_at =
                settles_at(*found, config.checkpoint_settle, context.now);
            if (analysis.checkpoint_settles_at) {
                // For `supervisor diagnose` as for the journal: the plan shown is today's.
                analysis.notes.push_back(
                    "a checkpoint entry newer than the one chosen is still within the settle "
                    "time: the daemon waits until " +
                    common::format_time(*analysis.checkpoint_settles_at) +
                    " before deciding (once per failure)");
            }
        }
    } else {
        analysis.notes.push_back(found.error().message);
    }
    if (!registration.last_checkpoint.empty() && !findings.resumed_intact &&
        analysis.diagnosis.cause == recovery::Cause::checkpoint_corrupt) {
        options.older_than = registration.last_checkpoint;
        if (auto found = recovery::checkpoints::scan(registration.checkpoint_dir, options)) {
            findings.older = chosen_path(*found);
        }
    }
    return findings;
}

// Everything plan_recovery() weighs: the diagnosis, the whitelist, the budget, the checkpoints,
// knobs, nodes and the history. Reads the journal and the store with the daemon's rights.
recovery::PlanRequest plan_request(const FailureContext& context, const Config& config,
                                   FailureAnalysis& analysis, const CheckpointFindings& found) {
    const auto& registration = *context.registration;
    recovery::PlanRequest request;
    request.diagnosis = &analysis.diagnosis;
    request.whitelist = context.owner.whitelist;
    // Runs ended by requeues the supervisor did not make are not charged to the budget.
    const std::uint32_t outside = registration.outside_requeues +
                                  (context.failure.ended_by_other_hands(*context.job) ? 1 : 0);
    request.failed_attempt =
        registration.attempt > outside ? registration.attempt - outside : std::uint32_t{1};
    request.outside_requeues = outside;
    request.outside_requeue_limit = config.outside_requeue_limit;
    request.max_attempts = registration.max_attempts;
    request.checkpoint_dir_declared = !registration.checkpoint_dir.empty();
    request.checkpoint = analysis.checkpoint;
    request.older_checkpoint = found.older;
    request.resumed_from = registration.last_checkpoint;
    request.resumed_checkpoint_intact = found.resumed_intact;
    request.knobs = context.owner.knobs;
    if (const auto& damaged = context.owner.unreadable_knobs) {
        // A damaged row must not stop the recovery: it goes on without knobs, and says so.
        analysis.notes.push_back(damaged->message +
                                 "; no knob is changed (to fix: " + damaged->hint + ")");
    }
    if (context.store != nullptr) {
        const auto env = context.store->resume_env(registration.job);
        request.env.insert(env.begin(), env.end());
    }
    request.excluded_nodes = registration.excluded_nodes;
    request.max_excluded_nodes = config.max_excluded_nodes;
    request.requeueable = context.job->requeueable;
    request.can_resubmit = context.can_resubmit;
    request.is_operator = context.is_operator;
    request.allocation = context.run_nodes.names;
    if (context.store != nullptr) {
        // Asked whatever the owner allowed: some drains are the site's (planner.h: site_drains).
        const auto budget = drain_budget(*context.store, config, registration.job, context.now);
        request.drains_left = budget.nodes;
        request.no_drain_reason = budget.why_none;
        request.nodes_on_watch = nodes_on_watch(*context.store);
    }
    request.same_failure_count =
        same_failure_count(analysis, static_cast<int>(registration.attempt));
    for (const auto& suspect : analysis.correlation.cluster_suspects) {
        request.suspect_nodes.push_back(
            {suspect.node, "implicated in " + std::to_string(suspect.failures) + " failures of " +
                               std::to_string(suspect.jobs.size()) + " jobs within " +
                               std::to_string(analysis.correlation.window.count()) + " h"});
    }
    request.same_failure_limit = config.same_failure_limit;
    request.backoff = {config.start_delay, config.requeue_backoff, config.requeue_backoff_max};
    context.failure.adapt(request);
    return request;
}

// The suspect nodes as witnesses for the fix gate: each keeps this job and the jobs of other
// owners only. Two jobs of one owner failing on a node may be one program's bug twice (a sweep
// of the same code); another owner's job failing there is a witness that program is not.
// One registration read per job named, only for a failure whose fixes the gate withheld.
std::vector<recovery::SuspectNode> other_owners_witnesses(
    const state::Store& store, const state::Registration& registration,
    const std::vector<recovery::SuspectNode>& suspects) {
    auto witnesses = suspects;
    for (auto& suspect : witnesses) {
        std::erase_if(suspect.jobs, [&](const std::string& job) {
            if (job == registration.job.to_string()) {
                return false;
            }
            const auto id = common::JobId::parse(job);
            const auto other = id ? store.registration(*id) : std::nullopt;
            return !other || other->owner_uid == registration.owner_uid;
        });
    }
    return witnesses;
}

}  // namespace

FailureContext failure_context_for(const state::Registration& registration, OwnerChoices owner,
                                   const slurm::JobSnapshot& job,
                                   const std::vector<slurm::NodeSnapshot>& nodes,
                                   const state::Store& store, Failure failure,
                                   common::TimePoint now) {
    FailureContext context;
    context.registration = &registration;
    context.owner = std::move(owner);
    context.job = &job;
    context.nodes = &nodes;
    const auto attempt = store.attempt(registration.job, registration.attempt);
    const bool recorded = attempt.has_value();
    context.run_nodes =
        RunNodes::of(recorded && !attempt->nodes.empty() ? attempt->nodes : job.nodes);
    // The queue's start time of a job Slurm requeued is its next run's (an estimate, maybe in
    // the future), never the failed run's.
    context.run_start =
        recorded && attempt->started_at ? attempt->started_at : failure.start_shown(job);
    context.failure = failure;
    context.restart_delta =
        job.restart_count - std::min(job.restart_count, registration.seen_restart_count);
    context.store = &store;
    context.now = now;
    context.can_resubmit = store.job_spec(registration.job).has_value();
    return context;
}

FailureAnalysis analyse_failure(const FailureContext& context, const recovery::Catalogue& catalogue,
                                const Config& config) {
    FailureAnalysis analysis;
    auto evidence = slurm_evidence(context, analysis);
    read_logs(context, config, evidence, analysis.notes);
    // After the logs, with the owner's credentials given back: the node evidence (the epilog
    // spool, Prometheus' credentials file) is read with the daemon's own rights.
    if (context.node_evidence != nullptr) {
        add_node_evidence(*context.node_evidence, context, evidence, analysis.notes);
    }
    diagnose_failure(context, catalogue, evidence, analysis);

    CorrelationOptions correlation_options;
    correlation_options.window = config.suspect_node_window;
    correlation_options.suspect_min_jobs = config.suspect_node_min_jobs;
    correlation_options.step_tolerance = config.same_step_tolerance;
    analysis.correlation = correlate_with_journal(
        *context.store, context.registration->job, static_cast<int>(context.registration->attempt),
        context.run_nodes.names, analysis.diagnosis, context.now, correlation_options);
    // The gate's corroboration from outside the log (fix_gate.h): other owners' jobs failed on
    // a node this failure names. Before the plan, which takes the fixes given back.
    if (!analysis.diagnosis.fix_withheld.empty()) {
        recovery::corroborate_withheld_fix(
            analysis.diagnosis,
            other_owners_witnesses(*context.store, *context.registration,
                                   analysis.correlation.suspects),
            context.registration->job.to_string());
    }

    const auto checkpoints = find_checkpoints(context, config, analysis);
    const auto request = plan_request(context, config, analysis, checkpoints);
    analysis.plan = recovery::plan_recovery(request);
    return analysis;
}

DiagnosisEvent diagnosis_event(const FailureAnalysis& analysis, std::uint32_t attempt) {
    DiagnosisEvent event;
    event.attempt = attempt;
    event.diagnosis = analysis.diagnosis;
    event.checkpoint = analysis.checkpoint;
    event.rejected_checkpoints = analysis.rejected_checkpoints;
    event.notes = analysis.notes;
    event.correlation = correlation_data(analysis.correlation);
    return event;
}

}  // namespace supervisor
