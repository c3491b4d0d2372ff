// A running job is checked for a stall: no log activity for its stall timeout, recovered as a
// failure (stall.h). A job that is not hung is checked for a slowdown or an idle GPU. Either is
// told to its owner once per run (running_job_report.h). A straggler that one node holds back,
// with the owner's exclude_slow_node, is moved off that node (slow_node.h). The logs are read
// as the job's owner. The run's median step rate is kept for the attempt's end
// (rate_baseline.h).
#include <algorithm>
#include <iterator>

#include "common/file_identity.h"
#include "supervisor/failure/failure.h"
#include "supervisor/failure/run_nodes.h"
#include "supervisor/failure/slow_node.h"
#include "supervisor/failure/stall.h"
#include "supervisor/outbox/owner_outbox.h"
#include "supervisor/outbox/running_job_report.h"
#include "supervisor/watches/cycle_report.h"
#include "supervisor/watches/idle_gpu_watch.h"
#include "supervisor/watches/rate_baseline.h"
#include "supervisor/watches/watches.h"

namespace supervisor {

namespace {

class RunningWatch final : public Watch {
  public:
    explicit RunningWatch(CycleServices& services)
        : m_services(services), m_stalls(services.clock) {}

    AfterLook look(const state::Registration& registration, const slurm::JobSnapshot& job,
                   WatchLook& cycle) override {
        // Watched while running: for a stall (a timeout), a slowdown (a progress pattern) or
        // an idle GPU (node evidence configured).
        const bool watched = registration.stall_timeout_s > 0 ||
                             !registration.progress_pattern.empty() ||
                             m_services.node_evidence != nullptr;
        if (!watched || job.state != slurm::JobState::running || job.completing) {
            forget(registration.job, Forget::this_run);
            return AfterLook::go_on;
        }
        bool begun = false;
        cycle.contain([&] { begun = check(registration, job, cycle); });
        return begun ? AfterLook::recovering : AfterLook::go_on;
    }

    [[nodiscard]] std::optional<common::MonotonicPoint> next_look(
        const state::Registration& registration, const slurm::JobSnapshot& job) override {
        auto next = m_stalls.next_look(registration.job);
        if (m_services.node_evidence != nullptr) {
            if (const auto idle = m_idle_gpus.next(registration.job)) {
                next = next ? std::min(*next, *idle) : *idle;
            }
        }
        if (!next && m_stalls.needs_look(registration, job)) {
            // Running and watched, but its logs could not be looked at (the owner's credentials
            // could not be taken): tried again next cycle, as if due.
            next = m_services.clock.monotonic() + std::chrono::duration_cast<std::chrono::seconds>(
                                                      m_services.config.poll_interval);
        }
        return next;
    }

    void forget(const common::JobId& job, Forget what) override {
        m_idle_gpus.forget(job);
        if (what == Forget::everything) {
            m_stalls.drop(job);
            m_baselines.forget(job);
        } else {
            m_stalls.forget(job);  // the run's step rate is kept for record_run_end()
        }
    }

    void record_run_end(state::Store& store, const common::JobId& job, std::uint32_t attempt,
                        common::TimePoint now) override {
        if (const auto rate = m_stalls.take_run_rate(job, attempt)) {
            record_run_rate(store, job, attempt, *rate, now);
        }
    }

  private:
    // Returns whether a recovery began.
    bool check(const state::Registration& registration, const slurm::JobSnapshot& job,
               WatchLook& cycle) {
        std::optional<Stall> stall;
        // Only a stall timeout or a progress pattern reads the logs (an idle-GPU look does
        // not), and only a look that is due pays for switching to the owner's credentials.
        if (m_stalls.needs_look(registration, job)) {
            // The logs are stat'ed and read as the job's owner; when that is impossible they
            // are not looked at (no verdict without evidence), and never with our own rights.
            auto as_owner =
                common::ScopedFileIdentity::assume(m_services.owners.of(registration, job));
            if (!as_owner) {
                return false;
            }
            stall = m_stalls.check(registration, job);
            as_owner->restore();  // the recovery below writes the store with our own rights
        }
        if (!stall) {
            return check_pace(registration, job, cycle);
        }
        ++cycle.report().stalls;
        return cycle.begin_recovery(Failure::hung(*stall));
    }

