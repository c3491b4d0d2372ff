// Stall detection: a RUNNING job whose logs stop growing — or, when its registration declares
// a progress pattern, stop printing new lines that match it — for its stall timeout has hung.
// StallTracker watches the sizes of each such job's std_out/std_err with stat() and reads only
// the bytes they grew by (at most k_max_scan_bytes a look, and only with a pattern), so a
// look costs the same whatever the size of the log.
//
// The tracking lives in memory: the clock of a job starts when the tracker first sees it
// running (or running again after a restart), so restarting the daemon restarts every stall
// clock — never early, possibly late. Time comes from the injected common::Clock only, and
// durations from its monotonic clock: a step of the wall clock neither ends nor extends one.
//
// parse_stall_timeout() fails for anything but a non-negative number with an optional unit
// (s, m, h; none means minutes).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "recovery/diagnosis.h"
#include "recovery/nccl_transport.h"
#include "recovery/planner.h"
#include "recovery/progress_pattern.h"
#include "recovery/silent_rank.h"
#include "recovery/step_rate.h"
#include "slurm/types.h"
#include "state/records.h"
#include "supervisor/journal/journal_events.h"

namespace supervisor {

// "30" and "30m": 30 minutes; "20s", "2h"; "0": off.
[[nodiscard]] common::Result<std::chrono::seconds> parse_stall_timeout(std::string_view text);
// "30m", "20s", "1h30m", "0" (the inverse of parse_stall_timeout, as a person writes it).
[[nodiscard]] std::string format_stall_timeout(std::chrono::seconds timeout);

// What the tracker found: the job showed no activity for at least its timeout.
struct Stall {
    std::chrono::seconds timeout{0};
    std::chrono::seconds silent_for{0};
    common::TimePoint since{};             // the last activity seen (or when tracking began)
    std::uint64_t log_bytes = 0;           // size of its logs, all files together
    bool logs_grew = false;                // with a pattern: output, but no new step line
    std::string progress_pattern;          // empty: log growth alone counted
    std::optional<std::string> last_step;  // the last step line seen, when a pattern is set
    std::vector<std::string> files;        // the logs watched
    std::string summary;                   // one sentence for a person
};

class StallTracker {
  public:
    static constexpr std::uint64_t k_max_scan_bytes = 1024 * 1024;

    explicit StallTracker(const common::Clock& clock) : m_clock(clock) {}

    // One look at a watched job. Returns the stall when the job is RUNNING, its registration
    // has a timeout, and nothing happened in its logs for that long; the clock then starts
    // again, so the same stall is reported once. Cheap when not due: a job is looked at every
    // timeout/10 (between 1 s and 60 s; 60 s for a job with a progress pattern and no timeout,
    // watched for its step rate only). A log that cannot be stat'ed restarts the clock (no
    // verdict without evidence).
    [[nodiscard]] std::optional<Stall> check(const state::Registration& registration,
                                             const slurm::JobSnapshot& job);

    // A job whose step rate has fallen below its own median, or its baseline, for a sustained
    // time (StepRate, recovery/step_rate.h), told once per run: the step numbers come from the
    // lines check() found matching the registration's progress pattern. A job with a progress
    // pattern is tracked for this even without a stall timeout; nullopt otherwise, and until
    // told.
    [[nodiscard]] std::optional<recovery::Straggling> straggling(
        const common::JobId& job, const recovery::StepRateOptions& options);

    // Reads, once per run, the newest k_max_scan_bytes each log held when the run's tracking
    // began, for NCCL's choice of network: NCCL prints it once, as the run starts, often before
    // the first look. A node's newer line, read by check(), is kept over these. Only for a
    // straggler, so a restarted daemon does not read every log it tracks. Call with the job's
    // owner's credentials, as check().
    void read_nccl_backlog(const common::JobId& job);

