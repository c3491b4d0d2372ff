// Diagnosis engine: scan every log once, turn hits and Slurm facts into findings, pick the
// highest-priority cause (root causes outrank the symptoms they provoke on other ranks, see
// precedence.h), then say where, how sure, and what to do.
#include "recovery/diagnosis.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include <re2/re2.h>

#include "common/printable.h"
#include "common/try.h"
#include "recovery/attribution.h"
#include "recovery/detail/pattern_set.h"
#include "recovery/finding.h"
#include "recovery/fix_gate.h"
#include "recovery/hostlist.h"
#include "recovery/node_signals.h"
#include "recovery/precedence.h"
#include "recovery/summary.h"
#include "recovery/unknown_excerpt.h"

namespace recovery {
namespace {

// Confidence lost when another cause ranks exactly as high: the evidence is genuinely split.
constexpr double k_tie_penalty = 0.6;
constexpr double k_max_confidence = 0.99;
// How many of the strongest distinct findings combine into the confidence.
constexpr std::size_t k_combined_findings = 3;

// Where a line sits in its log: LogExcerpt numbers the head 1, 2, ... and the tail -N .. -1,
// so every head line comes before every tail line.
std::pair<bool, std::int64_t> position(std::int64_t line) {
    return {line < 0, line};
}

// Structure read from marker lines across all logs.
struct Layout {
    std::map<int, std::string> host_of_rank;  // elastic summary: rank -> host
    std::map<int, std::string> host_of_task;  // srun's task reports: task id -> node
    std::optional<std::string> root_cause_host;
    std::optional<int> root_cause_rank;
    std::optional<std::string> first_failed_task_node;  // first "srun: error: NODE: task"
    std::optional<std::int64_t> last_step;
    // log name -> lines that show training progress, and lines that start from a checkpoint,
    // put in log order once all logs are read (sort_by_position), so a search is a binary one
    std::map<std::string, std::vector<std::int64_t>> progress_lines;
    std::map<std::string, std::vector<std::int64_t>> resume_lines;
    std::vector<EvidenceLine> exception_lines;  // each traceback's last line, in log order
};

void read_markers(const std::string& file, const std::vector<Marker>& markers, Layout& layout) {
    bool expecting_root = false;
    bool expecting_root_rank = false;
    std::optional<std::string> host;  // last host seen in the summary, paired with next rank
    for (const auto& marker : markers) {
        switch (marker.kind) {
            case MarkerKind::elastic_root_cause:
                expecting_root = true;
                break;
            case MarkerKind::elastic_host:
                host = marker.value;
                if (expecting_root) {
                    layout.root_cause_host = marker.value;
                    expecting_root = false;
                    expecting_root_rank = true;
                }
                break;
            case MarkerKind::elastic_rank: {
                int rank = 0;
                const auto& v = marker.value;
                if (host &&
                    std::from_chars(v.data(), v.data() + v.size(), rank).ec == std::errc{}) {
                    layout.host_of_rank.emplace(rank, *host);
                    if (expecting_root_rank) {
                        layout.root_cause_rank = rank;
                    }
                }
                expecting_root_rank = false;
                host.reset();
                break;
            }
            case MarkerKind::srun_task:
                if (!layout.first_failed_task_node) {
                    layout.first_failed_task_node = marker.value;
                }
                for (const int task : srun_task_ids(marker.detail)) {
                    layout.host_of_task.emplace(task, marker.value);
                }
                break;
            case MarkerKind::python_exception:
                break;  // first_exception_finding() reads these with their text
            case MarkerKind::training_progress:
                layout.progress_lines[file].push_back(marker.line_number);
                break;
            case MarkerKind::checkpoint_resume:
                layout.resume_lines[file].push_back(marker.line_number);
                break;
            case MarkerKind::training_step: {
                std::int64_t step = 0;
                const auto& v = marker.value;
                if (std::from_chars(v.data(), v.data() + v.size(), step).ec == std::errc{}) {
                    layout.last_step = step;
                }
                layout.progress_lines[file].push_back(marker.line_number);
                break;
            }
        }
    }
}

// Log names vary ("n3.cluster.local", an IP); prefer the job's own spelling when it matches.
std::string normalise_node(const std::string& node, const std::vector<std::string>& job_nodes) {
    if (std::find(job_nodes.begin(), job_nodes.end(), node) != job_nodes.end()) {
        return node;
    }
    return short_node_name(node);
}

// Causes for which the whole job, not one node, is the subject: naming a node would mislead.
bool is_job_wide(Cause cause) {
    return cause == Cause::time_limit || cause == Cause::preemption ||
           cause == Cause::nccl_timeout || cause == Cause::credential_error ||
           cause == Cause::unknown;
}

// Causes where, lacking a node on the deciding lines, the first failed rank's host is the
// operator's best guess.
bool wants_fallback_node(Cause cause) {
    return cause == Cause::cuda_oom || cause == Cause::host_oom || cause == Cause::shm_exhausted ||
           cause == Cause::gpu_xid || cause == Cause::ecc_error || cause == Cause::cuda_error ||
           cause == Cause::code_bug || cause == Cause::hang || cause == Cause::nccl_network;
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) {
        list.push_back(item);
    }
}

bool is_gpu_hardware(Cause cause) {
    return cause == Cause::gpu_xid || cause == Cause::ecc_error || cause == Cause::cuda_error;
}

std::vector<std::string> implicated_nodes(Cause cause, const std::vector<const Finding*>& winners,
                                          const std::vector<Finding>& all, const Layout& layout,
                                          const std::vector<std::string>& job_nodes) {
    std::vector<std::string> nodes;
    if (is_job_wide(cause)) {
        return nodes;
    }
    // Condemning findings name the guilty node more precisely than others of the same cause.
    const bool any_condemning = std::any_of(winners.begin(), winners.end(),
                                            [](const Finding* f) { return f->condemns_node; });
    for (const auto* finding : winners) {
        if (any_condemning && !finding->condemns_node) {
            continue;
        }
        if (finding->node) {
            add_unique(nodes, normalise_node(*finding->node, job_nodes));
        } else if (finding->rank) {
            // The elastic launcher's summary, else srun's report of the same task (srun
            // --label's "N: " is the task id, the rank of a job launched by srun).
            for (const auto* hosts : {&layout.host_of_rank, &layout.host_of_task}) {
                if (const auto host = hosts->find(*finding->rank); host != hosts->end()) {
                    add_unique(nodes, normalise_node(host->second, job_nodes));
                    break;
                }
            }
        }
    }
    // A GPU error seen by the application rarely names its host, but the driver's kernel line
    // for the same event does: borrow the node from the GPU hardware findings.
    if (nodes.empty() && is_gpu_hardware(cause)) {
        for (const auto& finding : all) {
            if (is_gpu_hardware(finding.cause) && finding.node) {
                add_unique(nodes, normalise_node(*finding.node, job_nodes));
            }
        }
    }
    if (nodes.empty() && wants_fallback_node(cause)) {
        if (layout.root_cause_host) {
            add_unique(nodes, normalise_node(*layout.root_cause_host, job_nodes));
        } else if (layout.first_failed_task_node) {
            add_unique(nodes, normalise_node(*layout.first_failed_task_node, job_nodes));
        }
    }
    return nodes;
}

// A finding that names no host, when the evidence lines gave no node at all: a job that ran on
// one node failed there; a rank of a job whose tasks Slurm spread evenly over its nodes ran, under
// srun's default block distribution, on node rank / (tasks / nodes) — a guess, said as one.
std::optional<std::pair<std::string, std::string>> attribute_without_host(
    Cause cause, const std::vector<const Finding*>& winners,
    const std::vector<std::string>& job_nodes, const SlurmFacts& facts) {
    if (is_job_wide(cause) || !wants_fallback_node(cause) || job_nodes.empty()) {
        return std::nullopt;
    }
    if (job_nodes.size() == 1) {
        return std::pair{job_nodes.front(), std::string("the job's only node")};
    }
    const auto tasks = facts.task_count.value_or(0);
    const auto nodes = static_cast<int>(job_nodes.size());
    if (tasks < nodes || tasks % nodes != 0) {
        return std::nullopt;
    }
    for (const auto* finding : winners) {
        if (finding->rank && *finding->rank >= 0 && *finding->rank < tasks) {
            const auto index = static_cast<std::size_t>(*finding->rank / (tasks / nodes));
            return std::pair{job_nodes[index],
                             "rank " + std::to_string(*finding->rank) + " of " +
                                 std::to_string(tasks) +
                                 " under srun's default block distribution (a guess: no line "
                                 "names its host)"};
        }
    }
    return std::nullopt;
}

double confidence_of(const std::vector<const Finding*>& winners, bool tied) {
    // Independent-evidence combination over the strongest distinct sources (rule or fact), so
    // 600 identical timeout lines count once but a log line plus Slurm's verdict reinforce. A
    // line several rules match is one piece of evidence: only its strongest rule counts.
    std::map<std::pair<std::string, std::int64_t>, const Finding*> strongest_on_line;
    for (const auto* finding : winners) {
        if (finding->line) {
            auto& best = strongest_on_line[{finding->line->file, finding->line->line}];
            if (!best || finding->weight > best->weight) {
                best = finding;
            }
        }
    }
    std::map<std::string, double> best_by_source;
    for (const auto* finding : winners) {
        if (finding->line &&
            strongest_on_line[{finding->line->file, finding->line->line}] != finding) {
            continue;
        }
        const auto source = finding->line ? finding->line->rule_id : finding->fact;
        auto& best = best_by_source[source];
        best = std::max(best, finding->weight);
    }
    std::vector<double> weights;
    for (const auto& [source, weight] : best_by_source) {
        weights.push_back(weight);
    }
    std::sort(weights.rbegin(), weights.rend());
    double doubt = 1.0;
    for (std::size_t i = 0; i < weights.size() && i < k_combined_findings; ++i) {
        doubt *= 1.0 - weights[i];
    }
    double confidence = std::min(1.0 - doubt, k_max_confidence);
    if (tied) {
        confidence *= k_tie_penalty;
    }
    return confidence;
}

std::vector<Action> choose_actions(Cause cause, const std::vector<const Finding*>& winners,
                                   const std::vector<std::string>& nodes) {
    if (!is_auto_fixable(cause)) {
        return {Action{ActionKind::escalate, {}}};
    }
    std::string node_argument;
    for (const auto& node : nodes) {
        node_argument += (node_argument.empty() ? "" : ",") + node;
    }
    std::vector<Action> actions;
    for (const auto* finding : winners) {
        for (auto action : finding->actions) {
            if (action.kind == ActionKind::exclude_node || action.kind == ActionKind::drain_node) {
                if (nodes.empty()) {
                    continue;  // nothing to exclude: requeue alone is the honest suggestion
                }
                action.argument = node_argument;
            }
            if (std::find(actions.begin(), actions.end(), action) == actions.end()) {
                actions.push_back(std::move(action));
            }
        }
    }
    if (actions.empty()) {
        actions.push_back(Action{ActionKind::escalate, {}});
    }
    return actions;
}

std::vector<std::string> facts_used(const SlurmFacts& facts, const std::vector<Finding>& findings,
                                    bool node_list_ok) {
    std::vector<std::string> used;
    if (!facts.state.empty()) {
        used.push_back("state " + facts.state);
    }
    if (facts.exit_code) {
        used.push_back("exit code " + std::to_string(*facts.exit_code));
    }
    if (facts.signal) {
        used.push_back("signal " + std::to_string(*facts.signal));
    }
    if (!facts.state_reason.empty() && facts.state_reason != "None") {
        used.push_back("reason " + facts.state_reason);
    }
    for (const auto& finding : findings) {
        if (!finding.line && finding.fact.rfind("node ", 0) == 0) {
            used.push_back(finding.fact);
        }
    }
    if (!facts.node_list.empty()) {
        used.push_back(node_list_ok ? "nodes " + facts.node_list
                                    : "node list '" + facts.node_list + "' not understood");
    }
    if (facts.restart_count_delta != 0) {
        used.push_back("restarts +" + std::to_string(facts.restart_count_delta));
    }
    return used;
}

// A traceback's last line, with its text (markers carry none).
struct ExceptionLine {
    std::string file;
    std::int64_t line = 0;
    std::string text;
};

constexpr std::size_t k_max_exception_lines = 64;

void read_exceptions(const LogExcerpt& log, const std::vector<Marker>& markers,
                     std::vector<ExceptionLine>& exceptions) {
    std::size_t kept = 0;
    auto line = log.lines().begin();
    for (const auto& marker : markers) {
        if (marker.kind != MarkerKind::python_exception || kept >= k_max_exception_lines) {
            continue;
        }
        while (line != log.lines().end() && line->number != marker.line_number) {
            ++line;  // markers come in line order
        }
        if (line == log.lines().end()) {
            return;
        }
        exceptions.push_back({log.name(), marker.line_number, std::string(log.line_text(*line))});
        ++kept;
    }
}

bool is_collective(Cause cause) {
    return cause == Cause::nccl_network || cause == Cause::nccl_timeout;
}

// torch.distributed's own exception classes and NCCL's/gloo's errors: the collective failing,
// whatever the rules say of the line.
bool is_distributed_error(std::string_view text) {
    for (const std::string_view part :
         {"Dist", "nccl", "NCCL", "gloo", "c10d", "ProcessGroup", "torch.distributed"}) {
        if (text.find(part) != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

// One rank's exception leaves its peers failing in their collectives ("Connection closed by
// peer", timeouts), each with a traceback of its own. When the log's first traceback ends in
// an exception no rule knows, and later ones end in collective errors, that first one is the
// root cause: a code_bug, on its rank, that outranks the network symptoms (precedence.h). Only
// with ranks on the lines (srun --label, "[rankN]:") and the collective errors on other ranks
// than the first exception's. An exception a rule knows speaks for itself; a first traceback
// that is itself a collective error (a dead peer, a real network fault) gives nothing.
std::optional<Finding> first_exception_finding(const std::vector<ExceptionLine>& exceptions,
                                               const std::vector<Finding>& findings) {
    const auto causes_of = [&findings](const ExceptionLine& exception) {
        std::set<Cause> causes;
        for (const auto& finding : findings) {
            if (finding.line && finding.line->file == exception.file &&
                finding.line->line == exception.line) {
                causes.insert(finding.cause);
            }
        }
        return causes;
    };
    if (exceptions.empty() || !causes_of(exceptions.front()).empty() ||
        is_distributed_error(exceptions.front().text)) {
        return std::nullopt;
    }
    const auto& first = exceptions.front();
    const auto rank = rank_from_prefix(first.text);
    const bool peers_failed =
        rank &&
        std::any_of(exceptions.begin() + 1, exceptions.end(), [&](const ExceptionLine& exception) {
            const auto peer = rank_from_prefix(exception.text);
            const auto causes = causes_of(exception);
            return peer && *peer != *rank &&
                   std::any_of(causes.begin(), causes.end(), is_collective);
        });
    if (!peers_failed) {
        return std::nullopt;
    }
    Finding finding;
    finding.cause = Cause::code_bug;
    finding.priority = default_priority(Cause::code_bug);
    finding.weight = 0.7;
    finding.rank = rank;
    finding.actions = default_actions(Cause::code_bug);
    finding.line = EvidenceLine{first.file,      first.line, first.text, "python.first_exception",
                                Cause::code_bug, true};
    return finding;
}

// Two logs may carry one name (stdout and stderr in one file, given twice): order each name's
// lines by position, as read_back_finding's binary search needs.
void sort_by_position(Layout& layout) {
    for (auto* lines_by_file : {&layout.progress_lines, &layout.resume_lines}) {
        for (auto& [file, lines] : *lines_by_file) {
            std::ranges::sort(lines, {}, position);
        }
    }
}

// A checkpoint that fails to load after the same log showed the run training or saving is one
// this run wrote and read back: at a stage switch, to evaluate the best model, on every rank
// while rank 0 was still writing it. A damaged file found on resume shows at the start, before
// any progress — or after a "resuming from" line, when a requeued job appended its new run to
// the old run's output. Read back mid-run, "corrupt" is the look-alike of a race or of how the
// program saves (no barrier, two ranks writing one path), and restoring an older checkpoint would
// only lose work and meet the same failure: a person must look (code_bug, escalate). It
// outranks the checkpoint finding it reinterprets.
constexpr int k_read_back_priority = 79;

std::optional<Finding> read_back_finding(const std::vector<Finding>& findings,
                                         const Layout& layout) {
    for (const auto& finding : findings) {
        if (finding.cause != Cause::checkpoint_corrupt || !finding.line) {
            continue;
        }
        // A log can hold a hundred thousand of each: one binary search per finding, never a
        // walk over every progress line for every failed load.
        const auto failure = position(finding.line->line);
        const auto latest_before = [&failure](const auto& lines_by_file, const std::string& file) {
            std::optional<std::pair<bool, std::int64_t>> latest;
            if (const auto lines = lines_by_file.find(file); lines != lines_by_file.end()) {
                const auto after = std::partition_point(
                    lines->second.begin(), lines->second.end(),
                    [&failure](std::int64_t line) { return position(line) < failure; });
                if (after != lines->second.begin()) {
                    latest = position(*std::prev(after));
                }
            }
            return latest;
        };
        const auto progress = latest_before(layout.progress_lines, finding.line->file);
        const auto resume = latest_before(layout.resume_lines, finding.line->file);
        if (!progress || (resume && *resume > *progress)) {
            continue;
        }
        Finding read_back;
        read_back.cause = Cause::code_bug;
        read_back.priority = k_read_back_priority;
        read_back.weight = 0.75;
        read_back.rank = finding.rank;
        read_back.node = finding.node;
        read_back.actions = default_actions(Cause::code_bug);
        read_back.line = *finding.line;
        read_back.line->rule_id = "checkpoint.read_back_in_run";
        read_back.line->cause = Cause::code_bug;
        return read_back;
    }
    return std::nullopt;
}

// Exception classes that say the environment failed (a socket, a file, a child process, a
// signal), or that wrap another process's failure: the class alone blames nobody's code.
bool is_environment_exception(std::string_view text) {
    for (const std::string_view part :
         {"OSError", "IOError", "Connection", "BrokenPipe", "Timeout", "TimedOut", "socket.",
          "ChildFailedError", "CalledProcessError", "ProcessExitedException",
          "ProcessRaisedException", "SignalException", "RayTaskError", "RayActorError",
          "ActorDiedError", "WorkerCrashedError", "HTTPError", "URLError", "RequestException",
          "SSLError", "SystemExit", "KeyboardInterrupt", "MemoryError", "Interrupted",
          "StreamReader", "StreamWriter", "Unpickling", "EOFError", "SafetensorError", "DataLoader",
          "CUDA", "Cuda", "cuda", "NCCL", "Nccl", "nccl", "OutOfMemory",
          // a message about a service or the network, whatever the class
          "server", "Server", "unavailable", "Unavailable", " 500", " 502", " 503", " 504",
          "network", "Network", "connect", "refused", "timed out", "unreachable"}) {
        if (text.find(part) != std::string_view::npos) {
            return true;
        }
    }
    return is_distributed_error(text);
}

// The last resort before `unknown`: a Python traceback whose exception no rule knows, ending a
// log that shows no other cause, is the program's own failure (a wrong argument, a bad
// shape, a broken invariant), and a person reads it that way at a glance. The traceback to
// judge is the first one of the log — the root of a chain ("The above exception was the
// direct cause of the following exception" prints the cause first) and the first rank to
// fail — or, when torch elastic's summary names the first failed rank, that rank's. It ranks
// below every other cause, so any infrastructure finding in the same logs wins; an exception
// of the environment (a socket, a file, a child process) gives nothing.
constexpr int k_unrecognised_exception_priority = 30;

std::optional<Finding> unrecognised_exception_finding(const std::vector<ExceptionLine>& exceptions,
                                                      const std::vector<Finding>& findings,
                                                      const Layout& layout) {
    if (exceptions.empty()) {
        return std::nullopt;
    }
    const ExceptionLine* chosen = &exceptions.front();
    if (layout.root_cause_rank) {
        const auto of_root = std::find_if(
            exceptions.begin(), exceptions.end(), [&layout](const ExceptionLine& exception) {
                return rank_from_prefix(exception.text) == layout.root_cause_rank;
            });
        if (of_root != exceptions.end()) {
            chosen = &*of_root;
        }
    }
    const bool explained = std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
        return f.line && f.line->file == chosen->file && f.line->line == chosen->line;
    });
    if (explained || is_environment_exception(chosen->text)) {
        return std::nullopt;
    }
    Finding finding;
    finding.cause = Cause::code_bug;
    finding.priority = k_unrecognised_exception_priority;
    finding.weight = 0.6;
    finding.rank = rank_from_prefix(chosen->text);
    finding.actions = default_actions(Cause::code_bug);
    finding.line =
        EvidenceLine{chosen->file,    chosen->line, chosen->text, "python.unrecognised_exception",
                     Cause::code_bug, true};
    return finding;
}

// A log that simply stops — a running program's progress or setup lines, then nothing: no error,
// no exception, no signal, no exit report and no "finished" anywhere — is what a hung job leaves
// once someone or something ended it; a crash says something on the way out. Only when nothing else
// was found and Slurm's record does not say the job failed on its own (a failed job with a silent
// log is not a hang: diagnose --log without facts, or a job still running). Ranked below
// everything.
constexpr int k_quiet_end_priority = 5;

// NCCL's INFO lines are set-up and progress ("Init COMPLETE", "Plugin load ... No such file or
// directory" when no network plugin is installed), unless they report a teardown or a fault.
bool is_nccl_progress(std::string_view line) {
    static const re2::RE2 teardown(R"((?i)abort|destroy|error|fail|closed|timeout)",
                                   detail::PatternSet::options());
    return line.find(" NCCL INFO ") != std::string_view::npos &&
           !re2::RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), teardown);
}

