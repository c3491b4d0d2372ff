// The fixture of the poll-cycle tests: PollCycle + ActionExecutor over the fake Slurm client, a
// real SQLite file in a temp dir, the shipped rules catalogue and a fake clock; with helpers to
// submit, run and fail jobs the way Slurm would.
#pragma once

#include "supervisor/cycle/poll_cycle.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/time_text.h"
#include "node_evidence/epilog_spool.h"
#include "supervisor/actions/resume_env.h"
#include "supervisor/registrations/registrar.h"
#include "tests/fakes/fake_slurm_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"
#include "tests/unit/recovery/checkpoint_files.h"
#include "tests/unit/supervisor/printers.h"

namespace supervisor::test {

namespace fs = std::filesystem;
using slurm::JobState;
using state::ActionStatus;
using state::Outcome;
using state::Status;
using test_support::read_text;

constexpr const char* k_nccl_log =
    "step 120 loss 2.31\n"
    "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
    "600060 milliseconds before timing out.\n";

// A transient storage fault at the same step as k_nccl_log: requeued until the loop guard's full
// same_failure_limit, unlike a failure a code bug can look like.
constexpr const char* k_stale_handle_log =
    "step 120 loss 2.31\n"
    "OSError: [Errno 116] Stale file handle\n";

constexpr const char* k_key_error_log =
    "step 3 loss 2.9\n"
    "Traceback (most recent call last):\n"
    "  File \"train.py\", line 10, in <module>\n"
    "    x = batch['labels']\n"
    "KeyError: 'labels'\n";

inline const recovery::Catalogue& default_catalogue() {
    static const recovery::Catalogue catalogue = [] {
        const std::vector<fs::path> files{SUPERVISOR_DEFAULT_RULES};
        auto loaded = recovery::Catalogue::load(files);
        if (!loaded) {
            ADD_FAILURE() << loaded.error().message;
            return recovery::Catalogue{};
        }
        return std::move(*loaded);
    }();
    return catalogue;
}

inline long count_of(const std::vector<std::string>& calls, const std::string& prefix) {
    return std::ranges::count_if(calls,
                                 [&](const std::string& call) { return call.starts_with(prefix); });
}

class PollCycleTest : public ::testing::Test {
  protected:
    void SetUp() override {
        m_config.state_dir = m_dir.path() / "state";
        auto store = state::Store::open(m_config.state_dir / state::k_database_file_name);
        ASSERT_TRUE(store) << store.error().message;
        m_store = std::move(*store);
        fs::create_directories(logs());
        fs::create_directories(checkpoints());
        m_cycle = std::make_unique<supervisor::PollCycle>(*m_store, m_slurm, m_clock,
                                                          default_catalogue(), m_config);
    }

    fs::path logs() const { return m_dir.path() / "logs"; }
    fs::path checkpoints() const { return m_dir.path() / "ckpt"; }
    fs::path log_of(const common::JobId& id) const {
        return logs() / ("slurm-" + id.to_string() + ".out");
    }

    // A pending batch job whose output goes under the temp dir.
    common::JobId submit(bool requeueable = true) {
        const auto id = m_slurm.submit("train", requeueable);
        auto job = m_slurm.job(id);
        job.std_out = job.std_err = log_of(id).string();
        job.work_dir = m_dir.path().string();
        m_slurm.put(job);
        return id;
    }

    void write_log(const common::JobId& id, const std::string& text) {
        std::ofstream(log_of(id), std::ios::app) << text;
    }
    // A structurally valid torch.save-like zip, written a minute before the fake clock's now
    // (the scanner takes a file newer than the failed run's end for one still being written).
    void checkpoint(const std::string& name) {
        const auto path = checkpoints() / name;
        std::ofstream(path, std::ios::binary) << recovery::checkpoints::test::torch_like_zip();
        fs::last_write_time(
            path, std::chrono::file_clock::from_sys(m_clock.now() - std::chrono::minutes(1)));
    }

    supervisor::RegisterRequest request(const common::JobId& id, std::uint32_t max_attempts = 3) {
        supervisor::RegisterRequest r;
        r.job = id;
        r.checkpoint_dir = checkpoints().string();
        r.allowed_actions = {"requeue"};
        r.max_attempts = max_attempts;
        r.caller = ::getuid();  // the owner registers (the fake's jobs are this process's)
        return r;
    }