    // A running job that is not hung: a straggler (its step rate against its own median, or
    // against its baseline: rate_baseline.h), or an idle GPU (the node evidence, once per
    // straggler_after). Returns whether a recovery began (a node moved off).
    bool check_pace(const state::Registration& registration, const slurm::JobSnapshot& job,
                    WatchLook& cycle) {
        const auto& config = m_services.config;
        const auto& clock = m_services.clock;
        recovery::StepRateOptions options;
        options.below_fraction = static_cast<double>(config.straggler_below_percent) / 100.0;
        options.sustained = config.straggler_after;
        options.baseline = m_baselines.of(m_services.store, registration);
        const auto straggling = m_stalls.straggling(registration.job, options);
        const bool look_at_gpus =
            m_services.node_evidence != nullptr &&
            (straggling || m_idle_gpus.due(registration.job, job.restart_count, clock.monotonic(),
                                           config.straggler_after));
        std::vector<recovery::NodeSignal> signals;
        std::vector<std::string> job_nodes;  // parsed only for a straggler or a look at the GPUs
        if (straggling || look_at_gpus) {
            job_nodes = RunNodes::of(job.nodes).names;
        }
        if (straggling) {
            // The run's own NCCL lines: a host on sockets where the others use a fabric. What
            // the logs held before the tracking began is read now, once, as their owner.
            if (auto as_owner =
                    common::ScopedFileIdentity::assume(m_services.owners.of(registration, job))) {
                m_stalls.read_nccl_backlog(registration.job);
                as_owner->restore();
            }
            std::ranges::move(m_stalls.nccl_fallbacks(registration.job),
                              std::back_inserter(signals));
        }
        if (look_at_gpus) {
            std::ranges::move(gpu_signals(registration, job_nodes, straggling),
                              std::back_inserter(signals));
        }
        const bool idle = std::ranges::any_of(signals, [](const recovery::NodeSignal& signal) {
            return signal.kind == recovery::NodeSignalKind::gpu_idle;
        });
        if (!straggling && !idle) {
            return false;
        }
        m_idle_gpus.told(registration.job);
        if (straggling && cycle.owner().allows(recovery::ActionKind::exclude_slow_node)) {
            if (const auto node = node_holding_back(signals, job_nodes)) {
                return cycle.begin_recovery(
                    Failure::held_back(SlowRun{*straggling, *node, signals}));
            }
        }
        auto& store = m_services.store;
        auto transaction = store.begin();
        const auto now = clock.now();
        tell_owner(store, registration,
                   report_running_trouble(store, registration, straggling, signals, now), now);
        transaction.commit();
        return false;
    }

    // What the node evidence shows wrong on the run's nodes over the slowdown's window: for a
    // straggler, its telemetry's faults; alone, only idle GPUs.
    std::vector<recovery::NodeSignal> gpu_signals(
        const state::Registration& registration, const std::vector<std::string>& job_nodes,
        const std::optional<recovery::Straggling>& straggling) {
        node_evidence::Request request;
        request.job = registration.job.to_string();
        request.slowdown_only = true;
        request.run_ended = false;
        request.nodes = job_nodes;
        request.end = m_services.clock.now();
        request.start =
            request.end - (straggling ? straggling->over : m_services.config.straggler_after);
        std::vector<recovery::NodeSignal> signals;
        for (auto& signal : m_services.node_evidence->gather(request).signals) {
            if (signal.kind == recovery::NodeSignalKind::gpu_idle ||
                (straggling && (signal.kind == recovery::NodeSignalKind::thermal_throttle ||
                                signal.kind == recovery::NodeSignalKind::temperature ||
                                signal.kind == recovery::NodeSignalKind::nvlink_errors ||
                                signal.kind == recovery::NodeSignalKind::pcie_replays))) {
                signals.push_back(std::move(signal));
            }
        }
        return signals;
    }

    CycleServices& m_services;
    StallTracker m_stalls;
    IdleGpuWatch m_idle_gpus;
    RateBaselines m_baselines;  // each running job's step-rate baseline, read once per attempt
};

}  // namespace

std::unique_ptr<Watch> running_watch(CycleServices& services) {
    return std::make_unique<RunningWatch>(services);
}

}  // namespace supervisor