// Words that end the question: the run failed, or it finished.
bool says_how_it_ended(std::string_view line) {
    if (is_nccl_progress(line)) {
        return false;
    }
    static const re2::RE2 words(
        R"((?i)error|exception|traceback|kill|fail|abort|fatal|signal|exit|terminat|denied|missing|)"
        R"(not found|no such|cannot|could not|unable|warn|nan\b|oom|exceeded|cancel|preempt|)"
        R"(finish|complete|done\b|success)",
        detail::PatternSet::options());
    return re2::RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), words);
}

// A line only a running program writes: a log level, a clock, a rank, progress, set-up.
bool looks_like_a_run(std::string_view line) {
    static const re2::RE2 words(
        R"((?i)\binfo\b|\bdebug\b|rank|initiali[sz]|loading|waiting|\bstep\b|epoch|iter|nccl|)"
        R"([0-9]{2}:[0-9]{2}:[0-9]{2})",
        detail::PatternSet::options());
    return re2::RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), words);
}

std::optional<Finding> quiet_end_finding(const Evidence& evidence,
                                         const std::vector<Finding>& findings,
                                         const std::vector<ExceptionLine>& exceptions) {
    const auto& state = evidence.slurm.state;
    if (!findings.empty() || !exceptions.empty() || !(state.empty() || state == "RUNNING")) {
        return std::nullopt;
    }
    const LogExcerpt* last_log = nullptr;
    bool ran = false;
    for (const auto& log : evidence.logs) {
        for (const auto& line : log.lines()) {
            if (says_how_it_ended(log.line_text(line))) {
                return std::nullopt;
            }
            ran = ran || looks_like_a_run(log.line_text(line));
        }
        if (!log.lines().empty()) {
            last_log = &log;
        }
    }
    if (!last_log || !ran) {
        return std::nullopt;
    }
    const auto& line = last_log->lines().back();
    Finding finding;
    finding.cause = Cause::hang;
    finding.priority = k_quiet_end_priority;
    finding.weight = 0.4;
    finding.actions = default_actions(Cause::hang);
    finding.line =
        EvidenceLine{last_log->name(),         line.number, std::string(last_log->line_text(line)),
                     "log.ends_without_error", Cause::hang, true};
    return finding;
}

