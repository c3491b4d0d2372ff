// The bad-input catalogue of the command line: odd and hostile input at every entry point a
// person (or a job's owner, through a file) can reach without a cluster, each with the clear
// error or the safe verdict it must get. For every case: the exit status, words of the
// message, never an internal error or a crash, no hang (a FIFO, a device), and afterwards the
// state directory still opens and lists its jobs (`status --all --json`). The daemon's side
// (logs, checkpoint names, job names met while watching) is in
// tests/unit/supervisor/bad_input_catalogue_test.cpp.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_supervisor.h"

namespace cli::test {
namespace {

namespace fs = std::filesystem;

struct Case {
    const char* name;
    // Files the case needs, made in `dir`; returns the arguments after the global options.
    std::function<std::vector<std::string>(const fs::path& dir)> setup;
    int status;                           // expected exit status
    std::vector<std::string> words;       // each must appear in stdout + stderr
    bool state_is_the_bad_input = false;  // the case breaks the state directory on purpose
};

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

std::vector<std::string> args(std::initializer_list<std::string> list) {
    return list;
}

// A file in `dir` with `text`; its path.
std::string file(const fs::path& dir, const std::string& name, const std::string& text) {
    write_bytes(dir / name, text);
    return (dir / name).string();
}

std::string config(const fs::path& dir, const std::string& text) {
    return file(dir, "config.toml", text);
}

const std::string k_xid =
    "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus.\n";

const std::vector<Case> k_cases{
    // --- job ids, everywhere one is taken --------------------------------------------
    {"register_letters",
     [](auto&) {
         return args({"register", "12x"});
     },
     1,
     {"'12x' is not a Slurm job id"}},
    {"register_overflow",
     [](auto&) {
         return args({"register", "99999999999"});
     },
     1,
     {"is not a Slurm job id"}},
    {"register_negative",
     [](auto&) {
         return args({"register", "-5"});
     },
     1,
     {"'-5' is not a Slurm job id"}},
    {"status_array_without_task",
     [](auto&) {
         return args({"status", "1_"});
     },
     1,
     {"not a Slurm job id"}},
    {"events_empty_id",
     [](auto&) {
         return args({"events", ""});
     },
     1,
     {"not a Slurm job id"}},
    {"events_unregistered",
     [](auto&) {
         return args({"events", "42"});
     },
     1,
     {"job 42 is not registered"}},
    {"unregister_unregistered",
     [](auto&) {
         return args({"unregister", "42"});
     },
     1,
     {"job 42 is not registered"}},
    {"diagnose_unregistered",
     [](auto&) {
         return args({"diagnose", "42"});
     },
     1,
     {"not registered", "diagnose --log FILE"}},
    {"env_bad_id",
     [](auto&) {
         return args({"env", "--job", "4x2"});
     },
     1,
     {"not a Slurm job id"}},
    // No daemon set up and no database: the job would train from scratch, so it is an error
    // (issue 31) unless the owner said --optional.
    {"env_without_daemon_or_database_is_an_error",
     [](auto&) {
         return args({"env", "--job", "42"});
     },
     1,
     {"no resume settings for job 42", "no supervisor daemon is set up here",
      "supervisor env --optional"}},
    {"env_optional_without_daemon_is_a_comment",
     [](auto&) {
         return args({"env", "--job", "42", "--optional"});
     },
     0,
     {"# no resume settings for job 42", "going on without them"}},
    {"inspect_bad_id",
     [](auto&) {
         return args({"inspect", "job", "abc"});
     },
     1,
     {"not a Slurm job id"}},
    // --- register options, checked before anything is opened or asked ----------------
    {"register_unknown_action",
     [](auto&) {
         return args({"register", "1", "--allow", "rm_rf"});
     },
     1,
     {"'rm_rf' is not an action", "requeue"}},
    {"register_bad_knob",
     [](auto&) {
         return args({"register", "1", "--knob", "batch_size=abc"});
     },
     1,
     {"not a whole number"}},
    {"register_knob_overflow",
     [](auto&) {
         return args({"register", "1", "--knob", "batch_size=99999999999999999999:env=B"});
     },
     1,
     {"knob"}},
    {"register_bad_stall_timeout",
     [](auto&) {
         return args({"register", "1", "--stall-timeout", "5x"});
     },
     1,
     {"'5x' is not a duration"}},
    {"register_huge_stall_timeout",
     [](auto&) {
         return args({"register", "1", "--stall-timeout", "99999999h"});
     },
     1,
     {"--stall-timeout"}},
    {"register_bad_target",
     [](auto&) {
         return args({"register", "1", "--notify", "ftp://x"});
     },
     1,
     {"--notify", "unknown kind"}},
    {"register_bad_sms",
     [](auto&) {
         return args({"register", "1", "--notify", "sms:12"});
     },
     1,
     {"E.164"}},
    {"register_bad_regex",
     [](auto&) {
         return args({"register", "1", "--progress-pattern", "(["});
     },
     1,
     {"not a valid regular expression"}},
    {"register_bad_expect_rate",
     [](auto&) {
         return args({"register", "1", "--progress-pattern", "^step", "--expect-rate", "fast"});
     },
     1,
     {"--expect-rate 'fast' is not a rate", "100/min"}},
    {"register_zero_expect_rate",
     [](auto&) {
         return args({"register", "1", "--progress-pattern", "^step", "--expect-rate", "0"});
     },
     1,
     {"less than one step per hour"}},
    {"register_expect_rate_without_pattern",
     [](auto&) {
         return args({"register", "1", "--expect-rate", "6000"});
     },
     1,
     {"--expect-rate needs --progress-pattern"}},
    {"register_zero_attempts",
     [](auto&) {
         return args({"register", "1", "--max-attempts", "0"});
     },
     1,
     {"between 1 and 1000"}},
    {"register_pattern_with_slash",
     [](auto&) {
         return args({"register", "1", "--checkpoint-pattern", "a/b"});
     },
     1,
     {"contains a '/'"}},
    {"register_env_fix_reserved",
     [](auto&) {
         return args({"register", "1", "--allow", "set_env:LD_PRELOAD=/x.so"});
     },
     1,
     {"LD_PRELOAD"}},
    // --- diagnose --log: files a job's owner wrote ------------------------------------
    {"diagnose_missing_log",
     [](auto& d) {
         return args({"diagnose", "--log", (d / "no").string()});
     },
     1,
     {"No such file"}},
    {"diagnose_device",
     [](auto&) {
         return args({"diagnose", "--log", "/dev/zero"});
     },
     1,
     {"character device, not a regular file"}},
    {"diagnose_directory",
     [](auto& d) {
         return args({"diagnose", "--log", d.string()});
     },
     1,
     {"is a directory"}},
    {"diagnose_fifo",
     [](auto& d) {
         ::mkfifo((d / "pipe").c_str(), 0600);
         return args({"diagnose", "--log", (d / "pipe").string()});
     },
     0,
     {"Cause:"}},  // a FIFO is allowed here (diagnose < pipe), read without blocking
    {"diagnose_empty_log",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "e.log", "")});
     },
     0,
     {"Cause: unknown"}},
    {"diagnose_nul_and_binary",
     [](auto& d) {
         return args({"diagnose", "--json", "--log",
                      file(d, "b.log", std::string("a\0b\xff\xfe ", 6) + k_xid)});
     },
     0,
     {"\"cause\": \"gpu_xid\""}},
    {"diagnose_ten_megabyte_line",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "l.log", std::string(10 << 20, 'x'))});
     },
     0,
     {"Cause: unknown"}},
    {"diagnose_terminal_escapes",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "t.log", "\x1b[2J\x1b]0;x\x07" + k_xid)});
     },
     0,
     {"\\e[2J"}},
    {"diagnose_crlf_only",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "c.log", std::string(100000, '\r'))});
     },
     0,
     {"Cause: unknown"}},
    {"diagnose_sizes_wrap",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--head-bytes",
                      "18446744073709551615", "--tail-bytes", "1"});
     },
     1,
     {"at most 1073741824"}},
    {"diagnose_exit_code_range",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--exit-code", "300"});
     },
     105,
     {"--exit-code", "300", "255"}},  // CLI11's wording differs between releases
    {"diagnose_bad_hostlist",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--nodes", "n[1-"});
     },
     1,
     {"'[' without ']'"}},
    {"diagnose_hostlist_bomb",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--nodes", "n[0-99999999999]"});
     },
     1,
     {"--nodes"}},
    {"diagnose_node_state_outside",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--nodes", "n1", "--node-state",
                      "n9=DOWN"});
     },
     1,
     {"not in --nodes"}},
    {"diagnose_node_state_empty",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--node-state", "n1="});
     },
     1,
     {"no state after '='"}},
    // --- rules files -------------------------------------------------------------------
    {"rules_missing",
     [](auto& d) {
         return args(
             {"diagnose", "--log", file(d, "x.log", k_xid), "--rules", (d / "none.toml").string()});
     },
     1,
     {"cannot read rules file"}},
    {"rules_bad_toml",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--rules",
                      file(d, "r.toml", "[[rule]\nid = ")});
     },
     1,
     {"r.toml"}},
    {"rules_rule_without_source",
     [](auto& d) {
         return args({"diagnose", "--log", file(d, "x.log", k_xid), "--rules",
                      file(d, "r.toml", "[[rule]]\nid = \"x\"\npattern = \"([\"\n")});
     },
     1,
     {"rule 'x'"}},
    // --- checkpoints --------------------------------------------------------------------
    {"checkpoints_missing",
     [](auto& d) {
         return args({"checkpoints", (d / "no").string()});
     },
     1,
     {"No such file or directory"}},
    {"checkpoints_not_a_directory",
     [](auto& d) {
         return args({"checkpoints", file(d, "f", "x")});
     },
     1,
     {"Not a directory"}},
    {"checkpoints_negative_settle",
     [](auto& d) {
         return args({"checkpoints", d.string(), "--settle", "-5"});
     },
     105,
     {"not a number of seconds"}},
    {"checkpoints_pattern_with_slash",
     [](auto& d) {
         return args({"checkpoints", d.string(), "--pattern", "a/b"});
     },
     1,
     {"contains a '/'"}},
    {"checkpoints_fifo_candidate",
     [](auto& d) {
         fs::create_directory(d / "ck");
         ::mkfifo((d / "ck" / "step_5.pt").c_str(), 0600);
         return args({"checkpoints", (d / "ck").string(), "--settle", "0"});
     },
     1,
     {"a FIFO"}},
    {"checkpoints_symlink_loop",
     [](auto& d) {
         fs::create_directory(d / "ck");
         fs::create_symlink("last.ckpt", d / "ck" / "last.ckpt");
         return args({"checkpoints", (d / "ck").string(), "--settle", "0"});
     },
     1,
     {"no usable checkpoint"}},
    {"checkpoints_huge_central_directory",
     [](auto& d) {
         fs::create_directory(d / "ck");
         std::string eocd("PK\x05\x06\0\0\0\0\xe8\x03\xe8\x03\0\0\0\x40\0\0\0\0\0\0", 22);
         std::ofstream out(d / "ck" / "step_1.pt", std::ios::binary);
         out.seekp(std::streamoff{1} << 30);
         out << eocd;
         return args({"checkpoints", (d / "ck").string(), "--settle", "0"});
     },
     1,
     {"implausibly large"}},
    // --- the state directory --------------------------------------------------------------
    {"state_dir_is_a_file",
     [](auto& d) {
         file(d, "state", "x");
         return args({"status"});
     },
     1,
     {"is not a directory"},
     true},
    {"state_db_not_sqlite",
     [](auto& d) {
         fs::create_directory(d / "state");
         write_bytes(d / "state" / "supervisor.db", std::string(4096, '\x5a'));
         return args({"status"});
     },
     1,
     {"not a supervisor state database", "move the file away"},
     true},
    // --- configuration ------------------------------------------------------------------
    {"config_unknown_key",
     [](auto& d) {
         return args({"run", "--config", config(d, "pol = 1\n")});
     },
     1,
     {"unknown key 'pol'", "known keys"}},
    {"config_wrong_type",
     [](auto& d) {
         return args({"run", "--config", config(d, "poll_interval_ms = \"x\"\n")});
     },
     1,
     {"'poll_interval_ms' must be a positive integer"}},
    {"config_zero_retention",
     [](auto& d) {
         return args({"run", "--config", config(d, "retention_days = 0\n")});
     },
     1,
     {"retention_days"}},
    {"config_bad_tls",
     [](auto& d) {
         return args({"run", "--config", config(d, "[notify]\nsmtp_tls = \"maybe\"\n")});
     },
     1,
     {"unknown value 'maybe'"}},
    {"config_not_utf8",
     [](auto& d) {
         return args({"run", "--config", config(d, "poll_interval_ms = 5\n# \xff\n")});
     },
     1,
     {"utf-8"}},
    {"config_relative_metrics",
     [](auto& d) {
         return args({"run", "--config", config(d, "metrics_file = \"m.prom\"\n")});
     },
     1,
     {"absolute path"}},
    {"config_missing_explicit",
     [](auto& d) {
         return args({"run", "--config", (d / "none.toml").string()});
     },
     1,
     {"none.toml"}},
    {"doctor_bad_config",
     [](auto& d) {
         return args({"doctor", "--config", config(d, "poll_interval_ms = 0\n")});
     },
     1,
     {"FAIL  config"}},
    {"log_level_unknown",
     [](auto&) {
         return args({"--log-level", "loud", "status"});
     },
     105,
     {"unknown log level 'loud'"}},
    // --- sbatch's #SUPERVISOR directives ------------------------------------------------------
    {"sbatch_bad_directive",
     [](auto& d) {
         return args({"sbatch",
                      file(d, "j.sbatch", "#!/bin/bash\n#SUPERVISOR --max-attempts lots\necho\n")});
     },
     1,
     {"j.sbatch:2", "Nothing was submitted"}},
    {"sbatch_unknown_directive_option",
     [](auto& d) {
         return args(
             {"sbatch", file(d, "j.sbatch", "#!/bin/bash\n#SUPERVISOR --rm -rf /\necho\n")});
     },
     1,
     {"j.sbatch:2"}},
    {"sbatch_unterminated_quote",
     [](auto& d) {
         return args({"sbatch", file(d, "j.sbatch",
                                     "#!/bin/bash\n#SUPERVISOR --notify 'mailto:a@b\necho\n")});
     },
     1,
     {"j.sbatch:2"}},
};

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, GetsAClearErrorOrASafeVerdict) {
    const auto& c = GetParam();
    const auto dir = fresh_directory(std::string("bad-input-") + c.name);
    const auto state = dir / "state";
    std::vector<std::string> all{"--state-dir", state.string(), "--slurm-conf",
                                 (dir / "no-slurm.conf").string()};
    for (auto& arg : c.setup(dir)) {
        all.push_back(std::move(arg));
    }
    const auto run = run_supervisor(all);
    const auto output = run.out + run.err;
    EXPECT_EQ(run.status, c.status) << output;
    for (const auto& word : c.words) {
        EXPECT_NE(output.find(word), std::string::npos) << "'" << word << "' in:\n" << output;
    }
    EXPECT_EQ(output.find("internal error"), std::string::npos) << output;
    EXPECT_EQ(output.find("terminate called"), std::string::npos) << output;
    if (c.state_is_the_bad_input) {
        return;
    }
    // The state directory is still usable.
    const auto status =
        run_supervisor({"--state-dir", state.string(), "status", "--all", "--json"});
    EXPECT_EQ(status.status, 0) << status.err;
    EXPECT_FALSE(nlohmann::json::parse(status.out, nullptr, false).is_discarded()) << status.out;
}

