// bench_journal_at_scale: the journal and the outbox at 10,000 jobs x weeks (issue 17). How
// long what reads them takes once a store holds weeks of every job's history:
//
//   bench_journal_at_scale [--jobs 10000] [--weeks 8] [--failures-per-week 2] [--keep DIR]
//
// A fresh SQLite store (a real file) gets --jobs registrations (register_jobs(), the in-memory
// fake Slurm client of tests/fakes), then for each job --weeks of history: per failure one
// ended attempt, five journal events (observed, diagnosis, decision, action, transition, with
// payloads of the size the daemon writes) and one sent notification. Half of the jobs are over
// (completed at the start of the history, so retention may delete them); every 100th job has
// one notification still pending. Then each read is timed (wall and CPU, median of --repeats):
//
//   status            `supervisor status` of every watched job (control::status_view)
//   status --json     the same as JSON, with every attempt and the last decision of each job
//   events JOBID      one job's whole journal as JSON (control::events_view)
//   outbox due        the notifications due now (what every cycle asks)
//   quiet cycle       one poll cycle with nothing changed (PollCycle::run, fake slurmctld)
//   changed cycle     one poll cycle after an unrelated job was submitted
//   retention         prune_finished_history with a four-week cut-off, in a transaction: once
//                     with the jobs that are over to delete, once more with nothing left
//   GET /api/v1/...   the dashboard's API (issue 34) over HTTP on loopback, from the daemon's
//                     dashboard server (web/dashboard_server.h) on its own connection to the
//                     file: the list of every job (as an operator), one job's timeline
//   quiet cycle, dashboard   the quiet cycle again with the dashboard serving nobody, then
//                     while a client asks for the list and a timeline without a pause
//
// --keep DIR leaves the filled database in DIR/state (after retention) so that built
// `supervisor` binaries can be timed on the same file (bench/journal_status.sh does).
// Prints one Markdown table and the database's size.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <atomic>
#include <thread>

#include "bench/clocks.h"
#include "control/views.h"
#include "recovery/catalogue.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/cycle/poll_cycle.h"
#include "supervisor/registrations/registrar.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/loopback_http.h"
#include "web/dashboard_server.h"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

using bench::cpu_ms;
using bench::wall_ms;

struct Timing {
    double wall = 0;
    double cpu = 0;
};

// The median of `repeats` runs of `what`, by wall time.
Timing timed(int repeats, const std::function<void()>& what) {
    std::vector<Timing> runs;
    for (int i = 0; i < repeats; ++i) {
        const double wall = wall_ms();
        const double cpu = cpu_ms();
        what();
        runs.push_back({wall_ms() - wall, cpu_ms() - cpu});
    }
    std::ranges::sort(runs, {}, &Timing::wall);
    return runs[runs.size() / 2];
}

// GET `path` on 127.0.0.1:`port` with the token; the answer's status (0: no answer).
int http_get(std::uint16_t port, const std::string& token, const std::string& path) {
    return test_support::exchange_http(
               test_support::connect_loopback(port),
               test_support::http_get_request(path, "Authorization: Bearer " + token + "\r\n"))
        .status;
}

// A payload of the size and shape the daemon writes for each kind (a few hundred bytes).
std::string payload(const std::string& kind, int failure) {
    if (kind == "decision") {
        return R"({"reason":"node failure on n)" + std::to_string(failure % 3) +
               R"(: requeue from the last complete checkpoint, excluding the node","escalate":false,"steps":[{"kind":"exclude_node","node":"n1"},{"kind":"requeue"}],"would_have_done":[],"notes":["checkpoint step_000)" +
               std::to_string(failure) + R"(.pt verified"]})";
    }
    if (kind == "diagnosis") {
        return R"({"cause":"node_failure","confidence":0.9,"evidence":[{"rule":"slurm.node_fail","source":"slurmctld","line":"JOB )" +
               std::to_string(failure) + R"( ON n1 CANCELLED DUE TO NODE FAILURE"}]})";
    }
    return R"({"state":"NODE_FAIL","exit_code":0,"signal":9,"nodes":"n1","attempt":)" +
           std::to_string(failure) + "}";
}