// Every finding of the evidence: Slurm's facts, each log's rule hits, its exceptions and
// structure (`layout`: ranks, steps, markers), a quiet end, and the nodes' telemetry. Fails
// only when a log cannot be scanned.
common::Result<std::vector<Finding>> gather_findings(const Evidence& evidence,
                                                     const Catalogue& catalogue,
                                                     const std::vector<std::string>& job_nodes,
                                                     Layout& layout) {
    std::vector<Finding> findings = findings_from_slurm(evidence.slurm, job_nodes);
    for (auto& finding : findings) {
        finding.node_side = true;  // slurmctld's
    }
    std::vector<ExceptionLine> exceptions;
    for (const auto& log : evidence.logs) {
        auto scanned = TRY(catalogue.scan(log));
        read_markers(log.name(), scanned.markers, layout);
        read_exceptions(log, scanned.markers, exceptions);
        auto from_log = findings_from_hits(catalogue, log.name(), scanned.hits);
        for (auto& finding : from_log) {
            finding.node_side = log.node().has_value();  // one node's kernel log (the epilog)
        }
        findings.insert(findings.end(), std::make_move_iterator(from_log.begin()),
                        std::make_move_iterator(from_log.end()));
    }
    for (const auto& exception : exceptions) {
        layout.exception_lines.push_back({exception.file, exception.line, exception.text,
                                          "excerpt.exception", Cause::unknown, false});
    }
    if (auto first = first_exception_finding(exceptions, findings)) {
        findings.push_back(std::move(*first));
    }
    sort_by_position(layout);
    if (auto read_back = read_back_finding(findings, layout)) {
        findings.push_back(std::move(*read_back));
    }
    if (auto unrecognised = unrecognised_exception_finding(exceptions, findings, layout)) {
        findings.push_back(std::move(*unrecognised));
    }
    if (auto quiet = quiet_end_finding(evidence, findings, exceptions)) {
        findings.push_back(std::move(*quiet));
    }
    auto from_nodes = findings_from_signals(evidence.node_signals, job_nodes);
    for (auto& finding : from_nodes) {
        finding.node_side = true;  // the node's telemetry
    }
    findings.insert(findings.end(), std::make_move_iterator(from_nodes.begin()),
                    std::make_move_iterator(from_nodes.end()));
    return findings;
}

