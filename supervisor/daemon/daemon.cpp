// Signals only set flags; the loop looks at them between cycles and while sleeping (in short
// slices, so a stop is prompt). Nothing else happens in a signal handler.
#include "supervisor/daemon/daemon.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/try.h"
#include "node_evidence/sources.h"
#include "notify/curl_sender.h"
#include "notify/dispatcher.h"
#include "supervisor/cycle/poll_cycle.h"
#include "supervisor/daemon/reported_ends.h"
#include "supervisor/failure/failure_history.h"
#include "supervisor/failure/node_records.h"
#include "supervisor/registrations/watched_registrations.h"

namespace supervisor {
namespace {

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_reload = 0;

extern "C" void on_stop(int) {
    g_stop = 1;
}
extern "C" void on_reload(int) {
    g_reload = 1;
}

void install_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    action.sa_handler = on_reload;
    sigaction(SIGHUP, &action, nullptr);
}

constexpr std::chrono::milliseconds k_wake_slice{50};

// Sleeps for `duration`, or until a stop or reload signal, or a job-end report (`pushes`, may
// be null): true when a report ended the sleep.
bool sleep_unless_stopped(std::chrono::milliseconds duration, DaemonObserver* observer,
                          JobEndPushes* pushes) {
    const auto until = std::chrono::steady_clock::now() + duration;
    while (!g_stop && !g_reload && std::chrono::steady_clock::now() < until) {
        if (observer) {
            observer->alive();  // the systemd watchdog is fed here, also while backing off
        }
        if (pushes == nullptr) {
            std::this_thread::sleep_for(k_wake_slice);
        } else if (pushes->wait_for(k_wake_slice)) {
            return true;
        }
    }
    return false;
}

// The watched jobs among job-end reports: every job of the cluster has an EpilogSlurmctld, and
// reports about jobs nobody registered start nothing.
std::vector<common::JobId> watched_among(state::Store& store, std::vector<common::JobId> jobs) {
    std::erase_if(jobs, [&store](const common::JobId& job) {
        const auto registration = store.registration(job);
        return !registration || !is_watched(*registration);
    });
    return jobs;
}

// Once an hour (and at start): the history of jobs that are over, past the retention. Never
// closer than the failure history's window, which other jobs' decisions read.
void prune_history(state::Store& store, const common::Clock& clock, const Config& config) {
    try {
        const auto keep = std::max<std::chrono::hours>(config.retention, k_history_window);
        auto transaction = store.begin();
        const auto pruned = store.prune_finished_history(clock.now() - keep);
        transaction.commit();
        if (pruned.events > 0 || pruned.notifications > 0) {
            spdlog::info(
                "retention: deleted {} events and {} notifications of jobs finished "
                "more than {} days ago",
                pruned.events, pruned.notifications, keep.count() / 24);
        }
    } catch (const state::DatabaseError& e) {
        spdlog::error("retention skipped this time: {}", e.what());
    }
}

// The outbox, after every cycle and also while slurmctld is unreachable: mail does not depend
// on Slurm. A database error is logged; the rows stay pending for the next cycle.
void send_notifications(notify::Dispatcher& dispatcher) {
    try {
        const auto sent = dispatcher.run();
        if (sent != notify::DispatchReport{}) {
            spdlog::info(
                "notifications: {} sent, {} to retry, {} failed, {} suppressed, {} "
                "deferred",
                sent.sent, sent.retried, sent.failed, sent.suppressed, sent.deferred);
        }
    } catch (const std::exception& e) {  // the database, or a bug: mail waits, nothing is lost
        spdlog::error("sending notifications stopped, the rest stay queued: {}", e.what());
    }
}

// Everything the loop runs with that the configuration decides: built at start and again,
// whole, on a reload (SIGHUP), so that a reload that fails leaves the running one as it was.
class Engine {
  public:
    Engine(Config config, recovery::Catalogue catalogue, state::Store& store, slurm::Client& client,
           const common::Clock& clock)
        : m_config(std::move(config)),
          m_catalogue(std::move(catalogue)),
          // SlurmUser may own the epilog's spool files (the epilog writes as SlurmUser where
          // root cannot write the shared file system): asked of slurmctld once, then cached by
          // the client.
          m_node_evidence(node_evidence::make_sources(m_config.evidence,
                                                      [&client](uid_t uid) {
                                                          const auto is =
                                                              client.ask_is_operator_uid(uid);
                                                          return is && *is;
                                                      })),
          m_cycle(store, client, clock, m_catalogue, m_config),
          // Root serves every user: the webhooks they name may not reach what root can.
          m_sender(notify::make_curl_sender(m_config.notify, clock, ::geteuid() == 0)),
          m_dispatcher(store, *m_sender, clock, m_config.notify),
          m_node_watch(store, client, clock, m_config) {
        m_cycle.set_node_evidence(m_node_evidence.get());
    }

