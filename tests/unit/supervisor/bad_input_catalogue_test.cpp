// The bad-input catalogue of the daemon's side: what a job's owner controls and the poll cycle
// meets while watching (log text, checkpoint files and their names, the job name), each odd or
// hostile. For every case the cycle returns, nothing is contained as an internal error, the
// job gets a decision (recovering, or completed with the reason), everything recorded is valid
// JSON, and the database passes SQLite's integrity check. The command line's catalogue is in
// tests/cli/bad_input_catalogue_test.cpp.
#include <sys/stat.h>

#include <functional>

#include "tests/unit/supervisor/poll_cycle_fixture.h"

namespace {

using namespace supervisor::test;
using state::Status;

struct DaemonCase {
    const char* name;
    // What the failed job printed. Made when the case runs: a case's value is built and copied
    // in every process of this executable (ctest runs each test in its own), and the 10 MB line
    // built at start cost every test of the suite a quarter of a second.
    std::string (*log)();
    // Checkpoint files and the job name (the fixture writes a valid step_000020.pt first).
    std::function<void(const fs::path& checkpoints, slurm::JobSnapshot& job)> setup;
};

const std::string k_xid =
    "step 30/100 loss 1.2\n"
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus.\n";

void bytes(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

const std::vector<DaemonCase> k_daemon_cases{
    {"log_nul_bytes", [] { return std::string("a\0b\0", 4) + k_nccl_log; }, {}},
    {"log_not_utf8", [] { return "\xff\xfe\xc3(\xed\xa0\x80\n" + std::string(k_nccl_log); }, {}},
    {"log_terminal_escapes",
     [] { return "\x1b[2J\x1b]0;owned\x07" + std::string(k_nccl_log); },
     {}},
    {"log_ten_megabyte_line", [] { return std::string(10 << 20, 'y') + "\n" + k_nccl_log; }, {}},
    {"log_only_carriage_returns", [] { return std::string(1 << 20, '\r'); }, {}},
    {"log_empty", [] { return std::string(); }, {}},
    {"log_xid_naming_a_thousand_hosts",
     [] {
         std::string log;
         for (int i = 0; i < 1000; ++i) {
             log += "host" + std::to_string(i) + " kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n";
         }
         return log;
     },
     {}},
    {"log_rule_text_in_a_name",
     [] { return "Next step: curl x | sh\nAction: drain_node n1\n" + k_xid; },
     {}},
    {"checkpoint_name_with_newlines", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         bytes(c / "step_000030\nAction: drain_node n1,n2.pt",
               recovery::checkpoints::test::torch_like_zip());
     }},
    {"checkpoint_name_not_utf8", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         bytes(c / "step_000030\xff\xfe.pt", recovery::checkpoints::test::torch_like_zip());
     }},
    {"checkpoint_name_255_bytes", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         bytes(c / ("step_000030" + std::string(241, 'a') + ".pt"),
               recovery::checkpoints::test::torch_like_zip());
     }},
    {"checkpoint_fifo", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) { ::mkfifo((c / "step_000030.pt").c_str(), 0600); }},
    {"checkpoint_symlink_loop", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) { fs::create_symlink("last.ckpt", c / "last.ckpt"); }},
    {"checkpoint_dangling_symlink", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         fs::create_symlink("/nonexistent/x.pt", c / "step_000030.pt");
     }},
    {"checkpoint_directory_named_like_a_file", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) { fs::create_directory(c / "step_000030.pt"); }},
    {"checkpoint_empty_file", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) { bytes(c / "step_000030.pt", ""); }},
    {"checkpoint_sparse_zip_claiming_a_huge_directory", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         std::ofstream out(c / "step_000030.pt", std::ios::binary);
         out.seekp(std::streamoff{1} << 30);
         out << std::string("PK\x05\x06\0\0\0\0\xe8\x03\xe8\x03\0\0\0\x40\0\0\0\0\0\0", 22);
     }},
    {"checkpoint_safetensors_shape_overflow", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         const std::string json = R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296],)"
                                  R"( "data_offsets": [0, 0]}})";
         std::string prefix;
         recovery::checkpoints::test::put(prefix, json.size(), 8);
         bytes(c / "step_000030.safetensors", prefix + json);
     }},
    {"checkpoint_deepspeed_tag_dot_dot", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         fs::create_directories(c / "checkpoint-30");
         bytes(c / "checkpoint-30" / "trainer_state.json", "{}");
         bytes(c / "checkpoint-30" / "latest", "..");
     }},
    {"checkpoint_tracker_is_a_fifo", [] { return std::string(k_nccl_log); },
     [](const fs::path& c, auto&) {
         fs::create_directories(c / "global_step30");
         ::mkfifo((c / "latest").c_str(), 0600);
     }},
    {"job_name_with_control_characters", [] { return std::string(k_xid); },
     [](const fs::path&, slurm::JobSnapshot& job) { job.name = "train\n\x1b[2J\xff"; }},
};

class DaemonBadInput : public PollCycleTest, public ::testing::WithParamInterface<DaemonCase> {};

TEST_P(DaemonBadInput, TheCycleDecidesAndTheStoreStaysSound) {
    const auto& c = GetParam();
    checkpoint("step_000020.pt");
    const auto id = submit();
    auto job = m_slurm.job(id);
    if (c.setup) {
        c.setup(checkpoints(), job);
    }
    m_slurm.put(job);
    auto r = request(id);
    r.allowed_actions = {"requeue", "exclude_node"};
    r.notify = {"mailto:owner@example.org"};
    register_job(r);
    run_on(id, "n1");
    fail(id, c.log());

    supervisor::CycleReport report;
    ASSERT_NO_THROW(report = cycle());
    EXPECT_TRUE(report.internal_errors.empty()) << report.internal_errors.front();
    const auto reg = registration(id);
    EXPECT_TRUE(reg.status == Status::recovering || reg.status == Status::completed)
        << state::to_string(reg.status) << ": " << reg.status_reason;
    EXPECT_LE(m_slurm.job(id).excluded_nodes.size(), std::string("n1").size())
        << "a log names nodes; only the job's own can be excluded";
    for (const auto& event : m_store->events(id)) {
        EXPECT_FALSE(nlohmann::json::parse(event.data_json, nullptr, false).is_discarded())
            << event.kind;
    }
    for (const auto& n : m_store->notifications(id)) {
        EXPECT_FALSE(nlohmann::json::parse(n.data_json, nullptr, false).is_discarded());
        EXPECT_EQ(n.body.find('\x1b'), std::string::npos);
    }
    EXPECT_EQ(m_store->integrity_check(), std::vector<std::string>{"ok"});
    ASSERT_NO_THROW(cycle());  // and the next cycle goes on
}

INSTANTIATE_TEST_SUITE_P(Catalogue, DaemonBadInput, ::testing::ValuesIn(k_daemon_cases),
                         [](const auto& instance) { return std::string(instance.param.name); });

}  // namespace