// The winning cause: highest priority; among equals, the cause with more findings, then the
// earlier one in vocabulary order (deterministic). `tied`: another cause reached the same
// priority. No cause when there is no finding.
struct Winner {
    std::optional<Cause> cause;
    bool tied = false;
};

Winner pick_cause(const std::vector<Finding>& findings) {
    std::map<Cause, std::pair<int, std::size_t>> rank_of;  // cause -> (max priority, count)
    for (const auto& finding : findings) {
        auto& [priority, count] = rank_of[finding.cause];
        priority = std::max(priority, finding.priority);
        ++count;
    }
    Winner verdict;
    for (const auto& [cause, score] : rank_of) {
        if (!verdict.cause) {
            verdict.cause = cause;
            continue;
        }
        const auto& best = rank_of[*verdict.cause];
        if (score.first > best.first || (score.first == best.first && score.second > best.second)) {
            verdict.cause = cause;
        }
    }
    for (const auto& [cause, score] : rank_of) {
        verdict.tied = verdict.tied ||
                       (cause != verdict.cause && score.first == rank_of[*verdict.cause].first);
    }
    return verdict;
}

// The findings of `cause`, strongest first (priority, then line order as found); among
// equals, a finding that condemns its node first: its actions (exclude the node) are the more
// specific ones for the same evidence.
std::vector<const Finding*> findings_of(const std::vector<Finding>& findings, Cause cause) {
    std::vector<const Finding*> winners;
    for (const auto& finding : findings) {
        if (finding.cause == cause) {
            winners.push_back(&finding);
        }
    }
    std::stable_sort(winners.begin(), winners.end(), [](const Finding* a, const Finding* b) {
        return a->priority != b->priority ? a->priority > b->priority
                                          : a->condemns_node && !b->condemns_node;
    });
    return winners;
}