    [[nodiscard]] const Config& config() const { return m_config; }
    [[nodiscard]] PollCycle& cycle() { return m_cycle; }
    [[nodiscard]] notify::Dispatcher& dispatcher() { return m_dispatcher; }
    [[nodiscard]] NodeWatch& node_watch() { return m_node_watch; }

  private:
    const Config m_config;
    const recovery::Catalogue m_catalogue;  // m_cycle holds references to these two
    std::unique_ptr<node_evidence::Source> m_node_evidence;
    PollCycle m_cycle;
    std::unique_ptr<notify::Sender> m_sender;
    notify::Dispatcher m_dispatcher;
    NodeWatch m_node_watch;  // over m_config, declared before it
};

// Reads the configuration and the rules (DaemonOptions says how) and builds an Engine on them;
// the first error found when either cannot be read.
common::Result<std::unique_ptr<Engine>> load_engine(const DaemonOptions& options,
                                                    state::Store& store, slurm::Client& client,
                                                    const common::Clock& clock) {
    auto config = TRY(options.load_config());
    auto catalogue = TRY(options.load_catalogue(config));
    auto engine =
        std::make_unique<Engine>(std::move(config), std::move(catalogue), store, client, clock);
    if (options.observer != nullptr) {
        engine->cycle().set_progress([observer = options.observer] { observer->progressing(); });
    }
    return engine;
}

// How slurmctld answered the last cycles: the wait before the next one doubles while it is
// unreachable (up to max_backoff), and its loss and return are logged once each.
class Backoff {
  public:
    // The wait before the next cycle, after one that ended with `report`.
    std::chrono::milliseconds after(const CycleReport& report, const Config& config) {
        if (!report.slurm_reachable) {
            if (!m_unreachable) {
                m_unreachable = true;
                m_unreachable_since = std::chrono::steady_clock::now();
                spdlog::warn(
                    "slurmctld unreachable, backing off (nothing is treated as failed "
                    "meanwhile): {}",
                    report.slurm_error);
                m_wait = config.poll_interval;
            }
            m_wait = std::min(config.max_backoff, m_wait * 2);
            return m_wait;
        }
        if (m_unreachable) {
            const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                std::chrono::steady_clock::now() - m_unreachable_since);
            spdlog::info("slurmctld reachable again after {} s", seconds.count());
            m_unreachable = false;
        }
        return config.poll_interval;
    }

  private:
    // A flag beside the time, not an optional: GCC 12 warns of the optional's time as maybe
    // uninitialised.
    bool m_unreachable = false;
    std::chrono::steady_clock::time_point m_unreachable_since{};
    std::chrono::milliseconds m_wait{0};
};

// One poll cycle, its report logged and told to the observer; the wait before the next. A
// cycle that throws is logged and retried after the poll interval: the daemon never exits for
// it, and the transaction in progress rolled back.
std::chrono::milliseconds run_cycle(Engine& engine, Backoff& backoff, DaemonObserver* observer) {
    try {
        const auto cycle_start = std::chrono::steady_clock::now();
        const auto report = engine.cycle().run();
        if (observer) {
            observer->cycle_finished(report, std::chrono::steady_clock::now() - cycle_start);
        }
        if (report.slurm_reachable && (report.transitions > 0 || report.actions_finished > 0)) {
            spdlog::info("cycle: {} watched, {} transitions, {} actions finished", report.watched,
                         report.transitions, report.actions_finished);
        }
        for (const auto& refused : report.refused) {
            spdlog::warn("job {}", refused);
        }
        for (const auto& error : report.internal_errors) {
            spdlog::error("handling job {} (other jobs go on; retried later; please report it)",
                          error);
        }
        return backoff.after(report, engine.config());
    } catch (const state::DatabaseError& e) {
        spdlog::error("cycle aborted, nothing of it was recorded; retrying: {}", e.what());
        if (observer) {
            observer->cycle_failed(CycleFailure::database, e.what());
        }
    } catch (const std::exception& e) {
        // Not one job's handling (that is contained in the cycle): the cycle's own steps.
        spdlog::error("cycle aborted by an internal error, retrying (please report it): {}",
                      e.what());
        if (observer) {
            observer->cycle_failed(CycleFailure::internal, e.what());
        }
    }
    return engine.config().poll_interval;
}