class Bench {
  public:
    Bench(int jobs, const recovery::Catalogue& catalogue, const std::string& keep)
        : m_catalogue(catalogue) {
        if (keep.empty()) {
            char pattern[] = "/tmp/bench-journal.XXXXXX";
            m_dir = ::mkdtemp(pattern);
            m_remove = true;
        } else {
            m_dir = keep;
            fs::create_directories(m_dir);
        }
        m_config.state_dir = m_dir / "state";
        m_config.poll_interval = 1000ms;
        fs::remove_all(m_config.state_dir);
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        if (!store) {
            throw std::runtime_error(store.error().message);
        }
        m_store = std::move(*store);
        for (int i = 0; i < jobs; ++i) {
            m_ids.push_back(m_slurm.submit("train"));
        }
        supervisor::RegisterRequest request;
        request.allowed_actions = {"requeue", "exclude_node"};
        request.caller = ::getuid();
        for (const auto& result :
             supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request, m_ids)) {
            if (!result.result) {
                throw std::runtime_error(result.result.error().message);
            }
        }
        m_cycle.emplace(*m_store, m_slurm, m_clock, m_catalogue, m_config);
    }
    ~Bench() {
        m_cycle.reset();
        m_store.reset();
        if (m_remove) {
            std::error_code ignored;
            fs::remove_all(m_dir, ignored);
        }
    }

    // Weeks of failures for every job, written as the daemon would (a transaction per 500
    // jobs); the clock ends at the present.
    void fill_history(int weeks, int failures_per_week) {
        const auto start = m_clock.now();
        const int failures = weeks * failures_per_week;
        const auto gap = std::chrono::duration_cast<std::chrono::seconds>(
            std::chrono::hours(24 * 7) / std::max(failures_per_week, 1));
        for (std::size_t first = 0; first < m_ids.size(); first += 500) {
            auto transaction = m_store->begin();
            for (std::size_t j = first; j < std::min(first + 500, m_ids.size()); ++j) {
                write_history(m_ids[j], j, start, gap, failures);
            }
            transaction.commit();
        }
        m_clock.advance(gap * failures);
    }

    // The file and its write-ahead log (not yet checkpointed into it).
    [[nodiscard]] std::uintmax_t database_bytes() const {
        const auto file = m_config.state_dir / state::k_database_file_name;
        std::error_code no_log;
        const auto log = fs::file_size(fs::path(file.string() + "-wal"), no_log);
        return fs::file_size(file) + (no_log ? 0 : log);
    }

    std::int64_t events_of_one() const {
        return static_cast<std::int64_t>(m_store->events(m_ids.front()).size());
    }

    Timing status(bool json, int repeats) {
        return timed(repeats, [&] {
            control::StatusQuery query;
            query.json = json;
            if (!control::status_view(*m_store, query)) {
                throw std::runtime_error("status failed");
            }
        });
    }

    Timing events(int repeats) {
        return timed(repeats, [&] {
            if (!control::events_view(*m_store, m_ids.front(), true)) {
                throw std::runtime_error("events failed");
            }
        });
    }

    Timing due(int repeats) {
        return timed(repeats, [&] { (void)m_store->due_notifications(m_clock.now()); });
    }

    Timing cycle(bool changed, int repeats) {
        return timed(repeats, [&] {
            if (changed) {
                m_slurm.set_caller_uid(::getuid() + 1);
                m_slurm.submit("churn");
                m_slurm.set_caller_uid(::getuid());
            }
            m_clock.advance(1s);
            const auto report = m_cycle->run();
            if (!report.internal_errors.empty()) {
                throw std::runtime_error(report.internal_errors.front());
            }
        });
    }

    // The daemon's dashboard on the same file, on a connection of its own; the caller is the
    // process' user (root: an operator, who sees every job).
    void start_dashboard() {
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        if (!store) {
            throw std::runtime_error(store.error().message);
        }
        m_dashboard_store = std::move(*store);
        web::DashboardSettings settings;
        settings.tcp = control::TcpAddress{"127.0.0.1", 0};
        settings.state_dir = m_dir;
        auto server = web::DashboardServer::start(
            std::move(settings), std::make_unique<control::Handlers>(*m_dashboard_store, m_slurm,
                                                                     m_dashboard_clock, m_config));
        if (!server) {
            throw std::runtime_error(server.error().message);
        }
        m_dashboard = std::move(*server);
    }

    Timing api(const std::string& path, int repeats) {
        const auto& url = m_dashboard->url();
        const auto token = url.substr(url.find("token=") + 6);
        return timed(repeats, [&] {
            if (http_get(m_dashboard->tcp_address()->port, token, path) != 200) {
                throw std::runtime_error("GET " + path + " failed");
            }
        });
    }

    std::string first_job() const { return m_ids.front().to_string(); }
    // The job `from_end` places before the end of the registrations (-100: the 100th last).
    std::string job_at(int from_end) const {
        return m_ids.at(m_ids.size() - static_cast<std::size_t>(-from_end)).to_string();
    }

    Timing retention(state::PrunedHistory& pruned) {
        return timed(1, [&] {
            auto transaction = m_store->begin();
            pruned = m_store->prune_finished_history(m_clock.now() - std::chrono::hours(24 * 28));
            transaction.commit();
        });
    }

  private:
    void write_history(const common::JobId& job, std::size_t index, common::TimePoint start,
                       std::chrono::seconds gap, int failures) {
        const bool over = index % 2 == 1;
        auto at = start;
        for (int f = 1; f <= failures; ++f) {
            at += gap;
            state::Attempt attempt;
            attempt.job = job;
            attempt.number = static_cast<std::uint32_t>(f);
            attempt.started_at = at - gap;
            attempt.ended_at = at;
            attempt.final_state = "NODE_FAIL";
            attempt.nodes = "n1";
            attempt.cause = "node_failure";
            attempt.resumed_from = "/ckpt/step_000" + std::to_string(f) + ".pt";
            m_store->upsert_attempt(attempt);
            for (const char* kind : {"observed", "diagnosis", "decision", "action", "transition"}) {
                m_store->append_event({0, job, at, kind,
                                       std::string(kind) + " after failure " + std::to_string(f),
                                       payload(kind, f)});
            }
            state::Notification sent;
            sent.job = job;
            sent.subject = "job " + job.to_string() + " failed (node_failure), requeued";
            sent.body = std::string(600, 'x');
            sent.dedup_key = job.to_string() + "/" + std::to_string(f);
            sent.status = state::NotificationStatus::sent;
            sent.created_at = sent.next_try_at = at;
            sent.sent_at = at;
            m_store->enqueue_notification(sent);
            if (over) {
                break;  // over after its first failure, at the start of the history
            }
        }
        if (index % 100 == 0) {
            state::Notification pending;
            pending.job = job;
            pending.subject = "pending";
            pending.created_at = pending.next_try_at = at;
            m_store->enqueue_notification(pending);
        }
        auto registration = m_store->registration(job).value();
        registration.attempt = over ? 1 : static_cast<std::uint32_t>(failures);
        registration.last_cause = "node_failure";
        registration.updated_at = at;
        if (over) {
            registration.status = state::Status::completed;
            registration.outcome = state::Outcome::succeeded;
        }
        m_store->update_registration(registration);
    }

    const recovery::Catalogue& m_catalogue;
    fs::path m_dir;
    bool m_remove = false;
    supervisor::Config m_config;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    std::unique_ptr<state::Store> m_store;
    std::optional<supervisor::PollCycle> m_cycle;
    std::vector<common::JobId> m_ids;
    common::SystemClock m_dashboard_clock;
    std::unique_ptr<state::Store> m_dashboard_store;
    std::unique_ptr<web::DashboardServer> m_dashboard;
};