// The nodes the winning findings implicate (or the one guessed for them), whether their
// hardware is condemned, and the deciding Xid.
void judge_nodes(Diagnosis& diagnosis, const std::vector<const Finding*>& winners,
                 const std::vector<Finding>& findings, const Layout& layout,
                 const std::vector<std::string>& job_nodes, const SlurmFacts& slurm) {
    diagnosis.nodes = implicated_nodes(diagnosis.cause, winners, findings, layout, job_nodes);
    if (diagnosis.nodes.empty()) {
        if (auto guessed = attribute_without_host(diagnosis.cause, winners, job_nodes, slurm)) {
            diagnosis.nodes = {guessed->first};
            diagnosis.node_attribution = std::move(guessed->second);
        }
    }
    diagnosis.node_condemned =
        !diagnosis.nodes.empty() && std::any_of(winners.begin(), winners.end(),
                                                [](const Finding* f) { return f->condemns_node; });
    diagnosis.condemned_on_node_evidence =
        diagnosis.node_condemned &&
        std::any_of(winners.begin(), winners.end(),
                    [](const Finding* f) { return f->condemns_node && f->node_side; });
    for (const auto* finding : winners) {
        if (finding->xid && (!diagnosis.xid || finding->condemns_node)) {
            diagnosis.xid = finding->xid;
            diagnosis.xid_on_node_evidence = finding->node_side;
            if (finding->condemns_node) {
                break;
            }
        }
    }
}

