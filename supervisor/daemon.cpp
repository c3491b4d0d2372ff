// Signals only set flags; the loop looks at them between cycles and while sleeping (in short
// slices, so a stop is prompt). Nothing else happens in a signal handler.
#include "supervisor/daemon.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <thread>

#include <spdlog/spdlog.h>

#include "node_evidence/sources.h"
#include "notify/curl_sender.h"
#include "notify/dispatcher.h"
#include "supervisor/failure_history.h"
#include "supervisor/poll_cycle.h"
#include "supervisor/reported_ends.h"
#include "supervisor/watched_registrations.h"

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

}  // namespace

common::Result<int> run_daemon(state::Store& store, slurm::Client& client,
                               const DaemonOptions& options) {
    auto loaded = options.load_config();
    if (!loaded) {
        return tl::unexpected(loaded.error());
    }
    Config config = *loaded;
    auto catalogue = options.load_catalogue(config);
    if (!catalogue) {
        return tl::unexpected(catalogue.error());
    }
    install_handlers();
    common::SystemClock clock;
    // SlurmUser may own the epilog's spool files (the epilog writes as SlurmUser where root
    // cannot write the shared file system): asked of slurmctld once, then cached by the client.
    const auto slurm_user = [&client](uid_t uid) {
        const auto is = client.ask_is_operator_uid(uid);
        return is && *is;
    };
    auto node_evidence = node_evidence::make_sources(config.evidence, slurm_user);
    auto cycle = std::make_unique<PollCycle>(store, client, clock, *catalogue, config);
    cycle->set_node_evidence(node_evidence.get());
    auto sender = notify::make_curl_sender(config.notify, clock);
    auto dispatcher = std::make_unique<notify::Dispatcher>(store, *sender, clock, config.notify);
    spdlog::info("supervisor started: database {}, poll every {} ms", store.path().string(),
                 config.poll_interval.count());
    if (options.observer) {
        options.observer->started(config);
    }

    std::optional<std::chrono::steady_clock::time_point> unreachable_since;
    std::optional<common::MonotonicPoint> last_prune;
    ReportedEnds reported;  // watched jobs reported ended, followed until they settle
    auto backoff = config.poll_interval;
    while (!g_stop) {
        if (g_reload) {
            g_reload = 0;
            auto reloaded = options.load_config();
            auto fresh =
                reloaded ? options.load_catalogue(*reloaded)
                         : common::Result<recovery::Catalogue>(tl::unexpected(reloaded.error()));
            if (!fresh) {
                spdlog::error("reload failed, keeping the old settings: {}", fresh.error().message);
            } else {
                config = *reloaded;
                *catalogue = std::move(*fresh);
                node_evidence = node_evidence::make_sources(config.evidence, slurm_user);
                cycle = std::make_unique<PollCycle>(store, client, clock, *catalogue, config);
                cycle->set_node_evidence(node_evidence.get());
                sender = notify::make_curl_sender(config.notify, clock);
                dispatcher =
                    std::make_unique<notify::Dispatcher>(store, *sender, clock, config.notify);
                spdlog::info("configuration and rules reloaded");
            }
            if (options.observer) {
                options.observer->reloaded(config);
            }
        }
        auto wait = config.poll_interval;
        try {
            const auto cycle_start = std::chrono::steady_clock::now();
            const auto report = cycle->run();
            if (options.observer) {
                options.observer->cycle_finished(report,
                                                 std::chrono::steady_clock::now() - cycle_start);
            }
            if (!report.slurm_reachable) {
                if (!unreachable_since) {
                    unreachable_since = std::chrono::steady_clock::now();
                    spdlog::warn(
                        "slurmctld unreachable, backing off (nothing is treated as "
                        "failed meanwhile): {}",
                        report.slurm_error);
                }
                backoff = std::min(config.max_backoff, backoff * 2);
                wait = backoff;
            } else {
                if (unreachable_since) {
                    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::steady_clock::now() - *unreachable_since);
                    spdlog::info("slurmctld reachable again after {} s", seconds.count());
                    unreachable_since.reset();
                }
                backoff = config.poll_interval;
                if (report.transitions > 0 || report.actions_finished > 0) {
                    spdlog::info("cycle: {} watched, {} transitions, {} actions finished",
                                 report.watched, report.transitions, report.actions_finished);
                }
            }
            for (const auto& refused : report.refused) {
                spdlog::warn("job {}", refused);
            }
            for (const auto& error : report.internal_errors) {
                spdlog::error(
                    "handling job {} (other jobs go on; retried later; please "
                    "report it)",
                    error);
            }
        } catch (const state::DatabaseError& e) {
            spdlog::error("cycle aborted, nothing of it was recorded; retrying: {}", e.what());
            if (options.observer) {
                options.observer->cycle_failed(e.what());
            }
        } catch (const std::exception& e) {
            // Not one job's handling (that is contained in the cycle): the cycle's own steps.
            // The daemon never exits for it; the transaction in progress rolled back.
            spdlog::error("cycle aborted by an internal error, retrying (please report it): {}",
                          e.what());
            if (options.observer) {
                options.observer->cycle_failed(e.what());
            }
        }
        send_notifications(*dispatcher);
        if (!last_prune || clock.monotonic() - *last_prune >= std::chrono::hours(1)) {
            prune_history(store, clock, config);
            last_prune = clock.monotonic();
        }
        if (options.once) {
            break;
        }
        JobEndPushes* pushes = options.push_client != nullptr ? options.pushes : nullptr;
        const auto next_poll = std::chrono::steady_clock::now() + wait;
        const auto left = [&next_poll] {
            return std::max(std::chrono::milliseconds(0),
                            std::chrono::duration_cast<std::chrono::milliseconds>(
                                next_poll - std::chrono::steady_clock::now()));
        };
        // Until the next poll: sleep, woken by job-end reports; follow the reported watched jobs
        // until one has settled (look now) or the poll is due (the others are followed after
        // it, so a job whose epilogs take long holds back no other job's poll).
        while (!g_stop && !g_reload && pushes != nullptr) {
            if (!reported.following() && !sleep_unless_stopped(left(), options.observer, pushes)) {
                break;  // the poll is due, or a signal
            }
            try {
                reported.follow(watched_among(store, pushes->take()),
                                std::chrono::steady_clock::now());
            } catch (const state::DatabaseError& e) {
                spdlog::error("a job-end report was not followed (the next poll sees it): {}",
                              e.what());
                break;
            }
            if (!reported.following()) {
                continue;  // reports about other jobs only: sleep on, for what is left
            }
            if (reported.settled_any(*options.push_client, std::chrono::steady_clock::now()) ||
                left() == std::chrono::milliseconds(0)) {
                break;
            }
            if (options.observer) {
                options.observer->alive();
            }
            (void)pushes->wait_for(k_wake_slice);  // a new report ends the pause early
        }
        if (pushes == nullptr) {
            (void)sleep_unless_stopped(left(), options.observer, nullptr);
        }
    }
    if (options.observer) {
        options.observer->stopping();
    }
    spdlog::info("supervisor stopped");
    return 0;
}

}  // namespace supervisor
