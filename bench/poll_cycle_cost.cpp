// bench_poll_cycle_cost: the CPU one poll cycle costs the supervisor itself, at 1,000 to 10,000
// watched jobs, and registering them all in one call.
//
//   bench_poll_cycle_cost [--jobs 1000,2000,5000,10000] [--cycles 30] [--table-extra 2000]
//
// For each size N: a fresh SQLite store in a temp directory, N jobs of this user in the
// in-memory fake Slurm client (tests/fakes) beside --table-extra jobs of another user, all N
// registered with one register_jobs() call (timed), one cycle to validate them; then, in each
// scenario, --cycles cycles timed with the process CPU clock (median and 90th percentile):
//
//   held, quiet     every job pending (held), slurmctld would answer "no change"
//   held, changed   the same, but one unrelated job is submitted before each cycle
//   running, quiet  every job running, each with a stall timeout and a log that grows
//   running, changed  the same with one unrelated job submitted before each cycle
//
// The fake answers from memory, so the figures are the cycle's own work (the store, the walk
// over registrations, the trackers) plus the fake's answer (timed alone in the last column),
// not libslurm's unpacking;
// bench/recovery/footprint.sh measures the daemon against a real slurmctld. The fake clock
// moves one poll interval (1 s) per cycle. Prints one Markdown table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "bench/clocks.h"
#include "recovery/catalogue.h"
#include "state/store.h"
#include "supervisor/config/config.h"
#include "supervisor/cycle/poll_cycle.h"
#include "supervisor/registrations/registrar.h"
#include "tests/fakes/fake_slurm_client.h"

namespace {

namespace fs = std::filesystem;

using bench::cpu_ms;
using bench::wall_ms;

struct Spread {
    double median = 0;
    double p90 = 0;
};

Spread spread(std::vector<double> samples) {
    std::ranges::sort(samples);
    if (samples.empty()) {
        return {};
    }
    return {samples[samples.size() / 2], samples[(samples.size() * 9) / 10]};
}

std::vector<int> parse_sizes(const std::string& text) {
    std::vector<int> sizes;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        sizes.push_back(std::stoi(text.substr(start, comma - start)));
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    return sizes;
}

struct SizeResult {
    int jobs = 0;
    double register_ms = 0;
    Spread held_quiet, held_changed, running_quiet, running_changed, fake;
};

class Bench {
  public:
    Bench(int jobs, int table_extra, const recovery::Catalogue& catalogue)
        : m_jobs(jobs), m_table_extra(table_extra), m_catalogue(catalogue) {
        char pattern[] = "/tmp/bench-poll-cycle.XXXXXX";
        m_dir = ::mkdtemp(pattern);
        fs::create_directories(m_dir / "logs");
        fs::create_directories(m_dir / "ckpt");
        m_config.state_dir = m_dir / "state";
        m_config.poll_interval = std::chrono::milliseconds(1000);
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        if (!store) {
            throw std::runtime_error(store.error().message);
        }
        m_store = std::move(*store);
        m_cycle.emplace(*m_store, m_slurm, m_clock, m_catalogue, m_config);
    }
    ~Bench() {
        std::error_code ignored;
        fs::remove_all(m_dir, ignored);
    }

    double submit_and_register() {
        m_slurm.set_caller_uid(::getuid() + 1);
        for (int i = 0; i < m_table_extra; ++i) {
            m_slurm.submit("other");
        }
        m_slurm.set_caller_uid(::getuid());
        for (int i = 0; i < m_jobs; ++i) {
            const auto id = m_slurm.submit("train");
            auto job = m_slurm.job(id);
            job.std_out = job.std_err = log_of(id).string();
            job.work_dir = m_dir.string();
            m_slurm.put(job);
            std::ofstream(log_of(id)) << "step 1 loss 2.0\n";
            m_ids.push_back(id);
        }
        supervisor::RegisterRequest request;
        request.checkpoint_dir = (m_dir / "ckpt").string();
        request.allowed_actions = {"requeue"};
        request.caller = ::getuid();
        request.stall_timeout_s = 1800;
        const double start = wall_ms();
        const auto results =
            supervisor::register_jobs(*m_store, m_slurm, m_clock, m_config, request, m_ids);
        const double took = wall_ms() - start;
        for (const auto& result : results) {
            if (!result.result) {
                throw std::runtime_error(result.job.to_string() + ": " +
                                         result.result.error().message);
            }
        }
        (void)cycle();
        return took;
    }