// The evidence shown: the winning findings' lines, then as context the first line of each
// other cause and what the nodes' telemetry saw without deciding anything (a correctable ECC
// error, heat). Returns how many distinct lines showed other causes (symptoms, for the
// summary).
std::size_t show_evidence(Diagnosis& diagnosis, const std::vector<const Finding*>& winners,
                          const std::vector<Finding>& findings, const Evidence& evidence,
                          const std::vector<std::string>& job_nodes) {
    // A line that several rules match is evidence once (the first rule's view of it): the
    // reader of a notification wants lines, not rules. Confidence was combined over the
    // findings, so this changes only what is shown.
    const auto already_shown = [&diagnosis](const EvidenceLine& line) {
        return std::ranges::any_of(diagnosis.evidence, [&line](const EvidenceLine& shown) {
            return shown.file == line.file && shown.line == line.line;
        });
    };
    for (const auto* finding : winners) {
        if (finding->line && diagnosis.evidence.size() < k_max_supporting_lines &&
            !already_shown(*finding->line)) {
            diagnosis.evidence.push_back(*finding->line);
        }
    }
    std::set<std::pair<std::string, std::int64_t>> symptom_lines;
    std::set<Cause> shown;
    for (const auto& finding : findings) {
        if (finding.cause == diagnosis.cause || !finding.line) {
            continue;
        }
        symptom_lines.emplace(finding.line->file, finding.line->line);
        if (shown.size() < k_max_context_lines && !already_shown(*finding.line) &&
            shown.insert(finding.cause).second) {
            auto line = *finding.line;
            line.supports_cause = false;
            diagnosis.evidence.push_back(std::move(line));
        }
    }
    std::size_t context_shown = shown.size();
    for (auto& line : context_lines(evidence.node_signals, job_nodes)) {
        if (context_shown++ >= k_max_context_lines) {
            break;
        }
        diagnosis.evidence.push_back(std::move(line));
    }
    return symptom_lines.size();
}

