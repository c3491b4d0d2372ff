#include "supervisor/actions/resume_env.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

namespace {

namespace fs = std::filesystem;
using supervisor::format_json;
using supervisor::format_shell;
using supervisor::validate_env_entry;
using supervisor::write_env_file;
using test_support::read_text;

TEST(ResumeEnv, AcceptsOrdinaryNamesAndValues) {
    EXPECT_TRUE(validate_env_entry("BATCH_SIZE", "32"));
    EXPECT_TRUE(validate_env_entry("_private1", "a b 'c' $(d)"));
    EXPECT_TRUE(validate_env_entry("SUPERVISOR_RESUME_FROM", "/ckpt/step_000020.pt"));
}

TEST(ResumeEnv, RejectsNamesThatAreNotShellVariables) {
    for (const std::string name : {"", "1ABC", "A-B", "A B", "A=B", "A;rm", "$(x)", "É"}) {
        const auto result = validate_env_entry(name, "1");
        EXPECT_FALSE(result) << "name '" << name << "'";
    }
}

TEST(ResumeEnv, RejectsReservedNames) {
    // A knob's variable is never one that changes how programs load or run (issue 32).
    for (const std::string name :
         {"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "IFS", "BASH_ENV", "SLURM_JOB_ID",
          "SLURM_NODELIST", "LD_AUDIT", "PYTHONSTARTUP", "BASH_FUNC_x", "GLIBC_TUNABLES",
          "NODE_OPTIONS", "PERL5OPT", "JAVA_TOOL_OPTIONS"}) {
        const auto result = validate_env_entry(name, "1");
        ASSERT_FALSE(result) << name;
        EXPECT_NE(result.error().message.find(name), std::string::npos) << result.error().message;
        EXPECT_NE(result.error().message.find("reserved"), std::string::npos);
    }
}

TEST(ResumeEnv, RejectsNewlinesAndNulBytesInValues) {
    EXPECT_FALSE(validate_env_entry("X", "a\nexport PATH=/evil"));
    EXPECT_FALSE(validate_env_entry("X", std::string("a\0b", 3)));
}

TEST(ResumeEnv, ShellFormatSingleQuotesEverythingAndEscapesQuotes) {
    const state::ResumeEnv env{{"X", "it's $(rm -rf /)"}, {"A", "`id` ${HOME} \\ \"q\""}};
    EXPECT_EQ(format_shell(env),
              "export A='`id` ${HOME} \\ \"q\"'\n"
              "export X='it'\\''s $(rm -rf /)'\n");
}

TEST(ResumeEnv, ShellFormatOfEmptyValue) {
    EXPECT_EQ(format_shell({{"EMPTY", ""}}), "export EMPTY=''\n");
}

TEST(ResumeEnv, JsonFormatEscapesValues) {
    EXPECT_EQ(format_json({{"X", "a\"b"}, {"SUPERVISOR_ATTEMPT", "2"}}),
              R"({"SUPERVISOR_ATTEMPT":"2","X":"a\"b"})");
}

TEST(ResumeEnv, EnvFilePathIsUnderTheStateDirectory) {
    EXPECT_EQ(supervisor::env_file_path("/var/lib/sv", common::JobId{1234, 7}),
              fs::path("/var/lib/sv/env/1234_7.sh"));
}

TEST(ResumeEnv, WriteEnvFileWritesAtomicallyAndLeavesNoTemporary) {
    test_support::TempDir dir;
    const auto path = dir.path() / "env" / "1000.sh";  // env/ does not exist yet
    const state::ResumeEnv env{{"SUPERVISOR_ATTEMPT", "2"},
                               {"SUPERVISOR_RESUME_FROM", "/ckpt/it's.pt"}};
    const auto written = write_env_file(path, env);
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(read_text(path),
              "# written by slurm-supervisor; sourced by the job on (re)start\n"
              "export SUPERVISOR_ATTEMPT='2'\n"
              "export SUPERVISOR_RESUME_FROM='/ckpt/it'\\''s.pt'\n");
    for (const auto& entry : fs::directory_iterator(path.parent_path())) {
        EXPECT_EQ(entry.path().filename(), "1000.sh") << "left behind: " << entry.path();
    }
    // Read by the job's owner only (per-user mode: the daemon's own user).
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
}

TEST(ResumeEnv, WriteEnvFileReplacesThePreviousContent) {
    test_support::TempDir dir;
    const auto path = dir.path() / "env" / "1000.sh";
    ASSERT_TRUE(write_env_file(path, {{"SUPERVISOR_ATTEMPT", "1"}, {"OLD", "x"}}));
    ASSERT_TRUE(write_env_file(path, {{"SUPERVISOR_ATTEMPT", "2"}}));
    const auto text = read_text(path);
    EXPECT_NE(text.find("export SUPERVISOR_ATTEMPT='2'\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("OLD"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST(ResumeEnv, WriteEnvFileFailsWithThePathWhenTheDirectoryCannotBeCreated) {
    test_support::TempDir dir;
    std::ofstream(dir.path() / "blocker") << "a file, not a directory";
    const auto path = dir.path() / "blocker" / "env" / "1000.sh";
    const auto written = write_env_file(path, {{"SUPERVISOR_ATTEMPT", "1"}});
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find((dir.path() / "blocker").string()), std::string::npos)
        << written.error().message;
}

}  // namespace