// SUPERVISOR_SOCKET names the site daemon: when nothing listens there, a command says so and
// writes nothing anywhere, instead of quietly using a state directory of the user's own,
// where a registration would be watched by nobody. `sbatch` submits nothing.
TEST(SiteSocket, ANamedSocketNobodyListensOnIsAClearErrorNotAQuietFallback) {
    const auto dir = fresh_directory("named-socket");
    const auto socket = dir / "nobody.sock";
    const auto home = dir / "home";
    auto with_socket = [&](std::initializer_list<std::string> words) {
        std::vector<std::string> command{"-u", "SUPERVISOR_STATE_DIR",
                                         "SUPERVISOR_SOCKET=" + socket.string(),
                                         "XDG_STATE_HOME=" + home.string(), SUPERVISOR_BINARY};
        command.insert(command.end(), words);
        return run_supervisor(command, {}, "/usr/bin/env");
    };
    for (const auto& run : {with_socket({"status"}), with_socket({"unregister", "12345"})}) {
        EXPECT_EQ(run.status, 1) << run.out << run.err;
        EXPECT_NE(run.err.find("cannot reach the site daemon (" + socket.string() + ")"),
                  std::string::npos)
            << run.err;
    }
    const auto script = dir / "job.sbatch";
    std::ofstream(script) << "#!/bin/bash\necho hi\n";
    const auto sbatch = with_socket({"sbatch", script.string()});
    EXPECT_EQ(sbatch.status, 1) << sbatch.out << sbatch.err;
    EXPECT_NE(sbatch.err.find("is not a socket"), std::string::npos) << sbatch.err;
    EXPECT_NE(sbatch.err.find("nothing was submitted"), std::string::npos) << sbatch.err;
    EXPECT_FALSE(fs::exists(home)) << "no state directory of the user's own was made";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(k_cases),
                         [](const auto& instance) { return std::string(instance.param.name); });

}  // namespace
}  // namespace cli::test