// Until the next poll, `wait` from now: sleeps, woken by job-end reports, and follows the
// reported watched jobs until one has settled (the next cycle looks now) or the poll is due
// (the others are followed after it, so a job whose epilogs take long holds back no other
// job's poll). Returns early on a stop or reload signal.
void wait_for_next_poll(state::Store& store, ReportedEnds& reported, std::chrono::milliseconds wait,
                        const DaemonOptions& options) {
    JobEndPushes* pushes = options.push_client != nullptr ? options.pushes : nullptr;
    const auto next_poll = std::chrono::steady_clock::now() + wait;
    const auto left = [&next_poll] {
        return std::max(std::chrono::milliseconds(0),
                        std::chrono::duration_cast<std::chrono::milliseconds>(
                            next_poll - std::chrono::steady_clock::now()));
    };
    if (pushes == nullptr) {
        (void)sleep_unless_stopped(left(), options.observer, nullptr);
        return;
    }
    while (!g_stop && !g_reload) {
        if (!reported.following() && !sleep_unless_stopped(left(), options.observer, pushes)) {
            return;  // the poll is due, or a signal
        }
        try {
            reported.follow(watched_among(store, pushes->take()), std::chrono::steady_clock::now());
        } catch (const state::DatabaseError& e) {
            spdlog::error("a job-end report was not followed (the next poll sees it): {}",
                          e.what());
            return;
        }
        if (!reported.following()) {
            continue;  // reports about other jobs only: sleep on, for what is left
        }
        if (reported.settled_any(*options.push_client, std::chrono::steady_clock::now()) ||
            left() == std::chrono::milliseconds(0)) {
            return;
        }
        if (options.observer) {
            options.observer->alive();
        }
        (void)pushes->wait_for(k_wake_slice);  // a new report ends the pause early
    }
}

}  // namespace

common::Result<int> run_daemon(state::Store& store, slurm::Client& client,
                               const DaemonOptions& options) {
    common::SystemClock clock;
    auto engine = TRY(load_engine(options, store, client, clock));
    install_handlers();
    spdlog::info("supervisor started: database {}, poll every {} ms", store.path().string(),
                 engine->config().poll_interval.count());
    if (options.observer) {
        options.observer->started(engine->config());
    }

    std::optional<common::MonotonicPoint> last_prune;
    ReportedEnds reported;  // watched jobs reported ended, followed until they settle
    Backoff backoff;
    while (!g_stop) {
        // 1. A reload (SIGHUP) replaces the configuration and rules whole, or keeps the old.
        if (g_reload) {
            g_reload = 0;
            if (auto reloaded = load_engine(options, store, client, clock); !reloaded) {
                spdlog::error("reload failed, keeping the old settings: {}",
                              reloaded.error().message);
            } else {
                engine = std::move(*reloaded);
                spdlog::info("configuration and rules reloaded");
            }
            if (options.observer) {
                options.observer->reloaded(engine->config());
            }
        }
        // 2. The poll cycle, the node records (node_records.h), then the outbox (mail does not
        //    depend on Slurm) and, hourly, the history past its retention.
        const auto wait = run_cycle(*engine, backoff, options.observer);
        engine->node_watch().run();
        send_notifications(engine->dispatcher());
        if (!last_prune || clock.monotonic() - *last_prune >= std::chrono::hours(1)) {
            prune_history(store, clock, engine->config());
            last_prune = clock.monotonic();
        }
        if (options.once) {
            break;
        }
        // 3. Until the next poll, or a reported job end that slurmctld is done with.
        wait_for_next_poll(store, reported, wait, options);
    }
    if (options.observer) {
        options.observer->stopping();
    }
    spdlog::info("supervisor stopped");
    return 0;
}

}  // namespace supervisor