    // The nodes of the tracked run whose ranks fell back to sockets while others use a fabric,
    // as the NCCL lines of its logs show them (recovery/nccl_transport.h): those among the
    // bytes check() read (a run with a progress pattern), and those read_nccl_backlog() read.
    // Empty for a job not tracked.
    [[nodiscard]] std::vector<recovery::NodeSignal> nccl_fallbacks(const common::JobId& job) const;

    // What attempt `attempt` of the job trained at: its run's median step rate, from the run
    // still tracked or the last one that ended (forget(), or a new run replacing it), which is
    // then no longer kept. Nullopt when neither is of that attempt or it saw fewer than two
    // step lines. What a restarted daemon did not see is not known.
    [[nodiscard]] std::optional<recovery::RunRate> take_run_rate(const common::JobId& job,
                                                                 std::uint32_t attempt);

    // Whether check() would look at the job's logs now (a new run to start tracking, or its
    // next look is due): only then must the caller take the owner's credentials for it. Cheap.
    [[nodiscard]] bool needs_look(const state::Registration& registration,
                                  const slurm::JobSnapshot& job) const;
    // When the job's next look is due; nullopt when it is not tracked.
    [[nodiscard]] std::optional<common::MonotonicPoint> next_look(const common::JobId& job) const;
    // Stops tracking the job's run (ended, recovering); its step rate is kept for
    // take_run_rate().
    void forget(const common::JobId& job);
    // Forgets everything of the job (no longer watched).
    void drop(const common::JobId& job);
    [[nodiscard]] bool tracking(const common::JobId& job) const { return m_tracks.contains(job); }

  private:
    struct File {
        std::string path;
        std::uint64_t size = 0;
        std::uint64_t scanned = 0;       // bytes already searched for step lines
        std::uint64_t tracked_from = 0;  // its size when the run's tracking began
    };
    struct Track {
        std::uint32_t restart_count = 0;
        std::uint32_t attempt = 0;
        std::string pattern;
        std::vector<File> files;
        std::optional<std::string> last_step;
        bool grew = false;  // some log grew since `since` (output, but no step line)
        recovery::StepRate rate;
        recovery::NcclTransports transports;
        bool backlog_read = false;  // read_nccl_backlog() has looked before tracked_from
        bool straggler_told = false;
        common::MonotonicPoint since{};
        common::MonotonicPoint next_look{};
    };

    struct EndedRun {
        std::uint32_t attempt = 0;
        recovery::RunRate rate;
    };

    [[nodiscard]] bool look(Track& track, const recovery::ProgressPattern* pattern,
                            common::MonotonicPoint now, bool& grew);
    // Erases the track, keeping its run's rate (when it has one) in m_ended.
    void end_track(std::map<common::JobId, Track>::iterator it);
    const recovery::ProgressPattern* pattern_for(const std::string& text);

    const common::Clock& m_clock;
    std::map<common::JobId, Track> m_tracks;
    std::map<common::JobId, EndedRun> m_ended;  // the last ended run of each job, with a rate
    std::map<std::string, std::optional<recovery::ProgressPattern>> m_patterns;
};

// The stall as the journal's "observed" event keeps it.
[[nodiscard]] StallData stall_data(const Stall& stall);

// The diagnosis of a stall: cause hang, the stall as its evidence (plus the last lines the log
// engine picked out, as context), suggested action requeue. `logs` is the diagnosis the engine
// made of the same logs; its step is kept. `silent` is the rank the logs single out as the one
// that went quiet (recovery/silent_rank.h): its node is then the node named, and its last line
// evidence; without it, the nodes are the log diagnosis' own. When `logs` found a hardware
// cause on a node (an Xid, ECC errors, link errors from the node's telemetry), that diagnosis is
// kept, with the stall as context: a hang on a broken GPU is answered by leaving the node.
[[nodiscard]] recovery::Diagnosis stall_diagnosis(
    const Stall& stall, const recovery::Diagnosis& logs,
    const std::optional<recovery::SilentRank>& silent = std::nullopt);

}  // namespace supervisor