void shorten_texts(std::vector<EvidenceLine>& lines) {
    for (auto& line : lines) {
        if (line.text.size() > k_max_evidence_text_bytes) {
            line.text = common::shortened(line.text, k_max_evidence_text_bytes);
        }
    }
}

}  // namespace

common::Result<Diagnosis> diagnose(const Evidence& evidence, const Catalogue& catalogue) {
    auto expanded = expand_hostlist(evidence.slurm.node_list);
    const std::vector<std::string> job_nodes = expanded ? *expanded : std::vector<std::string>{};
    Layout layout;
    const auto findings = TRY(gather_findings(evidence, catalogue, job_nodes, layout));

    Diagnosis diagnosis;
    diagnosis.step = layout.last_step;
    diagnosis.slurm_facts_used = facts_used(evidence.slurm, findings, expanded.has_value());
    const auto verdict = pick_cause(findings);
    if (!verdict.cause) {
        diagnosis.cause = Cause::unknown;
        diagnosis.suggested_actions = {Action{ActionKind::escalate, {}}};
        diagnosis.evidence = unknown_excerpt(evidence, layout.exception_lines);
        shorten_texts(diagnosis.evidence);
        diagnosis.summary = summarise(diagnosis);
        return diagnosis;
    }
    diagnosis.cause = *verdict.cause;
    const auto winners = findings_of(findings, diagnosis.cause);
    judge_nodes(diagnosis, winners, findings, layout, job_nodes, evidence.slurm);
    diagnosis.confidence = confidence_of(winners, verdict.tied);
    diagnosis.suggested_actions = choose_actions(diagnosis.cause, winners, diagnosis.nodes);
    if (auto why = fix_withheld_because(diagnosis.cause, winners, findings)) {
        diagnosis.fix_withheld = std::move(*why);
        diagnosis.withheld_actions =
            std::exchange(diagnosis.suggested_actions, {Action{ActionKind::escalate, {}}});
    }
    diagnosis.symptom_lines = show_evidence(diagnosis, winners, findings, evidence, job_nodes);
    shorten_texts(diagnosis.evidence);
    diagnosis.summary = summarise(diagnosis);
    return diagnosis;
}

}  // namespace recovery
