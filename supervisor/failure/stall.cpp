// Why stat() and a bounded read: the daemon looks at every running job each cycle, and a
// training log can be gigabytes. Sizes alone decide "no growth"; only a declared progress
// pattern needs the new bytes, and never more than k_max_scan_bytes of them per look (a log
// that grew by more is searched in its newest part, which holds the newest step line).
#include "supervisor/failure/stall.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "common/input_file.h"
#include "common/printable.h"
#include "recovery/precedence.h"
#include "supervisor/failure/run_nodes.h"

namespace supervisor {
namespace {

using std::chrono::seconds;

constexpr seconds k_min_look_interval{1};
constexpr seconds k_max_look_interval{60};
constexpr std::int64_t k_max_timeout_s = 30LL * 24 * 3600;

std::optional<std::uint64_t> size_of(const std::string& path) {
    struct stat info {};
    // Not a regular file (/dev/null, a FIFO): its size says nothing about the job's activity,
    // so there is no verdict on it, ever. Such a job is never called hung.
    if (path.empty() || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        return std::nullopt;
    }
    return static_cast<std::uint64_t>(info.st_size);
}

// The complete lines in [from, to) of the file, at most `limit` bytes of them (the newest);
// `scanned` becomes the offset after the last complete line read.
std::string new_lines(const std::string& path, std::uint64_t from, std::uint64_t to,
                      std::uint64_t limit, std::uint64_t& scanned) {
    if (to - from > limit) {
        from = to - limit;
    }
    // Opened without blocking and only while it is a regular file: it may have been replaced
    // by a FIFO since the stat.
    const auto file = common::InputFile::open(path, common::FileKinds::regular_only);
    std::string text(to - from, '\0');
    if (!file || ::pread(file->fd(), text.data(), text.size(), static_cast<off_t>(from)) !=
                     static_cast<ssize_t>(text.size())) {
        scanned = to;  // vanished, replaced or shrank under us: the next look starts afresh
        return {};
    }
    const auto last_newline = text.rfind('\n');
    if (last_newline == std::string::npos) {
        // No complete line yet; a line longer than the limit is given up on.
        scanned = text.size() >= limit ? to : from;
        return {};
    }
    text.resize(last_newline + 1);
    scanned = from + text.size();
    return text;
}

std::string duration_text(seconds duration) {
    const auto s = duration.count();
    if (s >= 3600 && s % 60 == 0) {
        return std::to_string(s / 3600) + " h" +
               (s % 3600 ? " " + std::to_string(s % 3600 / 60) + " min" : "");
    }
    if (s >= 60 && s % 60 == 0) {
        return std::to_string(s / 60) + " min";
    }
    return std::to_string(s) + " s";
}

}  // namespace

common::Result<seconds> parse_stall_timeout(std::string_view text) {
    auto bad = [&] {
        return common::fail("--stall-timeout '" + std::string(text) + "' is not a duration",
                            "minutes (30), or a number with a unit: 20s, 30m, 2h; 0 turns stall "
                            "detection off");
    };
    std::int64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [rest, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || value < 0 || rest == text.data()) {
        return bad();
    }
    const std::string_view unit(rest, static_cast<std::size_t>(end - rest));
    std::int64_t factor = 0;
    if (unit.empty() || unit == "m" || unit == "min") {
        factor = 60;
    } else if (unit == "s") {
        factor = 1;
    } else if (unit == "h") {
        factor = 3600;
    } else {
        return bad();
    }
    if (value > k_max_timeout_s / factor) {
        return common::fail("--stall-timeout '" + std::string(text) + "' is longer than 30 days",
                            "use 0 to turn stall detection off");
    }
    return seconds(value * factor);
}

std::string format_stall_timeout(seconds timeout) {
    const auto s = timeout.count();
    if (s == 0) {
        return "0";
    }
    if (s % 3600 == 0) {
        return std::to_string(s / 3600) + "h";
    }
    if (s % 60 == 0) {
        return std::to_string(s / 60) + "m";
    }
    return std::to_string(s) + "s";
}

const recovery::ProgressPattern* StallTracker::pattern_for(const std::string& text) {
    if (text.empty()) {
        return nullptr;
    }
    auto it = m_patterns.find(text);
    if (it == m_patterns.end()) {
        // Registration validated it; one this build cannot compile counts as none.
        auto compiled = recovery::ProgressPattern::compile(text);
        it = m_patterns.emplace(text, compiled ? std::optional(std::move(*compiled)) : std::nullopt)
                 .first;
    }
    return it->second ? &*it->second : nullptr;
}

std::optional<Stall> StallTracker::check(const state::Registration& registration,
                                         const slurm::JobSnapshot& job) {
    const bool rate_only =
        registration.stall_timeout_s <= 0 && !registration.progress_pattern.empty();
    if ((registration.stall_timeout_s <= 0 && !rate_only) ||
        job.state != slurm::JobState::running || job.completing) {
        forget(registration.job);
        return std::nullopt;
    }
    const auto now = m_clock.monotonic();  // never the wall clock: it can be stepped
    const seconds timeout(registration.stall_timeout_s);
    auto it = m_tracks.find(registration.job);
    if (it != m_tracks.end() && (it->second.restart_count != job.restart_count ||
                                 it->second.attempt != registration.attempt ||
                                 it->second.pattern != registration.progress_pattern)) {
        end_track(it);  // another run, or another registration: a new clock
        it = m_tracks.end();
    }
    const auto interval = rate_only
                              ? k_max_look_interval
                              : std::clamp(timeout / 10, k_min_look_interval, k_max_look_interval);
    const auto* pattern = pattern_for(registration.progress_pattern);
    if (it == m_tracks.end()) {
        Track track;
        track.restart_count = job.restart_count;
        track.attempt = registration.attempt;
        track.pattern = registration.progress_pattern;
        if (pattern != nullptr) {
            // Only a run with a pattern can be a straggler, the one use of its networks.
            track.transports = recovery::NcclTransports(RunNodes::of(job.nodes).names);
        }
        for (const auto& path : {job.std_out, job.std_err}) {
            if (!path.empty() &&
                std::ranges::find(track.files, path, &File::path) == track.files.end()) {
                const auto size = size_of(path).value_or(0);
                // What was there is not news; read_nccl_backlog() may look back at it.
                track.files.push_back({path, size, size, size});
            }
        }
        track.since = now;
        track.next_look = now + interval;
        m_tracks.emplace(registration.job, std::move(track));
        return std::nullopt;
    }
    Track& track = it->second;
    if (now < track.next_look) {
        return std::nullopt;
    }
    track.next_look = now + interval;
    bool grew = false;
    if (look(track, pattern, now, grew)) {
        track.since = now;
        track.grew = false;
        return std::nullopt;
    }
    track.grew = track.grew || grew;
    const auto silent = std::chrono::duration_cast<seconds>(now - track.since);
    if (rate_only || silent < timeout) {
        return std::nullopt;
    }

    Stall stall;
    stall.timeout = timeout;
    stall.silent_for = silent;
    stall.since = m_clock.now() - std::chrono::duration_cast<common::TimePoint::duration>(
                                      now - track.since);  // for people: wall time
    stall.logs_grew = track.grew;
    stall.progress_pattern = pattern != nullptr ? registration.progress_pattern : "";
    stall.last_step = track.last_step;
    for (const auto& file : track.files) {
        stall.log_bytes += file.size;
        stall.files.push_back(file.path);
    }
    std::string logs;
    for (const auto& path : stall.files) {
        logs += (logs.empty() ? "" : ", ") + path;
    }
    if (pattern != nullptr) {
        stall.summary = "no new step line (matching '" + stall.progress_pattern + "') for " +
                        duration_text(silent) + " (stall timeout " + duration_text(timeout) + ")" +
                        (stall.last_step ? "; last one: " + *stall.last_step : "") + "; logs " +
                        logs + " at " + std::to_string(stall.log_bytes) + " bytes";
    } else {
        stall.summary = "no new output for " + duration_text(silent) + " (stall timeout " +
                        duration_text(timeout) + "): logs " + logs + " unchanged at " +
                        std::to_string(stall.log_bytes) + " bytes";
    }
    track.since = now;  // reported once; a new clock if the job goes on
    track.grew = false;
    return stall;
}

// True when the job showed activity since the last look. `grew`: some log grew.
bool StallTracker::look(Track& track, const recovery::ProgressPattern* pattern,
                        common::MonotonicPoint now, bool& grew) {
    bool active = false;
    for (auto& file : track.files) {
        const auto size = size_of(file.path);
        if (!size) {
            return true;  // cannot see the log: no verdict
        }
        if (*size < file.size) {
            // Truncated or replaced: a new log, which is activity.
            file.size = file.scanned = *size;
            active = true;
            continue;
        }
        if (*size == file.size) {
            continue;
        }
        grew = true;
        file.size = *size;
        if (pattern == nullptr) {
            active = true;
            continue;
        }
        const auto text = new_lines(file.path, file.scanned, *size, k_max_scan_bytes, file.scanned);
        track.transports.observe(text);
        if (auto step = pattern->last_match(text)) {
            if (const auto number = pattern->step_number(*step)) {
                track.rate.observe(now, *number);
            }
            track.last_step = std::move(*step);
            active = true;
        }
    }
    return active;
}

std::optional<recovery::Straggling> StallTracker::straggling(
    const common::JobId& job, const recovery::StepRateOptions& options) {
    const auto it = m_tracks.find(job);
    if (it == m_tracks.end() || it->second.straggler_told) {
        return std::nullopt;
    }
    auto verdict = it->second.rate.check(m_clock.monotonic(), options);
    it->second.straggler_told = verdict.has_value();
    return verdict;
}

void StallTracker::read_nccl_backlog(const common::JobId& job) {
    const auto it = m_tracks.find(job);
    if (it == m_tracks.end() || it->second.backlog_read) {
        return;
    }
    Track& track = it->second;
    track.backlog_read = true;
    auto older = track.transports.empty_copy();
    for (const auto& file : track.files) {
        if (file.tracked_from > 0) {
            std::uint64_t ignored = 0;
            older.observe(new_lines(file.path, 0, file.tracked_from, k_max_scan_bytes, ignored));
        }
    }
    track.transports.fill_from(older);
}

std::vector<recovery::NodeSignal> StallTracker::nccl_fallbacks(const common::JobId& job) const {
    const auto it = m_tracks.find(job);
    return it == m_tracks.end() ? std::vector<recovery::NodeSignal>{}
                                : it->second.transports.fallbacks();
}

void StallTracker::end_track(std::map<common::JobId, Track>::iterator it) {
    if (auto rate = it->second.rate.summary()) {
        m_ended[it->first] = {it->second.attempt, *rate};
    }
    m_tracks.erase(it);
}

void StallTracker::forget(const common::JobId& job) {
    if (const auto it = m_tracks.find(job); it != m_tracks.end()) {
        end_track(it);
    }
}

void StallTracker::drop(const common::JobId& job) {
    m_tracks.erase(job);
    m_ended.erase(job);
}

std::optional<recovery::RunRate> StallTracker::take_run_rate(const common::JobId& job,
                                                             std::uint32_t attempt) {
    if (const auto it = m_tracks.find(job); it != m_tracks.end() && it->second.attempt == attempt) {
        return it->second.rate.summary();
    }
    const auto ended = m_ended.find(job);
    if (ended == m_ended.end() || ended->second.attempt != attempt) {
        return std::nullopt;
    }
    const auto rate = ended->second.rate;
    m_ended.erase(ended);
    return rate;
}

bool StallTracker::needs_look(const state::Registration& registration,
                              const slurm::JobSnapshot& job) const {
    if ((registration.stall_timeout_s <= 0 && registration.progress_pattern.empty()) ||
        job.state != slurm::JobState::running || job.completing) {
        return false;
    }
    const auto it = m_tracks.find(registration.job);
    return it == m_tracks.end() || it->second.restart_count != job.restart_count ||
           it->second.attempt != registration.attempt ||
           it->second.pattern != registration.progress_pattern ||
           m_clock.monotonic() >= it->second.next_look;
}

std::optional<common::MonotonicPoint> StallTracker::next_look(const common::JobId& job) const {
    const auto it = m_tracks.find(job);
    return it == m_tracks.end() ? std::nullopt : std::optional(it->second.next_look);
}

StallData stall_data(const Stall& stall) {
    StallData data;
    data.timeout_s = stall.timeout.count();
    data.silent_s = stall.silent_for.count();
    data.since_unix_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(stall.since.time_since_epoch())
            .count();
    data.log_bytes = stall.log_bytes;
    data.logs_grew = stall.logs_grew;
    data.progress_pattern = stall.progress_pattern;
    data.last_step = stall.last_step;
    data.files = stall.files;
    return data;
}

namespace {

// A hang with a hardware cause under it: the GPU of a node stopped (an Xid, ECC errors, or link
// errors its telemetry counted). Restarting on the same node would hang again, so the hardware
// verdict is kept and the stall is its symptom. A generic CUDA error from the log alone is not
// enough: it is as often the application's.
bool hardware_under_hang(const recovery::Diagnosis& logs) {
    if (logs.nodes.empty()) {
        return false;
    }
    if (logs.cause == recovery::Cause::gpu_xid || logs.cause == recovery::Cause::ecc_error) {
        return true;
    }
    return logs.cause == recovery::Cause::cuda_error &&
           std::ranges::any_of(logs.evidence, [](const recovery::EvidenceLine& line) {
               return line.supports_cause && line.rule_id.starts_with("node.");
           });
}

}  // namespace

recovery::Diagnosis stall_diagnosis(const Stall& stall, const recovery::Diagnosis& logs,
                                    const std::optional<recovery::SilentRank>& silent) {
    if (hardware_under_hang(logs)) {
        auto diagnosis = logs;
        diagnosis.slurm_facts_used.insert(
            diagnosis.slurm_facts_used.begin(),
            {"state RUNNING", "stall timeout " + format_stall_timeout(stall.timeout)});
        recovery::EvidenceLine line;
        line.file = stall.files.empty() ? "" : stall.files.front();
        line.text = stall.summary;
        line.rule_id = "supervisor.stall";
        line.cause = recovery::Cause::hang;
        line.supports_cause = false;
        diagnosis.evidence.push_back(std::move(line));
        diagnosis.summary = "the job hung (" + stall.summary + ") because " + logs.summary;
        return diagnosis;
    }
    recovery::Diagnosis diagnosis;
    diagnosis.cause = recovery::Cause::hang;
    diagnosis.confidence = 0.9;
    diagnosis.step = logs.step;
    diagnosis.nodes = logs.nodes;
    if (silent && silent->node) {
        // The rank that stopped is where the job hangs; the others' errors are its symptoms.
        diagnosis.nodes = {*silent->node};
    }
    diagnosis.suggested_actions = recovery::default_actions(recovery::Cause::hang);
    diagnosis.slurm_facts_used = {"state RUNNING",
                                  "stall timeout " + format_stall_timeout(stall.timeout)};
    recovery::EvidenceLine line;
    line.file = stall.files.empty() ? "" : stall.files.front();
    line.text = stall.summary;
    line.rule_id = "supervisor.stall";
    line.cause = recovery::Cause::hang;
    diagnosis.evidence.push_back(line);
    std::string rank_text;
    if (silent) {
        rank_text = "rank " + std::to_string(silent->rank) +
                    (silent->node ? " on " + *silent->node : std::string()) + " went silent (" +
                    silent->why + ")";
        recovery::EvidenceLine last;
        last.file = silent->file;
        last.line = silent->line;
        last.text = common::shortened(silent->last_line, recovery::k_max_evidence_text_bytes);
        last.rule_id = "supervisor.silent_rank";
        last.cause = recovery::Cause::hang;
        diagnosis.evidence.push_back(std::move(last));
    }
    for (auto context : logs.evidence) {
        if (diagnosis.evidence.size() > recovery::k_max_context_lines) {
            break;
        }
        context.supports_cause = false;
        diagnosis.evidence.push_back(std::move(context));
    }
    diagnosis.summary =
        "the job hung: " + stall.summary + (rank_text.empty() ? "" : "; " + rank_text) +
        (logs.cause != recovery::Cause::unknown
             ? "; the log also shows " + std::string(recovery::to_string(logs.cause)) + " (" +
                   logs.summary + ")"
             : "");
    return diagnosis;
}

}  // namespace supervisor