    state::Registration register_job(const supervisor::RegisterRequest& r) {
        auto registration = supervisor::register_job(*m_store, m_slurm, m_clock, m_config, r);
        EXPECT_TRUE(registration) << registration.error().message;
        EXPECT_EQ(registration->status, Status::enabled) << registration->status_reason;
        return *registration;
    }

    // A registered job (checkpoint at step 20, `allowed` whitelisted) seen running on `node`.
    common::JobId running_job_on(const std::string& node, std::vector<std::string> allowed) {
        checkpoint("step_000020.pt");
        const auto id = submit();
        auto r = request(id);
        r.allowed_actions = std::move(allowed);
        register_job(r);
        run_on(id, node);
        return id;
    }

    supervisor::CycleReport cycle() {
        m_clock.advance(std::chrono::seconds(10));
        return m_cycle->run();
    }

    state::Registration registration(const common::JobId& id) const {
        auto r = m_store->registration(id);
        EXPECT_TRUE(r.has_value());
        return r.value_or(state::Registration{});
    }

    std::vector<std::string> event_kinds(const common::JobId& id) const {
        std::vector<std::string> kinds;
        for (const auto& event : m_store->events(id)) {
            kinds.push_back(event.kind);
        }
        return kinds;
    }

    std::vector<state::Event> events_of_kind(const common::JobId& id,
                                             const std::string& kind) const {
        std::vector<state::Event> found;
        for (const auto& event : m_store->events(id)) {
            if (event.kind == kind) {
                found.push_back(event);
            }
        }
        return found;
    }

    // Running on `node` and seen running by one cycle.
    void run_on(const common::JobId& id, const std::string& node) {
        m_slurm.start(id, node);
        cycle();
    }

    // The job's current run ends in a failure with this log.
    void fail(const common::JobId& id, const std::string& log, int exit_code = 1) {
        write_log(id, log);
        m_slurm.finish(id, JobState::failed, exit_code);
    }

    // A job Slurm will not requeue (sbatch --no-requeue), its script stored and resubmit
    // allowed, that ran on n1 and has just failed of an NCCL timeout after a checkpoint: the
    // next cycle resubmits it.
    common::JobId failed_job_to_resubmit() {
        checkpoint("step_000020.pt");
        const auto id = submit(false);
        m_slurm.set_script(id, "#!/bin/bash\necho train\n");
        auto r = request(id);
        r.allowed_actions = {"requeue", "resubmit"};
        r.environment = {"HOME=/home/owner"};
        register_job(r);
        run_on(id, "n1");
        fail(id, k_nccl_log);
        return id;
    }

    // The state a requeue of ours leaves (Slurm's view), without a call through the client.
    void requeued_behind_our_back(const common::JobId& id) {
        auto job = m_slurm.job(id);
        job.state = JobState::pending;
        job.restart_count += 1;
        job.exit_code.reset();
        job.signal.reset();
        job.start_time.reset();
        job.end_time.reset();
        m_slurm.put(job);
    }

    // The nodes' own evidence as a site has it: a real EpilogSpool over <temp>/spool (root's
    // view: the spool is this process's), given to the cycle.
    void use_epilog_spool() {
        fs::create_directory(spool());
        fs::permissions(spool(), fs::perms(0755));
        node_evidence::EpilogSpoolOptions options;
        options.directory = spool();
        options.self = ::geteuid();
        m_spool = std::make_unique<node_evidence::EpilogSpool>(options);
        m_cycle->set_node_evidence(m_spool.get());
    }
    fs::path spool() const { return m_dir.path() / "spool"; }
    // What the node epilog writes on `node` for the job's run: one kernel line, `ago` before now.
    void epilog_writes(const common::JobId& id, const std::string& node, const std::string& line,
                       std::chrono::seconds ago) {
        const auto path = spool() / (std::to_string(m_slurm.job(id).raw_job_id) + "." + node);
        std::ofstream(path) << "# slurm-supervisor epilog 1: job " << id.to_string() << " node "
                            << node << "\n"
                            << common::format_time(m_clock.now() - ago) << " " << node
                            << " kernel: " << line << "\n";
        fs::permissions(path, fs::perms(0644));
    }

    test_support::TempDir m_dir;
    common::FakeClock m_clock;
    fakes::FakeSlurmClient m_slurm{m_clock};
    supervisor::Config m_config;
    std::unique_ptr<state::Store> m_store;
    std::unique_ptr<supervisor::PollCycle> m_cycle;
    std::unique_ptr<node_evidence::EpilogSpool> m_spool;  // use_epilog_spool()
};

}  // namespace supervisor::test