    // What the fake alone costs to answer a changed query about every watched job (a copy of
    // each snapshot and its own bookkeeping), part of each changed cycle's figure.
    Spread fake_answer(int samples_wanted) {
        std::vector<double> samples;
        for (int i = 0; i < samples_wanted; ++i) {
            m_slurm.set_caller_uid(::getuid() + 1);
            m_slurm.submit("churn");
            m_slurm.set_caller_uid(::getuid());
            const double start = cpu_ms();
            const auto answer = m_slurm.load_jobs(m_ids);
            samples.push_back(cpu_ms() - start);
            if (!answer) {
                throw std::runtime_error(answer.error().message);
            }
        }
        return spread(samples);
    }

    void start_all() {
        for (const auto& id : m_ids) {
            m_slurm.start(id, "node1");
        }
        (void)cycle();
        (void)cycle();
    }

    // `cycles` cycles, each after `before` (nothing, or one unrelated job submitted).
    Spread measure(int cycles, bool change, bool logs_grow) {
        std::vector<double> samples;
        for (int i = 0; i < cycles; ++i) {
            if (change) {
                m_slurm.set_caller_uid(::getuid() + 1);
                m_slurm.submit("churn");
                m_slurm.set_caller_uid(::getuid());
            }
            if (logs_grow) {
                // One job in a hundred printed a line since the last cycle.
                for (std::size_t j = static_cast<std::size_t>(i) % 100; j < m_ids.size();
                     j += 100) {
                    std::ofstream(log_of(m_ids[j]), std::ios::app) << "step 2 loss 1.9\n";
                }
            }
            samples.push_back(cycle());
        }
        return spread(samples);
    }

  private:
    fs::path log_of(const common::JobId& id) const {
        return m_dir / "logs" / ("slurm-" + id.to_string() + ".out");
    }

    double cycle() {
        m_clock.advance(std::chrono::seconds(1));
        const double start = cpu_ms();
        const auto report = m_cycle->run();
        const double took = cpu_ms() - start;
        if (!report.internal_errors.empty()) {
            throw std::runtime_error(report.internal_errors.front());
        }
        return took;
    }

    int m_jobs;
    int m_table_extra;
    const recovery::Catalogue& m_catalogue;
    fs::path m_dir;
    supervisor::Config m_config;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    std::unique_ptr<state::Store> m_store;
    std::optional<supervisor::PollCycle> m_cycle;
    std::vector<common::JobId> m_ids;
};

}  // namespace

int main(int argc, char** argv) {
    std::string sizes_text = "1000,2000,5000,10000";
    int cycles = 30;
    int table_extra = 2000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--jobs") {
            sizes_text = argv[i + 1];
        } else if (option == "--cycles") {
            cycles = std::stoi(argv[i + 1]);
        } else if (option == "--table-extra") {
            table_extra = std::stoi(argv[i + 1]);
        } else {
            std::fprintf(stderr, "usage: %s [--jobs N,N,...] [--cycles N] [--table-extra N]\n",
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
    std::vector<SizeResult> results;
    for (const int jobs : parse_sizes(sizes_text)) {
        std::fprintf(stderr, "%d jobs\n", jobs);
        Bench bench(jobs, table_extra, *catalogue);
        SizeResult result;
        result.jobs = jobs;
        result.register_ms = bench.submit_and_register();
        result.held_quiet = bench.measure(cycles, false, false);
        result.held_changed = bench.measure(cycles, true, false);
        bench.start_all();
        result.running_quiet = bench.measure(cycles, false, true);
        result.running_changed = bench.measure(cycles, true, true);
        result.fake = bench.fake_answer(cycles);
        results.push_back(result);
    }
    std::printf(
        "| watched jobs | register all, one call (ms) | held, quiet: CPU ms median / p90 | held, "
        "changed | running, quiet | running, changed | of a changed cycle: the fake's answer "
        "|\n|---:|---:|---|---|---|---|---|\n");
    for (const auto& r : results) {
        std::printf(
            "| %d | %.0f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f |\n",
            r.jobs, r.register_ms, r.held_quiet.median, r.held_quiet.p90, r.held_changed.median,
            r.held_changed.p90, r.running_quiet.median, r.running_quiet.p90,
            r.running_changed.median, r.running_changed.p90, r.fake.median, r.fake.p90);
    }
    return 0;
}