void row(const char* what, const Timing& t) {
    std::printf("| %s | %.1f ms | %.1f ms |\n", what, t.wall, t.cpu);
}

}  // namespace

int main(int argc, char** argv) {
    int jobs = 10000;
    int weeks = 8;
    int per_week = 2;
    int repeats = 5;
    std::string keep;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--jobs") {
            jobs = std::stoi(argv[i + 1]);
        } else if (option == "--weeks") {
            weeks = std::stoi(argv[i + 1]);
        } else if (option == "--failures-per-week") {
            per_week = std::stoi(argv[i + 1]);
        } else if (option == "--repeats") {
            repeats = std::stoi(argv[i + 1]);
        } else if (option == "--keep") {
            keep = argv[i + 1];
        } else {
            std::fprintf(stderr,
                         "usage: %s [--jobs N] [--weeks N] [--failures-per-week N] "
                         "[--repeats N] [--keep DIR]\n",
                         argv[0]);
            return 2;
        }
    }
    const std::vector<fs::path> rules{SUPERVISOR_DEFAULT_RULES};
    auto catalogue = recovery::Catalogue::load(rules);
    if (!catalogue) {
        std::fprintf(stderr, "%s\n", catalogue.error().message.c_str());
        return 1;
    }
    Bench bench(jobs, *catalogue, keep);
    const double fill_start = wall_ms();
    bench.fill_history(weeks, per_week);
    const double fill_s = (wall_ms() - fill_start) / 1000;
    std::fprintf(stderr, "filled in %.1f s\n", fill_s);
    (void)bench.cycle(false, 2);  // the first cycle reads everything once

    std::printf(
        "%d jobs (half over), %d weeks, %d failures a week: %lld events for a watched "
        "job, database %.0f MiB, filled in %.0f s\n\n",
        jobs, weeks, per_week, static_cast<long long>(bench.events_of_one()),
        static_cast<double>(bench.database_bytes()) / (1024.0 * 1024.0), fill_s);
    std::printf("| read (median of %d) | wall | CPU |\n|---|---:|---:|\n", repeats);
    row("status (text, every watched job)", bench.status(false, repeats));
    row("status --json (every watched job)", bench.status(true, repeats));
    row("events JOBID --json (one watched job)", bench.events(repeats));
    row("outbox: notifications due", bench.due(repeats));
    row("quiet cycle", bench.cycle(false, repeats));
    row("changed cycle", bench.cycle(true, repeats));
    bench.start_dashboard();
    row("GET /api/v1/jobs (first page: 100 watched jobs, HTTP on loopback)",
        bench.api("/api/v1/jobs", repeats));
    row("GET /api/v1/jobs?all=1 (first page of every job)",
        bench.api("/api/v1/jobs?all=1", repeats));
    row("GET /api/v1/jobs?all=1&after=JOB (the last page)",
        bench.api("/api/v1/jobs?all=1&after=" + bench.job_at(-100), repeats));
    row("GET /api/v1/jobs?all=1&limit=1000 (the largest page)",
        bench.api("/api/v1/jobs?all=1&limit=1000", repeats));
    row("GET /api/v1/jobs/JOB/events (one job's timeline)",
        bench.api("/api/v1/jobs/" + bench.first_job() + "/events", repeats));
    row("GET /api/v1/jobs/JOB (one job)", bench.api("/api/v1/jobs/" + bench.first_job(), repeats));
    row("quiet cycle, dashboard serving, nobody looking", bench.cycle(false, repeats));
    {
        // Worse than any page (which asks every 5 s): a client asking for the list and a
        // timeline without a pause, all through the cycles.
        std::atomic<bool> looking{true};
        std::thread page([&] {
            while (looking) {
                (void)bench.api("/api/v1/jobs", 1);
                (void)bench.api("/api/v1/jobs/" + bench.first_job() + "/events", 1);
            }
        });
        std::this_thread::sleep_for(200ms);
        row("quiet cycle, a client asking the API without pause", bench.cycle(false, repeats));
        looking = false;
        page.join();
    }
    state::PrunedHistory pruned;
    row("retention pass (once)", bench.retention(pruned));
    state::PrunedHistory again;
    row("retention pass again, nothing left to delete (the hourly steady state)",
        bench.retention(again));
    std::printf(
        "\nretention deleted %lld events and %lld notifications of the jobs that are "
        "over\n",
        static_cast<long long>(pruned.events), static_cast<long long>(pruned.notifications));
    return 0;
}
