// `supervisor sbatch` on the dev cluster with the example job (contrib/examples/train.sbatch,
// copied with #SUPERVISOR lines and without its own --requeue/--open-mode lines): submitted
// requeueable in append mode, registered with the directives' options, stdout exactly what
// sbatch prints (with and without --parsable), sbatch's errors and exit status passed through
// with nothing registered, a bad directive stopping everything before sbatch runs. Then stall
// detection end to end: the example job hangs (FAIL_MODE=hang) and is requeued from its last
// checkpoint after a 20 s stall timeout, and completes.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/integration/supervisor_harness.h"

namespace {

using namespace test_support;
namespace fs = std::filesystem;

class SbatchTest : public ::testing::Test {
  protected:
    void SetUp() override {
        REQUIRE_DEV_CLUSTER();
        m_harness.emplace(::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
    void TearDown() override {
        if (m_harness) {
            m_harness->stop_daemon();
        }
        cancel_quietly(m_jobs);
    }

    fs::path dir() const { return m_harness->dir(); }
    std::string state_dir() const { return (dir() / "state").string(); }

    // train.sbatch with `directives` after its #SBATCH lines and without its own --requeue and
    // --open-mode lines (the wrapper is to add them).
    fs::path script(const std::string& directives, const std::string& name = "train.sbatch") {
        std::istringstream in(read_text(source_dir() + "/contrib/examples/train.sbatch"));
        std::string text, line;
        bool inserted = false;
        while (std::getline(in, line)) {
            if (line == "#SBATCH --requeue" || line == "#SBATCH --open-mode=append") {
                continue;
            }
            if (!inserted && !line.starts_with("#")) {
                text += directives;
                inserted = true;
            }
            text += line + "\n";
        }
        const auto path = dir() / name;
        std::ofstream(path) << text;
        return path;
    }

    // The environment the job is to get: sbatch exports the wrapper's (--export=ALL).
    std::string job_env(const std::string& extra = {}) const {
        return "SUPERVISOR_BIN=" + supervisor_binary() + " TRAIN_PY=" + source_dir() +
               "/contrib/examples/train.py SUPERVISOR_STATE_DIR=" + state_dir() + " " + extra;
    }

    struct Run {
        int exit_status = -1;
        std::string out;
        std::string err;
    };

    // `command` in /bin/sh with stdout and stderr kept apart.
    Run run(const std::string& command) {
        const auto err = dir() / "stderr.txt";
        const auto result = run_command("( ( " + command + " ) 2>" + err.string() + " )");
        return {result.exit_status, result.output, read_text(err)};
    }

    Run supervisor_sbatch(const std::string& args, const std::string& env = {}) {
        return run(job_env(env) + " " + supervisor_binary() + " sbatch " + args);
    }

    std::string sbatch_options() const {
        return "--chdir " + dir().string() + " -o " + (dir() / "job.out").string();
    }

    common::JobId adopt(const std::string& id_text) {
        auto id = common::JobId::parse(id_text);
        if (!id) {
            throw std::runtime_error("not a job id: '" + id_text + "'");
        }
        m_jobs.push_back(*id);
        return *id;
    }

    nlohmann::json json_of(const std::string& args) const {
        const auto result = run_command("SUPERVISOR_STATE_DIR=" + state_dir() + " " +
                                        supervisor_binary() + " " + args + " 2>/dev/null");
        return nlohmann::json::parse(result.output, nullptr, false);
    }
    nlohmann::json status(const common::JobId& job) const {
        const auto all = json_of("status " + job.to_string() + " --json");
        return all.is_array() && !all.empty() ? all[0] : nlohmann::json();
    }
    nlohmann::json slurm_job(const common::JobId& job) const {
        const auto parsed = json_of("inspect job " + job.to_string() + " --json");
        return parsed.is_object() && !parsed["jobs"].empty() ? parsed["jobs"][0] : nlohmann::json();
    }

    std::optional<SupervisorHarness> m_harness;
    std::vector<common::JobId> m_jobs;
};

const std::regex k_submitted(R"(^Submitted batch job ([0-9]+)\n$)");

TEST_F(SbatchTest, SubmitsRequeueableInAppendModeAndRegistersTheDirectives) {
    const auto ckpt = m_harness->checkpoints().string();
    const auto path =
        script("#SUPERVISOR --checkpoint-dir " + ckpt +
               "\n"
               "#SUPERVISOR --allow requeue,reduce_batch_size --max-attempts 4\n"
               "#SUPERVISOR --knob batch_size=64:env=BATCH_SIZE:min=8:"
               "compensate=GRAD_ACCUM\n"
               "#SUPERVISOR --stall-timeout 45m --progress-pattern '^step [0-9]+/'\n");
    // What plain sbatch prints, for the comparison.
    const auto plain = run("sbatch -o /dev/null --wrap true");
    std::smatch plain_match;
    ASSERT_TRUE(std::regex_match(plain.out, plain_match, k_submitted)) << plain.out << plain.err;
    adopt(plain_match[1]);

    const auto submitted = supervisor_sbatch(sbatch_options() + " -H " + path.string() +
                                             " --checkpoint-dir " + ckpt + " --steps 5");
    ASSERT_EQ(submitted.exit_status, 0) << submitted.out << submitted.err;
    std::smatch match;
    ASSERT_TRUE(std::regex_match(submitted.out, match, k_submitted)) << submitted.out;
    const auto job = adopt(match[1]);
    EXPECT_NE(submitted.err.find("supervisor: watching job " + job.to_string()), std::string::npos)
        << submitted.err;

    const auto slurm = slurm_job(job);
    ASSERT_TRUE(slurm.is_object());
    EXPECT_TRUE(slurm["requeueable"].get<bool>()) << slurm.dump(2);
    const auto shown = run_command("scontrol show job " + job.to_string());
    EXPECT_NE(shown.output.find("Requeue=1"), std::string::npos) << shown.output;
    // Append mode is not shown by `scontrol show job` (22.05); the hang test below proves it
    // from the log, which keeps the first attempt's lines after the requeue.

    const auto registered = status(job);
    ASSERT_TRUE(registered.is_object());
    EXPECT_EQ(registered["status"], "enabled") << registered.dump(2);
    EXPECT_EQ(registered["allowed_actions"],
              nlohmann::json::array({"requeue", "reduce_batch_size"}));
    EXPECT_EQ(registered["max_attempts"], 4);
    EXPECT_EQ(registered["checkpoint_dir"], ckpt);
    EXPECT_EQ(registered["stall_timeout_s"], 45 * 60);
    EXPECT_EQ(registered["progress_pattern"], "^step [0-9]+/");
    EXPECT_NE(registered["knobs"].dump().find("BATCH_SIZE"), std::string::npos)
        << registered["knobs"].dump();
    const auto env = run_command("SUPERVISOR_STATE_DIR=" + state_dir() + " " + supervisor_binary() +
                                 " env --job " + job.to_string());
    EXPECT_NE(env.output.find("BATCH_SIZE='64'"), std::string::npos) << env.output;
}

TEST_F(SbatchTest, AStallTimeoutOnOutputToDevNullIsWarnedAbout) {
    const auto held = run("sbatch -H -o /dev/null --wrap true");
    std::smatch match;
    ASSERT_TRUE(std::regex_match(held.out, match, k_submitted)) << held.out << held.err;
    const auto job = adopt(match[1]);
    const auto registered =
        run_command("SUPERVISOR_STATE_DIR=" + state_dir() + " " + supervisor_binary() +
                    " register " + job.to_string() + " --stall-timeout 30m 2>&1");
    EXPECT_NE(registered.output.find("registered job " + job.to_string()), std::string::npos)
        << registered.output;
    EXPECT_NE(registered.output.find("warning: the job's output /dev/null is a character "
                                     "device: stall detection"),
              std::string::npos)
        << registered.output;
}

TEST_F(SbatchTest, ParsableIsHonouredAndTheScriptsOwnChoicesAreKept) {
    const auto plain = run("sbatch --parsable -o /dev/null --wrap true");
    ASSERT_TRUE(std::regex_match(plain.out, std::regex(R"(^[0-9]+(;[^\n]+)?\n$)"))) << plain.out;
    adopt(plain.out.substr(0, plain.out.find_first_of(";\n")));

    // --no-requeue in the script itself: respected, and the wrapper says what follows.
    const auto path = script("#SBATCH --no-requeue\n#SUPERVISOR --allow requeue,resubmit\n");
    const auto submitted = supervisor_sbatch("--parsable " + sbatch_options() + " -H " +
                                             path.string() + " --steps 5 --run-name 'two words'");
    ASSERT_EQ(submitted.exit_status, 0) << submitted.out << submitted.err;
    ASSERT_TRUE(std::regex_match(submitted.out, std::regex(R"(^[0-9]+\n$)"))) << submitted.out;
    const auto job = adopt(submitted.out.substr(0, submitted.out.find('\n')));
    EXPECT_FALSE(slurm_job(job)["requeueable"].get<bool>());
    EXPECT_NE(submitted.err.find("resubmitting"), std::string::npos) << submitted.err;
    EXPECT_EQ(status(job)["status"], "enabled") << status(job).dump(2);
    // Stored for resubmit: the script's arguments exactly as given, which Slurm's own
    // Command= cannot tell apart ("two words" would come back as two).
    const auto stored = run_command("sqlite3 " + state_dir() +
                                    "/supervisor.db \"SELECT request_json FROM job_specs WHERE "
                                    "job = '" +
                                    job.to_string() + "'\"");
    const auto request = nlohmann::json::parse(stored.output, nullptr, false);
    ASSERT_TRUE(request.is_object()) << stored.output;
    EXPECT_EQ(request["argv"],
              nlohmann::json::array({path.string(), "--steps", "5", "--run-name", "two words"}));
}

TEST_F(SbatchTest, SbatchErrorsReachTheUserUnchangedAndNothingIsRegistered) {
    const auto path = script("#SUPERVISOR --allow requeue\n");
    const auto plain = run("sbatch -p no_such_partition " + sbatch_options() + " " + path.string());
    ASSERT_NE(plain.exit_status, 0) << plain.out;
    const auto wrapped =
        supervisor_sbatch("-p no_such_partition " + sbatch_options() + " " + path.string());
    EXPECT_EQ(wrapped.exit_status, plain.exit_status);
    EXPECT_EQ(wrapped.err, plain.err);
    EXPECT_EQ(wrapped.out, plain.out);
    const auto all = json_of("status --all --json");
    EXPECT_TRUE(all.is_array() && all.empty()) << all.dump(2);
}

TEST_F(SbatchTest, ABadDirectiveStopsEverythingBeforeSbatchRuns) {
    const auto path = script("#SUPERVISOR --allow requeue\n#SUPERVISOR --alow requeue\n");
    const auto called = dir() / "sbatch-was-called";
    const auto fake = dir() / "fake-sbatch";
    std::ofstream(fake) << "#!/bin/sh\ntouch " << called.string() << "\necho 1\n";
    fs::permissions(fake, fs::perms::owner_all);
    const auto wrapped = supervisor_sbatch("--sbatch " + fake.string() + " " + path.string());
    EXPECT_EQ(wrapped.exit_status, 1);
    EXPECT_TRUE(wrapped.out.empty()) << wrapped.out;
    // train.sbatch's comment block has 10 lines before the inserted directives.
    EXPECT_NE(wrapped.err.find(path.string() + ":"), std::string::npos) << wrapped.err;
    EXPECT_NE(wrapped.err.find("--alow"), std::string::npos) << wrapped.err;
    EXPECT_NE(wrapped.err.find("Nothing was submitted"), std::string::npos) << wrapped.err;
    EXPECT_FALSE(fs::exists(called));
}

// The example job hangs at step 25 of its first attempt; 20 s without a new step line and the
// daemon requeues it (Slurm kills the running job), it resumes from step 20 and completes.
TEST_F(SbatchTest, AHungJobIsRequeuedFromItsLastCheckpointAndCompletes) {
    const auto started = std::chrono::steady_clock::now();
    const auto ckpt = m_harness->checkpoints().string();
    const auto path =
        script("#SUPERVISOR --checkpoint-dir " + ckpt +
               " --allow requeue\n"
               "#SUPERVISOR --stall-timeout 20s --progress-pattern '^step [0-9]+/'\n");
    m_harness->start_daemon();
    const auto submitted =
        supervisor_sbatch(sbatch_options() + " " + path.string() + " --checkpoint-dir " + ckpt,
                          "FAIL_AT_STEP=25 FAIL_MODE=hang");
    ASSERT_EQ(submitted.exit_status, 0) << submitted.out << submitted.err;
    std::smatch match;
    ASSERT_TRUE(std::regex_match(submitted.out, match, k_submitted)) << submitted.out;
    const auto job = adopt(match[1]);

    nlohmann::json last;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
    while (std::chrono::steady_clock::now() < deadline) {
        last = status(job);
        if (last.is_object() && last["status"] == "completed") {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    const auto log = read_text(dir() / "job.out");
    ASSERT_TRUE(last.is_object());
    EXPECT_EQ(last["outcome"], "succeeded") << last.dump(2) << log << m_harness->daemon_log();
    EXPECT_EQ(last["last_cause"], "hang") << last.dump(2);
    EXPECT_EQ(last["attempt"], 2);
    EXPECT_EQ(last["last_checkpoint"], ckpt + "/step_000020.pt");
    EXPECT_NE(log.find("resumed from " + ckpt + "/step_000020.pt at step 20"), std::string::npos)
        << log;
    EXPECT_NE(log.find("training finished at step 60"), std::string::npos) << log;
    EXPECT_NE(log.find("step 24/60"), std::string::npos) << "appended, not truncated: " << log;
    const auto events = json_of("events " + job.to_string() + " --json");
    EXPECT_TRUE(has_events(events, "observed", "hung: still RUNNING", 1));
    EXPECT_TRUE(has_events(events, "action", "requeue done", 1));
    std::cout << "[ timing ] hang -> requeue -> completed in "
              << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                                  started)
                     .count()
              << " s\n";
}

}  // namespace
